"""HTTP with the standard library: bearer tokens, problem details, retries honouring Retry-After."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.client import HTTPResponse
from typing import Any, Callable, Dict, Mapping, Optional

from ._problem import ConduitProblem, problem_from
from .types import TokenAnswer

TOKEN_PATH = "/api/v1/oauth/token"
# A token is replaced this long before it expires, so a call never leaves with one that dies on the way.
REFRESH_MARGIN_S = 30.0
# Statuses that say "later": the API's own limits (429, with Retry-After), an engine that cannot answer now (503),
# and an idempotent write still running (409 idempotency_in_progress, with Retry-After; docs/trusted-calls.md).
_RETRY_STATUSES = frozenset({429, 503})


class Transport:
    """One connection policy for every call of a :class:`~conduit_client.Conduit`. Thread-safe."""

    def __init__(
        self,
        base_url: str,
        *,
        client_id: Optional[str] = None,
        client_secret: Optional[str] = None,
        access_token: Optional[str] = None,
        organization_id: Optional[str] = None,
        max_retries: int = 3,
        max_retry_after: float = 60.0,
        timeout: float = 60.0,
        user_agent: str = "conduit-client-python",
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if access_token is None and not (client_id and client_secret):
            raise TypeError("Conduit needs client_id and client_secret, or an access_token")
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        self.base_url = base_url.rstrip("/")
        self._client_id = client_id
        self._client_secret = client_secret
        self._fixed_token = access_token
        self._organization_id = organization_id
        self.max_retries = max_retries
        self.max_retry_after = max_retry_after
        self.timeout = timeout
        self._user_agent = user_agent
        self._sleep = sleep
        self._clock = clock
        self._token: Optional[str] = None
        self._expires_at = 0.0
        self._lock = threading.Lock()
        #: How many tokens this transport obtained (the first and every refresh).
        self.tokens_obtained = 0

    # -- tokens ------------------------------------------------------------------------------------------------

    def token(self) -> str:
        """The bearer token in use, obtained when missing or within ``REFRESH_MARGIN_S`` of its expiry."""
        if self._fixed_token is not None:
            return self._fixed_token
        with self._lock:
            if self._token is None or self._clock() >= self._expires_at - REFRESH_MARGIN_S:
                self._obtain_token()
            assert self._token is not None
            return self._token

    def forget_token(self) -> None:
        """Drops the cached token: the next call obtains a new one."""
        with self._lock:
            self._token = None

    def _obtain_token(self) -> None:
        body = json.dumps(
            {"grant_type": "client_credentials", "client_id": self._client_id, "client_secret": self._client_secret}
        ).encode("utf-8")
        request = urllib.request.Request(
            self.base_url + TOKEN_PATH,
            data=body,
            method="POST",
            headers={"content-type": "application/json", "accept": "application/json", "user-agent": self._user_agent},
        )
        answer: TokenAnswer = json.loads(self._open(request).read().decode("utf-8"))
        self._token = answer["access_token"]
        self._expires_at = self._clock() + float(answer["expires_in"])
        self.tokens_obtained += 1

    # -- requests ----------------------------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        query: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
        retry: bool = True,
    ) -> HTTPResponse:
        """A 2xx answer, its body unread (the caller reads or streams it); anything else raises ConduitProblem.

        ``retry``: the call is safe to repeat (a read, or a write carrying an idempotency key), so 429 and 503
        answers are retried after their ``Retry-After``, at most ``max_retries`` times and never for longer than
        ``max_retry_after`` seconds at once. A 401 (an expired or revoked token: nothing ran) is always repeated
        once with a new token.
        """
        url = self.base_url + path
        if query:
            pairs = [(key, str(value)) for key, value in query.items() if value is not None]
            if pairs:
                url += "?" + urllib.parse.urlencode(pairs)
        data = None if body is None else json.dumps(body).encode("utf-8")
        attempt = 0
        refreshed = False
        while True:
            request_headers: Dict[str, str] = {
                "accept": "application/json",
                "user-agent": self._user_agent,
                "authorization": "Bearer " + self.token(),
            }
            if self._organization_id:
                request_headers["x-organization-id"] = self._organization_id
            if data is not None:
                request_headers["content-type"] = "application/json"
            request_headers.update(headers or {})
            request = urllib.request.Request(url, data=data, method=method, headers=request_headers)
            try:
                return self._open(request)
            except ConduitProblem as problem:
                if problem.status == 401 and not refreshed and self._fixed_token is None:
                    refreshed = True
                    self.forget_token()
                    continue
                retryable = retry and (
                    problem.status in _RETRY_STATUSES
                    or (problem.status == 409 and problem.code == "idempotency_in_progress")
                )
                if not retryable or attempt >= self.max_retries:
                    raise
                wait = problem.retry_after if problem.retry_after is not None else 0.25 * (2**attempt)
                if wait > self.max_retry_after:
                    raise
                attempt += 1
                self._sleep(wait)

    def json(self, method: str, path: str, **options: Any) -> Any:
        response = self.request(method, path, **options)
        with response:
            raw = response.read()
        return json.loads(raw.decode("utf-8")) if raw else None

    def _open(self, request: urllib.request.Request) -> HTTPResponse:
        try:
            response: HTTPResponse = urllib.request.urlopen(request, timeout=self.timeout)  # noqa: S310 (our URL)
            return response
        except urllib.error.HTTPError as error:
            with error:
                body = error.read()
            raise problem_from(error.code, error.reason, body, error.headers) from None
