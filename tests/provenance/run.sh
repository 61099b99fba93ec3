#!/usr/bin/env bash
# Content credentials read by a third-party reader (PyPI `c2pa-python`, Adobe's C2PA library for
# Python) (docs/provenance.md): the API test `provenance::*::every_local_tool_signs_its_frame`
# writes every local tool's develop output of its run, and one frame altered after signing, into
# a temporary directory with expected.json (STUDIO_PROVENANCE_OUT); check.py then reads each file
# with c2pa-python and checks its validation state, action, digital source type and ingredients.
#
#   bash tests/provenance/run.sh
#
# PYTHON names an interpreter with c2pa-python installed (default: target/ci-venv/bin/python, the
# venv .ci/run keeps). With STUDIO_TEST_POSTGRES_URL set the PostgreSQL run's outputs are read too.
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTHON="${PYTHON:-target/ci-venv/bin/python}"
if ! "$PYTHON" -c 'import c2pa' 2>/dev/null; then
    echo "$PYTHON cannot import c2pa: \`$(dirname "$PYTHON")/pip install c2pa-python\` or set PYTHON" >&2
    exit 1
fi

OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
STUDIO_PROVENANCE_OUT="$OUT" cargo test --workspace --test api -- provenance::sqlite::every provenance::postgres::every
"$PYTHON" tests/provenance/check.py "$OUT"
