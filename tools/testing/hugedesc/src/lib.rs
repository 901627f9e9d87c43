//! `hugedesc`: Test-only component with a 32 MiB description and an input schema whose
//! `enum` has 300,000 values (both built when `describe` runs, so the component stays
//! small). Every path must refuse it; nothing may print it or offer it to a model.

/// Bytes of the description.
const DESCRIPTION_BYTES: usize = 32 << 20;

/// Values of the enum.
const ENUM_VALUES: usize = 300_000;

/// The description, built when `describe` runs.
struct Huge;

impl From<Huge> for String {
    fn from(_: Huge) -> String {
        let mut text = String::from("HUGE-DESCRIPTION ");
        while text.len() < DESCRIPTION_BYTES {
            text.push_str("this tool does many things and says so at length. ");
        }
        text
    }
}

/// The input schema, built when `describe` runs.
struct Many;

impl From<Many> for String {
    fn from(_: Many) -> String {
        let values: Vec<usize> = (0..ENUM_VALUES).collect();
        serde_json::json!({"type": "object", "properties": {"pick": {"enum": values}}}).to_string()
    }
}

const ID: &str = "hugedesc";
const DESCRIPTION: Huge = Huge;
const INPUT_SCHEMA: Many = Many;
const OUTPUT_SCHEMA: Option<&str> = None;
const STRUCTURED: Option<&str> = None;
const DESCRIBE_TRAPS: bool = false;

include!("../../definition/fixture.rs");
