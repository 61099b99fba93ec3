#!/usr/bin/env bash
# Schema fuzzing: Schemathesis (PyPI package `schemathesis`, 4.32.5) against the /openapi.json a
# real studio-server serves, as three identities of one house: a member key, a viewer key and
# the owner's browser session.
#
# Starts target/debug/studio-server (built if missing) on a free loopback port with a temporary
# data dir, signs the owner up with curl (the session is the studio_session cookie), mints a
# member and a viewer key (and a key of a second house, the member's peer), seeds a few real
# things, then runs Schemathesis once per identity with every phase (examples, coverage, fuzzing,
# stateful) and every check (`--checks all`) but the one excluded below. The stateful phase
# follows the document's own links (docs::LINKS in studio-server: create -> read, change,
# delete); its creates now and then send the create's documented example, with the seeded ids
# where the example names the caller's own things. Then the gated routes past their gates: a
# platform admin's session on the admin console and each machine credential on its own routes.
# Any failure fails the script; the server is stopped on exit and its log printed on failure.
#
#   bash tests/schemathesis/run.sh        # CI: 10 examples per operation and phase, 100 scenarios
#   SCHEMATHESIS_MAX_EXAMPLES=100 SCHEMATHESIS_STATEFUL_EXAMPLES=300 SCHEMATHESIS_SEED=7 \
#       bash tests/schemathesis/run.sh    # longer, other inputs
#   SCHEMATHESIS_IDENTITIES=owner bash tests/schemathesis/run.sh   # one identity (member, viewer,
#                                         # owner, machines); SCHEMATHESIS_ARGS adds options
#
# Each credential is given as a credential, not a bare header, so Schemathesis knows what to strip
# when it checks that a route refuses the unauthenticated (ignored_auth, missing_required_header):
# the viewer key and the sessions per security scheme ([auth.openapi.bearerKey], [auth.openapi.
# session]), sent only where the document names that scheme; the member key in a Web Fuzzing
# Commons auth file beside another house's key as its peer, so object_level_authorization replays
# the member's reads as that house (which must not see them). The owner's writes carry the page's
# own Origin, as a browser's do (auth.rs check_origin).
#
# Excluded check, and why:
#   positive_data_acceptance  takes every request the schema allows as one the route must
#       accept. The document describes each body's shape, not every rule of the route: fields a
#       route needs are optional in the schema so that each missing one gets its own code
#       (NAME_REQUIRED, MODEL_REQUIRED, ...), lengths, ranges and "at least one of" are checked by
#       the core, and some inputs no schema can state (a token the server issued, an image's
#       bytes, a JSON-RPC message). Those refusals are 400s in the shared envelope, the
#       operation's documented `default`, which status_code_conformance and
#       response_schema_conformance still check.
# Narrower exceptions, each for one operation:
#   POST /api/toolkit/check-email runs in a pass of its own without negative_data_rejection: it
#       never answers a 4xx (02-route-groups.md §4.8), any body reads as "no email".
#   GET /api/toolkit/support/tickets/{id} and POST /api/toolkit/support/tickets (a reply names
#       ticketId) may answer 503 THREAD_UNAVAILABLE: the specification's answer for a thread that
#       is not the caller's (§4.11), and every generated thread id is; not_a_server_error still
#       fails any other 5xx there.
#   The owner's pass leaves out POST /api/auth/sign-out and DELETE /api/me, which would end the
#       session the rest of the pass runs on; the key passes send them (with no session to end).
#   The creates whose bodies may name other things (a plan's sinkFolderId, a model's
#       collageAssetId, a memory's replacesMemoryId: NAMING_CREATES) are never where Schemathesis
#       starts a stateful scenario while other creates exist, so they get a stateful run of
#       their own per identity that may create.
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
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-10}"
STATEFUL_EXAMPLES="${SCHEMATHESIS_STATEFUL_EXAMPLES:-100}"
STATEFUL_STEPS="${SCHEMATHESIS_STATEFUL_STEPS:-10}"
IDENTITIES="${SCHEMATHESIS_IDENTITIES:-member viewer owner machines}"
# Every check runs but this one (the header says why).
EXCLUDED_CHECKS=positive_data_acceptance

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
VIEWER="$(curl -fsS -X POST "$URL/api/keys" -H "Cookie: studio_session=$SESSION" -H 'Content-Type: application/json' \
    -d '{"name": "schemathesis viewer", "role": "viewer"}' | field key)"
# Another house with a member key of its own: the member key's peer, which must not read what
# the member's house has (object_level_authorization replays the member's reads as it).
OTHER_EMAIL="schemathesis-other-$$@example.com"
curl -fsS -D "$WORK/other.headers" -o /dev/null -X POST "$URL/api/auth/sign-up" -H 'Content-Type: application/json' \
    -d "{\"email\": \"$OTHER_EMAIL\", \"password\": \"schemathesis password 1\"}"
