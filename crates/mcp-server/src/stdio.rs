//! `toolhost mcp` on stdio, with a cap on request lines that answers what it refuses.
//!
//! rmcp's stdio transport drops a line longer than its limit without a word, so the client
//! waits forever for that request's answer. Here stdin is read by [`BoundedLines`] first: a
//! line within `MAX_REQUEST_BYTES` is passed to rmcp unchanged through an in-memory pipe; a
//! longer one is discarded as it streams by (memory stays bounded) and answered with a
//! JSON-RPC error for the id found in it (`null` when none is), written between rmcp's own
//! lines on stdout. The server goes on.

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use toolhost_limits::MAX_REQUEST_BYTES;

use toolhost_session::bounded_lines::{BoundedLines, Line, too_long_message};

/// JSON-RPC's "Invalid Request" code, used for a request too large to be read.
pub const REQUEST_TOO_LARGE_CODE: i64 = -32600;

/// Bytes buffered in each in-memory pipe between stdio and rmcp.
const PIPE_BYTES: usize = 256 * 1024;

/// The JSON-RPC error line that answers request line `line_number`, `bytes` long.
pub fn too_large_response(id: Option<Value>, line_number: u64, bytes: u64) -> String {
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": {
            "code": REQUEST_TOO_LARGE_CODE,
            "message": too_long_message(line_number, bytes, MAX_REQUEST_BYTES),
            "data": {"limit": MAX_REQUEST_BYTES, "bytes": bytes},
        },
    });
    format!("{error}\n")
}

/// Serve `server` on this process's stdin/stdout until the client closes stdin (request
/// lines over the cap are answered with an error).
pub async fn serve(server: crate::server::McpServer) -> anyhow::Result<()> {
    let (stdin, stdout) = rmcp::transport::stdio_pipes();
    serve_on(server, stdin, stdout).await
}

/// Serve `server` reading requests from `input` and writing to `output`.
pub async fn serve_on<R, W>(
    server: crate::server::McpServer,
    input: R,
    output: W,
) -> anyhow::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    use rmcp::ServiceExt;
    let (to_rmcp, rmcp_in) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (refusals, refused) = mpsc::unbounded_channel();
    let reader = tokio::spawn(pump_requests(input, to_rmcp, refusals));
    let writer = tokio::spawn(pump_responses(from_rmcp, refused, output));
    // rmcp never sees a line over our cap; its own cap (which would drop one silently) sits above.
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(rmcp_in, rmcp_out)
        .with_max_line_length(MAX_REQUEST_BYTES + 2);
    let served = async {
        let running = server.serve(transport).await?;
        running.waiting().await?;
        anyhow::Ok(())
    }
    .await;
    // The transport is gone, so rmcp's output pipe is closed: the writer drains and ends.
    reader.abort();
    let written = writer.await.map_err(anyhow::Error::from).and_then(|r| r.map_err(Into::into));
    served.and(written)
}

/// stdin → rmcp, line by line; a line over the cap becomes an error line for the writer.
async fn pump_requests<R, W>(
    input: R,
    mut to_rmcp: W,
    refusals: mpsc::UnboundedSender<String>,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut lines =
        BoundedLines::new(BufReader::with_capacity(PIPE_BYTES, input), MAX_REQUEST_BYTES);
    while let Some((number, line)) = lines.next_line().await? {
        match line {
            Line::Fits(bytes) => {
                to_rmcp.write_all(bytes).await?;
                to_rmcp.write_all(b"\n").await?;
            }
            Line::TooLong { bytes, id } => {
                tracing::warn!(
                    line = number,
                    bytes,
                    "MCP request line over the limit; answered with an error"
                );
                let _ = refusals.send(too_large_response(id, number, bytes));
            }
        }
    }
    // End of stdin: rmcp sees end of input and stops.
    to_rmcp.shutdown().await
}

/// rmcp's output and the refusals → stdout, whole lines only, so the two never interleave.
async fn pump_responses<R, W>(
    from_rmcp: R,
    mut refused: mpsc::UnboundedReceiver<String>,
    mut output: W,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut from_rmcp = BufReader::with_capacity(PIPE_BYTES, from_rmcp);
    let mut line = Vec::new();
    let mut refusals_open = true;
    loop {
        tokio::select! {
            // A partial rmcp line stays in `line` (read_until resumes it), and is never written
            // before it is whole.
            biased;
            refusal = refused.recv(), if refusals_open => match refusal {
                Some(text) => output.write_all(text.as_bytes()).await?,
                None => refusals_open = false,
            },
            n = from_rmcp.read_until(b'\n', &mut line) => {
                if n? == 0 {
                    break;
                }
                output.write_all(&line).await?;
                line.clear();
            }
        }
        output.flush().await?;
    }
    // rmcp is done; refusals already queued still go out.
    while let Ok(text) = refused.try_recv() {
        output.write_all(text.as_bytes()).await?;
    }
    output.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_names_the_id_the_line_and_the_limit() {
        let v: Value =
            serde_json::from_str(&too_large_response(Some(7.into()), 3, 20 << 20)).unwrap();
        assert_eq!(v["id"], 7);
        assert_eq!(v["error"]["code"], REQUEST_TOO_LARGE_CODE);
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("line 3: the request is 20971520 bytes")
        );
        assert_eq!(v["error"]["data"]["limit"], MAX_REQUEST_BYTES);
        let v: Value = serde_json::from_str(&too_large_response(None, 1, 1)).unwrap();
        assert!(v["id"].is_null() && v.as_object().unwrap().contains_key("id"));
    }
}
