//! Contract and layering (docs/acceptance.md): all six items of that group, through the real
//! host and real components.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use toolhost::registry::ToolRegistryBuilder;
use toolhost::tool::{CallInspection, ToolOutput};
use toolhost::{
    ErrorCode, FinalizeError, NativeTool, ToolCallContext, ToolError, ToolId, ToolResultStatus,
    ToolRisk, ToolSessionContext, ToolsetConfig, finalize,
};
use toolhost_tests::*;

/// A host-native tool with a typed input, for the registry tests.
struct Echo {
    id: &'static str,
    description: &'static str,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EchoInput {
    /// Text to echo.
    text: String,
    /// How many times.
    times: Option<u8>,
}

#[async_trait]
impl NativeTool for Echo {
    type Input = EchoInput;
    fn id(&self) -> ToolId {
        ToolId::new(self.id)
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn risk(&self) -> ToolRisk {
        ToolRisk::ReadOnly
    }
    async fn execute(
        &self,
        _: &ToolSessionContext,
        _: ToolCallContext,
        input: EchoInput,
    ) -> Result<ToolOutput, ToolError> {
        Ok(input.text.repeat(input.times.unwrap_or(1) as usize).into())
    }
}

fn echo(id: &'static str) -> Echo {
    Echo { id, description: "echoes" }
}

#[tokio::test]
async fn acc_01_finalized_toolset_is_the_model_and_dispatch_subset() {
    let fx = Fixture::new();
    fx.write("a.txt", "x");
    let ts = toolset(&fx, &["list"]).await;
    let ids: Vec<&str> = ts.definitions().iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["list"]);
    // What is advertised is callable…
    assert_eq!(call(&ts, &fx, "list", json!({})).await.status, ToolResultStatus::Succeeded);
    // …and a registered tool that was not selected is neither advertised nor run.
    let r = call(&ts, &fx, "misbehave", json!({"action": "echo"})).await;
    assert_eq!(r.error.unwrap().code, ErrorCode::ToolNotFound);
}

#[test]
fn acc_02_no_mutation_after_finalize_is_enforced_by_the_type() {
    // FinalizedToolset has private fields and no `&mut self` method; the compile_fail
    // doctest on `toolhost::registry::FinalizedToolset` proves the fields are out of reach.
    // Here: the only way to change a toolset is to finalize a new one; the old one keeps
    // its definitions.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let fx = Fixture::new();
        let mut b = ToolRegistryBuilder::new();
        b.register(echo("echo"));
        let reg = b.build();
        let first = finalize(&reg, &ToolsetConfig::new(["echo"]), fx.session()).unwrap();
        let mut b = ToolRegistryBuilder::new();
        b.register(echo("other"));
        let _second = finalize(&b.build(), &ToolsetConfig::new(["other"]), fx.session()).unwrap();
        assert_eq!(first.definitions()[0].id.as_str(), "echo");
    });
}

#[tokio::test]
async fn acc_03_typed_input_drives_schema_and_validation() {
    let fx = Fixture::new();
    let mut b = ToolRegistryBuilder::new();
    b.register(echo("echo"));
    let ts = finalize(&b.build(), &ToolsetConfig::new(["echo"]), fx.session()).unwrap();
    let schema = &ts.definitions()[0].input_schema;
    assert!(schema.get("$schema").is_none() && schema.get("title").is_none());
    assert_eq!(schema["required"], json!(["text"]));
    assert!(schema["properties"]["times"].is_object());
    // The field the schema requires is required by the parser; the unknown one is refused.
    for bad in [json!({}), json!({"text": "a", "loud": true}), json!({"text": 1})] {
        let r = ts.call("echo", bad, fx.call("c")).await;
        assert_eq!(r.status, ToolResultStatus::Failed);
        let e = r.error.unwrap();
        assert_eq!(e.code, ErrorCode::InvalidArguments);
        assert!(e.message.starts_with("invalid tool input: "), "{}", e.message);
        assert_eq!(r.content.len(), 1, "failed text equals the message");
    }
    let ok = ts.call("echo", json!({"text": "ab", "times": 2}), fx.call("c")).await;
    assert_eq!(ok.text(), "abab");
    // The same holds for a component tool: list's schema and parser are one type.
    let ts = toolset(&fx, &["list"]).await;
    let schema = &ts.definitions()[0].input_schema;
    assert!(schema.get("$schema").is_none() && schema.get("title").is_none());
    assert!(schema["properties"]["limit"].is_object());
    let r = call(&ts, &fx, "list", json!({"limit": "many"})).await;
    assert!(r.text().starts_with("invalid tool input: "), "{}", r.text());
    let r = call(&ts, &fx, "list", json!({"colour": "red"})).await;
    assert!(r.text().starts_with("invalid tool input: "), "{}", r.text());
}

