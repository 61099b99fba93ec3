#!/usr/bin/env bash
# The console's checks: the end-to-end run in Debian's Chromium against a real studio-server,
# then the type check. Installs what is missing (Debian's chromium, `npm ci` here), starts
# target/debug/studio-server (or $STUDIO_SERVER_BIN) on a free loopback port with a temporary
# data directory and test-mode billing, and stops it at the end. Screenshots land in
# target/console-screens/. Exits non-zero on any failure.
#
#   bash tests/console/run.sh
#   STUDIO_SERVER_BIN=target/release/studio-server bash tests/console/run.sh
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${STUDIO_SERVER_BIN:-$root/target/debug/studio-server}
screens=${SCREENS:-$root/target/console-screens}

if [ ! -x /usr/bin/chromium ]; then
  echo "console: installing Debian's chromium"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi
if ! command -v node >/dev/null; then
  echo "console: installing node"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
if [ ! -f "$here/node_modules/.package-lock.json" ] || ! cmp -s "$here/package-lock.json" "$here/node_modules/.console-lock"; then
  echo "console: npm ci"
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.console-lock)
fi
if [ ! -x "$bin" ]; then
  echo "console: no server binary at $bin (build it with cargo build -p studio-server)" >&2
  exit 1
fi

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
port=$(free_port)
smtp=$(free_port)
data=$(mktemp -d)
letters="$data/letters.jsonl"
: >"$letters"
# Letters (verification, reset) go to a sink, so the run opens their links as a person would.
node "$here/smtp-sink.mjs" --port "$smtp" --out "$letters" >"$data/smtp.log" 2>&1 &
sink=$!
# The admin console's test signs up this address, verifies it and sees the console.
STUDIO_DATA_DIR="$data" STUDIO_LISTEN="127.0.0.1:$port" STUDIO_BILLING=test STUDIO_RATE_LIMIT_PER_MIN=0 \
  STUDIO_ADMIN_EMAILS="admin-console@maison.test" \
  STUDIO_SMTP_URL="smtp://127.0.0.1:$smtp" STUDIO_MAIL_FROM="Studio <studio@maison.test>" \
  "$bin" >"$data/server.log" 2>&1 &
server=$!
# A second server whose AI reader is a fake (fake-ai.mjs), for the assistant's and the paid brand
# DNA read's tests: the first keeps no AI reader, as the part-1 run and the "not configured" panel
# expect. Its chat sessions take two turns, so the turn limit and its escalation show quickly.
ai=$(free_port)
port2=$(free_port)
data2=$(mktemp -d)
node "$here/fake-ai.mjs" --port "$ai" >"$data2/ai.log" 2>&1 &
fakeai=$!
STUDIO_DATA_DIR="$data2" STUDIO_LISTEN="127.0.0.1:$port2" STUDIO_BILLING=test STUDIO_RATE_LIMIT_PER_MIN=0 \
  STUDIO_CHAT_TURN_LIMIT=2 STUDIO_AI_URL="http://127.0.0.1:$ai/v1" STUDIO_AI_KEY=fake-key STUDIO_AI_MODEL=fake-reader \
  "$bin" >"$data2/server.log" 2>&1 &
server2=$!
cleanup() {
  kill "$server" "$sink" "$server2" "$fakeai" 2>/dev/null || true
  wait "$server" "$sink" "$server2" "$fakeai" 2>/dev/null || true
  rm -rf "$data" "$data2"
}
trap cleanup EXIT

for _ in $(seq 1 150); do
  if node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' \
    "http://127.0.0.1:$port/health"; then break; fi
  if ! kill -0 "$server" 2>/dev/null; then
    echo "console: the server stopped at start-up:" >&2
    cat "$data/server.log" >&2
    exit 1
  fi
  sleep 0.2
done

rm -rf "$screens" && mkdir -p "$screens"
status=0
echo "console: end to end against http://127.0.0.1:$port (screenshots in $screens)"
for _ in $(seq 1 150); do
  if node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' \
    "http://127.0.0.1:$port2/health"; then break; fi
  if ! kill -0 "$server2" 2>/dev/null; then
    echo "console: the assistant's server stopped at start-up:" >&2
    head -n 5 "$data2/server.log" >&2
    exit 1
  fi
  sleep 0.2
done
(cd "$here" && STUDIO_URL="http://127.0.0.1:$port" ASSISTANT_URL="http://127.0.0.1:$port2" LETTERS="$letters" SCREENS="$screens" node --test --test-concurrency=1 ./*.test.mjs) || status=1
if [ "$status" -ne 0 ]; then
  echo "console: the server's log ends:" >&2
  tail -n 40 "$data/server.log" >&2
fi
echo "console: type check (tsc --checkJs)"
(cd "$here" && npx --no-install tsc -p tsconfig.json) || status=1
exit "$status"
