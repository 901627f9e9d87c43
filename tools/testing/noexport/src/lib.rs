//! `noexport`: a test-only component that exports no `toolhost:tool/tool` at all, only a
//! function of its own (what a component built for another host looks like). Conformance
//! fails `static.exports`; `tool add` refuses it.

wit_bindgen::generate!({
    inline: r#"
        package test:noexport;

        world noexport {
            export greet: func(name: string) -> string;
        }
    "#,
});

struct NoExport;

impl Guest for NoExport {
    fn greet(name: String) -> String {
        format!("hello, {name}")
    }
}

export!(NoExport);
