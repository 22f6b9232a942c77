"""The embedded platform (`node dist/apps/platform/src/main.js`, as `npm start` runs it) started once
for the session on loopback, a fixture site and a webhook receiver beside it, and a client token."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[3]
ADMIN_TOKEN = "adm_python_sdk_tests_token"

PAGE = b"""<!doctype html><html><head><title>Fixture page</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'self'"></head>
<body><main><h1>Fixture page</h1><p class="lead">A page served to the Python SDK's tests.</p>
<p>Enough words for the content validator to call this a usable page of text, twice over:
the quick brown fox jumps over the lazy dog, and then it does it once more.</p>
<a href="/other">Another page</a></main></body></html>"""


class FixtureHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path.startswith("/status/"):
            self.send_response(int(self.path.rsplit("/", 1)[1]))
            self.send_header("content-type", "text/html")
            self.end_headers()
            self.wfile.write(b"<html><body>status page</body></html>")
            return
        if self.path == "/robots.txt":
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("content-length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *_: Any) -> None:
        pass


@dataclass
class Receiver:
    url: str
    received: list[tuple[dict[str, str], bytes]] = field(default_factory=list)


def _serve(handler: type[BaseHTTPRequestHandler]) -> tuple[ThreadingHTTPServer, int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _call(url: str, token: str, body: Any) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"authorization": f"Bearer {token}", "content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


@pytest.fixture(scope="session")
def site() -> Iterator[str]:
    server, port = _serve(FixtureHandler)
    yield f"http://127.0.0.1:{port}"
    server.shutdown()


@pytest.fixture(scope="session")
def receiver() -> Iterator[Receiver]:
    got: list[tuple[dict[str, str], bytes]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            got.append(({k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *_: Any) -> None:
            pass

    server, port = _serve(Handler)
    yield Receiver(f"http://127.0.0.1:{port}", got)
    server.shutdown()


@pytest.fixture(scope="session")
def platform(site: str, receiver: Receiver) -> Iterator[str]:
    entry = ROOT / "dist" / "apps" / "platform" / "src" / "main.js"
    if not entry.exists():
        pytest.fail(f"{entry} is missing: run npm run build first")
    data_dir = tempfile.mkdtemp(prefix="scrapeapi-python-")
    port = _free_port()
    env = {
        **os.environ,
        "DATA_DIR": data_dir,
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "ADMIN_TOKEN": ADMIN_TOKEN,
        "TARGET_ALLOWLIST": f"{site.removeprefix('http://')},{receiver.url.removeprefix('http://')}",
        "BROWSER_WARM": "false",
        "WEBHOOK_POLL_INTERVAL_MS": "50",
        "LOG_LEVEL": "warn",
    }
    for name in ("NATS_URL", "DATABASE_URL"):
        env.pop(name, None)
    log = open(Path(data_dir) / "platform.log", "wb")
    process = subprocess.Popen(["node", str(entry)], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(f"{base}/v1/health/live", timeout=2):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                log.flush()
                raise RuntimeError("the platform did not start:\n" + (Path(data_dir) / "platform.log").read_text()[-4000:])
            time.sleep(0.2)
    yield base
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
    log.close()
    shutil.rmtree(data_dir, ignore_errors=True)


def new_client_token(platform: str, **limits: Any) -> str:
    created = _call(f"{platform}/v1/admin/clients", ADMIN_TOKEN, {"plan": "enterprise", "rate_limit_per_minute": 10_000, **limits})
    return str(created["token"])


@pytest.fixture()
def token(platform: str) -> str:
    """A client of its own per test: no test spends another's rate limit or credits."""
    return new_client_token(platform)
