"""analyze: API schemas, changes since a checkpoint, timeline order, performance, accessibility."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tabmcp.core.telemetry import InvalidTelemetryArguments, analyze
from tabmcp.core.telemetry.api_schemas import template_path
from tabmcp.core.telemetry.vitals import rate

from .factory import ORIGIN, T0, action, batch, console, error, longtask, make_store, nav, request, vitals, ws

AXE = Path(__file__).parent / "fixtures" / "axe_result.json"


def axe_result() -> dict[str, Any]:
    return json.loads(AXE.read_text(encoding="utf-8"))


# -- api ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "template"),
    [
        ("/api/users/42", "/api/users/{id}"),
        ("/api/users/42/orders/7", "/api/users/{id}/orders/{id}"),
        ("/api/v2/items", "/api/v2/items"),
        ("/files/3f2a9c1e-8b7d-4c6a-9e5f-0123456789ab", "/files/{uuid}"),
        ("/objects/507f1f77bcf86cd799439011", "/objects/{id}"),
        ("/blobs/01ARZ3NDEKTSV4RRFFQ69G5FAV", "/blobs/{id}"),
        ("/users/alice", "/users/alice"),
        ("/", "/"),
    ],
)
def test_template_path(path: str, template: str) -> None:
    assert template_path(path) == template


def test_api_groups_by_method_and_template_and_merges_schemas() -> None:
    store = make_store()
    store.ingest(
        batch(
            [
                request(0, "/api/users/42", response_body={"id": 42, "name": "Ada", "email": "a@x.test"}),
                request(
                    1, "/api/users/7?expand=roles", response_body={"id": 7, "name": "Bob", "roles": ["admin"]}
                ),
                request(2, "/api/users/9", status=404, response_body={"error": "not found"}),
                request(
                    3,
                    "/api/users",
                    method="POST",
                    status=201,
                    request_body={"name": "Cy", "age": 3},
                    response_body={"id": 10},
                ),
                request(
                    4,
                    "/api/users",
                    method="POST",
                    status=201,
                    request_body={"name": "Di", "age": "4"},
                    response_body={"id": 11},
                ),
                request(5, "/static/app.css", mime="text/css", response_body="body{}"),
            ]
        )
    )
    answer = analyze(store, {"target": "api"})
    eps = {f"{e['method']} {e['path']}": e for e in answer.data["endpoints"]}
    assert set(eps) == {"GET /api/users/{id}", "POST /api/users"}
    get = eps["GET /api/users/{id}"]
    assert get["samples"] == 3 and get["statuses"] == {"200": 2, "404": 1}
    assert get["queryParams"] == ["expand"]
    ok = get["responseSchemas"]["200"]
    assert ok["required"] == ["id", "name"]  # email and roles were not in every sample
    assert ok["properties"]["roles"] == {"type": "array", "items": {"type": "string"}}
    assert get["responseSchemas"]["404"]["properties"] == {"error": {"type": "string"}}
    post = eps["POST /api/users"]
    assert post["requestSchema"]["properties"]["age"] == {"type": ["integer", "string"]}
    assert "GET https://shop.test/api/users/{id} (3 samples" in answer.text
    assert "response 200: {id: integer, name: string, email?: string, roles?: [string]}" in answer.text
    assert analyze(store, {"target": "api", "url": "nothing"}).empty
    assert store.counts().api_endpoints == 2


def test_api_knowledge_survives_buffer_eviction() -> None:
    store = make_store(buffers={"network": 2})
    store.ingest(batch([request(i, f"/api/things/{i}", response_body={"n": i}) for i in range(10)]))
    assert store.counts().network == 2
    assert analyze(store, {"target": "api"}).data["endpoints"][0]["samples"] == 10


# -- changes ------------------------------------------------------------------------------


def test_changes_since_checkpoint_then_the_checkpoint_moves() -> None:
    store = make_store()
    store.ingest(batch([nav(0, "L1"), console(1, "boot"), request(2, "/api/a", response_body={"a": 1})]))
    first = analyze(store, {"target": "changes"})
    assert first.data["since"]["known"] is False and first.data["requests"]["count"] == 1
    store.ingest(
        batch(
            [
                error(10, "TypeError: x is undefined"),
                error(11, "TypeError: x is undefined"),
                console(12, "careful", level="warn"),
                request(13, "/api/orders/5", method="DELETE", status=500, response_body={"e": 1}),
                request(14, "/api/b", response_body={"b": 1}),
                ws(15, "c9", "open"),
                action(16, "click", text="Delete"),
            ]
        )
    )
    second = analyze(store, {"target": "changes"})
    d = second.data
    assert d["since"]["known"] is True
    assert d["errors"] == {
        "count": 2,
        "groups": [{"message": "uncaught: TypeError: x is undefined", "count": 2}],
    }
    assert d["console"] == {"warn": 1}
    assert d["requests"]["count"] == 2
    assert d["requests"]["failed"] == [
        {"request": "DELETE https://shop.test/api/orders/{id} → 500", "count": 1}
    ]
    assert sorted(d["newEndpoints"]) == [
        "DELETE https://shop.test/api/orders/{id}",
        "GET https://shop.test/api/b",
    ]
    assert [c["connectionId"] for c in d["newWebSockets"]] == ["c9"]
    assert d["actions"] == 1
    assert "2x uncaught: TypeError: x is undefined" in second.text
    third = analyze(store, {"target": "changes"})
    assert third.empty and third.text.startswith("Nothing new since checkpoint 'default'")


def test_named_checkpoints_can_stay_put() -> None:
    store = make_store()
    store.set_checkpoint("release")
    store.ingest(batch([error(0, "boom")]))
    for _ in range(2):
        answer = analyze(store, {"target": "changes", "checkpoint": "release", "advance": False})
        assert answer.data["errors"]["count"] == 1


# -- timeline -----------------------------------------------------------------------------


def test_timeline_merges_kinds_in_time_order() -> None:
    store = make_store()
    # Arrival order differs from time order: the request started before the error was seen.
    store.ingest(
        batch(
            [
                nav(0, "L1"),
                action(100, "click", role="button", name="Save"),
                error(400, "Error: save failed"),
                request(150, "/api/save", method="POST", status=500, duration=200),
                console(450, "noise"),
            ]
        )
    )
    answer = analyze(store, {"target": "timeline"})
    kinds = [(i["type"], i["summary"].split(" ")[0]) for i in answer.data["items"]]
    assert kinds == [("navigation", "load"), ("action", "click"), ("request", "POST"), ("error", "uncaught:")]
    assert [i["offsetMs"] for i in answer.data["items"]] == [0.0, 100.0, 150.0, 400.0]
    with_logs = analyze(store, {"target": "timeline", "include": ["logs", "errors"]})
    assert [i["type"] for i in with_logs.data["items"]] == ["error", "console"]
    since = analyze(store, {"target": "timeline", "since": T0 + 120})
    assert [i["type"] for i in since.data["items"]] == ["request", "error"]


# -- performance --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metric", "value", "rating"),
    [
        ("LCP", 2500, "good"),
        ("LCP", 2501, "needs-improvement"),
        ("LCP", 4001, "poor"),
        ("INP", 200, "good"),
        ("INP", 350, "needs-improvement"),
        ("INP", 501, "poor"),
        ("CLS", 0.1, "good"),
        ("CLS", 0.2, "needs-improvement"),
        ("CLS", 0.26, "poor"),
        ("FCP", 1800, "good"),
        ("FCP", 3001, "poor"),
        ("TTFB", 801, "needs-improvement"),
        ("TTFB", 1801, "poor"),
    ],
)
def test_core_web_vitals_thresholds(metric: str, value: float, rating: str) -> None:
    assert rate(metric, value) == rating


def test_performance_report() -> None:
    store = make_store()
    store.ingest(
        batch(
            [
                nav(0, "L1"),
                vitals(10, "L1", LCP=3100.0, FCP=1200.0, TTFB=300.0),
                longtask(20, 120.0),
                longtask(30, 60.0),
                request(40, "/api/slow", duration=2400.0),
                vitals(50, "L1", CLS=0.05, navigation={"domContentLoaded": 900.0, "load": 1500.0}),
            ]
        )
    )
    answer = analyze(store, {"target": "performance"})
    (load,) = answer.data["loads"]
    assert load["metrics"]["LCP"]["rating"] == "needs-improvement"
    assert load["metrics"]["CLS"]["rating"] == "good"
    assert load["coreWebVitals"] == "fail" and load["notMeasured"] == ["INP"]
    assert load["longTasks"] == {"count": 2, "totalMs": 180.0, "longestMs": 120.0, "blockingMs": 80.0}
    assert load["slowestRequests"][0]["url"] == f"{ORIGIN}/api/slow"
    assert "LCP 3100 ms — needs-improvement (good ≤ 2500 ms, poor > 4000 ms)" in answer.text
    store.ingest(batch([vitals(60, "L1", LCP=2000.0, INP=150.0)]))
    (load,) = analyze(store, {"target": "performance"}).data["loads"]
    assert load["coreWebVitals"] == "pass"
    assert analyze(make_store(), {"target": "performance"}).empty


# -- accessibility ------------------------------------------------------------------------


def test_accessibility_summary_of_a_real_axe_result() -> None:
    store = make_store()
    store.ingest(batch([nav(0, "L1")]))
    result = axe_result()
    answer = analyze(store, {"target": "accessibility"}, axe_results=result)
    d = answer.data
    assert d["engine"].startswith("axe-core 4.")
    assert d["url"] == "http://fixture.test/checkout"
    ids = [v["id"] for v in d["violations"]]
    assert {"image-alt", "label", "button-name", "color-contrast", "link-name", "heading-order"} <= set(ids)
    impacts = [v["impact"] for v in d["violations"]]
    assert impacts == sorted(impacts, key=["critical", "serious", "moderate", "minor"].index)  # worst first
    assert d["totals"]["violations"] == len(result["violations"])
    assert d["totals"]["passes"] == len(result["passes"])
    assert d["totals"]["byImpact"]["critical"] >= 3
    image = next(v for v in d["violations"] if v["id"] == "image-alt")
    assert image["targets"] == ["img"] and "wcag111" in image["wcag"]
    assert "image-alt" in answer.text and "how to fix: https://dequeuniversity.com" in answer.text
    # Cached for the tab: later calls (and generate sarif) work without a fresh audit.
    assert analyze(store, {"target": "accessibility"}).data["totals"] == d["totals"]


def test_accessibility_without_an_audit_or_with_garbage() -> None:
    store = make_store()
    store.ingest(batch([nav(0)]))
    assert analyze(store, {"target": "accessibility"}).empty
    with pytest.raises(InvalidTelemetryArguments):
        analyze(store, {"target": "accessibility"}, axe_results={"not": "axe"})


def test_every_timeline_kind_advertised_is_accepted() -> None:
    """``include`` takes exactly the kinds the schema lists (both read capture/kinds.py): a new
    timeline kind is never advertised and then refused."""
    from tabmcp.core.telemetry.analyze import ANALYZE_SPEC
    from tabmcp.core.telemetry.timeline import TIMELINE_KINDS

    store = make_store()
    assert ANALYZE_SPEC.properties["include"]["items"]["enum"] == list(TIMELINE_KINDS)
    for kind in TIMELINE_KINDS:
        assert analyze(store, {"target": "timeline", "include": [kind]}).data is not None
    with pytest.raises(InvalidTelemetryArguments):
        analyze(store, {"target": "timeline", "include": ["not_a_kind"]})
