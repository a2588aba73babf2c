"""Problem details (RFC 9457) as an exception."""

from __future__ import annotations

import json
from typing import List, Mapping, Optional

from .types import Problem, ProblemError


class ConduitProblem(Exception):
    """An answer other than 2xx, carrying the API's ``application/problem+json`` body.

    >>> try:
    ...     client.search(connector_id, "customers", {"filter": {"eq": {"nope": 1}}})
    ... except ConduitProblem as problem:
    ...     print(problem.code, [e["path"] for e in problem.errors])
    """

    def __init__(self, problem: Problem, retry_after: Optional[float] = None) -> None:
        self.problem = problem
        self.type: str = problem.get("type", "about:blank")
        self.title: str = problem.get("title", "")
        self.status: int = problem.get("status", 0)
        self.detail: Optional[str] = problem.get("detail")
        self.code: Optional[str] = problem.get("code")
        self.errors: List[ProblemError] = list(problem.get("errors") or [])
        self.upstream = problem.get("upstream")
        #: Seconds the server asked to wait (``Retry-After``), if it said.
        self.retry_after = retry_after
        super().__init__(f"{self.status} {self.code or self.title}: {self.detail or self.title}")


def problem_from(status: int, reason: str, body: bytes, headers: Mapping[str, str]) -> ConduitProblem:
    """The problem an answer describes; a body that is not problem+json still gives its status and text."""
    retry_after = parse_retry_after(headers.get("retry-after"))
    try:
        parsed = json.loads(body.decode("utf-8")) if body else None
    except (UnicodeDecodeError, ValueError):
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("status"), int):
        return ConduitProblem(parsed, retry_after)  # type: ignore[arg-type]
    text = body[:500].decode("utf-8", "replace") if body else ""
    fallback: Problem = {"type": "about:blank", "title": reason or "HTTP error", "status": status}
    if text:
        fallback["detail"] = text
    return ConduitProblem(fallback, retry_after)


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """``Retry-After`` as seconds: delta-seconds or an HTTP date (RFC 9110, section 10.2.3)."""
    if value is None or value.strip() == "":
        return None
    try:
        return max(0.0, float(value.strip()))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime
    import time

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
