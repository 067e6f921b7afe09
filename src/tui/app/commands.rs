//! The key-bound commands: where each [`Command`] goes (an open
//! overlay, the focused pane, or the job that carries it out), with
//! moving the focus, cancelling and reloading.

use crate::lts::machine::Preserve;
use std::path::PathBuf;

use ratatui::text::Line;

use super::super::config::{Command, PaneId};
use super::super::engine::Request;
use super::super::model::Source;
use super::super::panes::checks::ChecksPane;
use super::super::panes::events::EventsPane;
use super::super::panes::script::ScriptPane;
use super::super::panes::symmetry::Section;
use super::super::panes::symmetry::SymmetryPane;
use super::super::panes::{Context, Effect};
use super::super::walk::Walk;
use super::super::{help, layout};
use super::{App, Job, Overlay};
use crate::lts::animator::EventKind;
use crate::symmetry::strategy::Strategy;

impl App {
    /// Carries out a key-bound command: on an open overlay, what the
    /// overlay does with it ([`App::overlay_command`]).
    pub(super) fn command(&mut self, command: Command) {
        if self.overlay.is_some() {
            return self.overlay_command(command);
        }
        if !matches!(command, Command::Cancel | Command::Quit | Command::Help) {
            // A complaint answered a key before: this one makes it stale
            // (`there is no event 2` stayed through a reload). Cleared
            // before the previous key's reply is taken in, which may
            // complain itself.
            if self.message.as_ref().is_some_and(|m| m.error && !m.lasting) {
                self.message = None;
            }
            // Keys act on what the screen is about to show.
            self.await_quick();
        }
        match command {
            Command::Quit => self.quit_or_ask(),
            Command::Help => {
                self.help_scroll = 0;
                self.overlay = Some(Overlay::Help)
            }
            Command::Cancel => self.cancel(),
            Command::NextPane | Command::PrevPane => {
                self.cycle_focus(command == Command::NextPane);
            }
            Command::PaneLeft | Command::PaneRight => {
                self.focus_beside(command == Command::PaneRight);
            }
            Command::FireNth(n) => self.fire_nth(n),
            Command::Undo => self.undo(),
            Command::Redo => self.redo(),
            Command::RandomStep => self.random_step(),
            Command::RandomRun => self.ask_random_run(),
            Command::Initial => self.goto(0),
            Command::Filter => self.ask_filter(),
            Command::RunCheck => {
                let checks = self.panes.of_type_mut::<ChecksPane>();
                let effect = checks.run(checks.list.selected, &self.budget.clone());
                self.effect(effect);
            }
            Command::RunAllChecks => {
                let effect = self
                    .panes
                    .of_type_mut::<ChecksPane>()
                    .run_all(&self.budget.clone());
                self.effect(effect);
            }
            Command::OpenCounterexample => {
                self.open_counterexample(self.panes.of_type::<ChecksPane>().list.selected)
            }
            Command::TypeProcess => self.ask_process(),
            Command::Maximise => self.maximised = !self.maximised,
            Command::Grow | Command::Shrink => self.resize_column(command == Command::Grow),
            Command::SaveSession => self.ask_session_path(),
            Command::Reload => self.reload(),
            Command::ToggleSymmetry => self.toggle_symmetry(),
            Command::GoToStage => self.ask_stage(),
            Command::ChooseMember => self.choose_member(),
            Command::ExportStages => self.ask_export(),
            Command::ScrollLeft | Command::ScrollRight => {
                self.scroll_sideways(command == Command::ScrollRight);
            }
            Command::AlgorithmNext | Command::AlgorithmBack => {
                self.algorithm_step(command == Command::AlgorithmNext);
            }
            Command::Mark => self.mark(),
            Command::Compare => self.compare(),
            Command::FollowTrace => self.ask_trace(),
            Command::Graph => self.toggle_graph(),
            Command::WalkReduced => self.toggle_reduced(),
            Command::CycleStrategy => self.cycle_strategy(),
            Command::SwapWalk => self.swap_walk(),
            Command::ShowTypes => self.toggle_types(),
            Command::PartialOrder => self.cycle_partial_order(),
            Command::Up
            | Command::Down
            | Command::PageUp
            | Command::PageDown
            | Command::Top
            | Command::Bottom
            | Command::Activate => self.pane_command(command),
        }
    }

    /// A command while an overlay is open: the help and a problem close
    /// (a problem then lets the command through) and the help scrolls;
    /// the prompts and confirmations do nothing with it (their keys come
    /// as prompt keys).
    fn overlay_command(&mut self, command: Command) {
        let Some(overlay) = &self.overlay else {
            return;
        };
        let closes = matches!(command, Command::Cancel | Command::Help | Command::Quit);
        let help = *overlay == Overlay::Help;
        if matches!(overlay, Overlay::Help | Overlay::Problem(_)) && closes {
            self.overlay = None;
            return;
        }
        if matches!(overlay, Overlay::Problem(_)) {
            self.overlay = None;
            return self.command(command);
        }
        if help {
            let page = self.page();
            self.help_scroll = match command {
                Command::Up => self.help_scroll.saturating_sub(1),
                Command::Down => self.help_scroll + 1,
                Command::PageUp => self.help_scroll.saturating_sub(page),
                Command::PageDown => self.help_scroll + page,
                Command::Top => 0,
                Command::Bottom => usize::MAX,
                _ => self.help_scroll,
            }
            .min(self.help_lines().len());
        }
    }

