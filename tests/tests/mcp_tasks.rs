//! Long calls as tasks (`io.modelcontextprotocol/tasks`) over `toolhost mcp --listen`, driven
//! by a raw stateless 2026-07-28 client: a bash call that runs longer than a client waits for
//! one request (60 s for many clients; every request here must answer within the raw
//! client's 90 s guard) is answered at once with a task, polled to its result, and
//! cancelled; clients that did not declare tasks wait for the result as before.

use serde_json::{Value, json};
use toolhost_tests::attack::Attack;
use toolhost_tests::http::{stateless, tasks_capabilities};
use toolhost_tests::mcp::HttpServer;
use toolhost_tests::*;

/// Polls `tasks/get` until the task is no longer working; every status message seen.
fn poll_until_done(server: &HttpServer, task_id: &str) -> (Value, Vec<String>) {
    let mut messages = Vec::new();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(600);
    loop {
        let r = stateless(
            server.url(),
            server.token(),
            "tasks/get",
            Some(task_id),
            json!({"taskId": task_id}),
            &tasks_capabilities(),
        );
        let task = r["result"].clone();
        assert!(task.is_object(), "tasks/get failed: {r}\nserver: {}", server.stderr());
        if let Some(m) = task["statusMessage"].as_str()
            && messages.last() != Some(&m.to_string())
        {
            messages.push(m.to_string());
        }
        if task["status"] != "working" {
            return (task, messages);
        }
        assert!(std::time::Instant::now() < until, "the task never finished: {task}");
        std::thread::sleep(std::time::Duration::from_millis(
            task["pollIntervalMs"].as_u64().unwrap_or(500),
        ));
    }
}

#[test]
fn a_bash_call_longer_than_a_client_waits_runs_as_a_task_to_its_result() {
    if !Attack::new().sandbox_or_skip("a_bash_call_longer_than_a_client_waits_runs_as_a_task") {
        return;
    }
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);
    // 100 s: past the 60 s many clients wait for a response, and past the raw client's own
    // 90 s guard, within bash's largest timeout (120 s).
    let command = "for i in $(seq 1 20); do echo tick $i; sleep 5; done; echo finished > done.txt";
    let r = stateless(
        server.url(),
        server.token(),
        "tools/call",
        Some("bash"),
        json!({"name": "bash", "arguments": {"command": command, "timeoutMs": 120000}}),
        &tasks_capabilities(),
    );
    let created = &r["result"];
    assert_eq!(created["resultType"], "task", "{r}");
    assert_eq!(created["status"], "working", "{r}");
    let task_id = created["taskId"].as_str().expect("a task id").to_string();
    assert!(created["ttlMs"].as_u64().unwrap() >= 600_000, "{r}");
    assert!(!fx.root().join("done.txt").exists(), "the task was answered after the call ran");

    let (task, messages) = poll_until_done(&server, &task_id);
    assert_eq!(task["status"], "completed", "{task}");
    let result = &task["result"];
    assert_eq!(result["isError"], false, "{task}");
    assert_eq!(result["_meta"]["toolhost/status"], "succeeded", "{task}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("tick 1\n") && text.contains("tick 20"), "{text}");
    assert_eq!(std::fs::read_to_string(fx.root().join("done.txt")).unwrap(), "finished\n");
    // While it ran, the task said how far it was.
    assert!(messages.iter().any(|m| m.starts_with("bash: tick ")), "{messages:?}");
}

