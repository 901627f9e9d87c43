//! [`Report`]: every [`Check`] run on one component and its [`Outcome`] (rendered by
//! `render`).

/// What one check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Pass,
    Fail,
    Warn,
}

/// One check's result.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Check {
    /// Its stable name, `group.what`.
    pub name: String,
    /// Pass, fail or warn.
    pub outcome: Outcome,
    /// For a fail or warn: what was seen and what to change; for a pass, what was checked.
    pub message: String,
}

/// Every check run on one component.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    /// The file checked.
    pub component: String,
    /// The generator's seed (`--seed` replays it).
    pub seed: u64,
    /// The checks, in the order they ran.
    pub checks: Vec<Check>,
    /// Milliseconds each group of checks took, in the order they ran.
    #[serde(skip)]
    pub timings: Vec<(String, u128)>,
}

impl Report {
    /// Whether any check failed.
    pub fn failed(&self) -> bool {
        self.checks.iter().any(|c| c.outcome == Outcome::Fail)
    }

    /// The check named `name`, if it ran.
    pub fn get(&self, name: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.name == name)
    }
}
