"""Shared by the tests: the package from this folder (installed or not), and the platform the e2e test started."""

from __future__ import annotations

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Dict, List, Optional, Tuple

try:
    import conduit_client  # noqa: F401
except ImportError:  # run from a checkout: import the package by path
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))

from conduit_client import Conduit  # noqa: E402

PLATFORM_VARIABLES = ("CONDUIT_BASE_URL", "CONDUIT_CLIENT_ID", "CONDUIT_CLIENT_SECRET", "CONDUIT_ORB_CONNECTOR_ID")


def platform_missing() -> Optional[str]:
    """Why the tests against a running platform cannot run (test/e2e/python-client.test.ts sets these)."""
    missing = [name for name in PLATFORM_VARIABLES if not os.environ.get(name)]
    return f"no platform to test against: set {', '.join(missing)}" if missing else None


def platform_client(**options: object) -> Conduit:
    return Conduit(
        os.environ["CONDUIT_BASE_URL"],
        client_id=os.environ["CONDUIT_CLIENT_ID"],
        client_secret=os.environ["CONDUIT_CLIENT_SECRET"],
        **options,  # type: ignore[arg-type]
    )


Answer = Tuple[int, Dict[str, str], object]
"""status, headers, JSON body."""


class ScriptedServer:
    """A tiny local HTTP server: grants tokens, then answers each other request with the next scripted answer."""

    def __init__(self, answers: List[Answer], token_ttl_s: int = 3600) -> None:
        self.answers = list(answers)
        self.requests: List[Dict[str, object]] = []
        self.tokens_granted = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args: object) -> None:  # keep the test output clean
                return

            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                if self.path == "/api/v1/oauth/token":
                    outer.tokens_granted += 1
                    self._send(200, {}, {"access_token": f"t{outer.tokens_granted}", "token_type": "Bearer",
                                         "expires_in": token_ttl_s})
                    return
                outer.requests.append({"method": self.command, "path": self.path,
                                       "headers": {k.lower(): v for k, v in self.headers.items()},
                                       "body": json.loads(body) if body else None})
                status, headers, payload = outer.answers.pop(0) if outer.answers else (200, {}, {"data": []})
                self._send(status, headers, payload)

            def _send(self, status: int, headers: Dict[str, str], payload: object) -> None:
                raw = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                content_type = "application/problem+json" if status >= 400 else "application/json"
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(raw)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(raw)

            do_GET = _answer
            do_POST = _answer

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def client(self, sleep: Callable[[float], None], **options: object) -> Conduit:
        return Conduit(self.url, client_id="c", client_secret="s", sleep=sleep, **options)  # type: ignore[arg-type]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def problem(status: int, code: str, detail: str = "") -> object:
    return {"type": f"https://conduit.dev/problems/{code}", "title": code, "status": status, "code": code,
            "detail": detail}