#[test]
fn a_cancelled_task_stops_its_call_and_says_cancelled() {
    if !Attack::new().sandbox_or_skip("a_cancelled_task_stops_its_call") {
        return;
    }
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);
    let r = stateless(
        server.url(),
        server.token(),
        "tools/call",
        Some("bash"),
        json!({"name": "bash", "arguments": {"command": "echo started; sleep 60; echo late > late.txt", "timeoutMs": 120000}}),
        &tasks_capabilities(),
    );
    let task_id = r["result"]["taskId"].as_str().expect("a task").to_string();
    // Wait until it runs (its first line is the status), then cancel.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let t = stateless(
            server.url(),
            server.token(),
            "tasks/get",
            Some(&task_id),
            json!({"taskId": task_id}),
            &tasks_capabilities(),
        );
        if t["result"]["statusMessage"].as_str().is_some_and(|m| m.contains("started")) {
            break;
        }
        assert!(std::time::Instant::now() < until, "never started: {t}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let ack = stateless(
        server.url(),
        server.token(),
        "tasks/cancel",
        Some(&task_id),
        json!({"taskId": task_id}),
        &tasks_capabilities(),
    );
    assert!(ack.get("error").is_none(), "{ack}");
    let (task, _) = poll_until_done(&server, &task_id);
    assert_eq!(task["status"], "cancelled", "{task}");
    std::thread::sleep(std::time::Duration::from_secs(2));
    assert!(!fx.root().join("late.txt").exists(), "the cancelled call ran on");

    // An unknown task is an error, not a hang.
    let r = stateless(
        server.url(),
        server.token(),
        "tasks/get",
        Some("no-such-task"),
        json!({"taskId": "no-such-task"}),
        &tasks_capabilities(),
    );
    assert!(r.get("error").is_some(), "{r}");
}

#[test]
fn a_client_that_did_not_declare_tasks_waits_for_the_result_and_cannot_poll() {
    let fx = Fixture::new();
    fx.write("a.txt", "alpha\n");
    let server = HttpServer::start(&fx, &[]);
    // bash without tasks declared: the result itself (read-only tools never become tasks).
    let r = stateless(
        server.url(),
        server.token(),
        "tools/call",
        Some("read"),
        json!({"name": "read", "arguments": {"path": "a.txt"}}),
        &tasks_capabilities(),
    );
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert!(r["result"].get("taskId").is_none(), "a read became a task: {r}");
    let r = stateless(
        server.url(),
        server.token(),
        "tools/call",
        Some("bash"),
        json!({"name": "bash", "arguments": {"command": "echo plain"}}),
        &json!({}),
    );
    assert!(r["result"].get("taskId").is_none(), "{r}");
    assert!(
        r["result"]["content"][0]["text"].as_str().unwrap_or_default().contains("plain")
            || r["result"]["_meta"]["toolhost/status"] == "failed",
        "{r}"
    );
    // tasks/get needs the capability: -32021 (MissingRequiredClientCapability).
    let r = stateless(
        server.url(),
        server.token(),
        "tasks/get",
        Some("x"),
        json!({"taskId": "x"}),
        &json!({}),
    );
    assert_eq!(r["error"]["code"], -32021, "{r}");
}

#[test]
fn a_call_that_needs_approval_is_asked_first_and_becomes_a_task_only_once_approved() {
    if !Attack::new().sandbox_or_skip("a_call_that_needs_approval_is_asked_first") {
        return;
    }
    let fx = Fixture::new();
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let outside = outside.path().canonicalize().unwrap();
    let server = HttpServer::start(&fx, &[]);
    let mut caps = tasks_capabilities();
    caps["elicitation"] = json!({"form": {}});
    let marker = outside.join("approved.txt");
    let arguments = json!({
        "command": format!("echo approved > {}", marker.display()),
        "sandboxPermissions": {"paths": [{"path": outside, "access": "write", "scope": "subtree"}]},
        "justification": "the test writes one file outside the workspace",
    });
    let call = |extra: Value| {
        let mut params = json!({"name": "bash", "arguments": arguments});
        for (k, v) in extra.as_object().unwrap() {
            params[k] = v.clone();
        }
        stateless(server.url(), server.token(), "tools/call", Some("bash"), params, &caps)
    };
    // First: the question, not a task, and nothing ran.
    let first = call(json!({}));
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert!(first["result"].get("taskId").is_none(), "{first}");
    assert!(!marker.exists());
    // The retry with the approval: now a task, which runs.
    let state = first["result"]["requestState"].clone();
    let answered = call(json!({
        "requestState": state,
        "inputResponses": {"approval": {"action": "accept", "content": {"approve": true}}},
    }));
    assert_eq!(answered["result"]["resultType"], "task", "{answered}");
    let task_id = answered["result"]["taskId"].as_str().unwrap().to_string();
    let (task, _) = poll_until_done(&server, &task_id);
    assert_eq!(task["result"]["isError"], false, "{task}");
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "approved\n");
}

