#!/usr/bin/env bash
# Schema fuzzing: Schemathesis (PyPI package `schemathesis`) against the /openapi.json a real
# studio-server serves, with an organization key.
#
# Starts target/debug/studio-server (built if missing) on a free loopback port with a temporary
# data dir, signs up a house with curl and mints a member key, then has Schemathesis generate
# requests for every documented operation (valid and invalid: the examples, coverage and fuzzing
# phases) and check every answer:
#   not_a_server_error           no 5xx, ever
#   status_code_conformance      the status is one the operation documents
#   content_type_conformance     the Content-Type is one the status documents
#   response_schema_conformance  the body fits the documented schema
# The server is stopped on exit; its log is printed when a check fails.
#
#   bash tests/schemathesis/run.sh                       # CI: 25 examples per operation
#   SCHEMATHESIS_MAX_EXAMPLES=500 bash tests/schemathesis/run.sh   # longer
#
# Left out: GET /api/toolkit/jobs/ws (a WebSocket; Schemathesis speaks plain HTTP, and 426 is
# all it could see) and the test-mode checkout pages (HTML for a person's browser, reached from
# a checkout URL). The job runner is off (STUDIO_RUNNER_CONCURRENCY=0) so accepted develops stay
# queued instead of rendering random pictures, and the sign-up rate limit is off so generated
# sign-ups reach the handler instead of a 429.
#
# PYTHON names an interpreter with schemathesis installed (default: target/ci-venv/bin/python,
# the venv .ci/run keeps; `target/ci-venv/bin/pip install schemathesis==4.32.5` if it lacks it).
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTHON="${PYTHON:-target/ci-venv/bin/python}"
SCHEMATHESIS="$(dirname "$PYTHON")/schemathesis"
[ -x "$SCHEMATHESIS" ] && SCHEMATHESIS="$(cd "$(dirname "$SCHEMATHESIS")" && pwd)/schemathesis"
SERVER_BIN="target/debug/studio-server"
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-25}"

if [ ! -x "$SCHEMATHESIS" ]; then
    echo "$SCHEMATHESIS is missing: install it with \`$(dirname "$PYTHON")/pip install schemathesis==4.32.5\` or set PYTHON" >&2
    exit 1
fi
[ -x "$SERVER_BIN" ] || cargo build -p studio-server

WORK="$(mktemp -d)"
SERVER_PID=""
READER_PID=""
cleanup() {
    for pid in "$SERVER_PID" "$READER_PID"; do
        if [ -n "$pid" ]; then
            kill "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

PORT="$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
URL="http://127.0.0.1:$PORT"

# A stand-in AI reader (reader.py), so the AI lanes and text tools answer rather than 503 "not
# configured", which would read as a fault.
READER_PORT="$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$PYTHON" tests/schemathesis/reader.py "$READER_PORT" >"$WORK/reader.log" 2>&1 &
READER_PID=$!

# A clean environment for the server: no STUDIO_* setting of the caller's leaks in.
(
    for var in $(env | sed -n 's/^\(STUDIO_[A-Z0-9_]*\)=.*/\1/p'); do unset "$var"; done
    export STUDIO_LISTEN="127.0.0.1:$PORT" STUDIO_DATA_DIR="$WORK/data" STUDIO_RUNNER_CONCURRENCY=0
    export STUDIO_RATE_LIMIT_PER_MIN=0
    # Test mode, so the money routes answer (billing is off by default: 503 would read as a fault).
    export STUDIO_BILLING=test
    # A mail webhook secret, so the delivery webhook answers (401 for an unsigned call) rather
    # than 503 "not configured", which would read as a fault.
    export STUDIO_MAIL_WEBHOOK_SECRET=whsec_c2NoZW1hdGhlc2lzLW1haWwtd2ViaG9vaw==
    export STUDIO_AI_URL="http://127.0.0.1:$READER_PORT/v1" STUDIO_AI_KEY=schemathesis STUDIO_AI_MODEL=stand-in
    # The machine credentials, so the internal routes and the support bridge answer past their
    # gate in the passes below that send them (and 401 to the member key of the first pass).
    export STUDIO_SUPPORT_BRIDGE_SECRET=schemathesis-bridge STUDIO_ANALYST_TOKEN=schemathesis-analyst
    export STUDIO_ACTION_TOKEN=schemathesis-action STUDIO_RENDERER_TOKEN=schemathesis-renderer
    exec "$SERVER_BIN"
) >"$WORK/server.log" 2>&1 &
SERVER_PID=$!

for _ in $(seq 1 100); do
    curl -fsS "$URL/health" >/dev/null 2>&1 && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.2
done
if ! curl -fsS "$URL/health" >/dev/null 2>&1; then
    echo "studio-server did not answer $URL/health within 20 s" >&2
    cat "$WORK/server.log" >&2
    exit 1
fi

# A house (the session comes back as the studio_session cookie) and a member key.
curl -fsS -D "$WORK/signup.headers" -o /dev/null -X POST "$URL/api/auth/sign-up" -H 'Content-Type: application/json' \
    -d "{\"email\": \"schemathesis-$$@example.com\", \"password\": \"schemathesis password 1\"}"
SESSION="$(sed -n 's/^[Ss]et-[Cc]ookie: studio_session=\([^;]*\).*/\1/p' "$WORK/signup.headers" | tr -d '\r' | head -n 1)"
KEY="$(curl -fsS -X POST "$URL/api/keys" -H "Cookie: studio_session=$SESSION" -H 'Content-Type: application/json' \
    -d '{"name": "schemathesis"}' | "$PYTHON" -c 'import json, sys; print(json.load(sys.stdin)["key"])')"
case "$KEY" in
    studio_sk_*) ;;
    *) echo "minting a key answered no studio_sk_ key" >&2; exit 1 ;;
