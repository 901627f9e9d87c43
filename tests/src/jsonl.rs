//! A client for `toolhost session`: start the real binary, send JSON Lines, read events.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};

use serde_json::Value;

use crate::{Fixture, toolhost_bin};

/// A running `toolhost session`.
pub struct SessionProc {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// Progress events seen by [`SessionProc::request`], in order.
    pub progress: Vec<Value>,
}

impl SessionProc {
    /// Start a session over the fixture with `args` before the `session` command.
    pub fn start(fx: &Fixture, args: &[&str]) -> Self {
        let mut cmd = Command::new(toolhost_bin());
        cmd.arg("--workspace").arg(fx.root()).arg("--data-dir").arg(fx.data.path());
        crate::postgres::store_env(&mut cmd, fx.data.path());
        Self::from_command(cmd, args)
    }

    /// Start `cmd` (a `toolhost` with its options) with `args`, then the `session` command.
    pub fn from_command(mut cmd: Command, args: &[&str]) -> Self {
        let mut child = cmd
            .args(args)
            .arg("session")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start toolhost session (run `cargo xtask build`)");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        SessionProc { child, stdin, stdout, progress: Vec::new() }
    }

    /// Write raw text (no newline added).
    pub fn send_raw(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// Write raw bytes (no newline added).
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// The process id of the session.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Write one request line.
    pub fn send(&mut self, request: &Value) {
        self.send_raw(&format!("{request}\n"));
    }

    /// The next event; panics at end of output.
    pub fn next_event(&mut self) -> Value {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).unwrap();
        assert!(n > 0, "the session ended early");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("event is not JSON ({e}): {line}"))
    }

    /// Send `request` and return its final event (result, ok or error), keeping progress.
    pub fn request(&mut self, request: Value) -> Value {
        let id = request["id"].clone();
        self.send(&request);
        loop {
            let ev = self.next_event();
            assert_eq!(ev["id"], id, "events arrive in order: {ev}");
            if ev.get("progress").is_some() {
                self.progress.push(ev);
            } else {
                return ev;
            }
        }
    }

    /// A tool call; returns the ToolResult.
    pub fn call(&mut self, id: &str, tool: &str, arguments: Value) -> Value {
        let ev = self.request(serde_json::json!({"id": id, "tool": tool, "arguments": arguments}));
        ev.get("result").cloned().unwrap_or_else(|| panic!("expected a result: {ev}"))
    }

    /// Close stdin, read the remaining events, and wait for the exit.
    pub fn finish(mut self) -> (ExitStatus, Vec<Value>, String) {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        let mut line = String::new();
        while self.stdout.read_line(&mut line).unwrap() > 0 {
            rest.push(
                serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("event is not JSON ({e}): {line}")),
            );
            line.clear();
        }
        let mut stderr = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            use std::io::Read;
            let _ = e.read_to_string(&mut stderr);
        }
        let status = self.child.wait().unwrap();
        (status, rest, stderr)
    }
}

impl Drop for SessionProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first file-change artifact of a result.
pub fn change_of(result: &Value) -> &Value {
    result["artifacts"]
        .as_array()
        .and_then(|a| a.first())
        .unwrap_or_else(|| panic!("no artifact: {result}"))
}