/// Three minutes (past every client's patience and bash's 120 s ceiling): a `workspace_shell`
/// run is asked in an input-required round (nothing runs), approved in the retry, and then
/// runs as a task, polled to its result with its output as status.
#[test]
fn an_approved_three_minute_workspace_shell_run_is_a_task_polled_to_its_result() {
    if !Attack::new().sandbox_or_skip("an_approved_three_minute_workspace_shell_run_is_a_task") {
        return;
    }
    let fx = Fixture::new();
    fx.write(
        "long.sh",
        "for i in $(seq 1 36); do echo tick $i; sleep 5; done; echo finished > done.txt\n",
    );
    let server = HttpServer::start(&fx, &["--tools", "workspace_shell"]);
    let mut caps = tasks_capabilities();
    caps["elicitation"] = json!({"form": {}});
    let arguments = json!({"command": "sh", "args": ["long.sh"], "timeout_ms": 240_000,
        "purpose": "the three-minute job"});
    let call = |extra: Value| {
        let mut params = json!({"name": "workspace_shell", "arguments": arguments});
        for (k, v) in extra.as_object().unwrap() {
            params[k] = v.clone();
        }
        stateless(
            server.url(),
            server.token(),
            "tools/call",
            Some("workspace_shell"),
            params,
            &caps,
        )
    };
    let first = call(json!({}));
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let question = first.to_string();
    assert!(
        question.contains("command: sh long.sh") && question.contains("time limit: 240 s"),
        "{first}"
    );
    // Declined: nothing runs, and no task.
    let state = first["result"]["requestState"].clone();
    let declined = call(json!({"requestState": state,
        "inputResponses": {"approval": {"action": "accept", "content": {"approve": false}}}}));
    assert_eq!(declined["result"]["isError"], true, "{declined}");
    assert!(declined["result"].get("taskId").is_none(), "{declined}");
    std::thread::sleep(std::time::Duration::from_secs(6));
    assert!(!fx.root().join("done.txt").exists());
    // Asked again and approved: a task at once, which runs to its end.
    let second = call(json!({}));
    let state = second["result"]["requestState"].clone();
    let approved = call(json!({"requestState": state,
        "inputResponses": {"approval": {"action": "accept", "content": {"approve": true}}}}));
    assert_eq!(approved["result"]["resultType"], "task", "{approved}");
    let task_id = approved["result"]["taskId"].as_str().unwrap().to_string();
    let (task, messages) = poll_until_done(&server, &task_id);
    assert_eq!(task["status"], "completed", "{task}");
    let structured = &task["result"]["structuredContent"];
    assert_eq!(structured["success"], true, "{task}");
    assert_eq!(structured["termination"], "exited", "{task}");
    assert!(structured["duration_ms"].as_u64().unwrap() >= 180_000, "{task}");
    assert!(structured["stdout"].as_str().unwrap().contains("tick 36"), "{task}");
    assert_eq!(std::fs::read_to_string(fx.root().join("done.txt")).unwrap(), "finished\n");
    assert!(messages.iter().any(|m| m.starts_with("workspace_shell: tick ")), "{messages:?}");
}

/// Runs each of `commands` as a bash task, at most `batch` unfinished at once, each polled
/// to its end (completed); the task ids, in the order they were made.
fn run_tasks(server: &HttpServer, commands: &[String], batch: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for part in commands.chunks(batch) {
        let made: Vec<String> = part
            .iter()
            .map(|command| {
                let r = stateless(
                    server.url(),
                    server.token(),
                    "tools/call",
                    Some("bash"),
                    json!({"name": "bash", "arguments": {"command": command}}),
                    &tasks_capabilities(),
                );
                r["result"]["taskId"].as_str().unwrap_or_else(|| panic!("not a task: {r}")).into()
            })
            .collect();
        for id in &made {
            let (task, _) = poll_until_done(server, id);
            assert_eq!(task["status"], "completed", "{task}");
        }
        ids.extend(made);
    }
    ids
}

