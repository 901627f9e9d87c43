//! `cargo xtask bench read`: `read` of a generated 200 MB, 2,000,000-line file as a whole
//! `toolhost call`, against `sha256sum FILE && wc -l FILE` in the same run (ratio and peak
//! RSS; targets: ratio ≤ 1.3, peak RSS < 64 MB above a `toolhost call list`), and `edit`
//! on a 1 MiB file (median call time, in-process).

use std::io::Write;
use std::process::Command;
use std::time::Instant;

use serde_json::json;
use toolhost_tests::*;

fn main() {
    let runs = 5;
    let fx = Fixture::new();
    let path = fx.root().join("big.txt");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        for i in 0..2_000_000u32 {
            writeln!(f, "{i:010} the quick brown fox jumps over the lazy dog while reading a very large file.....").unwrap();
        }
    }
    let size = std::fs::metadata(&path).unwrap().len();
    println!("file: {} MB, 2,000,000 lines", size / 1_000_000);
    let mut list = toolhost_command(&fx);
    list.args(["call", "list", "{}"]);
    measure(&mut list); // warm the component cache
    let list_cost = median_cost(&mut list, runs);
    let mut read = toolhost_command(&fx);
    read.args(["call", "read", &json!({"path": path}).to_string()]);
    measure(&mut read);
    let read_cost = median_cost(&mut read, runs);
    let mut peer = Command::new("sh");
    peer.arg("-c").arg(format!("sha256sum '{0}' && wc -l '{0}'", path.display()));
    let peer_cost = median_cost(&mut peer, runs);
    println!(
        "toolhost call read: median {:.0} ms; sha256sum && wc -l: median {:.0} ms; ratio {:.2}x (target ≤ 1.3)",
        ms(read_cost.wall),
        ms(peer_cost.wall),
        read_cost.wall.as_secs_f64() / peer_cost.wall.as_secs_f64()
    );
    println!(
        "peak RSS: read {} MB, list {} MB, difference {} MB (target < 64 MB)",
        read_cost.max_rss_kib / 1024,
        list_cost.max_rss_kib / 1024,
        (read_cost.max_rss_kib - list_cost.max_rss_kib) / 1024
    );

    // edit on a 1 MiB file, in-process: alternate two replacements.
    let text: String = (0..16_000)
        .map(|i| format!("line {i:08} of a one mebibyte file......................\n"))
        .collect();
    let text = &text[..text.len().min(1 << 20)];
    std::fs::write(fx.root().join("mib.txt"), text).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let mut times = rt.block_on(async {
        let ts = toolset(&fx, &["read", "edit"]).await;
        assert!(call(&ts, &fx, "read", json!({"path": "mib.txt"})).await.succeeded());
        let mut times = Vec::new();
        for i in 0..50 {
            let (old, new) = if i % 2 == 0 {
                ("line 00008000", "LINE 00008000")
            } else {
                ("LINE 00008000", "line 00008000")
            };
            let t = Instant::now();
            let r = call(
                &ts,
                &fx,
                "edit",
                json!({"filePath": "mib.txt", "oldString": old, "newString": new}),
            )
            .await;
            times.push(t.elapsed());
            assert!(r.succeeded(), "{}", r.text());
        }
        times
    });
    times.sort();
    println!(
        "edit on a 1 MiB file (50 calls, in-process): median {:.2} ms",
        ms(times[times.len() / 2])
    );
}
