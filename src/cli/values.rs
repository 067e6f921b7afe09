//! The values of options that shells complete and help lists: the
//! strategies of `--strategy`, the words of `--symmetry` (beside which
//! any types of the script may be named). Each is read as before, a
//! wrong value refused in symcsp's words.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};

use crate::symmetry::strategy::Strategy;

/// `--strategy` (and `--strategies`, one at a time).
#[derive(Debug, Clone, Copy)]
pub struct StrategyValue;

impl TypedValueParser for StrategyValue {
    type Value = Strategy;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Strategy, clap::Error> {
        let by_name: fn(&str) -> Result<Strategy, String> = Strategy::parse;
        by_name.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            Strategy::ALL
                .into_iter()
                .map(|s| PossibleValue::new(s.name())),
        ))
    }
}

/// `--symmetry`: its words, offered for completion; the types it may
/// name instead are the script's, taken as written.
#[derive(Debug, Clone, Copy)]
pub struct SymmetryValue {
    /// Whether `off` and `structural` may be given (the commands that
    /// search; the others reduce by types or not at all).
    pub searches: bool,
}

impl TypedValueParser for SymmetryValue {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let words: &[&str] = if self.searches {
            &["auto", "off", "structural"]
        } else {
            &["auto"]
        };
        Some(Box::new(words.iter().map(|&w| PossibleValue::new(w))))
    }
}
