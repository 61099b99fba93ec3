"""A webhook receiver written with a third-party verifier (PyPI `standardwebhooks`), driven against a
real studio-server (docs/webhooks.md, "Checked by a third party").

    python tests/webhooks/receiver.py URL --source server
    python tests/webhooks/receiver.py URL --source outbox
    python tests/webhooks/receiver.py URL --source listen --studio target/debug/studio

It signs a house up and starts a receiver on a free loopback port whose every request is checked
with `standardwebhooks.Webhook(secret).verify(body, headers)` (a refused request is answered 400
and recorded). The deliveries come from one of three sources:

- `server`: the server's own signed deliveries to an endpoint of the house (the server must run
  with STUDIO_WEBHOOKS_ALLOW_HTTP_LOOPBACK=1): `POST …/{id}/test` pings, and a replay of one of
  them (`POST …/{id}/deliveries/{deliveryId}/replay`: the same webhook-id again);
- `outbox`: a few develops, their job changes delivered by the server itself to an endpoint
  subscribed to every kind; then one develop submitted with its own `webhookUrl` (a second
  receiver), signed with the same endpoint's secret as the house's default endpoint;
- `listen`: a few develops, their job changes forwarded by `studio webhooks listen --forward-to`.

Then:

- every request that reached the receiver was accepted; `server`: each test answered the 200 the
  receiver gave and the replay came under its delivery's own webhook-id; `outbox` and `listen`:
  every job's last change arrived, each job's changes in eventSeq order, no webhook-id twice;
- the package refuses a delivery whose body was altered by one byte, one re-signed with a timestamp
  ten minutes old, and one without its signature header;
- (`server` only) after two rotations the first secret, rotated out, no longer verifies a new
  delivery, while the second (within its 24 hours) and the third do.

Exit status 0 when all of that holds; each failure is printed.
"""

import argparse
import base64
import json
import os
import socket
import subprocess
import struct
import sys
import threading
import time
import urllib.error
import urllib.request
import zlib
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

PASSWORD = "receiver password 1"
FAILURES = []


def fail(why):
    FAILURES.append(why)
    print(f"FAIL: {why}", file=sys.stderr)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Api:
    """The server's HTTP API with a session cookie or a key."""

    def __init__(self, base):
        self.base = base.rstrip("/")
        self.session = None
        self.key = None

    def call(self, method, path, body=None, *, session=False, content_type="application/json", raw=False):
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", content_type)
        if session:
            req.add_header("Cookie", f"studio_session={self.session}")
        elif self.key:
            req.add_header("Authorization", f"Bearer {self.key}")
        try:
            with urllib.request.urlopen(req, timeout=30) as res:
                payload = res.read()
                headers = res.headers
        except urllib.error.HTTPError as e:
            raise SystemExit(f"{method} {path}: {e.code} {e.read()[:300]!r}")
        return (json.loads(payload) if payload else None, headers) if raw else (json.loads(payload) if payload else None)

    def sign_up(self):
        email = f"receiver-{os.getpid()}-{time.time_ns()}@example.com"
        _, headers = self.call("POST", "/api/auth/sign-up", {"email": email, "password": PASSWORD}, raw=True)
        for cookie in headers.get_all("Set-Cookie") or []:
            if cookie.startswith("studio_session="):
                self.session = cookie.split(";", 1)[0].split("=", 1)[1]
        if not self.session:
            raise SystemExit("sign-up answered no studio_session cookie")
        self.key = self.call("POST", "/api/keys", {"name": "receiver"}, session=True)["key"]

    def multipart(self, path, fields, files):
        boundary = f"----receiver{time.time_ns()}"
        parts = []
        for name, value in fields.items():
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
        for name, (filename, content) in files.items():
            head = (
                f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                "Content-Type: image/png\r\n\r\n"
            )
            parts.append(head.encode() + content + b"\r\n")
        parts.append(f"--{boundary}--\r\n".encode())
        return self.call("POST", path, b"".join(parts), content_type=f"multipart/form-data; boundary={boundary}")


def png(w=96, h=128):
    """A small PNG (a brown piece on a light ground) made with zlib and struct only."""

    def row(y):
        line = bytearray()
        for x in range(w):
            inside = w // 4 < x < 3 * w // 4 and h // 8 < y < 7 * h // 8
            line += bytes((110, 80, 70)) if inside else bytes((236, 234, 230))
        return b"\x00" + bytes(line)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(row(y) for y in range(h))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


class Receiver:
    """The endpoint: checks every request with the package and keeps what came."""

    def __init__(self, secret):
        self.secret = secret
        self.lock = threading.Lock()
        self.accepted = []  # (headers, body)
        self.refused = []  # (headers, body, why)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                with receiver.lock:
                    secret = receiver.secret
                try:
                    Webhook(secret).verify(body, headers)
                    with receiver.lock:
                        receiver.accepted.append((headers, body))
                    status = 200
                except WebhookVerificationError as e:
                    with receiver.lock:
                        receiver.refused.append((headers, body, str(e)))
                    status = 400
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.port = free_port()
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.port}/hook"

    def events(self):
        with self.lock:
            return [json.loads(body) for _, body in self.accepted]

    def wait_for(self, done, seconds, what):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if done(self.events()):
                return True
            time.sleep(0.2)
        fail(f"waited {seconds} s for {what}; the receiver accepted {len(self.accepted)}, refused {len(self.refused)}")
        return False


