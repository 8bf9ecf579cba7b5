//! `docs/trace-format.md`'s complete example is what the code does: its manifest validates, its
//! trace lines read, and `verify` finds the lines' `eval` equal to the rebuilt evaluation.

use trace::{parse_line, verify, Manifest, VerifyOptions};

/// The fenced block after the marker `<!-- example: NAME -->`.
fn block(doc: &str, name: &str) -> String {
    let marker = format!("<!-- example: {name} -->");
    let at = doc.find(&marker).unwrap_or_else(|| panic!("no {marker}"));
    let rest = &doc[at + marker.len()..];
    let open = rest.find("```").expect("a fenced block");
    let body = &rest[open..];
    let start = body.find('\n').expect("a fence line") + 1;
    let end = body[start..].find("```").expect("a closing fence");
    body[start..start + end].to_string()
}

#[test]
fn the_documented_example_verifies() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/trace-format.md"
    ))
    .unwrap();
    let m = Manifest::from_json(&block(&doc, "manifest"), "trace-format.md").unwrap();
    assert_eq!(m.trace_index("mobility_knight", &[3]), Some(8));
    assert_eq!(m.trace_index("tempo", &[]), Some(26));
    let traces: Vec<_> = block(&doc, "traces")
        .lines()
        .filter_map(|l| parse_line(l, &m).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    assert_eq!(traces.len(), 3);
    let w = m.initial_weights();
    for t in &traces {
        let v: f64 = m.evaluate(t, &w).unwrap();
        let parts: f64 = m.contributions(t, &w).iter().map(|p| p.1).sum();
        assert!((parts - v).abs() < 1e-9);
    }
    let r = verify(&m, &traces, &w, &VerifyOptions::default());
    assert!(r.passed() && r.checked == 3, "{r}");
}
