//! `foreign`: a test-only component that exports a proper `toolhost:tool/tool@0.2.0` but also
//! imports `test:foreign/net`, an interface toolhost does not provide (a network client, say).
//! The host must refuse to load it, naming the import; conformance fails `static.imports`.

wit_bindgen::generate!({
    path: "../../../wit/since_v0.2.0",
    inline: r#"
        package test:foreign;

        interface net {
            connect: func(host: string) -> bool;
        }

        world foreign {
            import net;
            export toolhost:tool/tool@0.2.0;
        }
    "#,
    world: "test:foreign/foreign",
    generate_all,
});

use exports::toolhost::tool::tool::Guest;
use toolhost::tool::types::{Definition, Inspection, Output, Risk, ToolError};

struct Foreign;

impl Guest for Foreign {
    fn describe() -> Definition {
        Definition {
            id: "foreign".into(),
            description:
                "Test-only tool that reaches for a network interface toolhost does not provide."
                    .into(),
            input_schema: r#"{"type":"object","properties":{},"additionalProperties":false}"#
                .into(),
            output_schema: None,
            risk: Risk::ReadOnly,
        }
    }

    fn inspect(_input: String) -> Result<Inspection, ToolError> {
        Ok(Inspection::ReadOnly)
    }

    fn execute(_input: String) -> Result<Output, ToolError> {
        let reached = test::foreign::net::connect("example.com");
        Ok(Output { text: format!("reached: {reached}"), structured: None })
    }
}

export!(Foreign);