def develop(api, asset, n, **extra):
    """Submit `n` upscales of `asset` (with `extra` form fields); their job ids."""
    jobs = []
    for i in range(n):
        fields = {"tool": "upscale", "quality": "1k", "image": asset, "idempotencyKey": f"receiver-{time.time_ns()}-{i}"}
        answer = api.multipart("/api/toolkit/jobs/submit", dict(fields, **extra), {})
        jobs.append(answer["jobId"])
    return jobs


def finished(jobs):
    """True when the receiver has a final change (succeeded, failed or cancelled) of every job."""

    def check(events):
        done = {
            e["job"]["id"]
            for e in events
            if e.get("type") == "job" and e["job"].get("status") in ("done", "failed", "cancelled")
        }
        return all(j in done for j in jobs)

    return check


def verifies(secret, headers, body):
    try:
        Webhook(secret).verify(body, headers)
        return True
    except WebhookVerificationError:
        return False


def refusals(secret, receiver):
    """The package refuses an altered body, a stale timestamp and a missing signature."""
    headers, body = receiver.accepted[0]
    if not verifies(secret, headers, body):
        fail("the first accepted delivery no longer verifies")
    tampered = bytearray(body)
    tampered[len(tampered) // 2] ^= 0x01
    if verifies(secret, headers, bytes(tampered)):
        fail("a body altered by one byte was accepted")
    old = datetime.now(tz=timezone.utc) - timedelta(minutes=10)
    stale = dict(headers)
    stale["webhook-timestamp"] = str(int(old.timestamp()))
    stale["webhook-signature"] = Webhook(secret).sign(headers["webhook-id"], old, body.decode())
    if verifies(secret, stale, body):
        fail("a delivery signed ten minutes ago was accepted")
    unsigned = {k: v for k, v in headers.items() if k != "webhook-signature"}
    if verifies(secret, unsigned, body):
        fail("a delivery without webhook-signature was accepted")
    print("refused as they should be: an altered body, a ten-minute-old timestamp, a missing signature")


def ping(api, receiver, endpoint):
    """`POST …/test`: the attempt the server answers, checked against what the receiver got."""
    with receiver.lock:
        before = len(receiver.accepted) + len(receiver.refused)
    attempt = api.call("POST", f"/api/toolkit/webhooks/{endpoint}/test", {}, session=True)
    if not (attempt.get("ok") and attempt.get("status") == 200 and attempt.get("event") == "ping"):
        fail(f"the test answered {attempt}")
    with receiver.lock:
        if len(receiver.accepted) + len(receiver.refused) != before + 1:
            fail(f"one test made {len(receiver.accepted) + len(receiver.refused) - before} requests")
    return attempt


def server_source(api, receiver, endpoint, first, pings):
    attempts = [ping(api, receiver, endpoint) for _ in range(max(pings, 1))]
    ids = [a["deliveryId"] for a in attempts]
    if len(set(ids)) != len(ids):
        fail(f"two pings shared a webhook-id: {ids}")
    got = [h["webhook-id"] for h, _ in receiver.accepted]
    if got != ids:
        fail(f"the receiver got webhook-ids {got}, the server answered {ids}")
    # A replay: the same delivery (same webhook-id, same body) signed again now.
    with receiver.lock:
        original_headers, original_body = receiver.accepted[0]
    replayed = api.call("POST", f"/api/toolkit/webhooks/{endpoint}/deliveries/{ids[0]}/replay", {}, session=True)
    if not replayed.get("ok") or replayed.get("deliveryId") != ids[0]:
        fail(f"the replay answered {replayed}")
    with receiver.lock:
        last_headers, last_body = receiver.accepted[-1]
    if last_headers.get("webhook-id") != ids[0] or last_body != original_body:
        fail(f"the replay arrived as {last_headers.get('webhook-id')} with another body")
    log = api.call("GET", f"/api/toolkit/webhooks/{endpoint}/deliveries?limit=100")
    logged = [d["deliveryId"] for d in log["deliveries"]]
    if logged.count(ids[0]) != 2 or any(i not in logged for i in ids):
        fail(f"the delivery log shows {logged}")
    print(f"server: {len(attempts)} pings and a replay accepted by standardwebhooks; the log shows {len(logged)} attempts")
    for headers, _, why in receiver.refused:
        fail(f"delivery {headers.get('webhook-id')} refused by the verifier: {why}")
    refusals(first, receiver)
    if FAILURES:
        return

    # Two rotations: the first secret is rotated out; the second signs beside the third.
    second = api.call("POST", f"/api/toolkit/webhooks/{endpoint}/rotate-secret", {}, session=True)["secret"]
    third = api.call("POST", f"/api/toolkit/webhooks/{endpoint}/rotate-secret", {}, session=True)["secret"]
    with receiver.lock:
        receiver.secret = third
    ping(api, receiver, endpoint)
    with receiver.lock:
        headers, body = receiver.accepted[-1]
    if len(headers["webhook-signature"].split(" ")) != 2:
        fail(f"after a rotation a delivery carries two signatures, not {headers['webhook-signature']!r}")
    if verifies(first, headers, body):
        fail(f"{headers['webhook-id']}: the rotated-out first secret still verifies")
    if not verifies(second, headers, body):
        fail(f"{headers['webhook-id']}: the second secret, within its 24 hours, does not verify")
    print("after two rotations: refused under the first secret, accepted under the second and the third")


def in_order(source, receiver):
    """Nothing refused, no webhook-id twice, each job's changes in eventSeq order."""
    events = receiver.events()
    for headers, _, why in receiver.refused:
        fail(f"{source}: {headers.get('webhook-id')} refused by the verifier: {why}")
    ids = [h["webhook-id"] for h, _ in receiver.accepted]
    if len(set(ids)) != len(ids):
        fail(f"a forward arrived twice under one webhook-id: {sorted(i for i in ids if ids.count(i) > 1)[:3]}")
    seqs = {}
    for e in events:
        if e.get("type") == "job":
            seqs.setdefault(e["job"]["id"], []).append(e["job"]["eventSeq"])
    for job, got in seqs.items():
        if got != sorted(got):
            fail(f"{job}'s changes arrived out of order: eventSeq {got}")
    return events


def listen_source(api, receiver, asset, first, args):
    jobs = develop(api, asset, args.develops)
    receiver.wait_for(finished(jobs), args.wait, f"the last change of {len(jobs)} develops")
    events = in_order("listen", receiver)
    print(f"listen: the receiver accepted {len(events)} forwards, refused {len(receiver.refused)}")
    if receiver.accepted:
        refusals(first, receiver)


def outbox_source(api, receiver, asset, first, args):
    """The server's own deliveries of develops' changes (the outbox), then a develop's own
    webhookUrl to a second receiver, signed with the same (the default endpoint's) secret."""
    jobs = develop(api, asset, args.develops)
    receiver.wait_for(finished(jobs), args.wait, f"the last change of {len(jobs)} develops")
    events = in_order("outbox", receiver)
    print(f"outbox: the receiver accepted {len(events)} deliveries of {len(jobs)} develops, refused {len(receiver.refused)}")
    own = Receiver(first)
    try:
        job = develop(api, asset, 1, webhookUrl=own.url)
        own.wait_for(finished(job), args.wait, "the last change of a develop with its own webhookUrl")
        got = in_order("webhookUrl", own)
        print(f"webhookUrl: the develop's own receiver accepted {len(got)} deliveries, refused {len(own.refused)}")
    finally:
        own.server.shutdown()
    if receiver.accepted:
        refusals(first, receiver)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--source", choices=["server", "listen", "outbox"], required=True)
    parser.add_argument("--studio", default="target/debug/studio", help="the CLI, for --source listen")
    parser.add_argument("--develops", type=int, default=3, help="develops (listen) or pings (server)")
    parser.add_argument("--wait", type=float, default=120.0)
    args = parser.parse_args()

    api = Api(args.url)
    api.sign_up()
    asset = api.multipart("/api/toolkit/assets/upload", {}, {"file": ("piece.png", png())})["asset"]["id"]
    listener = None
    if args.source in ("server", "outbox"):
        receiver = Receiver("whsec_" + base64.b64encode(b"placeholder until created").decode())
        created = api.call("POST", "/api/toolkit/webhooks", {"url": receiver.url, "events": ["*"]}, session=True)
        first = created["secret"]
        with receiver.lock:
            receiver.secret = first
        endpoint = created["id"]
    else:
        first = "whsec_" + base64.b64encode(os.urandom(32)).decode()
        receiver = Receiver(first)
        env = dict(os.environ, STUDIO_URL=args.url, STUDIO_API_KEY=api.key, STUDIO_CONFIG=os.devnull)
        listener = subprocess.Popen(
            [args.studio, "webhooks", "listen", "--forward-to", receiver.url, "--secret", first, "--json"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        time.sleep(1.0)  # the socket opens; the backfill covers anything earlier anyway

    try:
        if args.source == "server":
            server_source(api, receiver, endpoint, first, args.develops)
        elif args.source == "outbox":
            outbox_source(api, receiver, asset, first, args)
        else:
            listen_source(api, receiver, asset, first, args)
    finally:
        if listener is not None:
            listener.terminate()
            try:
                _, err = listener.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                listener.kill()
                _, err = listener.communicate()
            if FAILURES:
                print(err.decode(errors="replace")[-2000:], file=sys.stderr)
        receiver.server.shutdown()

    if FAILURES:
        print(f"{len(FAILURES)} failures", file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
