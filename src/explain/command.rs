//! The `symcsp rep` command line that prints an export of the stages,
//! written one way for everyone who shows it: `rep` puts it in its
//! Markdown export's heading (the `reproduce` row), and the animator's
//! `E` writes the export that command prints, so the file and the
//! command's output are the same bytes.

/// How the command reaches its state.
#[derive(Debug, Clone, Copy)]
pub enum Reach<'a> {
    /// `--after TRACE`, as the user wrote it.
    After(&'a str),
    /// `--path N,...`: the numbers of the moves, from 1, as the animator
    /// lists them (τ included).
    Path(&'a [usize]),
    /// The initial state.
    Initial,
}

/// What a `symcsp rep` command line says.
#[derive(Debug, Clone, Copy)]
pub struct RepCommand<'a> {
    /// The script, as the user reaches it from where they are.
    pub file: &'a str,
    pub process: &'a str,
    /// `--symmetry`, as given.
    pub symmetry: Option<&'a str>,
    /// `--strategy`, where it is not the default.
    pub strategy: Option<&'a str>,
    pub reach: Reach<'a>,
    /// `--choose`: components from 1.
    pub choose: &'a [usize],
    /// `--stage K`.
    pub stage: Option<usize>,
    /// `--format`.
    pub format: &'a str,
}

impl RepCommand<'_> {
    /// The command, every word as a POSIX shell reads it back.
    pub fn line(&self) -> String {
        let numbers = |list: &[usize]| {
            list.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(",")
        };
        let mut words = vec![
            "symcsp rep".to_string(),
            shell_word(self.file),
            shell_word(self.process),
        ];
        if let Some(types) = self.symmetry {
            words.push(format!("--symmetry {}", shell_word(types)));
        }
        if let Some(strategy) = self.strategy {
            words.push(format!("--strategy {}", shell_word(strategy)));
        }
        match self.reach {
            Reach::After(trace) => words.push(format!("--after {}", shell_word(trace))),
            Reach::Path(moves) if !moves.is_empty() => {
                words.push(format!("--path {}", numbers(moves)));
            }
            Reach::Path(_) | Reach::Initial => {}
        }
        if !self.choose.is_empty() {
            words.push(format!("--choose {}", numbers(self.choose)));
        }
        if let Some(stage) = self.stage {
            words.push(format!("--stage {stage}"));
        }
        words.push(format!("--format {}", shell_word(self.format)));
        words.join(" ")
    }
}

/// `word` as a POSIX shell reads it back: as it is when it holds only
/// characters no shell treats specially, else in single quotes.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-,:=+@".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_quotes_what_a_shell_would_split_or_expand() {
        let command = RepCommand {
            file: "models/paper/example 37.csp",
            process: "Nodes",
            symmetry: Some("NodeID, Data"),
            strategy: None,
            reach: Reach::Path(&[120, 13]),
            choose: &[2, 1],
            stage: None,
            format: "markdown",
        };
        assert_eq!(
            command.line(),
            "symcsp rep 'models/paper/example 37.csp' Nodes --symmetry 'NodeID, Data' \
             --path 120,13 --choose 2,1 --format markdown"
        );
        let after = RepCommand {
            reach: Reach::After("<A, B>"),
            strategy: Some("normalise"),
            choose: &[],
            stage: Some(3),
            symmetry: None,
            ..command
        };
        assert_eq!(
            after.line(),
            "symcsp rep 'models/paper/example 37.csp' Nodes --strategy normalise --after \
             '<A, B>' --stage 3 --format markdown"
        );
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