/// `tasks/get` of every id: the task (as answered) for those still kept, the error message
/// for the others.
fn look_up(server: &HttpServer, ids: &[String]) -> Vec<Result<Value, String>> {
    ids.iter()
        .map(|id| {
            let r = stateless(
                server.url(),
                server.token(),
                "tasks/get",
                Some(id),
                json!({"taskId": id}),
                &tasks_capabilities(),
            );
            match r.get("result") {
                Some(task) => Ok(task.clone()),
                None => Err(r["error"]["message"].as_str().unwrap_or_default().to_string()),
            }
        })
        .collect()
}

/// Attack: a finished task was kept for an hour with no bound on their number
/// (394 bash tasks grew the server by 18 MB). Now at most `MCP_MAX_FINISHED_TASKS` finished
/// tasks and `MCP_MAX_FINISHED_TASK_BYTES` of their final states are kept: 160 small bash
/// tasks keep the last 128, and 60 whose output is 16 KiB of control characters (96 KiB as
/// JSON) keep no more than 4 MiB; those that finished first are dropped, and a `tasks/get` of
/// one says why; the last is read to its result.
#[test]
fn finished_tasks_are_kept_within_a_count_and_a_byte_bound() {
    use toolhost_limits::{MCP_MAX_FINISHED_TASK_BYTES, MCP_MAX_FINISHED_TASKS};
    use toolhost_tests::attack::promise;
    if !Attack::new().sandbox_or_skip("finished_tasks_are_kept_within_a_count_and_a_byte_bound") {
        return;
    }
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);

    // The count: small results.
    let extra = 32;
    let small: Vec<String> =
        (0..MCP_MAX_FINISHED_TASKS + extra).map(|i| format!("echo small {i}")).collect();
    let ids = run_tasks(&server, &small, 40);
    let seen = look_up(&server, &ids);
    let kept = seen.iter().filter(|t| t.is_ok()).count();
    promise(kept <= MCP_MAX_FINISHED_TASKS, || {
        format!("{kept} finished tasks kept, more than {MCP_MAX_FINISHED_TASKS}")
    });
    // The first to finish were dropped (the first batch: it ran in order), each saying why.
    for (i, t) in seen.iter().enumerate() {
        if let Err(message) = t {
            assert!(i < 40, "task {i} of {} dropped before older ones", ids.len());
            assert!(message.contains("dropped to keep the server's memory bounded"), "{message}");
        }
    }
    let last = seen.last().unwrap().as_ref().expect("the last task is kept");
    assert_eq!(last["status"], "completed", "{last}");
    let text = last["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains(&format!("small {}", small.len() - 1)), "{last}");

    // The bytes: large results.
    let big: Vec<String> = (0..60)
        .map(|i| format!("echo big {i}; head -c 20000 /dev/zero | tr '\\0' '\\1'"))
        .collect();
    let ids = run_tasks(&server, &big, 16);
    let seen = look_up(&server, &ids);
    let sizes: Vec<usize> =
        seen.iter().filter_map(|t| t.as_ref().ok()).map(|t| t.to_string().len()).collect();
    let largest = sizes.iter().copied().max().unwrap_or(0);
    assert!(
        largest * big.len() > MCP_MAX_FINISHED_TASK_BYTES,
        "the large results ({largest} bytes each) do not reach the byte bound"
    );
    // Each answer as the client got it: a few bytes more than the state kept (`resultType`).
    let bytes: usize = sizes.iter().sum();
    promise(bytes <= MCP_MAX_FINISHED_TASK_BYTES + 64 * sizes.len(), || {
        format!(
            "{} finished tasks kept with {bytes} bytes of results, more than {MCP_MAX_FINISHED_TASK_BYTES}",
            sizes.len()
        )
    });
    assert!(seen.last().unwrap().is_ok(), "the last task is kept");
    let dropped = seen.iter().filter(|t| t.is_err()).count();
    promise(dropped > 0, || "no large result was dropped".into());
}
