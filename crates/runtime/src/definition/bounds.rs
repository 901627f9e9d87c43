//! A schema's bounds: its size, and with every `$ref` written out where it is used, its
//! depth, values and regular expressions; each `enum`; every `$ref` resolved inside the
//! schema, none in a cycle. One walk, linear in the schema's size.

use std::collections::HashMap;

use serde_json::Value;
use toolhost_limits::{
    MAX_DESCRIPTION_BYTES, MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, MAX_SCHEMA_ENUM_VALUES,
    MAX_SCHEMA_NODES, MAX_SCHEMA_PATTERNS,
};

use super::SchemaKind;

/// A bound a definition goes past: the host does not read it further. Each text names the
/// limit and says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PastLimit {
    #[error(
        "its description is {bytes} bytes, more than the {MAX_DESCRIPTION_BYTES} a description may have (MAX_DESCRIPTION_BYTES); shorten it to what a model needs to choose and call the tool"
    )]
    DescriptionBytes { bytes: usize },
    #[error(
        "its {kind} is {bytes} bytes of JSON, more than the {MAX_SCHEMA_BYTES} a schema may have (MAX_SCHEMA_BYTES); shorten its descriptions and enums, or take free-form input and check it in the tool"
    )]
    SchemaBytes { kind: SchemaKind, bytes: usize },
    #[error(
        "its {kind} nests deeper than {MAX_SCHEMA_DEPTH} levels at `{at}` (MAX_SCHEMA_DEPTH, counting what a `$ref` refers to where it is used); flatten it"
    )]
    SchemaDepth { kind: SchemaKind, at: String },
    #[error(
        "its {kind} has more than {MAX_SCHEMA_NODES} values with every `$ref` written out where it is used (MAX_SCHEMA_NODES); refer to fewer or smaller definitions"
    )]
    SchemaNodes { kind: SchemaKind },
    #[error(
        "its {kind} has an `enum` of {values} values at `{at}`, more than {MAX_SCHEMA_ENUM_VALUES} (MAX_SCHEMA_ENUM_VALUES); take a string and check it in the tool"
    )]
    EnumValues { kind: SchemaKind, at: String, values: usize },
    #[error(
        "its {kind} has more than {MAX_SCHEMA_PATTERNS} regular expressions (`pattern`, `patternProperties`) with every `$ref` written out (MAX_SCHEMA_PATTERNS); check the rest in the tool"
    )]
    Patterns { kind: SchemaKind },
    #[error(
        "its {kind} has a `$ref` cycle ({chain}): a tool's schema may not be recursive; write out the levels the tool takes (at most MAX_SCHEMA_DEPTH)"
    )]
    RefCycle { kind: SchemaKind, chain: String },
    #[error(
        "its {kind} has a `$ref` to {target:?} at `{at}` that does not resolve inside the schema; refer only to JSON pointers into the schema itself, such as `#/$defs/name`"
    )]
    RefUnresolved { kind: SchemaKind, at: String, target: String },
    #[error(
        "its {kind} uses `{keyword}` at `{at}`, which a tool's schema may not use (it changes what a `$ref` refers to); use `$ref` with a JSON pointer such as `#/$defs/name`"
    )]
    Keyword { kind: SchemaKind, keyword: String, at: String },
}

/// Checks a schema's bounds: its size as JSON ([`MAX_SCHEMA_BYTES`]), and with every `$ref`
/// written out where it is used, its depth ([`MAX_SCHEMA_DEPTH`]), values
/// ([`MAX_SCHEMA_NODES`]) and regular expressions ([`MAX_SCHEMA_PATTERNS`]); each `enum`
/// ([`MAX_SCHEMA_ENUM_VALUES`]); every `$ref` a JSON pointer into the schema itself, none in a
/// cycle; no `$id`, `$dynamicRef` or `$recursiveRef`. Work and memory are linear in the
/// schema's size (each `$ref` target is walked once).
pub fn schema_bounds(schema: &Value, kind: SchemaKind) -> Result<(), PastLimit> {
    let bytes = serde_json::to_string(schema).map(|s| s.len()).unwrap_or(usize::MAX);
    if bytes > MAX_SCHEMA_BYTES {
        return Err(PastLimit::SchemaBytes { kind, bytes });
    }
    let mut walk = Walk { root: schema, kind, memo: HashMap::new(), frames: Vec::new() };
    let cost = walk.schema(schema, String::new(), 0)?;
    walk.check(cost, "")?;
    Ok(())
}

