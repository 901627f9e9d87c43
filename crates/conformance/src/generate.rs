//! Inputs generated from a tool's input schema, deterministic for a seed: values that follow
//! the schema (as far as this generator reads it: `type`, `properties`, `required`, `enum`,
//! `const`, `oneOf`/`anyOf`, `items`, local `$ref`s) and mutations of them that a tool must
//! refuse or survive — a wrong type, a missing required field, an unknown field, an empty, a
//! huge and a NUL-bearing string, deep nesting, a top level that is not an object. Whether an
//! input is valid is decided by a real validator afterwards, not here.

use serde_json::{Map, Value, json};

/// A small deterministic generator (SplitMix64).
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Bytes of the huge string mutation.
pub const HUGE_STRING_BYTES: usize = 256 << 10;

/// Levels of the deep-nesting mutation.
pub const NESTING_LEVELS: usize = 200;

/// The `i`-th generated input for `schema`: even ones follow the schema, odd ones are
/// mutations of a valid one.
pub fn input(schema: &Value, rng: &mut Rng, i: usize) -> Value {
    let mut value = generate(schema, schema, rng, 0);
    if i % 2 == 1 {
        mutate(schema, &mut value, rng);
    }
    value
}

/// `schema`, or what its local `$ref` (`#/…`) names in `root`.
pub fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => r
            .strip_prefix("#/")
            .map(|p| p.split('/').fold(root, |v, k| &v[k]))
            .filter(|v| !v.is_null())
            .unwrap_or(schema),
        None => schema,
    }
}

/// Follows the schema at most this deep (a checked schema nests no deeper: the host refuses
/// one past `MAX_SCHEMA_DEPTH`, and every `$ref` cycle); past it, a value is `null`.
pub const MAX_GENERATE_DEPTH: usize = toolhost_limits::MAX_SCHEMA_DEPTH;

fn generate(root: &Value, schema: &Value, rng: &mut Rng, depth: usize) -> Value {
    if depth >= MAX_GENERATE_DEPTH {
        return Value::Null;
    }
    let schema = resolve(root, schema);
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array).filter(|v| !v.is_empty()) {
        return values[rng.below(values.len())].clone();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(variants) = schema.get(key).and_then(Value::as_array).filter(|v| !v.is_empty())
        {
            let mut picked = generate(root, &variants[rng.below(variants.len())], rng, depth + 1);
            // Properties beside the variants (a tagged enum's shared fields) apply too.
            if let (Some(obj), Some(props)) =
                (picked.as_object_mut(), schema.get("properties").and_then(Value::as_object))
            {
                for (name, sub) in props {
                    obj.entry(name.clone()).or_insert_with(|| generate(root, sub, rng, depth + 1));
                }
            }
            return picked;
        }
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => {
            ts.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("null").to_string()
        }
        _ if schema.get("properties").is_some() => "object".into(),
        _ => "string".into(),
    };
    match ty.as_str() {
        "object" => {
            let mut out = Map::new();
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, sub) in props {
                    if required.contains(&name.as_str()) || (depth < 4 && rng.chance(50)) {
                        out.insert(name.clone(), generate(root, sub, rng, depth + 1));
                    }
                }
            }
            Value::Object(out)
        }
        "array" => {
            let n = if depth < 4 { rng.below(3) } else { 0 };
            let items = schema.get("items").cloned().unwrap_or(json!({}));
            Value::Array((0..n).map(|_| generate(root, &items, rng, depth + 1)).collect())
        }
        "integer" => {
            let lo = schema.get("minimum").and_then(Value::as_i64).unwrap_or(0);
            let hi = schema.get("maximum").and_then(Value::as_i64).unwrap_or(lo + 100);
            json!(lo + rng.below((hi - lo + 1).clamp(1, 1000) as usize) as i64)
        }
        "number" => json!(rng.below(1000) as f64 / 10.0),
        "boolean" => json!(rng.chance(50)),
        "null" => Value::Null,
        _ => {
            let words = ["a.txt", ".", "src", "fn", "hello", "x", "README.md", "*.rs"];
            json!(words[rng.below(words.len())])
        }
    }
}