OTHER_SESSION="$(sed -n 's/^[Ss]et-[Cc]ookie: studio_session=\([^;]*\).*/\1/p' "$WORK/other.headers" | tr -d '\r' | head -n 1)"
OTHER_KEY="$(curl -fsS -X POST "$URL/api/keys" -H "Cookie: studio_session=$OTHER_SESSION" -H 'Content-Type: application/json' \
    -d '{"name": "schemathesis peer"}' | field key)"
ADMIN_EMAIL="schemathesis-admin-$$@example.com"
curl -fsS -D "$WORK/admin.headers" -o /dev/null -X POST "$URL/api/auth/sign-up" -H 'Content-Type: application/json' \
    -d "{\"email\": \"$ADMIN_EMAIL\", \"password\": \"schemathesis password 1\"}"
ADMIN_SESSION="$(sed -n 's/^[Ss]et-[Cc]ookie: studio_session=\([^;]*\).*/\1/p' "$WORK/admin.headers" | tr -d '\r' | head -n 1)"
(for var in $(env | sed -n 's/^\(STUDIO_[A-Z0-9_]*\)=.*/\1/p'); do unset "$var"; done
    STUDIO_DATA_DIR="$WORK/data" "$SERVER_BIN" admin add "$ADMIN_EMAIL" >/dev/null)

cat >"$WORK/base.toml" <<TOML
[dictionaries.ids]
values = ["$ASSET", "$FOLDER", "$JOB", "$PACK"]

[dictionaries.assets]
values = ["$SPARE"]

[dictionaries.images]
values = ["$ASSET"]

[dictionaries.folders]
values = ["$FOLDER"]

[dictionaries.jobs]
values = ["$JOB"]

[dictionaries.words]
values = ["Spring coats", "Written by Schemathesis, a schema fuzzer."]

[dictionaries.ratings]
values = [4]

# Half of the ids drawn for these (and the documented examples' ast_example and job_example,
# docs::LINKS) are the real ones, so creates succeed and the stateful phase has links to follow.
[parameters]
"path.id" = { dictionary = "ids", probability = 0.5 }
"body.assetIds[*]" = { dictionary = "assets", probability = 0.5 }
"body.assetId" = { dictionary = "images", probability = 0.8 }
"body.modelAssetId" = { dictionary = "images", probability = 0.8 }
"body.itemAssetIds[*].assetId" = { dictionary = "images", probability = 0.8 }
"body.items[*].image" = { dictionary = "images", probability = 0.8 }
"body.jobId" = { dictionary = "jobs", probability = 0.8 }
"body.parentId" = { dictionary = "folders", probability = 0.5 }
"body.name" = { dictionary = "words", probability = 0.5 }
"body.title" = { dictionary = "words", probability = 0.5 }
"body.body" = { dictionary = "words", probability = 0.5 }
"body.statement" = { dictionary = "words", probability = 0.5 }
"body.rating" = { dictionary = "ratings", probability = 0.5 }

[phases.examples.generation]
max-examples = $MAX_EXAMPLES

[phases.fuzzing.generation]
max-examples = $MAX_EXAMPLES

[phases.stateful]
max-steps = $STATEFUL_STEPS
# Only the document's own links (docs::LINKS): inferred ones would outnumber them six to one.
inference.algorithms = []

[phases.stateful.generation]
max-examples = $STATEFUL_EXAMPLES
# Valid requests only: the chains need their creates to succeed (the other phases send the
# invalid ones).
mode = "positive"

# A support thread that is not the caller's answers 503 THREAD_UNAVAILABLE, by the specification
# (02-route-groups.md §4.11), whether it is read or replied on (ticketId); every generated
# thread id is someone else's or nobody's. Every other 5xx of these two still fails.
[[operations]]
include-name = ["GET /api/toolkit/support/tickets/{id}", "POST /api/toolkit/support/tickets"]
checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "503"]
TOML
# One configuration per identity: the shared settings and that identity's credential (see the
# header).
identity() {
    { cat "$WORK/base.toml"; printf '\n[auth.openapi.%s]\n%s = "%s"\n' "$2" "$3" "$4"; } >"$WORK/$1.toml"
}
# The member key as a Web Fuzzing Commons auth file with the other house's key as its peer, so
# object_level_authorization has two houses to compare (it cannot run with one identity).
cat >"$WORK/peers.json" <<JSON
{"auth": [
  {"name": "member", "fixedHeaders": [{"name": "Authorization", "value": "Bearer $KEY"}]},
  {"name": "other-house", "fixedHeaders": [{"name": "Authorization", "value": "Bearer $OTHER_KEY"}]}
]}
JSON
{ cat "$WORK/base.toml"; printf '\n[auth.wfc]\npath = "%s"\nuser = "member"\npeers = ["member", "other-house"]\n' \
    "$WORK/peers.json"; } >"$WORK/member.toml"
