# A loopback forwarding proxy for the npm MCP conformance suite: it adds
# `Authorization: Bearer <key>` to every request that has none and passes everything else through
# untouched (method, path, body, and the Host and Origin headers, so the DNS-rebinding scenario's
# forged headers reach the server as sent). The suite (@modelcontextprotocol/conformance) has no
# option to send a header in server mode, and the agent endpoint answers tools/list without a key
# with 401; this proxy is the client-side stand-in for an MCP client configured with a key.
#
#   python3 tests/conformance/auth_proxy.py LISTEN_PORT UPSTREAM_URL KEY
#
# Used by tests/conformance/run.sh; loopback only; the server is unchanged.
import http.client
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LISTEN_PORT = int(sys.argv[1])
UPSTREAM = urllib.parse.urlsplit(sys.argv[2])
KEY = sys.argv[3]
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def forward(self):
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else None
        upstream = http.client.HTTPConnection(UPSTREAM.hostname, UPSTREAM.port, timeout=120)
        try:
            upstream.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
            for name, value in self.headers.items():
                if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                    upstream.putheader(name, value)
            if "authorization" not in {name.lower() for name in self.headers.keys()}:
                upstream.putheader("Authorization", f"Bearer {KEY}")
            if body is not None:
                upstream.putheader("Content-Length", str(len(body)))
            upstream.endheaders(body)
            response = upstream.getresponse()
            data = response.read()
            self.log_message("%s %s -> %d", self.command, self.path, response.status)
            self.send_response_only(response.status, response.reason)
            for name, value in response.getheaders():
                if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up (the suite closes a transport with a request in flight)
        except (OSError, http.client.HTTPException) as err:
            message = f"conformance proxy: upstream failed: {err}".encode()
            self.send_response_only(502)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(message)))
            self.end_headers()
            self.wfile.write(message)
        finally:
            upstream.close()

    do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = do_OPTIONS = do_HEAD = forward

    def log_message(self, fmt, *args):
        sys.stderr.write("proxy: " + (fmt % args) + "\n")


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


Server(("127.0.0.1", LISTEN_PORT), Handler).serve_forever()
