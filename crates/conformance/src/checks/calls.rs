//! `inputs.*`, `outputs.*` and `bounds.*`: what the generated inputs' calls returned.

use super::*;

/// `outputs.structured`: no call's structured result was withheld by the host (it broke the
/// output schema, or was missing, or came without one).
pub(super) fn output_checks(
    report: &mut Report,
    cases: &[Case],
    def: &ToolDefinition,
    options: &Options,
) {
    let withheld = |c: &&Case| {
        c.result.error.as_ref().is_some_and(|e| e.message.ends_with(STRUCTURED_WITHHELD))
    };
    let broken: Vec<&Case> = cases.iter().filter(withheld).collect();
    match smallest(broken.iter().copied()) {
        None => {
            let structured = cases.iter().filter(|c| c.result.structured.is_some()).count();
            let message = match &def.output_schema {
                None => "text only, as its definition says".to_string(),
                Some(_) => {
                    format!("{structured} structured results, each matching the output schema")
                }
            };
            push(report, "outputs.structured", Outcome::Pass, message);
        }
        Some(c) => push(
            report,
            "outputs.structured",
            Outcome::Fail,
            format!(
                "{} calls returned a structured result the host withheld, e.g. {} → {}; return a value that matches the output schema, or fix the schema (replay with --seed {} --cases {})",
                broken.len(),
                shown(&c.input),
                c.result.text().chars().take(300).collect::<String>(),
                options.seed,
                options.cases
            ),
        ),
    }
}

/// The smallest input (as JSON text) of `cases`, shown in a failure.
pub(super) fn smallest<'a>(cases: impl Iterator<Item = &'a Case>) -> Option<&'a Case> {
    cases.min_by_key(|c| c.input.to_string().len())
}

pub(super) fn shown(v: &Value) -> String {
    let text = v.to_string();
    if text.len() > 300 {
        format!("{}… ({} bytes)", &text[..text.floor_char_boundary(300)], text.len())
    } else {
        text
    }
}

pub(super) fn input_checks(report: &mut Report, cases: &[Case], options: &Options) {
    let valid = cases.iter().filter(|c| c.valid).count();
    let replay = format!("replay with --seed {} --cases {}", options.seed, options.cases);
    match smallest(cases.iter().filter(|c| c.crashed)) {
        None => push(
            report,
            "inputs.no-trap",
            Outcome::Pass,
            format!(
                "{} inputs ({valid} valid, {} invalid), none trapped",
                cases.len(),
                cases.len() - valid
            ),
        ),
        Some(c) => push(
            report,
            "inputs.no-trap",
            Outcome::Fail,
            format!(
                "{} of {} inputs trapped or ran out of memory, e.g. {} → {}; return a tool error instead ({replay})",
                cases.iter().filter(|c| c.crashed).count(),
                cases.len(),
                shown(&c.input),
                c.result.text()
            ),
        ),
    }
    let refused_right = |c: &Case| {
        c.result.error.as_ref().is_some_and(|e| {
            e.code == ErrorCode::InvalidArguments
                && e.message.starts_with(toolhost_core::tool::INVALID_INPUT_PREFIX)
        })
    };
    let wrong: Vec<&Case> =
        cases.iter().filter(|c| !c.valid && !c.crashed && !refused_right(c)).collect();
    let by_host = cases
        .iter()
        .filter(|c| {
            !c.valid
                && c.result
                    .error
                    .as_ref()
                    .is_some_and(|e| e.message.ends_with(INPUT_REFUSED_BY_HOST))
        })
        .count();
    let invalid = cases.iter().filter(|c| !c.valid).count();
    match smallest(wrong.iter().copied()) {
        None => push(
            report,
            "inputs.invalid-refused",
            Outcome::Pass,
            format!(
                "every input that breaks the schema is refused with invalid-arguments and a text starting `invalid tool input: ` (the host refused {by_host} of {invalid} such inputs against the declared schema before the component ran: a tool may lean on that)"
            ),
        ),
        Some(c) => push(
            report,
            "inputs.invalid-refused",
            Outcome::Fail,
            format!(
                "{} inputs that break the schema were not refused with invalid-arguments and a text starting `invalid tool input: `, e.g. {} → {}: {}; declare in the schema what the tool refuses (the host then refuses it before the tool runs), or refuse it with that code and text ({replay})",
                wrong.len(),
                shown(&c.input),
                super::sections::outcome(&c.result),
                c.result.text().chars().take(200).collect::<String>()
            ),
        ),
    }
}

pub(super) fn bounds_checks(report: &mut Report, cases: &[Case], options: &Options) {
    match smallest(cases.iter().filter(|c| c.result.text().len() > MAX_RESULT_BYTES)) {
        None => push(
            report,
            "bounds.result-size",
            Outcome::Pass,
            format!("every result ≤ {MAX_RESULT_BYTES} bytes"),
        ),
        Some(c) => push(
            report,
            "bounds.result-size",
            Outcome::Warn,
            format!(
                "a result of {} bytes (input {}): the host cuts it at {MAX_RESULT_BYTES} and saves the rest; bound it yourself and tell the model how to ask for more (--seed {})",
                c.result.text().len(),
                shown(&c.input),
                options.seed
            ),
        ),
    }
    let hoarded = |c: &Case| {
        c.result.usage.is_some_and(|u| u.peak_memory_bytes as usize >= MAX_STORE_MEMORY)
            || c.result.text().contains("ran out of memory")
    };
    match smallest(cases.iter().filter(|c| hoarded(c))) {
        None => {
            let peak = cases
                .iter()
                .filter_map(|c| c.result.usage)
                .map(|u| u.peak_memory_bytes)
                .max()
                .unwrap_or(0);
            push(
                report,
                "bounds.memory",
                Outcome::Pass,
                format!(
                    "peak memory {:.1} MiB of the {} MiB cap",
                    peak as f64 / (1 << 20) as f64,
                    MAX_STORE_MEMORY >> 20
                ),
            );
        }
        Some(c) => push(
            report,
            "bounds.memory",
            Outcome::Fail,
            format!(
                "input {} reached the {} MiB memory cap: {}",
                shown(&c.input),
                MAX_STORE_MEMORY >> 20,
                c.result.text()
            ),
        ),
    }
}
