//! `subscriptions/listen` of the stateless 2026-07-28 revision: how a client without an MCP
//! session learns that the tool list changed.
//!
//! rmcp answers the request: it intersects the client's filter with what [`Subscriptions`]
//! accepts ([`Subscriptions::accepted`]: `toolsListChanged`, the one change toolhost
//! announces) and with the advertised capabilities, and sends
//! `notifications/subscriptions/acknowledged` (the accepted filter, tagged with the
//! subscription id = the request's JSON-RPC id) as the stream's first message. Then
//! [`Subscriptions::listen`] keeps the stream's [`SubscriptionSink`] until the client cancels
//! or disconnects, or the server shuts down (then the final `SubscriptionsListenResult` ends
//! the stream). [`Subscriptions::tools_changed`] sends `notifications/tools/list_changed`
//! through every sink: the sink tags it with `io.modelcontextprotocol/subscriptionId` and
//! drops it for a stream whose filter did not ask for it.
//!
//! Handshake (2025-11-25) sessions are not here: they get `list_changed` on their session's
//! stream (`McpServer`'s peers). rmcp answers `subscriptions/listen` on those with -32601.

use std::collections::BTreeMap;
use std::sync::Mutex;

use rmcp::ErrorData as McpError;
use rmcp::model::{ServerNotification, SubscriptionFilter, ToolListChangedNotification};
use rmcp::service::{SubscriptionContext, SubscriptionSendError, SubscriptionSink};
use tokio_util::sync::CancellationToken;

/// The open `subscriptions/listen` streams of one server (every client, every transport).
#[derive(Debug, Default)]
pub struct Subscriptions {
    open: Mutex<(u64, BTreeMap<u64, SubscriptionSink>)>,
}

impl Subscriptions {
    /// The part of a requested filter toolhost serves: `toolsListChanged` (it has no prompts
    /// or resources to announce).
    pub fn accepted(requested: &SubscriptionFilter) -> SubscriptionFilter {
        let mut accepted = SubscriptionFilter::default();
        accepted.tools_list_changed = requested.tools_list_changed.filter(|&asked| asked);
        accepted
    }

    fn table(&self) -> std::sync::MutexGuard<'_, (u64, BTreeMap<u64, SubscriptionSink>)> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Serve one acknowledged subscription until the client ends it or `shutdown` is
    /// cancelled (then `Ok`: rmcp sends the final result).
    pub async fn listen(
        &self,
        subscription: SubscriptionContext,
        shutdown: &CancellationToken,
    ) -> Result<(), McpError> {
        let key = {
            let mut table = self.table();
            let key = table.0;
            table.0 += 1;
            table.1.insert(key, subscription.sink().clone());
            key
        };
        // Removed however the wait ends (the future may be dropped on disconnect).
        let _registered = Registered { subscriptions: self, key };
        tokio::select! {
            _ = subscription.cancelled() => {}
            _ = shutdown.cancelled() => {}
        }
        Ok(())
    }

    /// How many subscriptions are open.
    pub fn len(&self) -> usize {
        self.table().1.len()
    }

    /// Whether no subscription is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Send `notifications/tools/list_changed` on every open stream that asked for it.
    pub async fn tools_changed(&self) {
        let sinks: Vec<(u64, SubscriptionSink)> =
            self.table().1.iter().map(|(k, s)| (*k, s.clone())).collect();
        for (key, sink) in sinks {
            let note = ServerNotification::ToolListChangedNotification(
                ToolListChangedNotification::default(),
            );
            match sink.send(note).await {
                Ok(()) | Err(SubscriptionSendError::NotificationNotAccepted(_)) => {}
                Err(e) => {
                    tracing::debug!(
                        "tools/list_changed not sent on subscription {:?}: {e}",
                        sink.id()
                    );
                    self.table().1.remove(&key);
                }
            }
        }
    }
}

/// Removes a subscription's sink when its `listen` ends.
struct Registered<'a> {
    subscriptions: &'a Subscriptions,
    key: u64,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        self.subscriptions.table().1.remove(&self.key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_tools_list_changed_is_accepted_and_only_when_asked() {
        let mut all = SubscriptionFilter::default();
        all.tools_list_changed = Some(true);
        all.prompts_list_changed = Some(true);
        all.resources_list_changed = Some(true);
        all.resource_subscriptions = Some(vec!["file:///a".into()]);
        let accepted = Subscriptions::accepted(&all);
        assert_eq!(accepted.tools_list_changed, Some(true));
        assert_eq!(accepted.prompts_list_changed, None);
        assert_eq!(accepted.resources_list_changed, None);
        assert_eq!(accepted.resource_subscriptions, None);

        let mut prompts_only = SubscriptionFilter::default();
        prompts_only.prompts_list_changed = Some(true);
        assert_eq!(Subscriptions::accepted(&prompts_only), SubscriptionFilter::default());
        let mut declined = SubscriptionFilter::default();
        declined.tools_list_changed = Some(false);
        assert_eq!(Subscriptions::accepted(&declined), SubscriptionFilter::default());
    }
}
