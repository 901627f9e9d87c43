//! A bound on live MCP sessions for `--listen`: rmcp's [`LocalSessionManager`], refusing to
//! create a session past `MCP_MAX_SESSIONS`. rmcp turns the refusal into a 500; the endpoint
//! runs each request inside [`watch_refusal`] and answers a refused `initialize` with 503
//! and a line saying why ([`too_many_sessions`]).

use std::cell::Cell;
use std::sync::Arc;

use bytes::Bytes;
use futures_core::Stream;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};

tokio::task_local! {
    /// Set when the request being handled was refused a new session.
    static REFUSED: Cell<bool>;
}

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionsError {
    /// The bound is reached.
    #[error("this server already has {0} live MCP sessions, its limit")]
    TooMany(usize),
    /// rmcp's own error.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

/// [`LocalSessionManager`] with at most `max` live sessions.
#[derive(Debug)]
pub struct BoundedSessions {
    inner: LocalSessionManager,
    max: usize,
    /// Serializes count-then-create, so concurrent `initialize`s cannot overshoot.
    creating: tokio::sync::Mutex<()>,
}

impl BoundedSessions {
    /// At most `max` live sessions.
    pub fn new(max: usize) -> Arc<Self> {
        Arc::new(BoundedSessions {
            inner: LocalSessionManager::default(),
            max,
            creating: Default::default(),
        })
    }
}

/// Run `request`, and say whether it was refused a session.
pub async fn watch_refusal<F: Future>(request: F) -> (F::Output, bool) {
    REFUSED
        .scope(Cell::new(false), async {
            let out = request.await;
            (out, REFUSED.with(Cell::get))
        })
        .await
}

/// The 503 answer to an `initialize` refused for the bound.
pub fn too_many_sessions(max: usize) -> hyper::Response<BoxBody<Bytes, std::convert::Infallible>> {
    let body = format!(
        "Service Unavailable: this server already has {max} live MCP sessions, its limit; end one \
         (HTTP DELETE with its Mcp-Session-Id) or wait for an idle one to expire, then initialize again\n"
    );
    let mut res =
        hyper::Response::new(Full::new(Bytes::from(body)).map_err(|never| match never {}).boxed());
    *res.status_mut() = hyper::StatusCode::SERVICE_UNAVAILABLE;
    res.headers_mut()
        .insert(hyper::header::RETRY_AFTER, hyper::header::HeaderValue::from_static("5"));
    res
}

impl SessionManager for BoundedSessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let _one_at_a_time = self.creating.lock().await;
        if self.inner.sessions.read().await.len() >= self.max {
            let _ = REFUSED.try_with(|r| r.set(true));
            return Err(SessionsError::TooMany(self.max));
        }
        Ok(self.inner.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}
