//! A [`Report`] as text (one line per check), as JSON (`{"component", "seed", "checks"}`, as
//! docs/extending.md gives it) and as JUnit XML (one test case per check; a warn passes with its
//! message in `system-out`).

use crate::{Outcome, Report};

impl Outcome {
    fn word(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Warn => "warn",
        }
    }
}

impl Report {
    /// One line per check (`pass`, `fail` or `warn`, its name, and for anything but a pass
    /// what was seen), then the time per group and a summary line.
    pub fn text(&self) -> String {
        let mut out = format!("conformance of {} (seed {})\n", self.component, self.seed);
        for c in &self.checks {
            match (c.outcome, c.message.is_empty()) {
                (_, true) => out.push_str(&format!("{}  {}\n", c.outcome.word(), c.name)),
                (Outcome::Pass, false) => {
                    out.push_str(&format!("{}  {} ({})\n", c.outcome.word(), c.name, c.message))
                }
                _ => out.push_str(&format!("{}  {}: {}\n", c.outcome.word(), c.name, c.message)),
            }
        }
        let times: Vec<String> =
            self.timings.iter().map(|(g, ms)| format!("{g} {ms} ms")).collect();
        let count = |o: Outcome| self.checks.iter().filter(|c| c.outcome == o).count();
        out.push_str(&format!(
            "{} passed, {} failed, {} warned; time: {}\n",
            count(Outcome::Pass),
            count(Outcome::Fail),
            count(Outcome::Warn),
            times.join(", ")
        ));
        out
    }

    /// The report as one JSON document.
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self)
            .unwrap_or_else(|e| format!("{{\"error\": {:?}}}", e.to_string()))
    }

    /// The report as JUnit XML.
    pub fn junit(&self) -> String {
        let failures = self.checks.iter().filter(|c| c.outcome == Outcome::Fail).count();
        let mut out = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"toolhost conformance\" tests=\"{}\" failures=\"{failures}\">\n  <properties><property name=\"component\" value=\"{}\"/><property name=\"seed\" value=\"{}\"/></properties>\n",
            self.checks.len(),
            xml(&self.component),
            self.seed
        );
        for c in &self.checks {
            let class = c.name.split('.').next().unwrap_or("");
            out.push_str(&format!(
                "  <testcase classname=\"{}\" name=\"{}\">",
                xml(class),
                xml(&c.name)
            ));
            match c.outcome {
                Outcome::Fail => {
                    out.push_str(&format!("<failure message=\"{}\"/>", xml(&c.message)))
                }
                Outcome::Warn => {
                    out.push_str(&format!("<system-out>warn: {}</system-out>", xml(&c.message)))
                }
                Outcome::Pass => {}
            }
            out.push_str("</testcase>\n");
        }
        out.push_str("</testsuite>\n");
        out
    }
}

/// Text safe inside an XML attribute or element (control characters dropped).
fn xml(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '"' => "&quot;".to_string(),
            '\'' => "&apos;".to_string(),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Check;

    fn report() -> Report {
        Report {
            component: "t<1>.wasm".into(),
            seed: 7,
            checks: vec![
                Check {
                    name: "static.component".into(),
                    outcome: Outcome::Pass,
                    message: String::new(),
                },
                Check {
                    name: "inputs.no-trap".into(),
                    outcome: Outcome::Fail,
                    message: "it \"trapped\" & \u{1b}died".into(),
                },
                Check {
                    name: "describe.property-descriptions".into(),
                    outcome: Outcome::Warn,
                    message: "add one".into(),
                },
            ],
            timings: vec![("static".into(), 3)],
        }
    }

    #[test]
    fn json_has_the_design_shape() {
        let v: serde_json::Value = serde_json::from_str(&report().json()).unwrap();
        assert_eq!(v["component"], "t<1>.wasm");
        assert_eq!(v["checks"][1]["outcome"], "fail");
        assert_eq!(v["checks"][1]["name"], "inputs.no-trap");
    }

    #[test]
    fn junit_escapes_and_counts() {
        let x = report().junit();
        assert!(x.contains("tests=\"3\" failures=\"1\""));
        assert!(x.contains("it &quot;trapped&quot; &amp; died"));
        assert!(!x.contains('\u{1b}'));
        assert!(x.contains("<system-out>warn: add one</system-out>"));
    }

    #[test]
    fn text_has_one_line_per_check() {
        let t = report().text();
        assert!(t.contains("fail  inputs.no-trap: it"));
        assert!(t.contains("1 passed, 1 failed, 1 warned"));
    }
}
