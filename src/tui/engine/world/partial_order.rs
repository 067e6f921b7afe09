//! The `p` key's marks: what a search reduced by partial order does at
//! the state shown — the moves of its stubborn set — and, in words, how
//! each component joined the set or why every move is followed.

use crate::lts::animator::{Animator, step_text};
use crate::lts::machine::{GivenUp, Joined, Member, Preserve, StubbornSet, Widened};
use crate::tui::engine::{PartialOrderView, ShownMove, components};

/// The partial order view of the state `row`, whose moves are `moves`
/// (as [`Animator::enabled`] listed them).
pub(super) fn view(
    animator: &mut Animator,
    row: &[u32],
    preserve: Preserve,
    moves: &[ShownMove],
) -> PartialOrderView {
    let whole = |kept: String, why: Vec<String>| PartialOrderView {
        preserve,
        kept,
        applies: false,
        followed: vec![true; moves.len()],
        set: Vec::new(),
        why,
    };
    let (kept, set) = match animator.stubborn_set(row, preserve) {
        Ok(Ok(found)) => found,
        Ok(Err(why)) => return whole(format!("not applied: {why}"), Vec::new()),
        Err(e) => {
            let why = match e.stop_reason() {
                Some(stop) => format!("{} while exploring the components alone", stop.ended()),
                None => e.message.to_string(),
            };
            return whole(format!("not computed: {why}"), Vec::new());
        }
    };
    let mut view = PartialOrderView {
        preserve,
        kept: kept.to_string(),
        applies: true,
        followed: vec![true; moves.len()],
        set: Vec::new(),
        why: Vec::new(),
    };
    match set {
        StubbornSet::Trivial => {
            let why = match moves.len() {
                0 => "no move: nothing to leave out",
                _ => "one move: nothing to leave out",
            };
            view.why.push(why.to_string());
        }
        StubbornSet::Reduced { followed, members } => {
            view.followed = followed;
            view.set = members.iter().map(|m| m.slot).collect();
            view.why = members.iter().map(|m| joined(m, moves, animator)).collect();
        }
        StubbornSet::Whole(given_up) => view.why = widened(&given_up, moves),
    }
    view
}

/// How a component joined the set, in a sentence.
fn joined(member: &Member, moves: &[ShownMove], animator: &Animator) -> String {
    let who = member.slot + 1;
    match member.joined {
        Joined::Seed => format!("#{who} starts the set"),
        Joined::Shares { with, m } => {
            format!(
                "#{who} takes part in {} with #{}",
                label(moves, m),
                with + 1
            )
        }
        Joined::Waits { of, event, own } => {
            let show = |e| animator.processes().show_event(e);
            let part = if own == event {
                String::new()
            } else {
                format!(" (its {})", show(own))
            };
            format!(
                "#{who} must move before #{}'s {} can happen with it: #{who} does not offer \
                 its part{part} now",
                of + 1,
                show(event)
            )
        }
    }
}

/// Why every move is followed: the sets from each component, alike
/// reasons together.
fn widened(given_up: &[GivenUp], moves: &[ShownMove]) -> Vec<String> {
    let mut reasons: Vec<(String, Vec<usize>)> = Vec::new();
    for g in given_up {
        let reason = match g.why {
            Widened::Visible { m } => format!(
                "it holds {}, a visible event, and traces are kept",
                label(moves, m)
            ),
            Widened::Cycle { m } => format!(
                "it holds {}, which may close a cycle (a cycle must not leave a move out for ever)",
                label(moves, m)
            ),
            Widened::Terminated { slot } => format!("#{} has terminated", slot + 1),
            Widened::Outside { slot } => {
                format!("#{} is in a state outside its own state space", slot + 1)
            }
            Widened::Blocked => "none of its moves is enabled".to_string(),
            Widened::Everything => "it holds every move".to_string(),
        };
        match reasons.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, seeds)) => seeds.push(g.seed),
            None => reasons.push((reason, vec![g.seed])),
        }
    }
    reasons
        .into_iter()
        .map(|(reason, seeds)| format!("the set from {}: {reason}", components(&seeds)))
        .collect()
}

/// A move as the Events pane lists it (a τ with the event it hides).
fn label(moves: &[ShownMove], m: usize) -> String {
    moves.get(m).map_or_else(
        || format!("move {}", m + 1),
        |shown| step_text(&shown.label, shown.hidden.as_deref()),
    )
}