/// What a part of a schema costs with its `$ref`s written out.
#[derive(Debug, Clone, Copy, Default)]
struct Cost {
    nodes: usize,
    /// Levels below (and including) this value.
    height: usize,
    patterns: usize,
}

impl Cost {
    fn leaf() -> Self {
        Cost { nodes: 1, height: 1, patterns: 0 }
    }

    /// This value with `child` one level below it.
    fn add_child(&mut self, child: Cost) {
        self.nodes = self.nodes.saturating_add(child.nodes);
        self.height = self.height.max(child.height.saturating_add(1));
        self.patterns = self.patterns.saturating_add(child.patterns);
    }
}

/// Keywords whose value is one schema (or, for `items`, a list of them).
const ONE_SCHEMA: &[&str] = &[
    "additionalProperties",
    "propertyNames",
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
    "contentSchema",
];
/// Keywords whose value is a list of schemas.
const LIST_OF_SCHEMAS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to schemas.
const MAP_OF_SCHEMAS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];
/// Keywords that change what a `$ref` resolves to: refused.
const REFUSED_KEYWORDS: &[&str] = &["$id", "$dynamicRef", "$recursiveRef"];

/// The walk of one schema: `memo` holds each `$ref` target's cost once walked, `frames` the
/// positions of the `$ref`s being followed (a target that is one of them, or holds one, is a
/// cycle).
struct Walk<'a> {
    root: &'a Value,
    kind: SchemaKind,
    memo: HashMap<String, Cost>,
    frames: Vec<String>,
}

/// `key` as a JSON pointer token.
fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Whether the pointer `ancestor` is `at` or above it.
fn holds(ancestor: &str, at: &str) -> bool {
    at == ancestor || (at.starts_with(ancestor) && at.as_bytes().get(ancestor.len()) == Some(&b'/'))
}

/// A URI fragment's percent-escapes decoded; None when they are not valid UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

