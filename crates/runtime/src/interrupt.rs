//! Work the host does for a call beside the component (checking arguments, checking a
//! structured result), moved off the async runtime and bounded by the call's deadline and
//! cancellation; and [`Interrupted`], why the host stopped a call, with the texts the model
//! sees for it. The bottom floor of the runtime: it knows no other module of the crate.

use std::time::Instant;

/// Why the host stopped a running component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Interrupted {
    #[error("the call was cancelled")]
    Cancelled,
    #[error("the call ran past its deadline")]
    Deadline,
}

/// The text of a call the host stopped at its deadline (the component did not stop itself).
pub const STOPPED_AT_DEADLINE: &str = "the tool ran past its deadline and was stopped";

/// The text of a call the host stopped on cancellation (the component did not stop itself).
pub const STOPPED_ON_CANCEL: &str = "the call was cancelled";

/// Runs `work` on a blocking thread raced against a call's `deadline` and `cancel`: the
/// answer, or which of them came first (the thread then finishes unobserved, so `work` must
/// be bounded on its own). The async runtime is never held up by it.
pub(crate) async fn off_the_runtime<T: Send + 'static>(
    deadline: Instant,
    cancel: &tokio_util::sync::CancellationToken,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<Result<T, tokio::task::JoinError>, Interrupted> {
    let handle = tokio::task::spawn_blocking(work);
    tokio::select! {
        done = handle => Ok(done),
        () = cancel.cancelled() => Err(Interrupted::Cancelled),
        () = tokio::time::sleep_until(deadline.into()) => Err(Interrupted::Deadline),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    /// Work that outlives the call's deadline or cancel is not waited for (it is still blocked
    /// when the answer comes), and does not hold up the async runtime meanwhile.
    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn work_off_the_runtime_ends_with_the_call() {
        let (release, held) = std::sync::mpsc::channel::<()>();
        let held = Arc::new(std::sync::Mutex::new(held));
        let blocked = |held: Arc<std::sync::Mutex<std::sync::mpsc::Receiver<()>>>| {
            move || held.lock().unwrap().recv_timeout(Duration::from_secs(120)).is_ok()
        };
        let cancel = tokio_util::sync::CancellationToken::new();
        let ticker = tokio::spawn(async { tokio::time::sleep(Duration::from_millis(50)).await });
        let r = off_the_runtime(
            Instant::now() + Duration::from_millis(200),
            &cancel,
            blocked(held.clone()),
        )
        .await;
        assert!(matches!(r, Err(Interrupted::Deadline)));
        assert!(ticker.await.is_ok(), "the async runtime was held up");

        let c = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            c.cancel();
        });
        let r = off_the_runtime(
            Instant::now() + Duration::from_secs(600),
            &cancel,
            blocked(held.clone()),
        )
        .await;
        assert!(matches!(r, Err(Interrupted::Cancelled)));

        // Let the first blocked one go; the second takes the next message.
        release.send(()).unwrap();
        release.send(()).unwrap();
        let r = off_the_runtime(
            Instant::now() + Duration::from_secs(600),
            &tokio_util::sync::CancellationToken::new(),
            || 7,
        )
        .await;
        assert_eq!(r.unwrap().unwrap(), 7);
    }
}
