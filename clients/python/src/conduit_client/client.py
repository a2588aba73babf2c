"""The Conduit API for Python: connectors, live actions, search, SQL, the change feed, downloads and usage."""

from __future__ import annotations

import uuid
from typing import IO, Any, Callable, Dict, Iterator, List, Mapping, Optional
from urllib.parse import quote

from ._paging import LIST_PAGING
from ._transport import Transport
from .types import (
    Aggregation,
    ChangeEvent,
    ChangesPage,
    Connector,
    CreateConnector,
    Download,
    ListPaging,
    Record,
    SearchQuery,
    SearchResult,
    SqlResult,
    UsageResult,
)

CONNECTORS = "/api/v1/integrations/connectors"
# Live actions that only read: repeating them is harmless, so they are retried on 429/503 without a key.
READ_ACTIONS = frozenset({"list", "get", "search", "download"})
DOWNLOAD_CHUNK = 64 * 1024


def _connector_path(connector_id: str, suffix: str = "") -> str:
    return f"{CONNECTORS}/{quote(connector_id, safe='')}{suffix}"


class Conduit:
    """A client of one Conduit deployment.

    >>> conduit = Conduit("http://127.0.0.1:8080", client_id="demo", client_secret="...")
    >>> for invoice in conduit.search_all(connector_id, "invoices", {"filter": {"eq": {"status": "paid"}}}):
    ...     print(invoice["id"])
    """

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
        sleep: Optional[Callable[[float], None]] = None,
    ) -> None:
        """``client_id``/``client_secret`` (client-credentials grant; the token is obtained and refreshed as needed)
        or an ``access_token`` you hold. ``organization_id`` for a client of several organizations. Reads, and
        writes carrying an idempotency key, are retried on 429/503 after their ``Retry-After`` at most
        ``max_retries`` times; a wait longer than ``max_retry_after`` seconds raises at once."""
        extra: Dict[str, Any] = {} if sleep is None else {"sleep": sleep}
        self.transport = Transport(
            base_url,
            client_id=client_id,
            client_secret=client_secret,
            access_token=access_token,
            organization_id=organization_id,
            max_retries=max_retries,
            max_retry_after=max_retry_after,
            timeout=timeout,
            **extra,
        )
        self._kinds: Dict[str, str] = {}

    def token(self) -> str:
        """The bearer token in use (obtained, or refreshed shortly before it expires)."""
        return self.transport.token()

    # -- connectors --------------------------------------------------------------------------------------------

    def list_connectors(self) -> List[Connector]:
        return self.transport.json("GET", CONNECTORS)["data"]

    def get_connector(self, connector_id: str) -> Connector:
        """The connector (never its credentials) with each entity's sync status."""
        return self.transport.json("GET", _connector_path(connector_id))

    def create_connector(self, connector: CreateConnector) -> Connector:
        """Creates a connector; the upstream checks the credentials first (400 naming ``/credentials``)."""
        return self.transport.json("POST", CONNECTORS, body=connector, retry=False)

    def delete_connector(self, connector_id: str) -> None:
        self.transport.request("DELETE", _connector_path(connector_id), retry=False).close()

    def sync(self, connector_id: str, entity: Optional[str] = None, mode: Optional[str] = None) -> Dict[str, Any]:
        """Starts a sync now (202): every replicated entity, or one; ``mode="full"`` re-reads from start_date."""
        body: Dict[str, Any] = {}
        if entity is not None:
            body["entity"] = entity
        if mode is not None:
            body["mode"] = mode
        return self.transport.json("POST", _connector_path(connector_id, "/sync"), body=body, retry=False)

    # -- live actions ------------------------------------------------------------------------------------------

    def execute(
        self,
        connector_id: str,
        entity: str,
        action: str,
        params: Optional[Mapping[str, Any]] = None,
        *,
        idempotency_key: Optional[str] = None,
    ) -> Any:
        """``POST .../execute``. A write (any action but list, get, search, download) carries an
        ``Idempotency-Key`` (``idempotency_key``, or a new random one), the same on every retry, so a retried
        write runs once (docs/trusted-calls.md)."""
        body: Dict[str, Any] = {"entity": entity, "action": action}
        if params is not None:
            body["params"] = dict(params)
        headers: Dict[str, str] = {}
        if action not in READ_ACTIONS:
            headers["idempotency-key"] = idempotency_key or str(uuid.uuid4())
        return self.transport.json("POST", _connector_path(connector_id, "/execute"), body=body, headers=headers)

    def list_all(
        self,
        connector_id: str,
        entity: str,
        params: Optional[Mapping[str, Any]] = None,
        *,
        paging: Optional[ListPaging] = None,
    ) -> Iterator[Record]:
        """Every record of a live ``list``, page after page, following the entity's paging values in ``meta``.
        ``paging`` says how for a kind this client does not know (a connector definition's)."""
        rule = paging or self._paging_of(connector_id, entity)
        current: Dict[str, Any] = dict(params or {})
        while True:
            page = self.execute(connector_id, entity, "list", current)
            records: List[Record] = page.get("data") or []
            yield from records
            meta: Dict[str, Any] = page.get("meta") or {}
            if not records:
                return
            if rule["type"] == "token":
                following = meta.get(rule["meta"])
                if not isinstance(following, str) or following == "":
                    return
                current = {**current, rule["param"]: following}
            else:
                number = current.get(rule["param"])
                page_number = number if isinstance(number, int) else 1
                total = meta.get(rule["total"])
                if not isinstance(total, int) or page_number >= total:
                    return
                current = {**current, rule["param"]: page_number + 1}

    def _paging_of(self, connector_id: str, entity: str) -> ListPaging:
        kind = self._kinds.get(connector_id)
        if kind is None:
            kind = self.get_connector(connector_id)["connector_type"]
            self._kinds[connector_id] = kind
        # connector_type is matched case-insensitively by the API.
        for known, entities in LIST_PAGING.items():
            if known.lower() == kind.lower() and entity in entities:
                return entities[entity]
        raise ValueError(f"{kind} {entity}: no known paging; pass paging={{'type': 'token', ...}}")

    def download(
        self,
        connector_id: str,
        entity: str,
        params: Mapping[str, Any],
        out: IO[bytes],
        *,
        chunk_size: int = DOWNLOAD_CHUNK,
    ) -> Download:
        """Streams a ``download`` into ``out`` (a binary file object) chunk by chunk: the body is never held
        whole in memory. ``params`` as the entity's download action takes them (``range_header`` → 206)."""
        body = {"entity": entity, "action": "download", "params": dict(params)}
        response = self.transport.request(
            "POST",
            _connector_path(connector_id, "/execute"),
            body=body,
            headers={"accept": "*/*"},
        )
        written = 0
        with response:
            while True:
                chunk = response.read(chunk_size)
                if not chunk:
                    break
                out.write(chunk)
                written += len(chunk)
            length = response.headers.get("content-length")
            return {
                "status": response.status,
                "content_type": response.headers.get("content-type"),
                "content_length": int(length) if length is not None else None,
                "content_range": response.headers.get("content-range"),
                "content_disposition": response.headers.get("content-disposition"),
                "bytes_written": written,
            }

    # -- search and SQL over the copy --------------------------------------------------------------------------

    def search(
        self,
        connector_id: str,
        entity: str,
        query: Optional[SearchQuery] = None,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        fields: Optional[List[str]] = None,
        aggregate: Optional[Mapping[str, Aggregation]] = None,
    ) -> SearchResult:
        """One page of the synchronized copy (docs/search.md); follow ``meta["cursor"]`` or use :meth:`search_all`."""
        params: Dict[str, Any] = {"query": dict(query or {})}
        if limit is not None:
            params["limit"] = limit
        if cursor is not None:
            params["cursor"] = cursor
        if fields is not None:
            params["fields"] = fields
        if aggregate is not None:
            params["aggregate"] = dict(aggregate)
        return self.execute(connector_id, entity, "search", params)

    def search_all(
        self,
        connector_id: str,
        entity: str,
        query: Optional[SearchQuery] = None,
        *,
        page_size: Optional[int] = None,
        fields: Optional[List[str]] = None,
    ) -> Iterator[Record]:
        """Every record matching ``query``, page after page by cursor: none repeated, none skipped."""
        cursor: Optional[str] = None
        while True:
            page = self.search(connector_id, entity, query, limit=page_size, cursor=cursor, fields=fields)
            yield from page["data"]
            cursor = page["meta"].get("cursor")
            if not page["meta"].get("has_more") or not cursor:
                return

    def sql(
        self, connector_id: str, query: str, *, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> SqlResult:
        """One page of a read-only SQL query over the copy (docs/sql.md)."""
        body: Dict[str, Any] = {"query": query}
        if limit is not None:
            body["limit"] = limit
        if cursor is not None:
            body["cursor"] = cursor
        return self.transport.json("POST", _connector_path(connector_id, "/sql"), body=body)

    def sql_all(self, connector_id: str, query: str, *, page_size: Optional[int] = None) -> Iterator[Dict[str, Any]]:
        """Every row of an SQL query, page after page by cursor (a GROUP BY is never cut short)."""
        cursor: Optional[str] = None
        while True:
            page = self.sql(connector_id, query, limit=page_size, cursor=cursor)
            yield from page["data"]
            cursor = page["meta"].get("cursor")
            if not page["meta"].get("has_more") or not cursor:
                return

    # -- change feed -------------------------------------------------------------------------------------------

    def changes_page(
        self,
        connector_id: str,
        *,
        after: Optional[str] = None,
        entity: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> ChangesPage:
        return self.transport.json(
            "GET",
            _connector_path(connector_id, "/changes"),
            query={"after": after, "entity": entity, "limit": limit},
        )

    def changes(
        self,
        connector_id: str,
        *,
        after: Optional[str] = None,
        entity: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> Iterator[ChangeEvent]:
        """Every change the copy applied after ``after`` (a cursor, or ``"latest"``), in order, until the feed's
        end. Each event carries ``cursor``: keep the last one handled and pass it as ``after=`` to resume."""
        while True:
            page = self.changes_page(connector_id, after=after, entity=entity, limit=limit)
            for event in page["data"]:
                event["cursor"] = event["id"][event["id"].rfind(".") + 1 :]
                yield event
            after = page["meta"]["cursor"]
            if not page["meta"]["has_more"]:
                return

    # -- usage -------------------------------------------------------------------------------------------------

    def usage(
        self,
        *,
        start: Optional[str] = None,
        end: Optional[str] = None,
        granularity: str = "day",
        connector_id: Optional[str] = None,
    ) -> UsageResult:
        """The organization's usage per hour or day between ``start`` and ``end`` (ISO 8601), with its quotas."""
        return self.transport.json(
            "GET",
            "/api/v1/usage",
            query={"from": start, "to": end, "granularity": granularity, "connector_id": connector_id},
        )
