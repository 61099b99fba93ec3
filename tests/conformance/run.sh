#!/usr/bin/env bash
# MCP conformance: the official Python SDK (PyPI package `mcp`) against a real studio-server.
#
# Starts target/debug/studio-server (built if missing) on a free loopback port with a temporary
# data dir and STUDIO_RUNNER_CONCURRENCY=2, its AI reader pointed at a stub of the
# OpenAI-compatible chat API (so read_model and read_build answer without the network), signs up
# a house with curl, mints a key, uploads a small PNG, then runs tests/conformance/mcp_client.py
# over Streamable HTTP and, through `target/debug/studio mcp`, over stdio. The server and the stub
# are stopped on exit.
#
#   bash tests/conformance/run.sh
#
# PYTHON names an interpreter with `mcp` installed (default: target/ci-venv/bin/python, the venv
# .ci/run keeps; `target/ci-venv/bin/pip install mcp` if it lacks it).
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTHON="${PYTHON:-target/ci-venv/bin/python}"
SERVER_BIN="target/debug/studio-server"
STUDIO_BIN="target/debug/studio"

if ! "$PYTHON" -c 'import mcp' 2>/dev/null; then
    echo "$PYTHON cannot import mcp: install it with \`$(dirname "$PYTHON")/pip install mcp\` or set PYTHON" >&2
    exit 1
fi
[ -x "$SERVER_BIN" ] || cargo build -p studio-server
[ -x "$STUDIO_BIN" ] || cargo build -p studio-cli

WORK="$(mktemp -d)"
SERVER_PID=""
AI_PID=""
cleanup() {
    for pid in $SERVER_PID $AI_PID; do
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
"$PYTHON" tests/conformance/mcp_client.py "$URL" "$KEY" "$ASSET_ID" --stdio "$STUDIO_BIN" || status=$?
if [ "$status" -ne 0 ]; then
    server_log
fi
exit "$status"
