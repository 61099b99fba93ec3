#!/usr/bin/env bash
# Webhook deliveries checked by a third-party verifier (PyPI `standardwebhooks`) against a real
# studio-server: tests/webhooks/receiver.py, once per source (docs/webhooks.md).
#
# Starts target/debug/studio-server (built if missing) on a free loopback port with a temporary
# data dir, STUDIO_WEBHOOKS_ALLOW_HTTP_LOOPBACK=1 (the receiver is http on 127.0.0.1) and a short
# STUDIO_WEBHOOKS_RETRY_SCHEDULE, then runs the receiver with
#  - server: the server's own signed deliveries to an endpoint of the house: test pings, a replay,
#    and two secret rotations;
#  - outbox: develops whose job changes the server delivers itself (its outbox), and one develop
#    with its own webhookUrl, signed with the same endpoint's secret;
#  - listen: develops whose job changes `target/debug/studio webhooks listen --forward-to` (the
#    CLI's forwarder) posts to the receiver.
#
#   bash tests/webhooks/run.sh               # all three
#   bash tests/webhooks/run.sh listen        # or server, outbox: one source only
#
# PYTHON names an interpreter with `standardwebhooks` installed (default: target/ci-venv/bin/python,
# the venv .ci/run keeps). The server is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."

SOURCES="${1:-server outbox listen}"
PYTHON="${PYTHON:-target/ci-venv/bin/python}"
SERVER_BIN="target/debug/studio-server"
STUDIO_BIN="target/debug/studio"

if ! "$PYTHON" -c 'import standardwebhooks' 2>/dev/null; then
    echo "$PYTHON cannot import standardwebhooks: \`$(dirname "$PYTHON")/pip install standardwebhooks\` or set PYTHON" >&2
    exit 1
fi
[ -x "$SERVER_BIN" ] || cargo build --workspace
[ -x "$STUDIO_BIN" ] || cargo build --workspace

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

PORT="$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
URL="http://127.0.0.1:$PORT"
# A clean environment for the server: no STUDIO_* setting of the caller's leaks in.
(
    for var in $(env | sed -n 's/^\(STUDIO_[A-Z0-9_]*\)=.*/\1/p'); do unset "$var"; done
    export STUDIO_LISTEN="127.0.0.1:$PORT" STUDIO_DATA_DIR="$WORK/data" STUDIO_RUNNER_CONCURRENCY=2
    export STUDIO_WEBHOOKS_ALLOW_HTTP_LOOPBACK=1 STUDIO_WEBHOOKS_RETRY_SCHEDULE=1,2,4
    exec "$SERVER_BIN"
) >"$WORK/server.log" 2>&1 &
SERVER_PID=$!

up=""
for _ in $(seq 1 100); do
    if curl -fsS "$URL/health" >/dev/null 2>&1; then up=1; break; fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
    sleep 0.2
done
if [ -z "$up" ]; then
    echo "studio-server did not answer $URL/health within 20 s; its log:" >&2
    tail -n 40 "$WORK/server.log" >&2 || true
    exit 1
fi

status=0
for source in $SOURCES; do
    echo "--- receiver (standardwebhooks), source: $source ---"
    if ! "$PYTHON" tests/webhooks/receiver.py "$URL" --source "$source" --studio "$STUDIO_BIN"; then
        status=1
        echo "--- studio-server log (last 40 lines) ---" >&2
        tail -n 40 "$WORK/server.log" >&2 || true
    fi
done
exit "$status"
