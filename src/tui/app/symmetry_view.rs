//! The symmetry view's commands: its layout, the algorithm's stages and
//! step 3 by hand, comparing with the marked state, the reduced walk and
//! the representative strategy.

use std::path::PathBuf;

use super::super::config::PaneId;
use super::super::engine::{Request, StateSymmetry, Want};
use super::super::layout::{self, Settings};
use super::super::model::Source;
use super::super::panes::events::EventsPane;
use super::super::panes::structure::lines as structure_lines;
use super::super::panes::symmetry::SymmetryPane;
use super::super::panes::symmetry::{Laid, Section, stages};
use super::super::prompt::{Prompt, Purpose};
use super::{App, Job, Overlay};
use crate::explain::command::{Reach, RepCommand};

/// What a command about representatives asked for, to say why it does
/// nothing where there are none to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    /// The algorithm's stages (`]`, `[`, `#`, `a`).
    Stages,
    /// Comparing with the marked state (`=`).
    Compare,
    /// The reduced walk (`W`).
    ReducedWalk,
    /// Another representative strategy (`y`).
    Strategy,
    /// The state as a graph of cells (`G`).
    Graph,
}

impl App {
    /// Why a command about representatives does nothing here, in a line
    /// that fits the message line at 100 columns: the process is not
    /// symmetric, or it is shown under its structural group, which the
    /// animator draws but whose representatives (least images over the
    /// group) have no stages.
    fn not_reducible(&self, asked: Asked) -> &'static str {
        match (self.structural(), asked) {
            (true, Asked::Stages) => {
                "no algorithm stages here: under the structural group a representative is a least \
                 image"
            }
            (true, Asked::Compare) => {
                "nothing to compare: under the structural group a representative is a least image"
            }
            (true, Asked::ReducedWalk) => {
                "the animator walks raw states here; explore and check reduce by the structural \
                 group"
            }
            (true, Asked::Strategy) => {
                "strategies are the datatype algorithm's; the structural group takes least images"
            }
            (true, Asked::Graph) => {
                "this view is the communication graph; G draws a state's cells under datatype \
                 symmetry"
            }
            (false, Asked::ReducedWalk) => {
                "this process is not symmetric, so it has no reduced walk"
            }
            (false, Asked::Strategy) => {
                "this process is not symmetric, so it has no representatives to find"
            }
            (false, Asked::Stages | Asked::Compare | Asked::Graph) => {
                "this process is not symmetric: the symmetry view says why"
            }
        }
    }

    /// Whether the symmetry view shows the structural group.
    fn structural(&self) -> bool {
        self.walk
            .as_ref()
            .is_some_and(|w| w.symmetry.structure.is_some())
    }

    /// Opens the symmetry view for a command about the algorithm; why
    /// not, when the process is not symmetric.
    pub(super) fn algorithm_command(&mut self) -> bool {
        self.open_symmetry();
        // The explanation the view opened for, if it comes quickly.
        self.await_quick();
        if self.walk.as_ref().is_some_and(|w| !w.reducible) {
            self.complain(self.not_reducible(Asked::Stages));
            return false;
        }
        self.walk.is_some()
    }

    /// Asks for a stage's number.
    pub(super) fn ask_stage(&mut self) {
        if !self.algorithm_command() {
            return;
        }
        let x = self.explained();
        let mut prompt = Prompt::new(Purpose::Stage, "");
        if let Some(x) = self
            .panes
            .of_type::<SymmetryPane>()
            .algorithm_of(x.as_deref())
        {
            prompt.hint = format!("1 to {}", stages(x));
        }
        self.overlay = Some(Overlay::Prompt(prompt));
    }

    /// Step 3 by hand: the split shown splits off the next member of its
    /// cell (the engine runs the algorithm so).
    pub(super) fn choose_member(&mut self) {
        if !self.algorithm_command() {
            return;
        }
        let Some(x) = self.explained() else {
            self.complain("the representative is still being computed: try again");
            return;
        };
        let choices = match self.panes.of_type_mut::<SymmetryPane>().next_choice(&x) {
            Ok(choices) => choices,
            Err(why) => return self.complain(why),
        };
        // Round the cell and back to the algorithm's own choices: its own
        // stages again.
        let own: Vec<usize> = x.trace.split_offs().iter().map(|s| s.0).collect();
        if own.starts_with(&choices) {
            self.panes.of_type_mut::<SymmetryPane>().hand = None;
            self.say("step 3 as the algorithm makes it: its own representative");
            return;
        }
        let Some(at) = self.walk.as_ref().map(|w| w.path.current()) else {
            return;
        };
        let want = self.want();
        self.request(Job::Choose, Request::Choose { at, choices, want });
    }

    /// Asks for the file to export the stages to (under the structural
    /// group, the view itself).
    pub(super) fn ask_export(&mut self) {
        let (purpose, default) = match &self.walk {
            None => return self.complain("nothing is animated: there are no stages to export"),
            Some(_) if self.structural() => (Purpose::ExportStructure, "structure"),
            Some(w) if !w.reducible => {
                return self.complain(
                    "this process is not symmetric: there are no stages to export (the \
                     symmetry view says why)",
                );
            }
            Some(_) => (Purpose::ExportStages, "stages"),
        };
        let path = match (&self.export_path, purpose) {
            (Some(p), Purpose::ExportStages) => p.clone(),
            _ => self.new_export_file(default),
        };
        let path = path.display().to_string();
        self.overlay = Some(Overlay::Prompt(Prompt::new(purpose, &path)));
    }

    /// A file no export has written yet, `NAME-N.md` for the first N
    /// free: in the folder the animator keeps walks in (outside any
    /// checkout the script is in), or beside the script where the system
    /// has no such folder.
    fn new_export_file(&self, name: &str) -> PathBuf {
        let folder = match (&self.keep_walks_in, &self.source) {
            (Some(folder), _) => folder.clone(),
            (None, Source::File(script)) => script.parent().map(PathBuf::from).unwrap_or_default(),
            (None, Source::Builtin(_)) => PathBuf::new(),
        };
        (1..=u32::MAX)
            .map(|n| folder.join(format!("{name}-{n}.md")))
            .find(|path| !path.exists())
            .unwrap_or_else(|| folder.join(format!("{name}.md")))
    }

    /// Makes the folder the animator keeps walks in when `path` is in
    /// it and it is not there yet (the first export to the path offered);
    /// any other folder is the user's to make.
    fn make_export_folder(&self, path: &std::path::Path) -> Result<(), String> {
        match (&self.keep_walks_in, path.parent()) {
            (Some(folder), Some(parent)) if parent == folder && !folder.exists() => {
                std::fs::create_dir_all(folder)
                    .map_err(|e| format!("cannot make {}: {e}", folder.display()))
            }
            _ => Ok(()),
        }
    }

    /// Writes the structural view, as it reads on the screen, to `path`
    /// as Markdown: what the view shows is all there is to export of the
    /// structural group (its representatives have no stages).
    pub(super) fn export_structure(&mut self, path: &str) {
        if path.is_empty() {
            return self.complain("no file named: the structure was not exported");
        }
        let Some(walk) = &self.walk else {
            return;
        };
        let Some(structure) = &walk.symmetry.structure else {
            return;
        };
        let lines: Vec<String> = structure_lines(&self.config.theme, structure)
            .iter()
            .map(|line| line.to_string())
            .collect();
        let text = format!(
            "# The communication structure of `{}`\n\n- script: {}\n- shown by: the \
             animator's symmetry view (E), under --symmetry structural\n\n```text\n{}\n```\n",
            walk.process,
            crate::files::relative(self.source.name()),
            lines.join("\n").trim_end()
        );
        let path = PathBuf::from(path);
        if let Err(problem) = self.make_export_folder(&path) {
            return self.complain(problem);
        }
        match crate::files::write_atomically(&path, text.as_bytes()) {
            Ok(()) => self.say(format!(
                "the communication structure written to {} (Markdown)",
                path.display()
            )),
            Err(e) => self.complain(format!("cannot write {}: {e}", path.display())),
        }
    }

    /// Exports the stages of the state shown (with step 3 as made by
    /// hand) to `path`.
    pub(super) fn export(&mut self, path: &str) {
        if path.is_empty() {
            return self.complain("no file named: the stages were not exported");
        }
        let Some(walk) = &self.walk else {
            return;
        };
        // The exact path to the raw state, τ steps included (with the
        // event each hides): the visible events alone may lead further
        // or less far.
        let trace: Vec<String> = (1..=walk.path.position())
            .map(|p| {
                let (event, hidden) = walk.label_in(p, false);
                crate::lts::animator::step_text(&event, hidden.as_deref())
            })
            .collect();
        let choices = self
            .panes
            .of_type::<SymmetryPane>()
            .hand
            .as_ref()
            .map_or_else(Vec::new, |h| h.choices.clone());
        // No command reaches the reduced walk's representative: the
        // export is of the raw state here, which `command` reaches, so
        // that the file is what the command prints.
        let of_representative = walk.reduced && walk.path.current().has_reduced();
        if of_representative && !choices.is_empty() {
            return self.complain(
                "step 3 by hand was made on the reduced walk's representative, which no command \
                 reaches: walk the raw system to export it",
            );
        }
        let path = PathBuf::from(path);
        if let Err(problem) = self.make_export_folder(&path) {
            return self.complain(problem);
        }
        let want = Want {
            reduced: false,
            ..self.want()
        };
        let command = self.rep_command(&choices);
        let request = Request::Export {
            at: walk.path.current(),
            choices,
            want,
            trace,
            command,
            path,
        };
        self.request(Job::Export { of_representative }, request);
    }

    /// The `symcsp rep` command line that prints the stages an export
    /// of the current raw state holds: the script (relative to the
    /// current directory), the process, `--symmetry` if it was given,
    /// the exact path by move numbers (τ steps included) and step 3's
    /// hand `choices` (components from 0).
    fn rep_command(&self, choices: &[usize]) -> String {
        let Some(walk) = &self.walk else {
            return String::new();
        };
        let file = match &self.source {
            Source::File(path) => crate::files::relative(path),
            Source::Builtin(model) => format!("models/{}", model.name),
        };
        let moves: Vec<usize> = (1..=walk.path.position())
            .map(|p| walk.path.step(p).choice as usize + 1)
            .collect();
        let choose: Vec<usize> = choices.iter().map(|c| c + 1).collect();
        RepCommand {
            file: &file,
            process: &walk.process,
            symmetry: self.asked_symmetry.as_deref(),
            strategy: None,
            reach: Reach::Path(&moves),
            choose: &choose,
            stage: None,
            format: "markdown",
        }
        .line()
    }

    /// The symmetry view laid out as it is drawn.
    pub(super) fn symmetry_laid(&self) -> Option<Laid> {
        let walk = self.walk.as_ref()?;
        let x = walk.shown.as_ref().and_then(|s| s.symmetry.as_deref());
        let width = self.symmetry_width(self.settings());
        Some(self.panes.of_type::<SymmetryPane>().laid_out(
            &self.config.theme,
            &walk.symmetry,
            x,
            usize::from(width),
        ))
    }

    /// The symmetry view's width inside its border, laid out by
    /// `settings` (the screen's, when they leave it out).
    pub(super) fn symmetry_width(&self, settings: Settings) -> u16 {
        layout::areas(settings)
            .iter()
            .find(|(p, _)| *p == PaneId::SYMMETRY)
            .map_or(self.size.0, |(_, r)| r.width)
            .saturating_sub(2)
    }

    /// The current state's explanation, if the engine gave one.
    pub(super) fn explained(&self) -> Option<Box<StateSymmetry>> {
        self.walk.as_ref()?.shown.as_ref()?.symmetry.clone()
    }

    /// Opens the symmetry view if it is closed (asking for the current
    /// state's explanation).
    pub(super) fn open_symmetry(&mut self) {
        if !self.panes.of_type::<SymmetryPane>().open {
            self.panes.of_type_mut::<SymmetryPane>().open = true;
            self.focus = PaneId::SYMMETRY;
            self.show_again();
        }
    }

    pub(super) fn compare(&mut self) {
        let Some(walk) = &self.walk else {
            return;
        };
        if !walk.reducible {
            self.open_symmetry();
            self.complain(self.not_reducible(Asked::Compare));
            return;
        }
        let Some(marked) = walk.mark.as_ref().map(|m| (m.at, m.reduced)) else {
            self.complain("mark a state first (m), then go to another and press =");
            return;
        };
        let here = (walk.path.current(), walk.reduced);
        self.request(Job::Compare, Request::Compare { marked, here });
    }

    pub(super) fn toggle_reduced(&mut self) {
        self.await_quick();
        let Some(walk) = &mut self.walk else {
            return;
        };
        if !walk.reducible {
            self.open_symmetry();
            self.complain(self.not_reducible(Asked::ReducedWalk));
            return;
        }
        if self.busy.is_some() {
            self.complain("busy (Esc cancels)");
            return;
        }
        walk.reduced = !walk.reduced;
        let text = if walk.reduced {
            "walking the reduced system: every state shown is a representative (W: back to raw \
             states)"
        } else {
            "walking the raw system again (the same path)"
        };
        self.panes.of_type_mut::<EventsPane>().list.selected = 0;
        self.say(text);
        self.show_again();
    }

    /// The next representative strategy, for the symmetry view and the
    /// reduced walk: the walks are opened again under it (a reload).
    pub(super) fn cycle_strategy(&mut self) {
        if self.check_running() {
            self.complain("wait for the running check (or cancel it) before changing the strategy");
            return;
        }
        if self.busy.is_some() {
            self.complain("busy (Esc cancels)");
            return;
        }
        let Some(walk) = &self.walk else {
            return;
        };
        if !walk.reducible {
            self.open_symmetry();
            self.complain(self.not_reducible(Asked::Strategy));
            return;
        }
        let before = self.strategy;
        self.strategy = self.strategy.next();
        self.open_symmetry();
        let said = format!(
            "representatives by the {} strategy: {}",
            self.strategy,
            self.strategy.summary()
        );
        self.reload_with(None, Some((said, before)));
    }
    /// Opens or closes the symmetry view.
    pub(super) fn toggle_symmetry(&mut self) {
        let symmetry = self.panes.of_type_mut::<SymmetryPane>();
        symmetry.open = !symmetry.open;
        if symmetry.open {
            self.panes
                .of_type_mut::<SymmetryPane>()
                .show(Section::Representative);
            self.focus = PaneId::SYMMETRY;
            self.show_again();
        } else if self.focus == PaneId::SYMMETRY {
            self.focus = PaneId::EVENTS;
        }
    }

    /// Scrolls the symmetry view to the right (`right`) or the left.
    pub(super) fn scroll_sideways(&mut self, right: bool) {
        self.open_symmetry();
        let overflow = self.symmetry_laid().map_or(0, |laid| laid.overflow);
        if let Err(why) = self
            .panes
            .of_type_mut::<SymmetryPane>()
            .scroll_sideways(right, overflow)
        {
            self.complain(why);
        }
    }

    /// Steps through the algorithm's stages, `forward` or back.
    pub(super) fn algorithm_step(&mut self, forward: bool) {
        if !self.algorithm_command() {
            return;
        }
        let x = self.explained();
        if let Some(note) = self
            .panes
            .of_type_mut::<SymmetryPane>()
            .step(forward, x.as_deref())
        {
            self.complain(note);
        }
    }

    /// Marks the current state, to compare others with.
    pub(super) fn mark(&mut self) {
        // A mark is for `=`, which has nothing to compare here.
        if self.walk.as_ref().is_some_and(|w| !w.reducible) {
            return self.complain(self.not_reducible(Asked::Compare));
        }
        if let Some(walk) = &mut self.walk {
            walk.mark_here();
            let p = walk.path.position();
            self.say(format!(
                "state {p} marked: go to another state and press = to compare"
            ));
        }
    }

    /// Shows the symmetry view's graph, or its representative again.
    pub(super) fn toggle_graph(&mut self) {
        self.open_symmetry();
        if self.walk.as_ref().is_some_and(|w| !w.reducible) {
            return self.complain(self.not_reducible(Asked::Graph));
        }
        let symmetry = self.panes.of_type_mut::<SymmetryPane>();
        symmetry.show(if symmetry.section == Section::Graph {
            Section::Representative
        } else {
            Section::Graph
        });
    }
}
