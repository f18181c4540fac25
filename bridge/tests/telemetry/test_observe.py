"""observe: every mode, every filter, scopes, empty answers, drop counts, argument errors."""

from __future__ import annotations

from typing import Any

import pytest
from tabmcp.core.telemetry import InvalidTelemetryArguments, TelemetryState, observe
from tabmcp.errors import ToolValidationError

from .factory import ORIGIN, T0, action, batch, console, error, make_store, nav, request, vitals, ws


@pytest.fixture
def store() -> TelemetryState:
    s = make_store()
    s.ingest(batch([nav(0, "OLD"), console(1, "from the old load"), request(2, "/api/old")]))
    s.ingest(
        batch(
            [
                nav(100, "L1", f"{ORIGIN}/shop"),
                console(101, "app started", level="info", source=f"{ORIGIN}/app.js"),
                console(102, "deprecated API", level="warn", source="https://cdn.test/lib.js"),
                console(103, "debug detail", level="debug"),
                error(
                    104,
                    "TypeError: cart is undefined",
                    stack="TypeError\n  at add (app.js:10)",
                    source=f"{ORIGIN}/app.js",
                ),
                request(110, "/api/items?page=1", response_body=[{"id": 1}]),
                request(120, "/api/items/1", status=404, response_body={"error": "nope"}),
                request(
                    130,
                    "/api/orders",
                    method="POST",
                    status=201,
                    request_body={"sku": "a"},
                    response_body={"id": 9},
                ),
                request(140, "/api/orders", method="POST", status=500, response_body={"error": "db"}),
                request(150, "/api/stream", status=0, failure="net::ERR_CONNECTION_RESET", mime=None),
                ws(160, "c1", "open"),
                ws(161, "c1", "message", direction="out", data='{"sub":"prices"}'),
                ws(162, "c1", "message", direction="in", data='{"price":10}', sampled=5),
                ws(163, "c2", "open", url="wss://chat.test/ws"),
                ws(164, "c2", "message", direction="in", data="hello"),
                ws(165, "c2", "close", code=1000),
                action(170, "click", f"{ORIGIN}/shop", role="button", name="Add to cart"),
                action(171, "input", f"{ORIGIN}/shop", label="Quantity", value="2"),
                vitals(180, "L1", LCP=1800.0, FCP=900.0),
                vitals(190, "L1", CLS=0.02, navigation={"domContentLoaded": 400.0, "load": 700.0}),
            ],
            url=f"{ORIGIN}/shop",
        )
    )
    s.ingest(batch([nav(0, "OTHER"), console(1, "other tab"), request(2, "/api/other")], tab=2))
    s.focus(1)
    return s


def items(store: TelemetryState, **args: Any) -> list[dict[str, Any]]:
    answer = observe(store, args)
    assert not answer.data.get("notes") or "ignored" in " ".join(answer.data["notes"])
    return answer.data["items"]


def test_defaults_to_current_tab_and_page_load(store: TelemetryState) -> None:
    texts = [i["args"][0] for i in items(store, what="logs")]
    assert texts == ["app started", "deprecated API", "debug detail"]
    assert len(items(store, what="logs", scope="tab")) == 4
    assert len(items(store, what="logs", scope="all")) == 5
    assert [i["args"][0] for i in items(store, what="logs", tab_id=2)] == ["other tab"]


def test_limit_returns_the_most_recent_oldest_first(store: TelemetryState) -> None:
    answer = observe(store, {"what": "network", "limit": 2})
    assert [i["status"] for i in answer.data["items"]] == [500, 0]
    assert answer.data["matched"] == 5 and "showing the last 2" in answer.text


def test_url_filter(store: TelemetryState) -> None:
    assert [i["url"] for i in items(store, what="network", url="ITEMS/1")] == [f"{ORIGIN}/api/items/1"]
    assert [i["args"][0] for i in items(store, what="logs", url="cdn.test")] == ["deprecated API"]
    assert [i["url"] for i in items(store, what="websocket_status", url="chat")] == ["wss://chat.test/ws"]


def test_method_and_status_range(store: TelemetryState) -> None:
    assert [i["status"] for i in items(store, what="network", method="post")] == [201, 500]
    assert [i["status"] for i in items(store, what="network", status_min=400)] == [404, 500]
    assert [i["status"] for i in items(store, what="network", status_min=200, status_max=299)] == [200, 201]
    assert [i["failure"] for i in items(store, what="network", status_max=0)] == ["net::ERR_CONNECTION_RESET"]


def test_websocket_filters(store: TelemetryState) -> None:
    assert [i["event"] for i in items(store, what="websocket_events", connection_id="c2")] == [
        "open",
        "message",
        "close",
    ]
    assert [i["data"] for i in items(store, what="websocket_events", direction="in")] == [
        '{"price":10}',
        "hello",
    ]
    status = {i["connectionId"]: i for i in items(store, what="websocket_status")}
    assert status["c1"]["state"] == "open" and status["c1"]["messagesOut"] == 1
    assert status["c1"]["messagesIn"] == 5 and status["c1"]["estimated"] is True  # sampled 1 in 5
    assert status["c2"]["state"] == "closed" and status["c2"]["code"] == 1000
    assert [i["connectionId"] for i in items(store, what="websocket_status", connection_id="c2")] == ["c2"]