#[tokio::test]
async fn acc_04_unknown_tool_becomes_a_result_and_the_next_call_goes_on() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["list"]).await;
    let r = call(&ts, &fx, "bash", json!({"command": "true"})).await;
    assert_eq!(r.status, ToolResultStatus::Failed);
    let e = r.error.unwrap();
    assert_eq!(e.code, ErrorCode::ToolNotFound);
    assert!(e.message.contains("list"), "names the available tools: {}", e.message);
    assert!(ts.prepare("bash", &json!({}), fx.call("p")).await.is_err());
    assert!(call(&ts, &fx, "list", json!({})).await.succeeded());
}

#[tokio::test]
async fn acc_05_definition_order_is_the_config_order() {
    let fx = Fixture::new();
    let reg = registry_with_test_tools().await;
    for order in [["list", "misbehave"], ["misbehave", "list"]] {
        let ts = finalize(&reg, &ToolsetConfig::new(order), fx.session()).unwrap();
        let ids: Vec<&str> = ts.definitions().iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, order);
    }
    // The agents' toolsets list the landed tools in the contract's order
    // (docs/contract.md#definitions-and-the-toolset).
    let ids = |c: ToolsetConfig| c.tools.iter().map(|t| t.to_string()).collect::<Vec<_>>();
    let seed_default = ["read", "write", "edit", "grep", "glob", "list", "bash"];
    let seed_explorer = ["read", "grep", "glob", "list", "bash"];
    let landed = |seed: &[&str], got: Vec<String>| {
        let expected: Vec<String> =
            seed.iter().filter(|s| got.iter().any(|g| g == *s)).map(|s| s.to_string()).collect();
        assert_eq!(got, expected);
    };
    landed(&seed_default, ids(toolhost::Agent::Default.toolset()));
    landed(&seed_explorer, ids(toolhost::Agent::Explorer.toolset()));
}

#[test]
fn acc_06_tools_and_sdk_do_not_depend_on_the_host() {
    let out = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["metadata", "--format-version", "1", "--offline", "--no-deps"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    let guests: Vec<&serde_json::Value> = packages
        .iter()
        .filter(|p| p["manifest_path"].as_str().unwrap().contains("/tools/"))
        .collect();
    assert!(guests.iter().any(|p| p["name"] == "toolhost-sdk"));
    assert!(guests.iter().any(|p| p["name"] == "toolhost-tool-list"));
    for p in guests {
        for dep in p["dependencies"].as_array().unwrap() {
            let name = dep["name"].as_str().unwrap();
            assert!(
                !matches!(name, "toolhost" | "wasmtime" | "wasmtime-wasi" | "toolhost-sandbox"),
                "{} depends on {name}",
                p["name"]
            );
        }
    }
}

#[test]
fn finalize_rejects_the_five_bad_configurations() {
    let fx = Fixture::new();
    let reg = |tools: Vec<Echo>| {
        let mut b = ToolRegistryBuilder::new();
        for t in tools {
            b.register(t);
        }
        b.build()
    };
    let cfg = |ids: &[&str]| ToolsetConfig::new(ids);
    let err =
        |r: Result<toolhost::FinalizedToolset, FinalizeError>| r.err().expect("must be refused");
    assert_eq!(
        err(finalize(&reg(vec![echo(" ")]), &cfg(&[]), fx.session())),
        FinalizeError::BlankId
    );
    assert!(matches!(
        err(finalize(&reg(vec![Echo { id: "e", description: "" }]), &cfg(&["e"]), fx.session())),
        FinalizeError::BlankDescription(_)
    ));
    assert!(matches!(
        err(finalize(&reg(vec![echo("e"), echo("e")]), &cfg(&["e"]), fx.session())),
        FinalizeError::DuplicateRegistration(_)
    ));
    assert!(matches!(
        err(finalize(&reg(vec![echo("e")]), &cfg(&["e", "e"]), fx.session())),
        FinalizeError::DuplicateSelection(_)
    ));
    let e = err(finalize(&reg(vec![echo("e")]), &cfg(&["nope"]), fx.session()));
    assert!(matches!(e, FinalizeError::NotRegistered(..)));
    assert!(e.to_string().contains("nope") && e.to_string().contains("e"));
}

#[tokio::test]
async fn inspect_reports_facts_before_execution() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["list", "misbehave"]).await;
    assert_eq!(
        ts.prepare("list", &json!({}), fx.call("p")).await.unwrap().inspection,
        CallInspection::ReadOnly
    );
    let p = ts
        .prepare("misbehave", &json!({"action": "write", "path": "x", "text": "y"}), fx.call("p"))
        .await
        .unwrap();
    assert_eq!(p.inspection, CallInspection::Writes("x".into()));
    assert_eq!(p.protected_target, None);
    // A hard-protected target is reported with the rule's text before anything runs.
    let p = ts
        .prepare(
            "misbehave",
            &json!({"action": "write", "path": ".git/hooks/pre-commit", "text": "y"}),
            fx.call("p"),
        )
        .await
        .unwrap();
    assert!(p.protected_target.as_deref().is_some_and(|t| t.contains("never written")), "{p:?}");
}
