"""Typed shapes of the API's requests and answers (docs/api.md, docs/search.md, docs/sql.md, docs/changes.md).

TypedDicts only: values are the plain dicts and lists that ``json`` produces, so they print and serialise as is.
Operator names that are Python keywords (``and``, ``or``, ``not``, ``in``) use the functional TypedDict syntax.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional, Union

if sys.version_info >= (3, 8):
    from typing import Literal, TypedDict
else:  # pragma: no cover - Python >= 3.9 is required
    raise RuntimeError("conduit-client needs Python 3.9 or newer")

JsonValue = Any
"""A JSON value as ``json.loads`` returns it."""

Record = Dict[str, JsonValue]
"""An upstream record (its fields are the kind's catalog: GET /api/v1/catalog)."""

# ---------------------------------------------------------------------------------------------------------------
# Problems (RFC 9457)


class ProblemError(TypedDict):
    """One problem of a request, at a JSON path (``/query/filter/eq/nope``)."""

    path: str
    message: str


class UpstreamAnswer(TypedDict, total=False):
    status: int
    body: JsonValue


class _ProblemRequired(TypedDict):
    type: str
    title: str
    status: int


class Problem(_ProblemRequired, total=False):
    """``application/problem+json``: ``code`` is stable (``invalid_filter``, ``rate_limited``, ``quota_exceeded``)."""

    detail: str
    code: str
    errors: List[ProblemError]
    upstream: UpstreamAnswer


# ---------------------------------------------------------------------------------------------------------------
# Connectors

SyncStatus = Literal["pending", "initial_sync", "ready", "failed"]


class EntityStatus(TypedDict, total=False):
    status: SyncStatus
    running: bool
    last_success_at: Optional[str]
    last_full_sync_at: Optional[str]
    record_count: int
    error: Optional[str]


class Connector(TypedDict, total=False):
    """``GET /api/v1/integrations/connectors/{id}``: never its credentials."""

    connector_id: str
    connector_type: str
    customer_name: str
    name: str
    replication_config: Dict[str, JsonValue]
    config: Dict[str, JsonValue]
    created_at: str
    entities: Dict[str, EntityStatus]
    webhook_url: Optional[str]
    webhooks: Literal["configured", "not_configured", "unsupported"]


class _CreateConnectorRequired(TypedDict):
    connector_type: str
    customer_name: str
    name: str
    credentials: Dict[str, JsonValue]


class CreateConnector(_CreateConnectorRequired, total=False):
    replication_config: Dict[str, JsonValue]
    config: Dict[str, JsonValue]


# ---------------------------------------------------------------------------------------------------------------
# The search language (docs/search.md)

FieldValues = Dict[str, JsonValue]
"""``{"<field path>": <value>}``: several fields in one operator are ANDed."""

Filter = TypedDict(
    "Filter",
    {
        "eq": FieldValues,
        "neq": FieldValues,
        "gt": FieldValues,
        "gte": FieldValues,
        "lt": FieldValues,
        "lte": FieldValues,
        "in": Dict[str, List[JsonValue]],
        "like": Dict[str, str],
        "fuzzy": Dict[str, str],
        "keyword": Dict[str, str],
        "contains": FieldValues,
        "any": Dict[str, "Filter"],
        "not": "Filter",
        "and": List["Filter"],
        "or": List["Filter"],
    },
    total=False,
)
"""A condition: ``{"eq": {"status": "paid"}}``, ``{"and": [...]}``, ``{"not": {...}}``."""

SortDirection = Literal["asc", "desc"]
Sort = List[Dict[str, SortDirection]]
"""``[{"created_at": "desc"}]``: ties are broken by the record key, so the order is total."""


class Semantic(TypedDict, total=False):
    text: str
    fields: List[str]
    min_score: float


class SearchQuery(TypedDict, total=False):
    filter: Filter
    sort: Sort
    semantic: Semantic


class CountBy(TypedDict, total=False):
    count_by: str
    size: int


Metric = TypedDict("Metric", {"sum": str, "avg": str, "min": str, "max": str}, total=False)
"""One of ``sum``, ``avg``, ``min``, ``max`` over a numeric, decimal or date field."""


class Histogram(TypedDict):
    histogram: str
    interval: Literal["hour", "day", "week", "month"]


Aggregation = Union[CountBy, Metric, Histogram]


class Bucket(TypedDict):
    key: JsonValue
    count: int


class MetricValue(TypedDict):
    value: Optional[float]


class Total(TypedDict):
    value: int
    exact: bool


class SearchMeta(TypedDict, total=False):
    has_more: bool
    cursor: Optional[str]
    took_ms: Optional[float]
    synced_at: Optional[str]
    as_of: Optional[str]
    total: Total
    aggregations: Dict[str, Union[List[Bucket], MetricValue]]
    scores: List[float]
    cache: Literal["hit", "miss"]


class SearchResult(TypedDict):
    data: List[Record]
    meta: SearchMeta


# ---------------------------------------------------------------------------------------------------------------
# Live actions


class ListResult(TypedDict, total=False):
    data: List[Record]
    meta: Dict[str, JsonValue]
    """The entity's paging values (``next_cursor``, ``next_page_token``, ``total_pages`` ...)."""


class ListPaging(TypedDict, total=False):
    """How an entity's live ``list`` pages: ``token`` (``meta`` names the value to pass as ``param``) or ``page``."""

    type: Literal["token", "page"]
    meta: str
    param: str
    total: str


class Download(TypedDict):
    """What :meth:`Conduit.download` wrote: the body went to the file object, never into memory whole."""

    status: int
    content_type: Optional[str]
    content_length: Optional[int]
    content_range: Optional[str]
    content_disposition: Optional[str]
    bytes_written: int


# ---------------------------------------------------------------------------------------------------------------
# SQL (docs/sql.md)


class SqlColumn(TypedDict):
    name: str
    type: str


class SqlMeta(TypedDict, total=False):
    columns: List[SqlColumn]
    has_more: bool
    cursor: Optional[str]
    took_ms: Optional[float]
    synced_at: Optional[str]
    total: int
    as_of: Optional[str]
    cache: Literal["hit", "miss"]


class SqlResult(TypedDict):
    data: List[Dict[str, JsonValue]]
    meta: SqlMeta


# ---------------------------------------------------------------------------------------------------------------
# Change feed (docs/changes.md)

ChangeType = Literal["record.created", "record.updated", "record.deleted"]
ChangeSource = Literal["sync", "full_pass", "webhook", "execute"]


class _ChangeEventRequired(TypedDict):
    id: str
    type: ChangeType
    entity: str
    key: str
    changed_at: str
    source: ChangeSource


class ChangeEvent(_ChangeEventRequired, total=False):
    record: Record
    """Absent for deletions."""
    cursor: str
    """Added by :meth:`Conduit.changes`: pass it as ``after=`` to resume right after this event."""


class ChangesMeta(TypedDict):
    cursor: str
    has_more: bool


class ChangesPage(TypedDict):
    data: List[ChangeEvent]
    meta: ChangesMeta


# ---------------------------------------------------------------------------------------------------------------
# Usage (docs/operations.md)

UsageMetric = Literal[
    "api_execute",
    "api_search",
    "api_sql",
    "api_changes",
    "upstream_requests",
    "records_synced",
    "webhook_deliveries",
]


class UsageBucket(TypedDict):
    """One hour or day (UTC) of the organization's (or one connector's) usage."""

    start: str
    metrics: Dict[str, int]


class QuotaState(TypedDict):
    limit: int
    used: int


class UsageMeta(TypedDict, total=False):
    granularity: Literal["hour", "day"]
    connector_id: Optional[str]
    quotas: Dict[str, QuotaState]


class UsageResult(TypedDict):
    data: List[UsageBucket]
    meta: UsageMeta


class TokenAnswer(TypedDict):
    access_token: str
    token_type: str
    expires_in: int