impl Walk<'_> {
    /// Refuse a part whose cost (at `depth` levels below the top) is past a limit.
    fn check(&self, cost: Cost, at: &str) -> Result<(), PastLimit> {
        let kind = self.kind;
        if cost.nodes > MAX_SCHEMA_NODES {
            return Err(PastLimit::SchemaNodes { kind });
        }
        if cost.patterns > MAX_SCHEMA_PATTERNS {
            return Err(PastLimit::Patterns { kind });
        }
        if cost.height > MAX_SCHEMA_DEPTH {
            return Err(PastLimit::SchemaDepth { kind, at: display_at(at) });
        }
        Ok(())
    }

    fn too_deep(&self, depth: usize, at: &str) -> Result<(), PastLimit> {
        if depth >= MAX_SCHEMA_DEPTH {
            return Err(PastLimit::SchemaDepth { kind: self.kind, at: display_at(at) });
        }
        Ok(())
    }

    /// A schema at `at`, `depth` levels below the top.
    fn schema(&mut self, value: &Value, at: String, depth: usize) -> Result<Cost, PastLimit> {
        self.too_deep(depth, &at)?;
        let Value::Object(obj) = value else {
            return self.data(value, &at, depth);
        };
        let mut cost = Cost::leaf();
        for (key, sub) in obj {
            let here = format!("{at}/{}", token(key));
            if let Some(k) = REFUSED_KEYWORDS.iter().find(|k| **k == key) {
                return Err(PastLimit::Keyword {
                    kind: self.kind,
                    keyword: (*k).into(),
                    at: display_at(&at),
                });
            }
            let child = match key.as_str() {
                "$ref" => match sub.as_str() {
                    Some(target) => self.reference(target, &at, depth + 1)?,
                    None => self.data(sub, &here, depth + 1)?,
                },
                "enum" => {
                    if let Some(values) =
                        sub.as_array().filter(|v| v.len() > MAX_SCHEMA_ENUM_VALUES)
                    {
                        return Err(PastLimit::EnumValues {
                            kind: self.kind,
                            at: display_at(&here),
                            values: values.len(),
                        });
                    }
                    self.data(sub, &here, depth + 1)?
                }
                "pattern" => {
                    let mut c = self.data(sub, &here, depth + 1)?;
                    c.patterns = c.patterns.saturating_add(1);
                    c
                }
                k if ONE_SCHEMA.contains(&k) => match sub {
                    Value::Array(items) => self.list(items, &here, depth + 1)?,
                    _ => self.schema(sub, here, depth + 1)?,
                },
                k if LIST_OF_SCHEMAS.contains(&k) => match sub {
                    Value::Array(items) => self.list(items, &here, depth + 1)?,
                    _ => self.data(sub, &here, depth + 1)?,
                },
                k if MAP_OF_SCHEMAS.contains(&k) => match sub {
                    Value::Object(map) => {
                        self.too_deep(depth + 1, &here)?;
                        let mut c = Cost::leaf();
                        for (name, s) in map {
                            let mut one =
                                self.schema(s, format!("{here}/{}", token(name)), depth + 2)?;
                            if k == "patternProperties" {
                                one.patterns = one.patterns.saturating_add(1);
                            }
                            c.add_child(one);
                            self.check(c, &here)?;
                        }
                        c
                    }
                    _ => self.data(sub, &here, depth + 1)?,
                },
                _ => self.data(sub, &here, depth + 1)?,
            };
            cost.add_child(child);
            self.check(cost, &at)?;
        }
        Ok(cost)
    }

    /// A list of schemas at `at`.
    fn list(&mut self, items: &[Value], at: &str, depth: usize) -> Result<Cost, PastLimit> {
        self.too_deep(depth, at)?;
        let mut cost = Cost::leaf();
        for (i, item) in items.iter().enumerate() {
            let child = self.schema(item, format!("{at}/{i}"), depth + 1)?;
            cost.add_child(child);
            self.check(cost, at)?;
        }
        Ok(cost)
    }

    /// A value that is not a schema (an enum's values, a default, an unknown keyword's value).
    fn data(&mut self, value: &Value, at: &str, depth: usize) -> Result<Cost, PastLimit> {
        self.too_deep(depth, at)?;
        let mut cost = Cost::leaf();
        match value {
            Value::Array(items) => {
                for item in items {
                    cost.add_child(self.data(item, at, depth + 1)?);
                    self.check(cost, at)?;
                }
            }
            Value::Object(map) => {
                for (key, item) in map {
                    cost.add_child(self.data(item, &format!("{at}/{}", token(key)), depth + 1)?);
                    self.check(cost, at)?;
                }
            }
            _ => {}
        }
        Ok(cost)
    }

    /// The `$ref` to `target` in the schema at `at`: what it refers to, as if written there.
    fn reference(&mut self, target: &str, at: &str, depth: usize) -> Result<Cost, PastLimit> {
        let kind = self.kind;
        let unresolved = || PastLimit::RefUnresolved {
            kind,
            at: display_at(at),
            target: target.chars().take(200).collect(),
        };
        let pointer = target
            .strip_prefix('#')
            .filter(|p| p.is_empty() || p.starts_with('/'))
            .ok_or_else(unresolved)?;
        let pointer = percent_decode(pointer).ok_or_else(unresolved)?;
        if let Some(cost) = self.memo.get(&pointer).copied() {
            self.too_deep(depth + cost.height.saturating_sub(1), at)?;
            return Ok(cost);
        }
        if self.frames.iter().map(String::as_str).chain([at]).any(|f| holds(&pointer, f)) {
            let mut chain: Vec<String> = self.frames.iter().map(|f| display_at(f)).collect();
            chain.push(display_at(at));
            chain.push(display_at(&pointer));
            return Err(PastLimit::RefCycle { kind, chain: chain.join(" → ") });
        }
        let root = self.root;
        let resolved = root.pointer(&pointer).ok_or_else(unresolved)?;
        self.frames.push(at.to_string());
        let cost = self.schema(resolved, pointer.clone(), depth);
        self.frames.pop();
        let cost = cost?;
        self.memo.insert(pointer, cost);
        Ok(cost)
    }
}

