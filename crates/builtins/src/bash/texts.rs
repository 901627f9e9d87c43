//! bash's model-facing texts (docs/contract.md#bash): the status line that ends its output and
//! the messages of a call that could not run. The texts a component's `process.run` shares
//! with bash (the denial marker, the sweep, an unavailable sandbox) are
//! `toolhost_sandbox::texts`.

use std::time::Duration;

/// `[exit 7; duration 12 ms]`
pub fn exit_status(code: i32, d: Duration) -> String {
    format!("[exit {code}; duration {} ms]", d.as_millis())
}

/// `[killed by signal 9; duration 12 ms]`
pub fn signal_status(signal: i32, d: Duration) -> String {
    format!("[killed by signal {signal}; duration {} ms]", d.as_millis())
}

/// `[timed out after 30000 ms; duration 30004 ms]`
pub fn timeout_status(timeout_ms: u64, d: Duration) -> String {
    format!("[timed out after {timeout_ms} ms; duration {} ms]", d.as_millis())
}

/// `[cancelled; duration 51 ms]`
pub fn cancelled_status(d: Duration) -> String {
    format!("[cancelled; duration {} ms]", d.as_millis())
}

/// The process could not be started.
pub fn spawn_failed(err: &str) -> String {
    format!("failed to start bash: {err}")
}

/// Reading the output failed.
pub fn pipe_failed(err: &str) -> String {
    format!("bash ran but its output could not be read: {err}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_are_the_contract_texts() {
        assert_eq!(exit_status(7, Duration::from_millis(12)), "[exit 7; duration 12 ms]");
        assert_eq!(
            timeout_status(30_000, Duration::from_millis(30_004)),
            "[timed out after 30000 ms; duration 30004 ms]"
        );
        assert_eq!(cancelled_status(Duration::from_millis(51)), "[cancelled; duration 51 ms]");
    }
}