identity viewer bearerKey bearer "$VIEWER"
identity owner session api_key "$SESSION"
identity admin session api_key "$ADMIN_SESSION"
identity analyst machineBearer bearer schemathesis-analyst
identity action machineBearer bearer schemathesis-action
identity renderer machineBearer bearer schemathesis-renderer
identity bridge supportBridge api_key schemathesis-bridge
echo "studio-server on $URL, member key ${KEY:0:16}..., viewer key ${VIEWER:0:16}..., owner session ${SESSION:0:12}..."
echo "$MAX_EXAMPLES examples per operation and phase; $STATEFUL_EXAMPLES stateful scenarios of at most $STATEFUL_STEPS steps"
echo "ids: asset $ASSET (and $SPARE), folder $FOLDER, job $JOB, pack $PACK"

CHECK_EMAIL="POST /api/toolkit/check-email"
# Creates whose bodies may name other things (a plan's sinkFolderId, a model's collageAssetId, a
# memory's replacesMemoryId): Schemathesis never starts a stateful scenario from them while
# other creates exist, so they and what their links lead to get a stateful run of their own.
NAMING_CREATES='^/api/(toolkit/(pipelines|models|develops)|account/memory)(/|$)'

# Run from the temporary directory, where Hypothesis and Schemathesis leave their caches.
pass() {
    local name="$1" config="$2"
    shift 2
    echo "=== $name ==="
    (cd "$WORK" && "$SCHEMATHESIS" --config-file "$WORK/$config.toml" run "$URL/openapi.json" --url "$URL" \
        --checks all --exclude-checks "${PASS_EXCLUDED:-$EXCLUDED_CHECKS}" \
        --phases "${PASS_PHASES:-examples,coverage,fuzzing,stateful}" \
        --exclude-path /api/toolkit/jobs/ws \
        --exclude-path-regex '^/api/toolkit/ai/billing/test-(checkout|portal)/' \
        --request-timeout 60 \
        --seed "${SCHEMATHESIS_SEED:-1}" \
        --generation-database none \
        --no-color ${SCHEMATHESIS_ARGS:-} "$@")
}
status=0
for who in $IDENTITIES; do
    case "$who" in
        member)
            pass "member key" member --exclude-name "$CHECK_EMAIL" || status=$?
            PASS_PHASES=stateful pass "member key, stateful from NAMING_CREATES" member \
                --include-path-regex "$NAMING_CREATES" || status=$?
            # check-email never answers a 4xx (02-route-groups.md §4.8, docs/decisions.md
            # "check-email under load"): any body, however wrong, reads as "no email" and is
            # answered 200, so negative_data_rejection cannot hold there. Public: no identity.
            PASS_EXCLUDED="$EXCLUDED_CHECKS,negative_data_rejection" PASS_PHASES=examples,coverage,fuzzing \
                pass "check-email" member --include-name "$CHECK_EMAIL" || status=$?
            ;;
        viewer) pass "viewer key" viewer --exclude-name "$CHECK_EMAIL" || status=$? ;;
        # The owner's browser session, with its page's Origin. Signing out and deleting the
        # account would end the session the rest of the pass runs on (both are fuzzed in the
        # key passes, where they touch only sessions Schemathesis made itself).
        owner)
            pass "owner session" owner --header "Origin: $URL" --exclude-name "$CHECK_EMAIL" \
                --exclude-name 'POST /api/auth/sign-out' --exclude-name 'DELETE /api/me' || status=$?
            PASS_PHASES=stateful pass "owner session, stateful from NAMING_CREATES" owner --header "Origin: $URL" \
                --include-path-regex "$NAMING_CREATES" || status=$?
            ;;
        # The gated routes past their gates: a platform admin's session on the admin console,
        # each machine credential on its own routes.
        machines)
            pass "admin session" admin --include-path-regex '^/api/toolkit/admin/' --header "Origin: $URL" \
                || status=$?
            # These four have no links among their operations (reads and actions): no stateful phase.
            export PASS_PHASES=examples,coverage,fuzzing
            pass "analyst token" analyst --include-path-regex '^/api/internal/analyst/(?!actions/)' || status=$?
            pass "action token" action --include-path-regex '^/api/internal/analyst/actions/' || status=$?
            pass "renderer token" renderer --include-path-regex '^/api/internal/replay-renders/' || status=$?
            pass "support bridge" bridge --include-path-regex '^/api/support/escalations' || status=$?
            unset PASS_PHASES
            ;;
        *) echo "unknown identity $who (member, viewer, owner, machines)" >&2; exit 2 ;;
    esac
done
if [ "$status" -ne 0 ]; then
    echo "--- studio-server log (last 60 lines) ---" >&2
    tail -n 60 "$WORK/server.log" >&2
fi
exit "$status"
