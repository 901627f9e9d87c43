//! A command's output and errors: [`out!`]/[`outln!`] end the process quietly when the reader
//! went away, and [`error_text`] words an error with its causes once each.

/// `print!` for a command's output: a closed stdout (`toolhost tools --json | head -1`) ends
/// the process quietly, as `cat` and `rg` do, instead of a panic ([`stdout_closed`]).
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = write!(std::io::stdout(), $($arg)*) {
            $crate::output::stdout_closed(e);
        }
    }};
}

/// `println!` for a command's output, ending quietly on a closed stdout like [`out!`].
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($arg)*) {
            $crate::output::stdout_closed(e);
        }
    }};
}

/// What a failed write of a command's output does: a reader that went away (`EPIPE`) ends the
/// process with success and no word; any other failure is said on stderr and exits 1.
pub(crate) fn stdout_closed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("toolhost: cannot write the output: {e}");
    std::process::exit(1);
}

/// An error and its causes, `: `-separated like `{:#}`, each cause left out when the text so
/// far already says it (a typed error that quotes its reason and also gives it as `source()`
/// would otherwise print the reason twice).
pub(crate) fn error_text(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text = format!("{text}: {cause}");
        }
    }
    text
}
