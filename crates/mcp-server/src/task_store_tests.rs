//! The task store keeps running tasks, and of the finished ones the last to finish, within
//! their count and bytes; a dropped task's `tasks/get` says why.

use std::time::Duration;

use rmcp::model::{CallToolResult, ContentBlock, TaskStatus};

use super::*;

fn text_result(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// Spawns a task that ends at once with `text` as its result.
fn quick(store: &TaskStore, text: String) -> String {
    store.spawn("quick".into(), move |_| Box::pin(async move { Ok(text_result(text)) })).task_id
}

/// Waits until task `id` is no longer working; its status.
async fn settled(store: &TaskStore, id: &str) -> Result<TaskStatus, TaskError> {
    for _ in 0..500 {
        let status = store.get_task(id)?.status();
        if status != TaskStatus::Working {
            return Ok(status);
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    panic!("task {id} never finished");
}

#[tokio::test]
async fn at_most_the_last_finished_tasks_are_kept_and_a_dropped_one_says_why() {
    let store = TaskStore::new();
    let mut ids = Vec::new();
    for i in 0..MCP_MAX_FINISHED_TASKS + 10 {
        let id = quick(&store, format!("result {i}"));
        assert_eq!(settled(&store, &id).await, Ok(TaskStatus::Completed));
        ids.push(id);
    }
    assert_eq!(store.finished_kept().0, MCP_MAX_FINISHED_TASKS);
    for id in &ids[..10] {
        let e = store.get_task(id).unwrap_err();
        assert_eq!(e, TaskError::Evicted(id.clone()));
        assert!(e.to_string().contains("dropped to keep the server's memory bounded"), "{e}");
        assert_eq!(McpError::from(e).code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert_eq!(store.cancel_task(id), Err(TaskError::Evicted(id.clone())));
    }
    let last = store.get_task(ids.last().unwrap()).unwrap();
    let TaskPayload::Completed { result } = last.payload else { panic!("{last:?}") };
    assert_eq!(result["content"][0]["text"], format!("result {}", MCP_MAX_FINISHED_TASKS + 9));
    assert_eq!(store.get_task("no-such-task"), Err(TaskError::Unknown("no-such-task".into())));
}

#[tokio::test]
async fn the_bytes_kept_stay_within_their_bound() {
    let store = TaskStore::new();
    let big = "x".repeat(100 * 1024);
    let mut ids = Vec::new();
    for _ in 0..60 {
        let id = quick(&store, big.clone());
        settled(&store, &id).await.unwrap();
        ids.push(id);
        let (count, bytes) = store.finished_kept();
        assert!(bytes <= MCP_MAX_FINISHED_TASK_BYTES, "{count} tasks kept in {bytes} bytes");
    }
    let (count, _) = store.finished_kept();
    assert!((30..60).contains(&count), "{count}");
    assert!(matches!(store.get_task(&ids[0]), Err(TaskError::Evicted(_))));
    assert!(store.get_task(ids.last().unwrap()).is_ok());
    // A result larger than the whole bound is still kept, alone, until the next one ends.
    let huge = quick(&store, "y".repeat(MCP_MAX_FINISHED_TASK_BYTES + 1));
    assert_eq!(settled(&store, &huge).await, Ok(TaskStatus::Completed));
    assert_eq!(store.finished_kept().0, 1);
}

#[tokio::test]
async fn a_running_task_is_never_dropped_and_a_cancelled_one_says_cancelled() {
    let store = TaskStore::new();
    let waiting = store
        .spawn("waiting".into(), |task| {
            Box::pin(async move {
                task.set_status_message("waiting: still".into());
                task.cancelled().await;
                assert!(task.is_cancel_requested());
                Err(Cancelled)
            })
        })
        .task_id;
    for i in 0..MCP_MAX_FINISHED_TASKS * 2 {
        let id = quick(&store, format!("{i}"));
        settled(&store, &id).await.unwrap();
    }
    let task = store.get_task(&waiting).unwrap();
    assert_eq!(task.status(), TaskStatus::Working);
    assert_eq!(task.task.status_message.as_deref(), Some("waiting: still"));
    assert_eq!(store.running_task_count(), 1);
    assert_eq!(store.update_task(&waiting), Ok(()));
    store.cancel_task(&waiting).unwrap();
    assert_eq!(settled(&store, &waiting).await, Ok(TaskStatus::Cancelled));
    assert_eq!(store.running_task_count(), 0);
}

#[test]
fn a_task_past_its_ttl_fails_and_its_final_state_expires() {
    let mut inner = Inner::default();
    let start = Instant::now();
    let task = Task::new("t1", TaskStatus::Working, current_timestamp(), current_timestamp());
    let running = Running { task, started: start, cancel: CancellationToken::new(), handle: None };
    inner.running.insert("t1".into(), running);
    let ttl = Duration::from_secs(MCP_TASK_TTL_SECS);
    inner.sweep(start + ttl);
    assert!(inner.running.is_empty());
    assert!(inner.finished["t1"].json.contains("\"status\":\"failed\""));
    inner.sweep(start + ttl * 2);
    assert!(inner.finished.is_empty() && inner.bytes == 0);
    assert_eq!(inner.missing("t1"), TaskError::Expired("t1".into()));
}
