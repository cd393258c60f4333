"""Starts a real `mnemon serve` on a loopback port over a fresh SQLite file,
and tiny stand-in servers for what mnemon cannot be made to answer on demand
(429, 503, a slow answer).

MNEMON_BIN names the binary (the Go test that runs these sets it); without
it the binary is built with `go build` from the repository.
"""
from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Callable, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..")))


class MnemonServer:
    """One `mnemon serve` process; url is where it listens."""

    def __init__(self, extra_args: Optional[List[str]] = None) -> None:
        self.dir = tempfile.mkdtemp(prefix="mnemon-py-")
        self.bin = os.environ.get("MNEMON_BIN") or ""
        if not self.bin:
            self.bin = os.path.join(self.dir, "mnemon")
            subprocess.run(["go", "build", "-o", self.bin, "./cmd/mnemon"], cwd=REPO, check=True)
        self.db = os.path.join(self.dir, "mnemon.db")
        self.log: List[str] = []
        self.proc = subprocess.Popen(
            [self.bin, "serve", "--addr", "127.0.0.1:0", "--db", self.db] + list(extra_args or []),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        found = threading.Event()
        self.url = ""

        def read_log() -> None:
            # Keeps reading after the start so the pipe never fills.
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.log.append(line.rstrip("\n"))
                if not found.is_set():
                    try:
                        rec = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(rec, dict) and rec.get("msg") == "listening":
                        self.url = rec["addr"]
                        found.set()
            found.set()

        threading.Thread(target=read_log, daemon=True).start()
        found.wait(60)
        if not self.url:
            self.stop()
            raise RuntimeError("mnemon serve did not start:\n" + "\n".join(self.log))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


# A stand-in's handler: gets the request and answers (status, headers, body).
Answer = Tuple[int, dict, bytes]


class StubServer:
    """An http.server on loopback that answers each request with respond(n,
    handler), n counting from 1; requests lists (method, path, headers)."""

    def __init__(self, respond: Callable[[int, http.server.BaseHTTPRequestHandler], Answer]) -> None:
        self.requests: List[Tuple[str, str, Any]] = []
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                stub.requests.append((self.command, self.path, dict(self.headers)))
                status, headers, body = respond(len(stub.requests), self)
                try:
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to answer

            do_GET = do_POST = do_DELETE = _answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def problem(status: int, code: str, title: str = "problem", **extra: Any) -> bytes:
    return json.dumps({"type": "about:blank", "title": title, "status": status, "code": code, **extra}).encode()


def json_body(value: Any) -> bytes:
    return json.dumps(value).encode()


def elapsed(fn: Callable[[], Any]) -> Tuple[Any, float]:
    start = time.monotonic()
    result = fn()
    return result, time.monotonic() - start