/// A JSON pointer as a refusal shows it (`#` for the top).
fn display_at(at: &str) -> String {
    format!("#{at}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bounds(schema: Value) -> Result<(), PastLimit> {
        schema_bounds(&schema, SchemaKind::Output)
    }

    #[test]
    fn ref_cycles_are_refused_and_trees_of_refs_are_not() {
        let cycle = json!({"type": "object", "properties": {"v": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}});
        assert!(matches!(bounds(cycle), Err(PastLimit::RefCycle { .. })));
        let itself = json!({"type": "object", "oneOf": [{"$ref": "#"}]});
        assert!(matches!(bounds(itself), Err(PastLimit::RefCycle { .. })));
        let own_def = json!({"type": "object", "$defs": {"node": {"oneOf": [{"$ref": "#/$defs/node"}, {"type": "string"}]}}});
        assert!(matches!(bounds(own_def), Err(PastLimit::RefCycle { .. })));
        let list = json!({"type": "object", "$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}}});
        assert!(matches!(bounds(list), Err(PastLimit::RefCycle { .. })));
        let shared = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/s"}, "b": {"$ref": "#/$defs/s"}}, "$defs": {"s": {"type": "string", "pattern": "^x"}}});
        assert_eq!(bounds(shared), Ok(()));
    }

    #[test]
    fn refs_resolve_inside_the_schema() {
        for target in ["https://example.com/s.json", "#anchor", "#/$defs/missing", "other.json#/a"]
        {
            let schema =
                json!({"type": "object", "properties": {"a": {"$ref": target}}, "$defs": {}});
            assert!(matches!(bounds(schema), Err(PastLimit::RefUnresolved { .. })), "{target}");
        }
        let dynamic = json!({"type": "object", "$dynamicRef": "#meta"});
        assert!(matches!(bounds(dynamic), Err(PastLimit::Keyword { .. })));
        let id =
            json!({"type": "object", "properties": {"a": {"$id": "https://x/", "type": "string"}}});
        assert!(matches!(bounds(id), Err(PastLimit::Keyword { .. })));
        // A property named like a keyword, and data that looks like a `$ref`, are not refs.
        let named = json!({"type": "object", "properties": {"$ref": {"type": "string"}, "$id": {"type": "string"}}, "enum": [{"$ref": "nowhere"}]});
        assert_eq!(bounds(named), Ok(()));
        let escaped = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/a~1b%20c"}}, "$defs": {"a/b c": {"type": "string"}}});
        assert_eq!(bounds(escaped), Ok(()));
    }

    #[test]
    fn refs_written_out_are_counted() {
        // 40 levels, each an anyOf of two references to the next: 2^40 schemas written out.
        let mut defs = serde_json::Map::new();
        for i in 0..40 {
            let next = format!("#/$defs/l{}", i + 1);
            defs.insert(format!("l{i}"), json!({"anyOf": [{"$ref": next}, {"$ref": next}]}));
        }
        defs.insert("l40".into(), json!({"type": "integer"}));
        let chain =
            json!({"type": "object", "properties": {"v": {"$ref": "#/$defs/l0"}}, "$defs": defs});
        assert!(serde_json::to_string(&chain).unwrap().len() < 4096);
        assert!(matches!(
            bounds(chain),
            Err(PastLimit::SchemaNodes { .. } | PastLimit::SchemaDepth { .. })
        ));
        // Shallow but wide: 100 references to one definition of 60 properties.
        let shape: serde_json::Map<String, Value> =
            (0..60).map(|i| (format!("f{i}"), json!({"type": "string"}))).collect();
        let uses: serde_json::Map<String, Value> =
            (0..100).map(|i| (format!("u{i}"), json!({"$ref": "#/$defs/s"}))).collect();
        let wide = json!({"type": "object", "properties": uses, "$defs": {"s": {"type": "object", "properties": shape}}});
        assert!(matches!(bounds(wide), Err(PastLimit::SchemaNodes { .. })));
    }

    #[test]
    fn size_depth_enums_and_patterns_are_bounded() {
        let mut deep = json!({"type": "string"});
        for _ in 0..40 {
            deep = json!({"type": "object", "properties": {"x": deep}});
        }
        assert!(matches!(
            bounds(json!({"type": "object", "properties": {"x": deep}})),
            Err(PastLimit::SchemaDepth { .. })
        ));
        let values: Vec<usize> = (0..=MAX_SCHEMA_ENUM_VALUES).collect();
        assert!(matches!(
            bounds(json!({"type": "object", "properties": {"e": {"enum": values}}})),
            Err(PastLimit::EnumValues { .. })
        ));
        let values: Vec<usize> = (0..300_000).collect();
        assert!(matches!(
            bounds(json!({"type": "object", "properties": {"e": {"enum": values}}})),
            Err(PastLimit::SchemaBytes { .. })
        ));
        let props: serde_json::Map<String, Value> = (0..=MAX_SCHEMA_PATTERNS)
            .map(|i| (format!("p{i}"), json!({"type": "string", "pattern": "^a"})))
            .collect();
        assert!(matches!(
            bounds(json!({"type": "object", "properties": props})),
            Err(PastLimit::Patterns { .. })
        ));
    }
}
