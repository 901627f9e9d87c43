//! Component code outside a tool call gets no weaker policy than a call: `describe` gets no
//! file system at all, and `toolhost conformance` runs a component boxed into its scratch
//! workspace — the user's real HOME, data dirs and temp dir do not exist for it or for any
//! program it runs. Driven through the built binary with `snoop` (`tools/testing/snoop`), a
//! hostile component that reaches for the fake HOME's secrets and the data dir's private
//! files from `describe` and `execute`, by file and by program, and drops what it finds in
//! the temp dir for a later call to read.

use std::path::PathBuf;

use serde_json::Value;
use toolhost_tests::attack::{Attack, hidden, promise};
use toolhost_tests::test_components_dir;

fn snoop() -> PathBuf {
    test_components_dir().join("snoop.wasm")
}

/// A fake MCP token and a fake store file in the data dir, each holding a marker.
fn plant_private_data(a: &Attack) -> (String, String) {
    let token = toolhost_tests::attack::marker("MCP-TOKEN");
    std::fs::write(a.data.join("mcp-token"), format!("{token}\n")).unwrap();
    let policy = toolhost_tests::attack::marker("POLICY");
    // A valid policy.json whose text holds a marker (an extra credential entry's name).
    std::fs::write(
        a.data.join("policy.json"),
        format!("{{\"extra_credential\": [\".{policy}\"]}}"),
    )
    .unwrap();
    (token, policy)
}

/// The files snoop drops in the temp dir for this setup (its dir name names them).
fn drops(a: &Attack) -> Vec<PathBuf> {
    let name = a.home.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned();
    let tmp = std::env::temp_dir();
    vec![
        tmp.join(format!("toolhost-snoop-{name}.txt")),
        tmp.join(format!("toolhost-snoop-{name}-run.txt")),
    ]
}

fn markers(a: &Attack, private: &(String, String)) -> Vec<String> {
    let mut m: Vec<String> = a.secrets.iter().map(|s| s.marker.clone()).collect();
    m.push(private.0.clone());
    m.push(private.1.clone());
    m
}

#[test]
fn describe_reads_nothing_into_the_definition_the_model_sees() {
    let a = Attack::new();
    let private = plant_private_data(&a);
    let file = snoop();
    let tools = a.run(&["--tool", file.to_str().unwrap()], &["tools", "--json"]);
    assert_eq!(tools.code, Some(0), "{}", tools.all());
    let list: Value = serde_json::from_str(&tools.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", tools.all()));
    let snoop =
        list.as_array().unwrap().iter().find(|t| t["name"] == "snoop" || t["id"] == "snoop");
    promise(snoop.is_some(), || format!("snoop is not in the toolset: {}", tools.stdout));
    for m in markers(&a, &private) {
        hidden(
            &tools.all(),
            &m,
            "`tools` with a component whose describe reads the data dir and HOME",
        );
    }
    // `tool add` shows the description too, and installs it for every later tools/list.
    let add = a.run(&[], &["tool", "add", file.to_str().unwrap(), "--yes"]);
    for m in markers(&a, &private) {
        hidden(&add.all(), &m, "`tool add` of a component whose describe reads the data dir");
    }
}

#[test]
fn conformance_boxes_the_component_and_its_programs_into_the_scratch_workspace() {
    let a = Attack::new();
    let private = plant_private_data(&a);
    for d in drops(&a) {
        let _ = std::fs::remove_file(d);
    }
    let file = snoop();
    let out = a.run(
        &[],
        &["conformance", file.to_str().unwrap(), "--json", "--cases", "4", "--seed", "1"],
    );
    let report: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", out.all()));
    for m in markers(&a, &private) {
        hidden(
            &out.all(),
            &m,
            "conformance's report on a component that reads HOME and the data dir",
        );
    }
    for d in drops(&a) {
        let dropped = std::fs::read_to_string(&d).unwrap_or_default();
        let _ = std::fs::remove_file(&d);
        for m in markers(&a, &private) {
            hidden(
                &dropped,
                &m,
                &format!("what the component under conformance wrote to {}", d.display()),
            );
        }
        promise(dropped.is_empty(), || {
            format!(
                "the component under conformance wrote {} outside its box:\n{dropped}",
                d.display()
            )
        });
    }
    let boxed = report["checks"].as_array().unwrap().iter().find(|c| c["name"] == "isolation.box");
    promise(boxed.is_some_and(|c| c["outcome"] == "pass"), || {
        format!("the report does not say the calls ran boxed: {}", out.stdout)
    });
}
