//! One line of the JSON Lines protocol's output (`docs/sessions.md`): an event under its
//! request's id, and the key a request id is known by while its call runs (the runner's
//! queue and the approvals waiting for an answer both look calls up by it).

use serde_json::Value;

/// The event line `{"id": ID, "KEY": BODY}`, the id first.
pub(crate) fn event(id: &Value, key: &str, body: &impl serde::Serialize) -> String {
    let id = serde_json::to_string(id).unwrap_or_else(|_| "null".into());
    let body = serde_json::to_string(body)
        .unwrap_or_else(|e| serde_json::to_string(&e.to_string()).unwrap_or_default());
    format!("{{\"id\":{id},\"{key}\":{body}}}")
}

/// The key of a request id: a string id as itself, any other id as its JSON.
pub(crate) fn key(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_put_the_id_first() {
        assert_eq!(event(&Value::from("u1"), "ok", &true), r#"{"id":"u1","ok":true}"#);
        assert_eq!(
            event(&Value::Null, "error", &"line 2: x"),
            r#"{"id":null,"error":"line 2: x"}"#
        );
    }

    #[test]
    fn a_string_id_is_its_own_key_and_any_other_its_json() {
        assert_eq!(key(&Value::from("c1")), "c1");
        assert_eq!(key(&Value::from(7)), "7");
        assert_eq!(key(&serde_json::json!({"a": 1})), r#"{"a":1}"#);
    }
}