def test_level_and_contains(store: TelemetryState) -> None:
    assert [i["level"] for i in items(store, what="logs", level="warn")] == ["warn"]
    assert [i["message"] for i in items(store, what="errors", contains="CART")] == [
        "TypeError: cart is undefined"
    ]
    assert len(items(store, what="network", contains='"sku"')) == 1  # searches bodies
    assert [i["action"] for i in items(store, what="actions", contains="add to cart")] == ["click"]


def test_since_epoch_and_checkpoint(store: TelemetryState) -> None:
    assert [i["status"] for i in items(store, what="network", since=T0 + 255)] == [500, 0]  # ts = completion
    store.set_checkpoint("cp")
    store.ingest(batch([request(300, "/api/late")], url=f"{ORIGIN}/shop"))
    assert [i["url"] for i in items(store, what="network", since="cp")] == [f"{ORIGIN}/api/late"]
    assert items(store, what="websocket_status", since="cp") == []
    with pytest.raises(InvalidTelemetryArguments) as info:
        observe(store, {"what": "network", "since": "nope"})
    assert info.value.details["known"] == ["cp"]


def test_bodies_only_on_request(store: TelemetryState) -> None:
    post = items(store, what="network", method="POST", status_max=299)[0]
    assert "requestBody" not in post and post["requestBodySize"] == len('{"sku": "a"}')
    post = items(store, what="network", method="POST", status_max=299, include_bodies=True)[0]
    assert post["requestBody"] == '{"sku": "a"}' and post["responseBody"] == '{"id": 9}'
    text = observe(store, {"what": "network", "method": "POST", "include_bodies": True}).text
    assert 'request: {"sku": "a"}' in text


def test_errors_actions_vitals_and_page(store: TelemetryState) -> None:
    answer = observe(store, {"what": "errors"})
    assert "TypeError: cart is undefined" in answer.text and "at add (app.js:10)" in answer.text
    acts = items(store, what="actions")
    assert [(a["action"], a["selectors"].get("label")) for a in acts] == [
        ("click", None),
        ("input", "Quantity"),
    ]
    rows = items(store, what="vitals")
    assert rows == [
        {
            "tabId": 1,
            "loadId": "L1",
            "url": f"{ORIGIN}/shop",
            "ts": T0 + 190,
            "metrics": {"LCP": 1800.0, "FCP": 900.0, "CLS": 0.02},
            "navigation": {"domContentLoaded": 400.0, "load": 700.0},
        }
    ]
    page = observe(store, {"what": "page"})
    assert page.data["url"] == f"{ORIGIN}/shop" and page.data["loadId"] == "L1" and page.data["live"] is True
    assert page.data["counts"]["network"] == 6


def test_inapplicable_filters_are_reported_not_fatal(store: TelemetryState) -> None:
    answer = observe(store, {"what": "logs", "method": "GET", "status_min": 400})
    assert answer.data["items"] and answer.data["notes"] == [
        "filter method does not apply to logs and was ignored",
        "filter status_min does not apply to logs and was ignored",
    ]


def test_empty_answers_say_what_to_try(store: TelemetryState) -> None:
    store.ingest(batch([nav(400, "L9")], url=f"{ORIGIN}/"))
    answer = observe(store, {"what": "network"})
    assert answer.empty and "earlier page loads" in answer.text and "scope='tab'" in answer.text
    answer = observe(store, {"what": "network", "url": "nothing-like-this", "scope": "tab"})
    assert "match the filters (6 before filtering)" in answer.text
    assert observe(make_store(), {"what": "errors"}).text.startswith(
        "No errors yet: no tab has sent telemetry"
    )


def test_drop_counts_are_returned(store: TelemetryState) -> None:
    store.ingest(batch([], dropped={"console": 12}, url=f"{ORIGIN}/shop"))
    answer = observe(store, {"what": "logs"})
    assert answer.data["dropped"] == {"page": 12} and "Dropped so far: 12 page" in answer.text


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"what": "everything"}, "what"),
        ({"what": "logs", "limit": 0}, "limit"),
        ({"what": "network", "status_min": 500, "status_max": 400}, "(arguments)"),
        ({"what": "logs", "bogus": 1}, "bogus"),
        ({}, "what"),
    ],
)
def test_bad_arguments_are_validation_errors(store: TelemetryState, args: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidTelemetryArguments) as info:
        observe(store, args)
    assert isinstance(info.value, ToolValidationError) and info.value.code == "VALIDATION_ERROR"
    assert info.value.details["field"] == field


def test_answer_is_a_call_result(store: TelemetryState) -> None:
    result = observe(store, {"what": "errors"}).to_call_result()
    assert result["content"][0]["type"] == "text" and result["structuredContent"]["what"] == "errors"
    assert "isError" not in result
