//! Per-connection timeouts of `toolhost mcp --listen`: a request head must arrive whole within
//! `MCP_HEADER_READ_TIMEOUT_SECS` of its first byte, and a connection with no request in
//! flight is closed after `MCP_IDLE_TIMEOUT_SECS` without one.
//!
//! hyper's own `header_read_timeout` cannot tell the two apart: it is armed whenever hyper
//! waits for a request head, at accept and after every response, so it would close idle
//! keep-alive connections at the header timeout. So a [`ConnWatch`] tracks each connection:
//! [`WatchedIo`] notes the first byte read while no request is in flight (a head begins), an
//! [`InFlight`] guard spans a request from its head to the end of its response body (an SSE
//! stream with a call running is in flight, never idle), and [`ConnWatch::expired`] resolves
//! when either limit is passed; the connection is then dropped, which closes it.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::Instant;

use hyper::body::{Body, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Which limit closed a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    /// A request head did not arrive whole in time.
    HeaderRead,
    /// No request for the idle time.
    Idle,
}

#[derive(Debug)]
struct State {
    in_flight: usize,
    head_started: Option<Instant>,
    idle_since: Instant,
}

/// What one connection is doing, for its timeouts.
#[derive(Debug)]
pub struct ConnWatch {
    state: Mutex<State>,
    changed: tokio::sync::Notify,
    header_read: Duration,
    idle: Duration,
}

impl ConnWatch {
    /// A watch for a connection accepted now.
    pub fn new(header_read: Duration, idle: Duration) -> Arc<Self> {
        Arc::new(ConnWatch {
            state: Mutex::new(State {
                in_flight: 0,
                head_started: None,
                idle_since: Instant::now(),
            }),
            changed: tokio::sync::Notify::new(),
            header_read,
            idle,
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn saw_bytes(&self) {
        let mut s = self.state();
        if s.in_flight == 0 && s.head_started.is_none() {
            s.head_started = Some(Instant::now());
            drop(s);
            self.changed.notify_one();
        }
    }

    /// A request's head has arrived; it is in flight until the guard drops.
    pub fn request_started(self: &Arc<Self>) -> InFlight {
        let mut s = self.state();
        s.in_flight += 1;
        s.head_started = None;
        drop(s);
        self.changed.notify_one();
        InFlight(self.clone())
    }

    /// Resolves once the connection has passed one of its limits.
    pub async fn expired(&self) -> Expiry {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let deadline = {
                let s = self.state();
                if s.in_flight > 0 {
                    None
                } else if let Some(start) = s.head_started {
                    Some((start + self.header_read, Expiry::HeaderRead))
                } else {
                    Some((s.idle_since + self.idle, Expiry::Idle))
                }
            };
            match deadline {
                None => changed.await,
                Some((at, why)) => {
                    if Instant::now() >= at {
                        return why;
                    }
                    tokio::select! {
                        _ = tokio::time::sleep_until(at) => {}
                        _ = changed => {}
                    }
                }
            }
        }
    }
}

/// A request in flight on a watched connection (see [`ConnWatch::request_started`]).
#[derive(Debug)]
pub struct InFlight(Arc<ConnWatch>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut s = self.0.state();
        s.in_flight -= 1;
        if s.in_flight == 0 {
            s.idle_since = Instant::now();
        }
        drop(s);
        self.0.changed.notify_one();
    }
}

/// A connection's byte stream, telling its [`ConnWatch`] when a request head begins.
pub struct WatchedIo<T> {
    inner: T,
    watch: Arc<ConnWatch>,
}

impl<T> WatchedIo<T> {
    /// `inner`, watched by `watch`.
    pub fn new(inner: T, watch: Arc<ConnWatch>) -> Self {
        WatchedIo { inner, watch }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WatchedIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.watch.saw_bytes();
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WatchedIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// A response body that keeps its request in flight until it ends or is dropped.
pub struct InFlightBody<B> {
    body: B,
    _in_flight: InFlight,
}

impl<B> InFlightBody<B> {
    /// `body`, holding `in_flight` until it is done.
    pub fn new(body: B, in_flight: InFlight) -> Self {
        InFlightBody { body, _in_flight: in_flight }
    }
}

impl<B: Body + Unpin> Body for InFlightBody<B> {
    type Data = B::Data;
    type Error = B::Error;
    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }
    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }
    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: Duration = Duration::from_millis(100);
    const IDLE: Duration = Duration::from_millis(300);

    #[tokio::test]
    async fn an_idle_connection_expires_after_the_idle_time() {
        let watch = ConnWatch::new(HEAD, IDLE);
        let started = tokio::time::Instant::now();
        assert_eq!(watch.expired().await, Expiry::Idle);
        assert!(started.elapsed() >= IDLE);
    }

    #[tokio::test]
    async fn a_started_head_must_finish_within_the_header_time() {
        let watch = ConnWatch::new(HEAD, IDLE);
        let w = watch.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            w.saw_bytes();
        });
        // The head's limit, not the idle one, closed it.
        assert_eq!(watch.expired().await, Expiry::HeaderRead);
    }

    #[tokio::test]
    async fn a_request_in_flight_is_never_idle_and_idleness_counts_from_its_end() {
        let watch = ConnWatch::new(HEAD, IDLE);
        let guard = watch.request_started();
        let w = watch.clone();
        let expiry = tokio::spawn(async move { w.expired().await });
        tokio::time::sleep(IDLE * 3).await;
        assert!(!expiry.is_finished());
        let ended = tokio::time::Instant::now();
        drop(guard);
        assert_eq!(expiry.await.unwrap(), Expiry::Idle);
        assert!(ended.elapsed() >= IDLE);
    }
}
