#!/usr/bin/env bash
# The whole test suite, set-up included: Rust tests of every crate, then the browser tests
# (Debian's Chromium driven by playwright-core). Safe to run on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== cargo test --workspace"
cargo test --workspace
