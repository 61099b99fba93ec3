#!/usr/bin/env bash
# Fuzzing with cargo-fuzz (libFuzzer): each target of tests/fuzz/fuzz_targets runs for
# FUZZ_SECONDS (default 30) and must end without a crash, a panic or a broken property.
#
#   multipart  the upload, submit and pre-flight forms through the real router (SQLite, local blobs)
#   jsonrpc    studio_mcp::Endpoint::handle over a real Studio, with a member key
#   webhook    Standard Webhooks verification of payment deliveries
#
#   bash tests/fuzz/run.sh                                  # CI: 30 s a target
#   FUZZ_SECONDS=1800 FUZZ_TARGETS=multipart bash tests/fuzz/run.sh   # longer, one target
#   FUZZ_SANITIZER=address bash tests/fuzz/run.sh           # with AddressSanitizer
#   FUZZ_PROFILE=release FUZZ_SECONDS=600 bash tests/fuzz/run.sh     # optimised, for long runs
#   FUZZ_BUILD_ONLY=1 bash tests/fuzz/run.sh                # install and build, run nothing
#
# Installs cargo-fuzz (pinned) into target/ci-tools when missing. Builds with the nightly
# toolchain, optimised with debug assertions (so integer overflow panics) and, by default,
# without a sanitizer: the workspace forbids unsafe code, and AddressSanitizer would double the
# build and halve the executions; FUZZ_SANITIZER=address turns it on. The build goes to
# tests/fuzz/target. The corpus grows in tests/fuzz/corpus/<target> (not checked in; a longer
# run starts from what earlier runs found) on top of the checked-in seeds/<target>; a failing
# input is kept in tests/fuzz/artifacts/<target>/ and replays with
# `cargo +nightly fuzz run <target> <file>` from tests/fuzz.
set -euo pipefail
cd "$(dirname "$0")"

ROOT="$(cd ../.. && pwd)"
CARGO_FUZZ_VERSION="0.13.2"
TOOLS="$ROOT/target/ci-tools"
SECONDS_EACH="${FUZZ_SECONDS:-30}"
TARGETS="${FUZZ_TARGETS:-multipart jsonrpc webhook}"
SANITIZER="${FUZZ_SANITIZER:-none}"

if ! "$TOOLS/bin/cargo-fuzz" --version 2>/dev/null | grep -qF "$CARGO_FUZZ_VERSION"; then
    cargo install --locked --root "$TOOLS" --version "$CARGO_FUZZ_VERSION" cargo-fuzz
fi
export PATH="$TOOLS/bin:$PATH"
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "cargo-fuzz needs the nightly toolchain (rustup toolchain list shows none)" >&2
    exit 1
fi

# The harness's data directories (SQLite file, blobs) go here and are removed at the end.
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# FUZZ_PROFILE=dev (the default, what CI runs): an unoptimised build, which a cold clone compiles
# several times faster than an optimised one and which keeps debug assertions; release: optimised
# with debug assertions, for long runs that want executions per second.
case "${FUZZ_PROFILE:-dev}" in
    dev) FLAGS=(--dev --sanitizer "$SANITIZER"); INPUT_TIMEOUT=600 ;;
    release) FLAGS=(--release --debug-assertions --sanitizer "$SANITIZER"); INPUT_TIMEOUT=20 ;;
    *) echo "FUZZ_PROFILE is dev or release" >&2; exit 2 ;;
esac
start=$(date +%s)
cargo +nightly fuzz build "${FLAGS[@]}"
echo "fuzz targets built in $(( $(date +%s) - start )) s"
# FUZZ_BUILD_ONLY=1: build and stop (CI builds ahead, in the background, then runs).
[ -n "${FUZZ_BUILD_ONLY:-}" ] && exit 0

for target in $TARGETS; do
    mkdir -p "corpus/$target"
    corpora=("corpus/$target")
    [ -d "seeds/$target" ] && corpora+=("seeds/$target")
    echo "==> $target for $SECONDS_EACH s"
    TMPDIR="$WORK" cargo +nightly fuzz run "${FLAGS[@]}" "$target" "${corpora[@]}" -- \
        -max_total_time="$SECONDS_EACH" -timeout="$INPUT_TIMEOUT" -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1
done
echo "fuzzing passed: $TARGETS, $SECONDS_EACH s each"
