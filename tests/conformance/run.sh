#!/usr/bin/env bash
# MCP conformance against a real studio-server: the official Python SDK (PyPI package `mcp`) and
# the official conformance suite (npm package @modelcontextprotocol/conformance, server mode).
#
# Starts target/debug/studio-server (built if missing) on a free loopback port with a temporary
# data dir and STUDIO_RUNNER_CONCURRENCY=2, its AI reader pointed at a stub of the
# OpenAI-compatible chat API (so read_model and read_build answer without the network), signs up
# a house with curl, mints a key, uploads a small PNG, then
#  - python: runs tests/conformance/mcp_client.py over Streamable HTTP and, through
#    `target/debug/studio mcp`, over stdio;
#  - npm: runs the conformance suite (pinned below, through `npx --yes`) against /api/mcp with
#    tests/conformance/expected-failures.yml as its baseline. The suite cannot send a header, so
#    it talks to tests/conformance/auth_proxy.py, a loopback proxy that adds the key's
#    Authorization header and passes Host and Origin through as sent. server-initialize, ping,
#    tools-list and dns-rebinding-protection must pass; any other failure must be in the
#    baseline, and a baseline entry that passes fails the run too (the suite's own rule).
# The server, the stub and the proxy are stopped on exit; the exit status is non-zero when either
# part fails.
#
#   bash tests/conformance/run.sh            # both
#   bash tests/conformance/run.sh python     # or npm: one part only
#
# PYTHON names an interpreter (default: target/ci-venv/bin/python, the venv .ci/run keeps) that
# the python part needs with `mcp` installed (`target/ci-venv/bin/pip install mcp`); the npm part
# needs Node 20 or later with npx.
set -euo pipefail
cd "$(dirname "$0")/../.."

PARTS="${1:-python npm}"
case "$PARTS" in
    "python npm" | python | npm) ;;
    *) echo "usage: $0 [python|npm]" >&2; exit 2 ;;
esac
has_part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

PYTHON="${PYTHON:-target/ci-venv/bin/python}"
SERVER_BIN="target/debug/studio-server"
STUDIO_BIN="target/debug/studio"
# The suite's version: 0.1.13 is the newest that runs on Node 20 (0.1.14 and later import
# fs.globSync, Node 22); 0.1.16 under Node 22 gave the same result for every scenario.
CONFORMANCE_PACKAGE="@modelcontextprotocol/conformance@0.1.13"
CONFORMANCE_BASELINE="$PWD/tests/conformance/expected-failures.yml"
CONFORMANCE_REQUIRED="server-initialize ping tools-list dns-rebinding-protection"

if has_part python && ! "$PYTHON" -c 'import mcp' 2>/dev/null; then
    echo "$PYTHON cannot import mcp: install it with \`$(dirname "$PYTHON")/pip install mcp\` or set PYTHON" >&2
    exit 1
fi
if has_part npm && ! command -v npx >/dev/null; then
    echo "npx not found: the npm conformance suite needs Node 20 or later with npm" >&2
    exit 1
fi
[ -x "$SERVER_BIN" ] || cargo build -p studio-server
if has_part python; then
    [ -x "$STUDIO_BIN" ] || cargo build -p studio-cli
fi

