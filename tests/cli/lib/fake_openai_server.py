#!/usr/bin/env python3
"""A local OpenAI-compatible chat-completions server for headroom generate's tests.

Answers come from a script (JSON): routes, each matching a model and substrings of the last user
message, with a list of answers given in turn (the last one repeats). An answer is one of
  {"status": 429, "retry_after": "1"}           an error status (with Retry-After when given)
  {"sleep": 3, "file": "x.md"}                  the answer after a delay (a client's timeout)
  {"malformed": true}                           HTTP 200 with a body that is not JSON
  {"file": "x.md", "cut": true}                 a stream that ends after two events, without [DONE]
  {"file": "x.md"}                              the file's text as the answer, as JSON or as
                                                server-sent events when the request asks to stream
Every request is appended to the record file as a JSON line (time, model, route, index, stream,
messages, whether the key was right). The chosen port is written to the port file once listening.
"""
import argparse
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--script", required=True)
parser.add_argument("--record", required=True)
parser.add_argument("--port-file", required=True)
parser.add_argument("--key", default="")
args = parser.parse_args()

with open(args.script) as f:
    script = json.load(f)
base = os.path.dirname(os.path.abspath(args.script))
lock = threading.Lock()
counters = {}


def route_for(model, text):
    for i, r in enumerate(script["routes"]):
        if r.get("model", model) == model and all(m in text for m in r.get("match", [])):
            return i, r
    return None, None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, status, body, content_type="application/json", headers=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        req = json.loads(self.rfile.read(n))
        if self.path != "/v1/chat/completions":
            return self.send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
        key_ok = not args.key or self.headers.get("Authorization") == f"Bearer {args.key}"
        last_user = [m["content"] for m in req["messages"] if m["role"] == "user"][-1]
        with lock:
            ri, route = route_for(req["model"], last_user)
            index = counters.get(ri, 0)
            counters[ri] = index + 1
            with open(args.record, "a") as f:
                f.write(json.dumps({"time": time.time(), "model": req["model"], "route": ri, "index": index,
                                    "stream": bool(req.get("stream")), "key_ok": key_ok,
                                    "max_tokens": req.get("max_tokens"), "messages": req["messages"]}) + "\n")
        if not key_ok:
            return self.send(401, json.dumps({"error": {"message": "Incorrect API key provided"}}))
        if route is None:
            return self.send(400, json.dumps({"error": {"message": "no route in the test script matches"}}))
        answers = route["answers"]
        a = answers[min(index, len(answers) - 1)]
        if "status" in a:
            headers = [("Retry-After", a["retry_after"])] if "retry_after" in a else []
            return self.send(a["status"], json.dumps({"error": {"message": f"scripted {a['status']}"}}), headers=headers)
        if a.get("malformed"):
            return self.send(200, '{"id": "x", "choices": [{"message": ')
        if "sleep" in a:
            time.sleep(a["sleep"])
        with open(os.path.join(base, a["file"])) as f:
            content = f.read()
        usage = {"prompt_tokens": sum(len(m["content"]) // 4 for m in req["messages"]),
                 "completion_tokens": len(content) // 4}
        if not req.get("stream"):
            body = {"id": "chatcmpl-test", "object": "chat.completion", "model": req["model"],
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                 "finish_reason": "stop"}],
                    "usage": usage}
            return self.send(200, json.dumps(body))
        # Server-sent events, chunked, one delta per line of the answer.
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def event(obj):
            data = f"data: {obj}\n\n".encode() if isinstance(obj, str) else f"data: {json.dumps(obj)}\n\n".encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        pieces = content.splitlines(keepends=True)
        for i, p in enumerate(pieces):
            if a.get("cut") and i == 2:
                self.wfile.flush()
                self.close_connection = True
                return  # no last chunk: the client sees the transfer cut short
            event({"id": "c", "object": "chat.completion.chunk",
                   "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]})
        event({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        event({"id": "c", "object": "chat.completion.chunk", "choices": [], "usage": usage})
        event("[DONE]")
        self.wfile.write(b"0\r\n\r\n")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(args.port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(args.port_file + ".tmp", args.port_file)
server.serve_forever()
