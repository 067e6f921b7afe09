//! The symmetry view's commands: its layout, the algorithm's stages and
//! step 3 by hand, comparing with the marked state, the reduced walk and
//! the representative strategy.

use std::path::PathBuf;

use super::super::config::PaneId;
use super::super::engine::{Request, StateSymmetry};
use super::super::layout::{self, Settings};
use super::super::panes::events::EventsPane;
use super::super::panes::symmetry::SymmetryPane;
use super::super::panes::symmetry::{Laid, Section, stages};
use super::super::prompt::{Prompt, Purpose};
use super::{App, Job, Overlay};
use crate::explain::by_hand::split_offs;

impl App {
    /// Why a command about representatives does nothing here: the
    /// process is not symmetric (`then` goes on), or it is shown under
    /// its structural group, which the animator draws but does not walk.
    fn not_reducible(&self, then: &str) -> String {
        if self
            .walk
            .as_ref()
            .is_some_and(|w| w.symmetry.structure.is_some())
        {
            "the animator's representatives are by datatypes; the structural group (the symmetry \
             view draws it) reduces `symcsp explore` and `symcsp check` with --symmetry \
             structural"
                .to_string()
        } else if then.starts_with("so") {
            format!("this process is not symmetric, {then}")
        } else {
            format!("this process is not symmetric: {then}")
        }
    }

    /// Opens the symmetry view for a command about the algorithm; why
    /// not, when the process is not symmetric.
    pub(super) fn algorithm_command(&mut self) -> bool {
        self.open_symmetry();
        // The explanation the view opened for, if it comes quickly.
        self.await_quick();
        if self.walk.as_ref().is_some_and(|w| !w.reducible) {
            self.complain(self.not_reducible("the symmetry view says why"));
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
        let own: Vec<usize> = split_offs(&x.trace).iter().map(|s| s.0).collect();
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

    /// Asks for the file to export the stages to.
    pub(super) fn ask_export(&mut self) {
        match &self.walk {
            None => return self.complain("nothing is animated: there are no stages to export"),
            Some(w) if !w.reducible => {
                return self.complain(
                    "this process is not symmetric: there are no stages to export (the \
                     symmetry view says why)",
                );
            }
            Some(_) => {}
        }
        let path = self.export_path.as_ref().map_or_else(
            || "symcsp-stages.md".to_string(),
            |p| p.display().to_string(),
        );
        self.overlay = Some(Overlay::Prompt(Prompt::new(Purpose::ExportStages, &path)));
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
        // The exact path to the state shown, τ steps included (with the
        // event each hides): the visible events alone may lead further
        // or less far.
        let trace: Vec<String> = (1..=walk.path.position())
            .map(|p| match walk.step_label(p) {
                (event, Some(hidden)) => format!("{event} ‹{hidden}›"),
                (event, None) => event,
            })
            .collect();
        let request = Request::Export {
            at: walk.path.current(),
            choices: self
                .panes
                .of_type::<SymmetryPane>()
                .hand
                .as_ref()
                .map_or_else(Vec::new, |h| h.choices.clone()),
            want: self.want(),
            trace,
            path: PathBuf::from(path),
        };
        self.request(Job::Export, request);
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
        let Some(marked) = walk.mark.as_ref().map(|m| (m.at, m.reduced)) else {
            self.complain("mark a state first (m), then go to another and press =");
            return;
        };
        if !walk.reducible {
            self.open_symmetry();
            self.complain(self.not_reducible("the symmetry view says why"));
            return;
        }
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
            self.complain(self.not_reducible("so it has no reduced walk"));
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
            self.complain(self.not_reducible("so it has no representatives to find"));
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
        let symmetry = self.panes.of_type_mut::<SymmetryPane>();
        symmetry.show(if symmetry.section == Section::Graph {
            Section::Representative
        } else {
            Section::Graph
        });
    }
}