WORK="$(mktemp -d)"
SERVER_PID=""
AI_PID=""
PROXY_PID=""
cleanup() {
    for pid in $PROXY_PID $SERVER_PID $AI_PID; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

server_log() {
    echo "--- studio-server log (last 40 lines) ---" >&2
    tail -n 40 "$WORK/server.log" >&2 || true
}

free_port() { "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT="$(free_port)"
URL="http://127.0.0.1:$PORT"

# The AI reader's stand-in: POST /v1/chat/completions answers one JSON object carrying every
# field read_model (age, skin, eyes, hair, extras) and read_build (height, build, presence,
# posture, hands) return.
AI_PORT="$(free_port)"
"$PYTHON" - "$AI_PORT" >"$WORK/ai.log" 2>&1 <<'PY' &
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

READING = {
    "age": "mid-20s", "skin": "light olive, warm undertone", "eyes": "dark brown, almond",
    "hair": "dark brown, shoulder length, straight", "extras": ["small mole above the lip"],
    "height": "tall", "build": "slim, long-legged", "presence": "calm, direct to camera",
    "posture": "upright", "hands": "long fingers, short bare nails",
}

class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        message = {"role": "assistant", "content": json.dumps(READING)}
        body = json.dumps({"object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}).encode()
        self.send_response(200 if self.path.endswith("/chat/completions") else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
PY
AI_PID=$!

# A clean environment for the server: no STUDIO_* setting of the caller's leaks in (a database
# URL, a blob bucket, an AI endpoint).
(
    for var in $(env | sed -n 's/^\(STUDIO_[A-Z0-9_]*\)=.*/\1/p'); do unset "$var"; done
    export STUDIO_LISTEN="127.0.0.1:$PORT" STUDIO_DATA_DIR="$WORK/data" STUDIO_RUNNER_CONCURRENCY=2
    export STUDIO_AI_URL="http://127.0.0.1:$AI_PORT/v1" STUDIO_AI_KEY=conformance STUDIO_AI_MODEL=stub-vision
    exec "$SERVER_BIN"
) >"$WORK/server.log" 2>&1 &
SERVER_PID=$!

up=""
for _ in $(seq 1 100); do
    if curl -fsS "$URL/health" >/dev/null 2>&1; then
        up=1
        break
    fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
    sleep 0.2
done
if [ -z "$up" ]; then
    echo "studio-server did not answer $URL/health within 20 s" >&2
    server_log
    exit 1
fi
echo "studio-server answering on $URL"

# The field at a path of keys in the JSON on stdin: `json_field asset id`.
json_field() {
    "$PYTHON" -c 'import functools, json, sys; print(functools.reduce(lambda v, k: v[k], sys.argv[1:], json.load(sys.stdin)))' "$@"
}

# A house: sign up (the session comes back as the studio_session cookie), mint a member key.
EMAIL="conformance-$$-$RANDOM@example.com"
curl -fsS -D "$WORK/signup.headers" -o "$WORK/signup.json" -X POST "$URL/api/auth/sign-up" \
    -H 'Content-Type: application/json' \
    -d "{\"email\": \"$EMAIL\", \"password\": \"conformance password 1\"}"
SESSION="$(sed -n 's/^[Ss]et-[Cc]ookie: studio_session=\([^;]*\).*/\1/p' "$WORK/signup.headers" | tr -d '\r' | head -n 1)"
if [ -z "$SESSION" ]; then
    echo "sign-up answered no studio_session cookie:" >&2
    cat "$WORK/signup.headers" >&2
    exit 1
fi
KEY="$(curl -fsS -X POST "$URL/api/keys" -H "Cookie: studio_session=$SESSION" \
    -H 'Content-Type: application/json' -d '{"name": "mcp conformance"}' | json_field key)"
case "$KEY" in
    studio_sk_*) ;;
    *) echo "minting a key answered no studio_sk_ key" >&2; exit 1 ;;
esac

# A small PNG made with zlib and struct only, uploaded to the library: a woven brown piece on a
# light ground, 768 x 1024 (a few kB), large and crisp enough that its 1k develop is worth a redraw.
"$PYTHON" - "$WORK/garment.png" <<'PY'
import struct, sys, zlib

w, h = 768, 1024
ground = bytes((236, 234, 230)) * w
def row(y):
    if not 128 < y < 960:
        return b"\x00" + ground
    piece = b"".join(bytes((90, 60, 50)) if (x // 3 + y // 3) % 2 else bytes((120, 90, 80)) for x in range(192, 576))
    return b"\x00" + ground[: 192 * 3] + piece + ground[576 * 3 :]
rows = b"".join(row(y) for y in range(h))

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
ASSET_ID="$(curl -fsS -X POST "$URL/api/toolkit/assets/upload" -H "Authorization: Bearer $KEY" \
    -F "file=@$WORK/garment.png;type=image/png" | json_field asset id)"
echo "house $EMAIL, key ${KEY:0:16}..., asset $ASSET_ID"

status=0
if has_part python; then
    echo "--- python: the official Python SDK over Streamable HTTP and stdio ---"
    "$PYTHON" tests/conformance/mcp_client.py "$URL" "$KEY" "$ASSET_ID" --stdio "$STUDIO_BIN" || status=$?
fi

# The npm suite, through the proxy that adds the key. Its URL names 127.0.0.1 (a loopback URL is
# what dns-rebinding-protection needs; localhost may resolve to ::1, where the proxy is not).
npm_suite() {
    local proxy_port base out verdict=0 scenario
    proxy_port="$(free_port)"
    "$PYTHON" tests/conformance/auth_proxy.py "$proxy_port" "$URL" "$KEY" 2>"$WORK/proxy.log" &
    PROXY_PID=$!
    for _ in $(seq 1 50); do
        curl -sS -o /dev/null "http://127.0.0.1:$proxy_port/health" 2>/dev/null && break
        sleep 0.1
    done
    base="http://127.0.0.1:$proxy_port/api/mcp"
    out="$WORK/npm-results"
    echo "--- npm: $CONFORMANCE_PACKAGE server --url $base ---"
    # From the temp dir, so npx never reads a package.json of ours; per-check JSON lands in $out.
    (cd "$WORK" && npx --yes "$CONFORMANCE_PACKAGE" server --url "$base" \
        --expected-failures "$CONFORMANCE_BASELINE" -o "$out") 2>&1 | tee "$WORK/npm.log" || verdict=$?
    for scenario in $CONFORMANCE_REQUIRED; do
        if grep -Eq "^[[:space:]]*-[[:space:]]*$scenario([[:space:]]|$)" "$CONFORMANCE_BASELINE"; then
            echo "required scenario $scenario is listed in $CONFORMANCE_BASELINE" >&2
            verdict=1
        fi
        if ! grep -Eq "^✓ $scenario: [1-9][0-9]* passed, 0 failed" "$WORK/npm.log"; then
            echo "required scenario $scenario did not pass" >&2
            verdict=1
        fi
    done
    if [ "$verdict" -ne 0 ]; then
        echo "--- npm suite: every check that failed or warned ---" >&2
        "$PYTHON" - "$out" >&2 <<'PY' || true
import glob, json, os, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*", "checks.json"))):
    for check in json.load(open(path)):
        if check.get("status") in ("FAILURE", "WARNING"):
            detail = check.get("errorMessage") or json.dumps(check.get("details"))[:300]
            print(f"{os.path.basename(os.path.dirname(path))}: {check['id']} {check['status']}: {detail}")
PY
        echo "--- auth proxy log (last 20 lines) ---" >&2
        tail -n 20 "$WORK/proxy.log" >&2 || true
        echo "npm conformance suite: FAILED (required: $CONFORMANCE_REQUIRED; baseline: tests/conformance/expected-failures.yml)" >&2
    else
        echo "npm conformance suite: passed (required scenarios passed: $CONFORMANCE_REQUIRED; every other failure is in the baseline)"
    fi
    return "$verdict"
}
if has_part npm; then
    npm_suite || status=1
fi

if [ "$status" -ne 0 ]; then
    server_log
fi
exit "$status"
