//! The search's signature: the total nodes of `pussa bench --search` ([`pussa_engine::bench`]),
//! which README.md and docs/engine.md quote with every change to the search (QA pass 18,
//! review-tests #10). The determinism tests compare one run with another; this one compares
//! with the published number, so a change to the search fails here until the docs follow it.
//! About 3 s in a debug build (this workspace optimises its dev profile).

use pussa_engine::bench;

/// The signature the docs quote.
const SIGNATURE: u64 = 2_681_196;

#[test]
fn the_search_signature_is_the_one_the_docs_quote() {
    let nodes: u64 = bench::positions().iter().map(|p| p.run().nodes).sum();
    assert_eq!(
        nodes, SIGNATURE,
        "`pussa bench --search` now gives signature {nodes}, the docs quote {SIGNATURE}. If the \
         search changed on purpose, update every quote of the signature (README.md, \
         crates/engine/README.md, docs/engine.md: grep -rn {SIGNATURE}) and SIGNATURE in this test; if not, the change \
         altered the search's behaviour by mistake"
    );
    // The docs quote this very number (the crate's own README.md; docs/engine.md of this crate
    // is a link to the workspace's, copied into the package as a file).
    let root = env!("CARGO_MANIFEST_DIR");
    for doc in ["README.md", "docs/engine.md"] {
        let text = std::fs::read_to_string(format!("{root}/{doc}")).unwrap();
        assert!(
            text.contains(&SIGNATURE.to_string()),
            "{doc} does not quote the search signature {SIGNATURE}"
        );
    }
}