    /// The help overlay's lines for the focused pane.
    pub fn help_lines(&self) -> Vec<Line<'static>> {
        let activate = self
            .panes
            .get(self.focus)
            .map_or("", |pane| pane.activate_help());
        help::lines(&self.config, self.focus, activate)
    }

    /// Moves the focus to the next pane on the screen (`forward`) or the
    /// one before, round the end.
    fn cycle_focus(&mut self, forward: bool) {
        let visible = layout::order(self.settings());
        if let Some(at) = visible.iter().position(|&p| p == self.focus) {
            let n = visible.len();
            let step = if forward { 1 } else { n - 1 };
            self.focus = visible[(at + step) % n];
        } else if let Some(&first) = visible.first() {
            self.focus = first;
        }
    }

    /// Moves the focus to the pane to the right (`right`) or the left.
    fn focus_beside(&mut self, right: bool) {
        if let Some(pane) = layout::beside(self.settings(), self.focus, right) {
            self.focus = pane;
        }
    }

    /// Shows or hides the definitions' types in the Script pane.
    fn toggle_types(&mut self) {
        self.panes.of_type_mut::<ScriptPane>().toggle_types();
        self.focus = PaneId::SCRIPT;
        if self.panes.of_type::<ScriptPane>().types_shown {
            self.say_selected_type();
        } else {
            self.say("types hidden");
        }
    }

    /// The partial order marks in the Events pane: off, then the moves a
    /// search keeping deadlocks follows, then one keeping traces,
    /// failures and divergences, then off again.
    fn cycle_partial_order(&mut self) {
        let key = self.key_of(Command::PartialOrder);
        let pane = self.panes.of_type_mut::<EventsPane>();
        pane.partial_order = match pane.partial_order {
            None => Some(Preserve::Deadlocks),
            Some(Preserve::Deadlocks) => Some(Preserve::Behaviour),
            Some(_) => None,
        };
        let text = match pane.partial_order {
            Some(Preserve::Deadlocks) => format!(
                "partial order: marking the moves a search keeping deadlocks follows (as \
                 :[deadlock free [F]] and explore --por); {key} again: keeping traces"
            ),
            Some(_) => format!(
                "partial order: marking the moves a search keeping traces, failures and \
                 divergences follows (as refinement, :[divergence free] and FD deadlock \
                 freedom); {key} again: off"
            ),
            None => "partial order marks off".to_string(),
        };
        self.say(text);
        self.show_again();
    }

    /// Why the Events pane is not on the screen, if it is not: then the
    /// keys that fire its events by number or selection would take a
    /// move the user cannot see, and do nothing but say so.
    pub fn events_hidden(&self) -> Option<String> {
        if layout::order(self.settings()).contains(&PaneId::EVENTS) {
            return None;
        }
        let key = |command| self.key_of(command);
        // Short: at 80 columns the status line is the only place it shows.
        Some(if self.maximised {
            format!(
                "the Events pane is hidden ({} shows it)",
                key(Command::Maximise)
            )
        } else {
            format!(
                "the symmetry view hides the Events pane ({} closes it)",
                key(Command::ToggleSymmetry)
            )
        })
    }

    /// A command for the focused pane; what it asks for is carried out.
    fn pane_command(&mut self, command: Command) {
        let effect = self.update_pane(self.focus, command);
        self.effect(effect);
    }

    /// Pane `id`'s answer to `command`.
    pub(super) fn update_pane(&mut self, id: PaneId, command: Command) -> Effect {
        let facts = self.facts(id);
        let cx = Context::new(
            &self.config,
            self.walk.as_ref(),
            self.problem.as_deref(),
            facts,
        );
        self.panes
            .get_mut(id)
            .map_or(Effect::None, |pane| pane.update(command, &cx))
    }

    /// With the types shown, the selected definition's type in full on
    /// the status line.
    fn say_selected_type(&mut self) {
        if self.panes.of_type::<ScriptPane>().types_shown
            && let Some(typed) = self.panes.of_type::<ScriptPane>().selected_type()
        {
            self.say(typed);
        }
    }

    fn resize_column(&mut self, grow: bool) {
        let Some(&(_, placement)) = self.placements.iter().find(|(id, _)| *id == self.focus) else {
            return;
        };
        let column = layout::width_of(placement.column);
        let delta: i32 = if grow { 4 } else { -4 };
        let new = (i32::from(self.widths[column]) + delta).clamp(12, 76);
        let change = new - i32::from(self.widths[column]);
        // The neighbour to the right (or left, for the last column) gives
        // or takes the difference.
        let other = if column == 2 { 1 } else { column + 1 };
        let neighbour = i32::from(self.widths[other]) - change;
        if (12..=76).contains(&neighbour) {
            self.relayout(|app| {
                app.widths[column] = new as u16;
                app.widths[other] = neighbour as u16;
            });
        }
    }

    pub(super) fn why_no_event(&self) -> String {
        let uncomputed = self
            .walk
            .as_ref()
            .and_then(|w| w.shown.as_ref())
            .is_some_and(|s| s.problem.is_some());
        if uncomputed {
            // Stepping away and back computes them again (a stopped
            // computation may then finish); at the initial state there
            // is nowhere to step.
            let again = if self.walk.as_ref().is_some_and(|w| w.path.position() > 0) {
                "u and Ctrl-r compute them again, "
            } else {
                ""
            };
            return format!(
                "this state's moves were not computed (the State pane says why; {again}L \
                 reloads a fixed script)"
            );
        }
        let terminated = self.walk.as_ref().is_some_and(|w| {
            let p = w.path.position();
            p > 0 && w.path.step(p).kind == EventKind::Tick
        });
        if terminated {
            "no event is possible: the process has terminated (✓)".to_string()
        } else {
            "no event is possible: this state is deadlocked".to_string()
        }
    }

    /// What the Events pane says when a state has no moves.
    pub fn no_event_text(&self) -> String {
        let why = self.why_no_event();
        let mark = if why.contains("terminated") {
            "✓"
        } else {
            "⊘"
        };
        format!("{mark} {why}")
    }

    fn cancel(&mut self) {
        if self.busy.is_some() {
            self.engine.control.cancel();
            self.cancelling = true;
            self.say("cancelling…");
        } else if let Some(h) = self.panes.of_type::<ChecksPane>().running() {
            h.cancel();
            self.panes.of_type_mut::<ChecksPane>().stop_queue();
            self.say("cancelling the check…");
        } else if self.focus == PaneId::SYMMETRY
            && self.panes.of_type::<SymmetryPane>().section == Section::Algorithm
            && self.panes.of_type::<SymmetryPane>().hand.is_some()
        {
            self.panes.of_type_mut::<SymmetryPane>().hand = None;
            let x = self.explained();
            if let Some(shown) = self.walk.as_ref().and_then(|w| w.shown.as_ref()) {
                self.panes
                    .of_type_mut::<SymmetryPane>()
                    .fit(x.as_deref(), shown.at, shown.reduced);
            }
            self.say("step 3 as the algorithm makes it again");
        } else if self.focus == PaneId::SYMMETRY
            && self.panes.of_type::<SymmetryPane>().section != Section::Representative
        {
            self.panes
                .of_type_mut::<SymmetryPane>()
                .show(Section::Representative);
        } else if !self.panes.of_type::<EventsPane>().filter.is_empty() {
            let moves = self.walk.as_ref().map_or(&[][..], |w| w.moves()).to_vec();
            self.panes
                .of_type_mut::<EventsPane>()
                .set_filter("", &moves);
        } else if self.maximised {
            self.maximised = false;
        } else {
            self.message = None;
        }
    }

    fn reload(&mut self) {
        if self.check_running() {
            self.complain("wait for the running check (or cancel it) before reloading");
            return;
        }
        if let Source::Builtin(model) = &self.source {
            let file = PathBuf::from("models").join(model.name);
            if file.is_file() {
                self.overlay = Some(Overlay::ConfirmOpen(file));
            } else {
                self.complain(format!(
                    "the built-in {} has no file to reload: open a file with `symcsp FILE`",
                    model.name
                ));
            }
            return;
        }
        self.reload_from(None);
    }

    /// Reads the script again, or `from` instead, replaying the walks.
    pub(super) fn reload_from(&mut self, from: Option<Source>) {
        self.reload_with(from, None);
    }

    /// [`App::reload_from`], for a new strategy when `strategy` says what
    /// to say once done and which to go back to otherwise.
    pub(super) fn reload_with(
        &mut self,
        from: Option<Source>,
        strategy: Option<(String, Strategy)>,
    ) {
        let want = self.want();
        match &self.walk {
            Some(walk) => {
                let request = Request::Reload {
                    from,
                    walk: walk.walk_path(),
                    earlier: self.earlier.as_ref().map(Walk::walk_path),
                    want,
                    strategy: self.strategy,
                };
                self.request(Job::Reload { strategy }, request);
            }
            None => {
                // Nothing loaded before: load afresh.
                let source = from.unwrap_or_else(|| self.source.clone());
                self.request(
                    Job::Open {
                        replaying: false,
                        following: false,
                    },
                    Request::Open {
                        source,
                        process: None,
                        symmetry: None,
                        strategy: self.strategy,
                        replay: None,
                        trace: None,
                    },
                );
            }
        }
    }
}
