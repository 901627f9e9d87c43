//! Progress forwarding: a call's [`ToolProgress`] becomes `notifications/progress` for the
//! client's progress token, in order, with a `progress` that grows with every notification.

use rmcp::Peer;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::RoleServer;
use tokio::sync::mpsc;

use toolhost_core::context::ToolProgress;

/// The `progress` (and `total`) of a call's notifications: a count while the tool reports
/// no fraction; once it does, the fraction of [`PROGRESS_TOTAL`]. MCP wants `progress` to
/// grow with every notification, so a value that would not is nudged past the last one.
#[derive(Debug, Default)]
pub struct ProgressCounter {
    last: f64,
    fractions: bool,
}

/// The `total` of a call whose tool reports fractions: `progress` is then a percentage.
pub const PROGRESS_TOTAL: f64 = 100.0;

impl ProgressCounter {
    /// `progress` and `total` for the next notification.
    pub fn next(&mut self, fraction: Option<f64>) -> (f64, Option<f64>) {
        let nudged = |last: f64| {
            last + (PROGRESS_TOTAL - last).min(1.0) / 1000.0 + f64::EPSILON * PROGRESS_TOTAL
        };
        let value = match fraction {
            Some(f) => {
                self.fractions = true;
                let v = f.clamp(0.0, 1.0) * PROGRESS_TOTAL;
                if v > self.last { v } else { nudged(self.last) }
            }
            None if self.fractions => nudged(self.last),
            None => self.last + 1.0,
        };
        self.last = value;
        (value, self.fractions.then_some(PROGRESS_TOTAL))
    }
}

/// Send `peer` a progress notification for `token` for each progress of the call, until the
/// call drops its sender.
pub(crate) async fn forward(
    peer: Peer<RoleServer>,
    token: ProgressToken,
    mut rx: mpsc::Receiver<ToolProgress>,
) {
    let mut counter = ProgressCounter::default();
    while let Some(p) = rx.recv().await {
        let (message, fraction) = match p {
            ToolProgress::Stdout { chunk } | ToolProgress::Stderr { chunk } => (chunk, None),
            ToolProgress::Message { message, fraction } => (message, fraction),
        };
        let (progress, total) = counter.next(fraction);
        let mut note =
            ProgressNotificationParam::new(token.clone(), progress).with_message(message);
        if let Some(total) = total {
            note = note.with_total(total);
        }
        if let Err(e) = peer.notify_progress(note).await {
            tracing::debug!("progress not sent: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_grows_with_every_notification() {
        let mut c = ProgressCounter::default();
        assert_eq!(c.next(None), (1.0, None));
        assert_eq!(c.next(None), (2.0, None));
        assert_eq!(c.next(Some(0.5)), (50.0, Some(PROGRESS_TOTAL)));
        let mut last = 50.0;
        for f in [Some(0.5), Some(0.2), None, Some(0.75), Some(1.0), Some(1.0), None] {
            let (p, total) = c.next(f);
            assert!(p > last, "{p} after {last}");
            assert_eq!(total, Some(PROGRESS_TOTAL));
            last = p;
        }
    }
}
