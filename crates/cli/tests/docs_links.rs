//! Every relative link in README.md and docs/*.md leads somewhere: the file exists, and an
//! anchor (`file.md#section`, `#section`) is a heading of that file, as GitHub makes its
//! anchors.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The repository's root, when this crate is built in its workspace (whose `Cargo.toml` lists
/// `crates/cli`); `None` in the crate's own package (a `.crate` unpacked by a distribution),
/// which carries only the docs the command embeds, not the whole docs tree whose links this
/// checks.
fn root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    manifest.contains("\"crates/cli\"").then_some(root)
}

/// The text outside fenced code blocks (``` … ```), where links are links.
fn prose(md: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// GitHub's anchor of a heading: lower case, spaces to hyphens, every other character but
/// letters, digits, `-` and `_` dropped; a repeated anchor gets `-1`, `-2`, ….
fn anchors(md: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    for line in prose(md).lines() {
        let Some(title) = line
            .strip_prefix('#')
            .map(|t| t.trim_start_matches('#'))
            .filter(|t| t.starts_with(' '))
        else {
            continue;
        };
        let slug: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let mut anchor = slug.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{slug}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// The targets of the inline links `[text](target)` of `md`'s prose.
fn link_targets(md: &str) -> Vec<String> {
    let text = prose(md);
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(end) = rest.find(')') {
            out.push(rest[..end].trim().to_string());
            rest = &rest[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_and_anchor_in_the_docs_resolves() {
    let Some(root) = root() else {
        eprintln!(
            "skipped: not in the pussa workspace (no ../../Cargo.toml listing crates/cli), so \
             there is no README.md and docs/ tree to check"
        );
        return;
    };
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    assert!(files.len() > 5, "{files:?}");
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let md = std::fs::read_to_string(file).unwrap();
        for target in link_targets(&md) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let dest = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            if !dest.exists() {
                broken.push(format!("{}: {target}: no such file", file.display()));
                continue;
            }
            if let Some(anchor) = anchor {
                let text = std::fs::read_to_string(&dest).unwrap_or_default();
                if !anchors(&text).contains(anchor) {
                    broken.push(format!("{}: {target}: no such heading", file.display()));
                }
            }
        }
    }
    assert!(checked > 20, "only {checked} links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The anchors as GitHub makes them, on headings the docs link to.
#[test]
fn anchors_are_githubs() {
    let a = anchors(
        "# T\n## JSON states (`pussa replay --json`)\n### Matches (`matchval.rs`)\n## Matches\n## Matches\n```\n## not a heading\n```\n",
    );
    for want in [
        "json-states-pussa-replay---json",
        "matches-matchvalrs",
        "matches",
        "matches-1",
    ] {
        assert!(a.contains(want), "{want}: {a:?}");
    }
    assert!(!a.contains("not-a-heading"));
}

/// Every crate builds and tests from its own package (`cargo package` takes only the crate's
/// directory): no source or test reaches out of its crate with `../../`, and the docs, README
/// and licence texts a crate needs are links inside it to the workspace's one copy (which
/// `cargo package` copies as files), so the texts stay single-sourced.
/// A file a crate ships or embeds holds the document, not a symbolic link's path: a checkout
/// without symbolic links (`core.symlinks=false`) makes each link a one-line file such as
/// `../../LICENSE-MIT`, which a package made from it would ship as its licence text.
fn assert_not_a_link_stub(p: &Path) {
    let text = std::fs::read(p).unwrap_or_default();
    assert!(
        text.len() > 500 && !text.starts_with(b"../"),
        "{} holds a symbolic link's path ({:?}), not the file: check pussa out with symbolic \
         links (git config core.symlinks true, then check out again)",
        p.display(),
        String::from_utf8_lossy(&text[..text.len().min(80)]).trim()
    );
}

#[test]
fn every_crate_reads_only_files_inside_its_package() {
    let Some(root) = root() else {
        eprintln!("skipped: not in the pussa workspace, so there are no sibling crates to check");
        return;
    };
    let mut links = 0;
    for krate in ["rules", "engine", "egtb", "server", "cli"] {
        let dir = root.join("crates").join(krate);
        // The command's package shows the product README; each library crate has its own.
        let shared: &[&str] = if krate == "cli" {
            &["README.md", "LICENSE-MIT", "LICENSE-APACHE"]
        } else {
            &["LICENSE-MIT", "LICENSE-APACHE"]
        };
        for &name in shared {
            let p = dir.join(name);
            assert_not_a_link_stub(&p);
            assert!(
                p.symlink_metadata()
                    .is_ok_and(|m| m.file_type().is_symlink()),
                "{} is not a link to the workspace's {name}",
                p.display()
            );
            assert_eq!(
                p.canonicalize().unwrap(),
                root.join(name).canonicalize().unwrap()
            );
            links += 1;
        }
        if let Ok(docs) = std::fs::read_dir(dir.join("docs")) {
            for e in docs {
                let p = e.unwrap().path();
                let name = p.file_name().unwrap();
                assert_not_a_link_stub(&p);
                assert!(
                    p.symlink_metadata().unwrap().file_type().is_symlink(),
                    "{} is a copy, not a link to docs/{}",
                    p.display(),
                    name.to_string_lossy()
                );
                assert_eq!(
                    p.canonicalize().unwrap(),
                    root.join("docs").join(name).canonicalize().unwrap()
                );
                links += 1;
            }
        }
        let mut stack = vec![dir.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() && !p.ends_with("web") && !p.ends_with("node_modules") {
                    stack.push(p);
                } else if p.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    // Spelled in pieces, so that this very file does not match.
                    let up = ["..", "/", ".."].concat();
                    assert!(
                        !text.contains(&format!("\"{up}/")) && !text.contains(&format!("/{up}")),
                        "{} reads a file outside its crate",
                        p.display()
                    );
                }
            }
        }
    }
    assert!(links >= 11 + 8, "only {links} links");
}

/// The sample systemd unit the README's Install and Upgrading sections refer to runs
/// `pussa serve` with its data in its state directory (absolute: a service starts in `/`), as a
/// user of its own, with the open-files limit docs/api.md asks for, trusting the same-host
/// reverse proxy it tells the reader to put in front (`--trust-proxy 127.0.0.1`, as "Web play"
/// says), and its options are the command's.
#[test]
fn the_sample_service_unit_is_the_one_the_docs_describe() {
    let Some(root) = root() else {
        eprintln!("skipped: not in the pussa workspace, so there is no contrib/pussa.service");
        return;
    };
    let unit = std::fs::read_to_string(root.join("contrib/pussa.service")).unwrap();
    let value = |key: &str| -> String {
        let prefix = format!("{key}=");
        let found: Vec<&str> = unit
            .lines()
            .filter_map(|l| l.strip_prefix(prefix.as_str()))
            .collect();
        assert_eq!(found.len(), 1, "{key}= once in the unit: {found:?}");
        found[0].to_string()
    };
    let state = format!("/var/lib/{}", value("StateDirectory"));
    let exec: Vec<String> = value("ExecStart")
        .split_whitespace()
        .map(String::from)
        .collect();
    assert_eq!(
        exec[1..],
        [
            "serve",
            "--data",
            state.as_str(),
            "--trust-proxy",
            "127.0.0.1"
        ],
        "ExecStart serves from the state directory, behind the same-host proxy README's \
         \"Web play\" sets up (--trust-proxy 127.0.0.1, or every member is one client)"
    );
    assert_eq!(value("WorkingDirectory"), state);
    assert_eq!(value("DynamicUser"), "yes");
    assert_eq!(value("User"), "pussa");
    let nofile: u64 = value("LimitNOFILE").parse().unwrap();
    let api = std::fs::read_to_string(root.join("docs/api.md")).unwrap();
    assert!(
        api.contains("to 8192 or more") && nofile >= 8192,
        "LimitNOFILE={nofile}"
    );
    // The options are the command's (the binary this test runs).
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_pussa"))
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--data <DIR>"));
    assert!(help.contains("--trust-proxy"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.contains("Run the server with `--trust-proxy 127.0.0.1` behind it"),
        "README's \"Web play\" gives the unit's proxy option"
    );
    assert!(readme.contains("## Install"));
    let upgrading = &readme[readme.find("Upgrading:").unwrap()..];
    let before_stop = &upgrading[..upgrading.find("systemctl stop pussa").unwrap()];
    assert!(
        before_stop.contains("[contrib/pussa.service](contrib/pussa.service)"),
        "the Upgrading section's systemctl lines refer to the sample unit"
    );
}

/// Each library crate's README (its crates.io page) is its own short page, not the product
/// README: it names the crate, has an example (run as a doctest: `#[cfg(doctest)]` in lib.rs),
/// points to the workspace, and has no relative links (a package has no files to follow them
/// to, and crates.io resolves them through a `repository` pussa does not have).
#[test]
fn each_library_crate_has_a_short_readme_of_its_own() {
    let Some(root) = root() else {
        eprintln!("skipped: not in the pussa workspace, so there are no sibling crates to check");
        return;
    };
    for krate in ["rules", "engine", "egtb", "server"] {
        let dir = root.join("crates").join(krate);
        let p = dir.join("README.md");
        assert_not_a_link_stub(&p);
        assert!(
            !p.symlink_metadata().unwrap().file_type().is_symlink(),
            "{} is a link, not the crate's own README",
            p.display()
        );
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.starts_with(&format!("# pussa-{krate}\n")),
            "{}",
            p.display()
        );
        assert!(text.lines().count() < 60, "{} is not short", p.display());
        assert!(text.contains("```rust"), "{} has no example", p.display());
        assert!(text.contains("pussa workspace"), "{}", p.display());
        let relative: Vec<String> = link_targets(&text)
            .into_iter()
            .filter(|t| !t.starts_with("http") && !t.starts_with('#'))
            .collect();
        assert!(relative.is_empty(), "{}: {relative:?}", p.display());
        let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
        assert!(
            lib.contains("#[cfg(doctest)]\n#[doc = include_str!(\"../README.md\")]"),
            "{}'s example is not a doctest",
            p.display()
        );
    }
}

/// True if README's Install section `install` names the shared library `lib`: in backticks, or,
/// for the dynamic loader, whose name differs by architecture (`ld-linux-x86-64.so.2`,
/// `ld-linux-aarch64.so.1`, ...), by the pattern `` `ld-linux-*.so.*` ``.
fn install_names(install: &str, lib: &str) -> bool {
    install.contains(&format!("`{lib}`"))
        || (lib.starts_with("ld-linux-")
            && lib.contains(".so.")
            && install.contains("`ld-linux-*.so.*`"))
}

/// The dynamic loader is named by pattern, so the check holds off x86-64 too.
#[test]
fn the_install_section_names_the_loader_of_every_architecture() {
    let Some(root) = root() else {
        eprintln!("skipped: not in the pussa workspace, so there is no README to check");
        return;
    };
    let install = install_section(&root);
    for loader in [
        "ld-linux-x86-64.so.2",
        "ld-linux-aarch64.so.1",
        "ld-linux-armhf.so.3",
    ] {
        assert!(install_names(&install, loader), "{loader}");
    }
    assert!(!install_names(&install, "libnotalib.so.1"));
}

/// README's `## Install` section.
fn install_section(root: &std::path::Path) -> String {
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme.find("## Install").unwrap();
    readme[start..start + 4 + readme[start + 4..].find("\n## ").unwrap()].to_string()
}

/// README's Install section names every shared library the built binary needs at run time (it
/// said "only the C library", and `libgcc_s.so.1` and `libm.so.6` were needed too): the ELF
/// `NEEDED` entries of this test's `pussa`, read with `readelf -d`. Skipped, saying why, where
/// there is no readelf (unless `CI` or `PUSSA_REQUIRE_READELF` is set: then it fails naming
/// binutils) or the binary has no `NEEDED` entries (a static or musl build).
#[test]
fn the_install_section_names_every_library_the_binary_links() {
    let Some(root) = root() else {
        eprintln!("skipped: not in the pussa workspace, so there is no README to check");
        return;
    };
    let Ok(out) = std::process::Command::new("readelf")
        .args(["-d", env!("CARGO_BIN_EXE_pussa")])
        .output()
    else {
        let required = ["CI", "PUSSA_REQUIRE_READELF"]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()));
        assert!(
            !required,
            "no readelf to list the binary's libraries: install binutils (CI or \
             PUSSA_REQUIRE_READELF is set, so this test is not skipped)"
        );
        eprintln!("skipped: no readelf to list the binary's libraries (install binutils)");
        return;
    };
    if !out.status.success() {
        eprintln!("skipped: readelf cannot read the binary (not ELF?)");
        return;
    }
    let install = install_section(&root);
    let needed: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| Some(l.split_once('[')?.1.split_once(']')?.0.to_string()))
        .collect();
    if needed.is_empty() {
        eprintln!("skipped: the binary has no NEEDED entries (a static or musl build)");
        return;
    }
    for lib in &needed {
        assert!(
            install_names(&install, lib),
            "README's Install section does not name {lib}, which the binary needs: {needed:?}"
        );
    }
}
