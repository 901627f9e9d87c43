//! A response sent before its request's body was read closes the connection — and says so.
//!
//! hyper drains what is left of a request body once the response is written only when that
//! rest is already buffered; otherwise it closes the connection after the response, silently.
//! A client that keeps connections alive (every HTTP library does) then sends its next request
//! on a connection the server is closing and gets "other side closed". Refusals (401, 403 for
//! a foreign Host or Origin, 429) answer before reading the body, and so may rmcp's own
//! errors. So each request body is wrapped in a [`TrackedBody`], and a response whose request
//! body had not ended carries `Connection: close`: the client opens a new connection for its
//! next request. Draining instead would let an unauthenticated client make the server read
//! bodies it refused.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use hyper::body::{Body, Frame, SizeHint};

/// A request body that records whether it was read to its end.
pub struct TrackedBody<B> {
    body: B,
    ended: Arc<AtomicBool>,
}

/// Whether the request body of a [`TrackedBody`] was read to its end.
#[derive(Clone)]
pub struct BodyEnded(Arc<AtomicBool>);

impl BodyEnded {
    /// True once the body ended (an empty body has ended from the start).
    pub fn get(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

impl<B: Body> TrackedBody<B> {
    /// `body`, and the flag that tells whether it was read to its end.
    pub fn new(body: B) -> (Self, BodyEnded) {
        let ended = Arc::new(AtomicBool::new(body.is_end_stream()));
        (TrackedBody { body, ended: ended.clone() }, BodyEnded(ended))
    }
}

impl<B: Body + Unpin> Body for TrackedBody<B> {
    type Data = B::Data;
    type Error = B::Error;
    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) || self.body.is_end_stream() {
            self.ended.store(true, Ordering::SeqCst);
        }
        polled
    }
    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }
    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// Marks `res` as the connection's last response when its request body was not read to its end.
pub fn close_if_unread<B>(res: &mut hyper::Response<B>, ended: &BodyEnded) {
    if !ended.get() {
        res.headers_mut()
            .insert(hyper::header::CONNECTION, hyper::header::HeaderValue::from_static("close"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use http_body_util::{BodyExt, Full};

    #[tokio::test]
    async fn a_body_read_to_its_end_keeps_the_connection() {
        let (body, ended) = TrackedBody::new(Full::new(Bytes::from_static(b"{}")));
        assert!(!ended.get());
        let _ = body.collect().await.unwrap();
        assert!(ended.get());
        let mut res = hyper::Response::new(());
        close_if_unread(&mut res, &ended);
        assert!(res.headers().get(hyper::header::CONNECTION).is_none());
    }

    #[test]
    fn an_unread_body_closes_the_connection() {
        let (_body, ended) = TrackedBody::new(Full::new(Bytes::from_static(b"{}")));
        let mut res = hyper::Response::new(());
        close_if_unread(&mut res, &ended);
        assert_eq!(res.headers()[hyper::header::CONNECTION], "close");
    }

    #[test]
    fn an_empty_body_has_ended() {
        let (_body, ended) = TrackedBody::new(http_body_util::Empty::<Bytes>::new());
        assert!(ended.get());
    }
}
