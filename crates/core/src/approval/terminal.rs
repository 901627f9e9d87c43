//! The terminal's approver ([`TerminalApprovals`]): `toolhost call` asks the person at the
//! terminal, on stderr, and reads the answer from `/dev/tty`. The read stops when the wait
//! for it ends ([`super::wait::wait_for_approval`]: the call's cancel or deadline), so an
//! unanswered question never keeps the process alive after its call ended.

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;

use super::{Approval, Approver, Verdict};

/// How often a read of the terminal looks whether its wait ended, in milliseconds.
const STOP_CHECK_MS: i32 = 100;

/// Asks the person at the terminal (on stderr, answer read from `/dev/tty`); used by
/// `toolhost call` when stdin and stderr are a terminal and no `--allow-escalation` was given.
pub struct TerminalApprovals;

/// Set when the question's future is dropped (its wait ended): the read of the answer stops.
#[derive(Default)]
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[async_trait]
impl Approver for TerminalApprovals {
    async fn approve(&self, tool: &str, approval: Approval<'_>) -> Verdict {
        // Every field the model wrote is one escaped line: it cannot redraw the prompt.
        let prompt = format!("toolhost: {} [y/N] ", approval.question(tool));
        let waiting = StopOnDrop::default();
        let stop = waiting.0.clone();
        let answer = tokio::task::spawn_blocking(move || answer_on_terminal(&prompt, &stop)).await;
        drop(waiting);
        answer.unwrap_or(Verdict::Unasked)
    }
}

/// Writes `prompt` (already made safe for a terminal) to stderr and reads the answer from
/// `/dev/tty`: `true` only for `y` or `yes`; no terminal, an empty line or anything else is
/// no. Blocks.
pub fn ask_on_terminal(prompt: &str) -> bool {
    answer_on_terminal(prompt, &AtomicBool::new(false)) == Verdict::Allowed
}

/// [`ask_on_terminal`], telling a no from the terminal ([`Verdict::Declined`]) from no
/// terminal to ask on, or a wait that ended before the answer came ([`Verdict::Unasked`]).
fn answer_on_terminal(prompt: &str, stop: &AtomicBool) -> Verdict {
    let mut err = std::io::stderr();
    let _ = err.write_all(prompt.as_bytes());
    let _ = err.flush();
    let Ok(tty) = std::fs::File::open("/dev/tty") else { return Verdict::Unasked };
    match read_line(&tty, stop) {
        Some(line) => Verdict::answered(matches!(line.trim(), "y" | "Y" | "yes")),
        None => Verdict::Unasked,
    }
}

/// One line typed on `tty` (up to its newline, or what came before an end or an error);
/// none when `stop` was set before the line was complete.
fn read_line(mut tty: &std::fs::File, stop: &AtomicBool) -> Option<String> {
    let mut line = Vec::new();
    let mut chunk = [0u8; 256];
    loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let mut ready = libc::pollfd { fd: tty.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: `ready` is one valid pollfd that outlives the call, and the count says one.
        let n = unsafe { libc::poll(&mut ready, 1, STOP_CHECK_MS) };
        if n == 0
            || n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
        {
            continue;
        }
        if n < 0 {
            break;
        }
        match tty.read(&mut chunk) {
            Ok(0) => break,
            Ok(k) => {
                line.extend_from_slice(&chunk[..k]);
                if chunk[..k].contains(&b'\n') {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    Some(String::from_utf8_lossy(&line).into_owned())
}