/// Change `value` the way a careless or hostile model would.
fn mutate(schema: &Value, value: &mut Value, rng: &mut Rng) {
    let Some(obj) = value.as_object_mut() else { return };
    let keys: Vec<String> = obj.keys().cloned().collect();
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(|v| v.as_str().map(String::from)).collect())
        .unwrap_or_default();
    match rng.below(8) {
        0 => {
            if let Some(k) = keys.get(rng.below(keys.len().max(1))) {
                let wrong = match &obj[k] {
                    Value::String(_) => json!(12345),
                    Value::Number(_) => json!("not a number"),
                    Value::Bool(_) => json!("yes"),
                    Value::Array(_) => json!({"not": "an array"}),
                    Value::Object(_) => json!([1, 2, 3]),
                    Value::Null => json!(true),
                };
                obj.insert(k.clone(), wrong);
            } else {
                obj.insert("unexpected".into(), json!(1));
            }
        }
        1 => match required.get(rng.below(required.len().max(1))) {
            Some(k) => {
                obj.remove(k);
            }
            None => {
                obj.insert("unexpected".into(), json!(1));
            }
        },
        2 => {
            obj.insert("definitelyNotAField".into(), json!("x"));
        }
        3 => set_string(obj, &keys, rng, String::new()),
        4 => set_string(obj, &keys, rng, "x".repeat(HUGE_STRING_BYTES)),
        5 => set_string(obj, &keys, rng, "a\0b\u{0}c".into()),
        6 => {
            let mut deep = json!(0);
            for _ in 0..NESTING_LEVELS {
                deep = json!([deep]);
            }
            let k =
                keys.get(rng.below(keys.len().max(1))).cloned().unwrap_or_else(|| "deep".into());
            obj.insert(k, deep);
        }
        _ => {
            *value = [json!([]), json!("text"), Value::Null, json!(42)][rng.below(4)].clone();
        }
    }
}

/// Put `text` into one string-valued field (or a new one when there is none).
fn set_string(obj: &mut Map<String, Value>, keys: &[String], rng: &mut Rng, text: String) {
    let strings: Vec<&String> = keys.iter().filter(|k| obj[k.as_str()].is_string()).collect();
    let key = strings
        .get(rng.below(strings.len().max(1)))
        .map(|k| (*k).clone())
        .unwrap_or_else(|| "text".into());
    obj.insert(key, Value::String(text));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_inputs_follow_the_schema_and_the_seed_replays() {
        let schema = json!({"type": "object", "properties": {"path": {"type": "string"}, "n": {"type": "integer", "minimum": 1, "maximum": 5}}, "required": ["path"], "additionalProperties": false});
        let validator = jsonschema::validator_for(&schema).unwrap();
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for i in (0..40).step_by(2) {
            let v = input(&schema, &mut a, i);
            assert!(validator.is_valid(&v), "{v}");
            assert_eq!(v, input(&schema, &mut b, i));
        }
    }

    #[test]
    fn mutations_break_the_schema_often() {
        let schema = json!({"type": "object", "properties": {"path": {"type": "string", "maxLength": 1000}}, "required": ["path"], "additionalProperties": false});
        let validator = jsonschema::validator_for(&schema).unwrap();
        let mut rng = Rng::new(1);
        let invalid = (0..64)
            .filter(|i| i % 2 == 1)
            .filter(|i| !validator.is_valid(&input(&schema, &mut rng, *i)))
            .count();
        assert!(invalid >= 16, "only {invalid} of 32 mutations were invalid");
    }

    #[test]
    fn a_schema_that_refers_to_itself_does_not_recurse_without_end() {
        // The host refuses such a schema; the generator stops at its depth bound regardless.
        let schema = json!({"type": "object", "properties": {"q": {"$ref": "#/$defs/node"}}, "required": ["q"],
            "$defs": {"node": {"oneOf": [{"$ref": "#/$defs/node"}]}}});
        let mut rng = Rng::new(5);
        for i in 0..8 {
            let _ = input(&schema, &mut rng, i);
        }
    }

    #[test]
    fn tagged_enums_pick_a_variant() {
        let schema = json!({"type": "object", "oneOf": [
            {"type": "object", "properties": {"action": {"const": "echo"}}, "required": ["action"]},
            {"type": "object", "properties": {"action": {"const": "open"}, "path": {"type": "string"}}, "required": ["action", "path"]}
        ]});
        let validator = jsonschema::validator_for(&schema).unwrap();
        let mut rng = Rng::new(3);
        for i in (0..20).step_by(2) {
            assert!(validator.is_valid(&input(&schema, &mut rng, i)));
        }
    }
}
