#!/usr/bin/env bash
# The whole test suite, set-up included: Rust tests of every crate, then the browser tests
# (Debian's Chromium driven by playwright-core). Safe to run on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== tmux and script for the terminal tests (crates/cli/tests/play_tmux.rs, tournament_options.rs)"
if ! command -v tmux >/dev/null || ! command -v script >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update && $SUDO apt-get install -y tmux bsdutils
fi
echo "== cargo test --workspace"
cargo test --workspace
echo "== browser tests: Debian's chromium driven by playwright-core (tests/browser)"
if [ ! -x /usr/bin/chromium ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update && $SUDO apt-get install -y chromium
fi
npm ci --prefix tests/browser --no-audit --no-fund
cargo build -p pussa
node --test tests/browser/
