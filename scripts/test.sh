#!/usr/bin/env bash
# The whole test suite, set-up included: Rust tests of every crate, the independent cross-checks
# in release, then the browser tests (Debian's Chromium driven by playwright-core). Needs a Rust
# toolchain, 1.88 or newer (rustup; not installed here: README.md, "Install"). Otherwise safe to
# run on a fresh Debian machine: it installs a C compiler (for the bundled SQLite), readelf
# (binutils), tmux, script, Chromium and Node.js with apt when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
apt_install() {
  if [ -n "$SUDO" ] && ! command -v sudo >/dev/null; then
    echo "error: the tests need $* and installing them needs root: run this as root, install sudo, or install them yourself (apt-get install $*)" >&2
    exit 1
  fi
  $SUDO apt-get update && $SUDO apt-get install -y "$@"
}
echo "== Rust 1.88 or newer, and a C compiler for the bundled SQLite"
if ! command -v cargo >/dev/null; then
  echo "error: no cargo: the tests need a Rust toolchain, 1.88 or newer (https://rustup.rs; README.md, \"Install\")" >&2
  exit 1
fi
rust_version=$(rustc --version 2>/dev/null | awk '{print $2}' || true)
if [ -z "$rust_version" ]; then
  echo "error: cargo is there but rustc does not run (rustup: \`rustup default stable\`); the tests need Rust 1.88 or newer" >&2
  exit 1
fi
if ! printf '1.88.0\n%s\n' "${rust_version%%-*}" | sort -V -C; then
  echo "error: the tests need Rust 1.88 or newer, found rustc $rust_version (rustup update; README.md, \"Install\")" >&2
  exit 1
fi
if ! command -v cc >/dev/null; then
  apt_install gcc libc6-dev
fi
echo "== readelf (binutils) for the Install section's library check (crates/cli/tests/docs_links.rs)"
if ! command -v readelf >/dev/null; then
  apt_install binutils
fi
# The check then fails rather than skips if readelf is still missing.
export PUSSA_REQUIRE_READELF=1
echo "== tmux and script for the terminal tests (crates/cli/tests/play_tmux.rs, tournament_options.rs)"
if ! command -v tmux >/dev/null || ! command -v script >/dev/null; then
  apt_install tmux bsdutils
fi
echo "== cargo test --workspace"
cargo test --workspace
echo "== the independent cross-checks, in release (perft against the naive model, differential)"
cargo test --release -p pussa-rules --test perft --test differential -- --ignored
echo "== browser tests: Debian's chromium driven by playwright-core (tests/browser)"
if [ ! -x /usr/bin/chromium ]; then
  apt_install chromium
fi
# Node.js 18 or newer (node --test with the files named; `npm ci`).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  apt_install nodejs npm
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 18 ]; then
  echo "error: the browser tests need Node.js 18 or newer, found $(node --version)" >&2
  exit 1
fi
npm ci --prefix tests/browser --no-audit --no-fund
cargo build -p pussa
# The files named by the shell: `node --test <directory>` only works on Node 20 (from Node 21 on
# its arguments are globs, and a directory is loaded as a module).
node --test tests/browser/*.test.js
