//! `deadline.*`: a call with a short deadline, and one cancelled, end promptly.

use super::*;

pub(super) async fn deadline_checks(
    report: &mut Report,
    tool: &ComponentTool,
    scratch: &Scratch,
    sample: &Value,
) {
    let t = Instant::now();
    let r = tool
        .call(
            &scratch.session,
            scratch.call_context(usize::MAX - 1, SHORT_DEADLINE),
            sample.clone(),
        )
        .await;
    let took = t.elapsed();
    judge_stop(
        report,
        "deadline.deadline",
        &r,
        took,
        SHORT_DEADLINE,
        ErrorCode::Timeout,
        STOPPED_AT_DEADLINE,
    );

    let ctx = scratch.call_context(usize::MAX, CASE_DEADLINE);
    let cancel = ctx.cancel.clone();
    let t = Instant::now();
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(CANCEL_AFTER).await;
        cancel.cancel();
    });
    let r = tool.call(&scratch.session, ctx, sample.clone()).await;
    let took = t.elapsed();
    canceller.abort();
    judge_stop(
        report,
        "deadline.cancel",
        &r,
        took,
        CANCEL_AFTER,
        ErrorCode::Cancelled,
        STOPPED_ON_CANCEL,
    );
    tool.reset_crashes();
}

pub(super) fn judge_stop(
    report: &mut Report,
    name: &str,
    r: &ToolResult,
    took: Duration,
    at: Duration,
    code: ErrorCode,
    host_text: &str,
) {
    let ms = took.as_secs_f64() * 1e3;
    let stopped = r.error.as_ref().filter(|e| e.code == code);
    if took > at + PROMPT {
        push(
            report,
            name,
            Outcome::Fail,
            format!(
                "the call ended {ms:.0} ms after it started, more than a second past the {} ms mark; check call.cancelled() in long loops",
                at.as_millis()
            ),
        );
    } else if stopped.is_some_and(|e| e.message == host_text) {
        push(
            report,
            name,
            Outcome::Warn,
            format!(
                "only the host stopped it ({ms:.0} ms); a tool that checks call.cancelled() can stop cleanly and say what it did"
            ),
        );
    } else if stopped.is_some() {
        push(
            report,
            name,
            Outcome::Pass,
            format!("the tool noticed and stopped itself in {ms:.0} ms"),
        );
    } else {
        push(report, name, Outcome::Pass, format!("finished in {ms:.0} ms"));
    }
}
