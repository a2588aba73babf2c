"""How each built-in kind's live ``list`` pages: the same table as the TypeScript client's ``LIST_PAGING``
(packages/client/src/generated/catalog.ts); a test compares the two, so a kind's change reaches both."""

from __future__ import annotations

from typing import Dict

from .types import ListPaging


def _token(meta: str, param: str) -> ListPaging:
    return {"type": "token", "meta": meta, "param": param}


def _page(param: str, total: str) -> ListPaging:
    return {"type": "page", "param": param, "total": total}


def _same(entities: str, paging: ListPaging) -> Dict[str, ListPaging]:
    return {entity: paging for entity in entities.split()}


LIST_PAGING: Dict[str, Dict[str, ListPaging]] = {
    "Zendesk-Talk": _same(
        "phone_numbers addresses greetings greeting_categories ivrs agents_activity calls call_legs",
        _token("next_page", "next_page"),
    ),
    "Paypal-Transaction": {
        "transactions": _page("page", "total_pages"),
        "list_payments": _token("next_id", "start_id"),
        "list_disputes": _token("next_page_token", "next_page_token"),
        "list_products": _page("page", "total_pages"),
        "search_invoices": _page("page", "total_pages"),
    },
    "Typeform": _same("forms workspaces themes", _page("page", "page_count")),
    "Sentry": _same("projects issues events releases", _token("next_cursor", "cursor")),
    "Google-Ads": _same(
        "accounts campaigns ad_groups ad_group_ads campaign_labels ad_group_labels ad_group_ad_labels labels",
        _token("next_page_token", "pageToken"),
    ),
    "Incident-Io": _same("incidents alerts escalations users incident_updates schedules", _token("after", "after")),
    "Orb": _same("customers subscriptions plans invoices", _token("next_cursor", "cursor")),
    "Snapchat-Marketing": _same(
        "organizations adaccounts campaigns adsquads ads creatives media segments", _token("next_link", "next_link")
    ),
    "Google-Drive": _same(
        "files drives permissions comments replies revisions changes", _token("nextPageToken", "pageToken")
    ),
}
