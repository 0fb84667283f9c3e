//! Embeds the web page (every file under `web/`) and the rules text (`docs/rules.md`) into the
//! server binary: generates `$OUT_DIR/assets.rs` with a static table of `include_bytes!`.
//!
//! The rules text is `docs/rules.md` of this crate: a symbolic link to the workspace's
//! `docs/rules.md` (the one source), which `cargo package` copies into the package as a file.
//! Without it the build fails: a server without the rules would answer the page's Rules panel
//! with 404s. So does a checkout without symbolic links (`core.symlinks=false`), where the link
//! is a one-line file holding its path rather than the rules.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, base: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        // Skip hidden files, editor droppings, and anything a test run leaves behind.
        if name.starts_with('.') || name.ends_with('~') || name == "node_modules" {
            continue;
        }
        if path.is_dir() {
            collect(&path, base, out);
        } else if let Ok(rel) = path.strip_prefix(base) {
            let rel = rel.to_string_lossy().replace('\\', "/");
            out.push((rel, path.clone()));
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let web = manifest.join("web");
    let rules = manifest.join("docs/rules.md");
    println!("cargo:rerun-if-changed={}", web.display());
    println!("cargo:rerun-if-changed={}", rules.display());
    println!("cargo:rerun-if-changed=build.rs");

    let mut files = Vec::new();
    collect(&web, &web, &mut files);
    let mut src = String::from(
        "/// Every file of the web page: (path relative to `web/`, contents).\n\
         pub static ASSETS: &[(&str, &[u8])] = &[\n",
    );
    for (rel, path) in &files {
        let abs = path.canonicalize().unwrap_or_else(|_| path.clone());
        writeln!(
            src,
            "    ({rel:?}, include_bytes!({:?})),",
            abs.display().to_string()
        )
        .unwrap();
    }
    src.push_str("];\n");
    if !rules.is_file() {
        // One clear line, and the build stops: never a server shipped without its rules.
        eprintln!(
            "error: the rules text {} is missing: it is a link to the workspace's docs/rules.md, \
             which the page's Rules panel serves; restore it (git checkout -- crates/server/docs/rules.md)",
            rules.display()
        );
        std::process::exit(1);
    }
    // A checkout without symbolic links (Git for Windows' default core.symlinks=false, some
    // archive tools) makes the link a one-line file holding the path it points to:
    // a file, but not the rules. The real page is many kilobytes.
    let text = std::fs::read_to_string(&rules).unwrap_or_default();
    if text.len() < 1000 || text.starts_with("../") {
        eprintln!(
            "error: {} holds a symbolic link's path ({:?}), not the rules text: check pussa out with \
             symbolic links (git config core.symlinks true, then check out again)",
            rules.display(),
            text.trim()
        );
        std::process::exit(1);
    }
    let abs = rules.canonicalize().unwrap_or(rules);
    writeln!(
        src,
        "/// `docs/rules.md`.\npub static RULES_MD: &str = include_str!({:?});",
        abs.display().to_string()
    )
    .unwrap();
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("assets.rs");
    std::fs::write(out, src).expect("write assets.rs");
}
