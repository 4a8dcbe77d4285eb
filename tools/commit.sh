#!/usr/bin/env bash
# Commit only when the tree is formatted and clippy-clean: tools/commit.sh "message"
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
cargo fmt --all
cargo clippy --all-targets -q -- -D warnings
git add -A
git commit -q "$@"
git log --oneline -1
