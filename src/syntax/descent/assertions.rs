//! Assertions: refinements, property checks and their options
//! (`:[deadlock free [F]]`, `:[tau priority]: {..}` and the like).

use thin_vec::ThinVec;

use super::super::ast::{AssertOption, Assertion, AssertionKind, Expr, Model};
use super::super::build;
use super::super::tokens::Tok;
use super::{GiveUp, Mode, Parsed, Parser};

impl<'t> Parser<'t> {
    pub(super) fn assertion(&mut self) -> Parsed<Assertion> {
        let negated = self.eat(Tok::Not);
        let process = self.expr(Mode::Process)?;
        let kind = match self.tok.kind {
            Tok::Refine => {
                let op = self.bump();
                let text = self.text(op);
                let model = Model::from_abbreviation(&text[1..text.len() - 1]).ok_or(GiveUp)?;
                let imp = self.expr(Mode::Process)?;
                AssertionKind::Refinement {
                    spec: process,
                    model,
                    imp,
                }
            }
            Tok::PropertyOpen => {
                let start = self.tok.trail_before;
                self.bump();
                let (words, hyphenated) = self.words()?;
                let known = match words.as_slice() {
                    ["deadlock" | "divergence" | "livelock", "free"] => true,
                    ["deterministic"] | ["has", "trace"] | ["symmetric"] => !hyphenated,
                    _ => false,
                };
                if !known {
                    return Err(GiveUp);
                }
                let model = if self.at(Tok::LSquare) && !self.tok.nl_before {
                    self.bump();
                    let name = self.expect_same_line(Tok::Ident)?;
                    let model = Model::from_abbreviation(self.text(name)).ok_or(GiveUp)?;
                    self.expect_same_line(Tok::RSquare)?;
                    Some(model)
                } else {
                    None
                };
                self.expect_same_line(Tok::RSquare)?;
                let args = self.assertion_args()?;
                let span = self.span_to_trail(start);
                build::property_kind(&words, model, args, process, span)?
            }
            _ => return Err(GiveUp),
        };
        let mut options = ThinVec::new();
        while self.at(Tok::PropertyOpen) {
            let option = self.assert_option()?;
            build::check_option_not_repeated(&options, &option)?;
            options.push(option);
        }
        Ok(Assertion {
            negated,
            kind,
            options,
        })
    }

    fn assert_option(&mut self) -> Parsed<AssertOption> {
        // The rule starts with the newlines before `:[`.
        let start = self.tok.trail_before;
        self.bump();
        let (words, hyphenated) = self.words()?;
        let known = matches!(
            words.as_slice(),
            ["tau", "priority"]
                | ["tau", "priority", "over"]
                | ["partial", "order", "reduce"]
                | ["symmetry", "reduce"]
        );
        if !known || hyphenated {
            return Err(GiveUp);
        }
        self.expect_same_line(Tok::RSquare)?;
        let args = if self.at(Tok::Colon) && !self.tok.nl_before {
            let colon = self.bump();
            if self.no_option_args(colon.end).ok_or(GiveUp)? {
                None
            } else {
                Some(self.comma_list(|p| p.expr(Mode::Functional))?)
            }
        } else {
            None
        };
        let span = self.span_to_trail(start);
        Ok(AssertOption {
            kind: build::option_kind(&words, None, args, span)?,
            span,
        })
    }

    /// Whether an option's colon ending at `colon_end` has nothing after
    /// it: the rest of its line is blank or a comment, and the next line
    /// that is not blank starts in the first column (a new declaration),
    /// or the file ends. The grammar's `no_option_args`, on the text;
    /// `None` (left to the grammar) when a `{-` comment follows the colon.
    fn no_option_args(&self, colon_end: u32) -> Option<bool> {
        let text = self.lexer.text().as_bytes();
        let mut at = colon_end as usize;
        while at < text.len() && matches!(text[at], b' ' | b'\t' | b'\r') {
            at += 1;
        }
        if text[at..].starts_with(b"{-") {
            return None;
        }
        if text[at..].starts_with(b"--") {
            while at < text.len() && text[at] != b'\n' {
                at += 1;
            }
        }
        if at == text.len() {
            return Some(true);
        }
        if text[at] != b'\n' {
            return Some(false);
        }
        loop {
            // `at` is at a newline: skip the next line's indentation.
            at += 1;
            let line = at;
            while at < text.len() && matches!(text[at], b' ' | b'\t' | b'\r') {
                at += 1;
            }
            match text.get(at) {
                None => return Some(true),
                Some(b'\n') => continue,
                Some(_) => return Some(at == line),
            }
        }
    }

    /// The words of a property or option (`deadlock free`,
    /// `deadlock-free`, `tau priority over`), written as the grammar's
    /// atomic rules admit them: on one line, separated by spaces or by one
    /// hyphen. Also says whether a hyphen was used.
    fn words(&mut self) -> Parsed<(Vec<&'t str>, bool)> {
        let first = self.expect_same_line(Tok::Ident)?;
        let mut words = vec![self.text(first)];
        let mut hyphenated = false;
        loop {
            let gap = &self.lexer.text()[self.last_end as usize..self.tok.start as usize];
            if self.at(Tok::Ident) && !gap.is_empty() && gap.bytes().all(|b| b == b' ') {
                let word = self.bump();
                words.push(self.text(word));
            } else if self.at(Tok::Minus) && gap.is_empty() {
                let minus = self.bump();
                let word = self.expect(Tok::Ident)?;
                if word.start != minus.end {
                    return Err(GiveUp);
                }
                words.push(self.text(word));
                hyphenated = true;
            } else {
                return Ok((words, hyphenated));
            }
        }
    }

    /// `: e1, e2` after a property or option's `]`.
    fn assertion_args(&mut self) -> Parsed<Option<ThinVec<Expr>>> {
        if self.at(Tok::Colon) && !self.tok.nl_before {
            self.bump();
            Ok(Some(self.comma_list(|p| p.expr(Mode::Functional))?))
        } else {
            Ok(None)
        }
    }
}