esac

# Real things for the generated requests to find: two library images (one of them may be
# deleted by a generated batch delete), a collection, a queued develop and a pack. Half of the
# generated path ids and of the assetIds in bodies are drawn from these (the rest stay random),
# so the routes answer from real rows, not only 404.
"$PYTHON" - "$WORK/look.png" <<'PY'
import struct, sys, zlib

w, h = 48, 64
rows = b"".join(b"\x00" + b"".join(bytes((200 - y, 100 + x, 90)) for x in range(w)) for y in range(h))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
field() { "$PYTHON" -c 'import functools, json, sys; print(functools.reduce(lambda v, k: v[k], sys.argv[1:], json.load(sys.stdin)))' "$@"; }
api() { curl -fsS -H "Authorization: Bearer $KEY" "$@"; }
ASSET="$(api -F "file=@$WORK/look.png;type=image/png" "$URL/api/toolkit/assets/upload" | field asset id)"
SPARE="$(api -F "file=@$WORK/look.png;type=image/png" "$URL/api/toolkit/assets/upload" | field asset id)"
FOLDER="$(api -H 'Content-Type: application/json' -d '{"name": "Schemathesis"}' "$URL/api/toolkit/folders" | field folder id)"
JOB="$(api -F tool=upscale -F quality=1k -F "image=@$WORK/look.png;type=image/png" "$URL/api/toolkit/jobs/submit" | field jobId)"
PACK="$(api -H 'Content-Type: application/json' -d "{\"assetIds\": [\"$ASSET\"]}" "$URL/api/toolkit/assets/pack" | field packId)"
cat >"$WORK/schemathesis.toml" <<TOML
[dictionaries.ids]
values = ["$ASSET", "$FOLDER", "$JOB", "$PACK"]

[dictionaries.assets]
values = ["$SPARE"]

[parameters]
"path.id" = { dictionary = "ids", probability = 0.5 }
"body.assetIds[*]" = { dictionary = "assets", probability = 0.5 }
TOML
echo "studio-server on $URL, key ${KEY:0:16}..., $MAX_EXAMPLES examples per operation"
echo "ids: asset $ASSET (and $SPARE), folder $FOLDER, job $JOB, pack $PACK"

# Run from the temporary directory, where Hypothesis and Schemathesis leave their caches. The
# first pass covers every operation with the member key; the next ones send each machine
# credential to its own routes and a platform admin's session (with its Origin) to the admin
# console, so those handlers are fuzzed past their gates too.
#
# The specification answers 503 (not 404) for a support thread that is not the caller's
# (02-route-groups.md §4.11), and every generated id is someone else's or nobody's, so that
# operation runs in a pass of its own without not_a_server_error; status, content type and
# schema conformance still check it.
THREAD=/api/toolkit/support/tickets/{id}
CHECKS=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance
pass() {
    (cd "$WORK" && "$SCHEMATHESIS" --config-file "$WORK/schemathesis.toml" run "$URL/openapi.json" --url "$URL" \
        --checks "${PASS_CHECKS:-$CHECKS}" \
        --phases examples,coverage,fuzzing \
        --max-examples "$MAX_EXAMPLES" \
        --exclude-path /api/toolkit/jobs/ws \
        --exclude-path-regex '^/api/toolkit/ai/billing/test-(checkout|portal)/' \
        --request-timeout 60 \
        --seed "${SCHEMATHESIS_SEED:-1}" \
        --generation-database none \
        --no-color "$@")
}
status=0
pass --header "Authorization: Bearer $KEY" --exclude-path "$THREAD" || status=$?
PASS_CHECKS="${CHECKS#not_a_server_error,}" pass --header "Authorization: Bearer $KEY" --include-path "$THREAD" \
    || status=$?
ADMIN_EMAIL="schemathesis-admin-$$@example.com"
curl -fsS -D "$WORK/admin.headers" -o /dev/null -X POST "$URL/api/auth/sign-up" -H 'Content-Type: application/json' \
    -d "{\"email\": \"$ADMIN_EMAIL\", \"password\": \"schemathesis password 1\"}"
ADMIN_SESSION="$(sed -n 's/^[Ss]et-[Cc]ookie: studio_session=\([^;]*\).*/\1/p' "$WORK/admin.headers" | tr -d '\r' | head -n 1)"
(for var in $(env | sed -n 's/^\(STUDIO_[A-Z0-9_]*\)=.*/\1/p'); do unset "$var"; done
    STUDIO_DATA_DIR="$WORK/data" "$SERVER_BIN" admin add "$ADMIN_EMAIL" >/dev/null)
pass --include-path-regex '^/api/toolkit/admin/' --header "Cookie: studio_session=$ADMIN_SESSION" \
    --header "Origin: $URL" || status=$?
pass --include-path-regex '^/api/internal/analyst/(?!actions/)' \
    --header "Authorization: Bearer schemathesis-analyst" || status=$?
pass --include-path-regex '^/api/internal/analyst/actions/' --header "Authorization: Bearer schemathesis-action" \
    || status=$?
pass --include-path-regex '^/api/internal/replay-renders/' --header "Authorization: Bearer schemathesis-renderer" \
    || status=$?
pass --include-path-regex '^/api/support/escalations' --header "x-support-bridge-secret: schemathesis-bridge" \
    || status=$?
if [ "$status" -ne 0 ]; then
    echo "--- studio-server log (last 60 lines) ---" >&2
    tail -n 60 "$WORK/server.log" >&2
fi
exit "$status"
