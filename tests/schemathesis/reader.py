"""A stand-in AI reader for the schema fuzzing run: an OpenAI-compatible chat endpoint on
loopback whose every answer is one JSON object that fits the shape of every AI lane and text
tool (docs/lanes.md), so the lanes answer 200 or a 4xx instead of 503 "not configured".

    python reader.py PORT
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

ANSWER = {
    "nameEn": "Wool coat",
    "kind": "clothes",
    "items": [{"label": "coat", "box": [100, 100, 900, 900]}],
    "figureDetected": False,
    "faceDetected": False,
    "fields": {},
    "keywords": [],
    "categories": [{"category": "light", "keywords": ["soft", "north window"]}],
    "shots": [{"label": f"shot {i}", "prompt": f"a wool coat, view {i}"} for i in range(12)],
    "prompt": "a wool coat on a plain ground",
    "improved": "a charcoal wool coat on a plain warm ground, soft light",
    "notes": ["named the light"],
}


class Reader(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": json.dumps(ANSWER)}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", int(sys.argv[1])), Reader).serve_forever()
