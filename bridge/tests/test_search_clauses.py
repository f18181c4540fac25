"""Requests of several steps: clause splitting, the round-robin merge, and that a request of one
step ranks exactly as it did before splitting existed."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from tabmcp.core.search import SearchDoc, SearchIndex
from tabmcp.core.search.clauses import interleave, split_clauses

from .test_search import SHOP, HashEmbedder, doc, keys


@pytest.mark.parametrize(
    ("request_", "clauses"),
    [
        ("find the login crash in Sentry and open a GitHub issue about it",
         ["find the login crash in Sentry", "open a GitHub issue about it"]),
        ("open the pricing page, take a screenshot and then save it as a PDF",
         ["open the pricing page", "take a screenshot", "save it as a PDF"]),
        ("Sum the multiples of 3 and 5 below 1000. Also find the product of the first five primes.",
         ["Sum the multiples of 3 and 5 below 1000", "find the product of the first five primes"]),
        ("who am I logged in as on GitHub, and which teams am I on",
         ["who am I logged in as on GitHub", "which teams am I on"]),
        ("block the analytics requests, and then reload the page",
         ["block the analytics requests", "reload the page"]),
    ],
)
def test_a_request_of_several_actions_is_cut_where_each_action_starts(
    request_: str, clauses: list[str]
) -> None:
    assert split_clauses(request_) == clauses


@pytest.mark.parametrize(
    "request_",
    [
        "search and replace text in a file",  # one word before "and": no action of its own
        "read and write files",
        "find reports on the oil and gas sector",  # "gas sector" starts with no verb
        "My son has asthma. I want to know the air quality tomorrow",  # context, then the ask
        "show me the logs, please",
        "refund the order",
    ],
)
def test_a_request_of_one_action_stays_whole(request_: str) -> None:
    assert split_clauses(request_) == [request_]


def test_interleave_gives_every_ranking_its_best_before_any_second() -> None:
    rankings = [["a1", "a2", "a3"], ["b1", "a1", "b2"], ["c1"]]
    assert interleave(rankings, 10) == ["a1", "b1", "c1", "a2", "a3", "b2"]
    assert interleave(rankings, 4) == ["a1", "b1", "c1", "a2"]


ORDERS = [
    *SHOP,
    doc("refund_status", "Check the status of a refund for an order.", category="orders"),
    doc("refund_history", "List every refund of an order.", category="orders"),
    doc("order_refund_reason", "Record why an order was refunded.", category="orders"),
]


def _index(semantic: bool) -> SearchIndex:
    index = SearchIndex(semantic=HashEmbedder() if semantic else False)
    index.replace_source("1", ORDERS)
    return index


@pytest.mark.parametrize("semantic", [False, True], ids=["keyword", "fused"])
def test_a_multi_step_request_returns_tools_for_each_step(semantic: bool) -> None:
    index = _index(semantic)
    request = "refund the order and the refund reason of the order, then make a new account for her"
    whole = keys(index.search(request, limit=3, split=False))
    assert "create_user" not in whole  # one ranking of the whole request loses the second step
    top = keys(index.search(request, limit=3))
    assert top[0] == whole[0]  # the request's own best tool stays first
    assert "create_user" in top and {"refund_order", "order_refund_reason"} & set(top)


SINGLE_STEP: Sequence[str] = (
    "give the customer their money back",
    "search and replace text in a file",
    "track my parcel and package",
    "put the product and the gift card in the cart",
    "I bought the wrong size. Where is my package right now",
)


@pytest.mark.parametrize("semantic", [False, True], ids=["keyword", "fused"])
def test_a_single_step_request_ranks_as_before(semantic: bool) -> None:
    index = _index(semantic)
    for request in SINGLE_STEP:
        hits = index.search(request, limit=5)
        before = index.search(request, limit=5, split=False)
        assert hits == before, request


def test_a_multi_step_request_respects_filters_and_allow() -> None:
    index = _index(False)
    extra = SearchDoc(key="other_refund", name="other_refund", title=None, description="Refund an order.",
                      category=None, source="https://other.test")
    index.replace_source("2", [extra])
    request = "refund the order the customer sent back, then create a new user account for her"
    hits = keys(index.search(request, limit=10, source="shop.test", allow=lambda k: k != "refund_status"))
    assert "other_refund" not in hits and "refund_status" not in hits and "create_user" in hits


def test_a_call_after_a_multi_step_search_is_learned() -> None:
    """The request's vector (its clauses' sum) is kept for learning from use, as a one-step
    request's is: a call of a tool it showed is learned."""
    index = _index(True)
    request = "refund the order and the refund reason of the order, then make a new account for her"
    shown = keys(index.search(request, limit=5))
    assert "create_user" in shown
    index.note_search("client", request, shown)
    assert index.note_call("client", "create_user") and index.learned_uses == 1


def test_a_query_spelling_a_requests_clauses_does_not_share_their_cache_entry() -> None:
    """A request's clause vectors are cached together; a one-step query whose text is those
    clauses joined by the cache's separator must not land on the same entry (one client's odd
    query would break another's request)."""
    index = _index(True)
    request = "refund the order and the refund reason of the order, then make a new account for her"
    clauses = split_clauses(request)
    assert len(clauses) > 1
    index.search("\x1f".join(clauses))  # one step: its words, its own vector
    assert "create_user" in keys(index.search(request, limit=3))
