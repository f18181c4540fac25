"""tools/list exposure: the seed spec's eight scenarios, on both protocol generations.

Legacy connections (protocol before 2026-07-28, ``dynamic=True``) get progressive
disclosure; modern ones never see tools/list change because of their own requests, but
data-driven filtering applies to both.
"""

from __future__ import annotations

from typing import Any

import pytest
from tabmcp.core.telemetry import (
    CONFIGURE_MODES,
    OBSERVE_MODES,
    DataCounts,
    ExposureState,
    InvalidTelemetryArguments,
    TelemetryState,
    build_tool_definitions,
    configure,
    observe,
)
from tabmcp.core.telemetry.availability import signature

from .factory import action, batch, console, error, make_store, nav, request, vitals


def listing(store: TelemetryState, state: ExposureState) -> dict[str, dict[str, Any]]:
    tools = build_tool_definitions(
        store.counts(),
        dynamic=state.dynamic,
        observed=state.observed,
        exposure_enabled=store.settings.dynamic_exposure,
    )
    return {t["name"]: t for t in tools}


def modes(tool: dict[str, Any]) -> list[str]:
    param = {"observe": "what", "analyze": "target", "generate": "format", "configure": "action"}[
        tool["name"]
    ]
    return list(tool["inputSchema"]["properties"][param]["enum"])


def do_observe(store: TelemetryState, state: ExposureState, what: str = "errors") -> bool:
    observe(store, {"what": what})
    return state.note_observe(exposure_enabled=store.settings.dynamic_exposure)


@pytest.fixture
def store() -> TelemetryState:
    return make_store()


@pytest.fixture
def legacy() -> ExposureState:
    return ExposureState(dynamic=True)


@pytest.fixture
def modern() -> ExposureState:
    return ExposureState(dynamic=False)


# -- scenario 1 -------------------------------------------------------------------------


def test_1_fresh_server_lists_observe_and_query_dom_only(
    store: TelemetryState, legacy: ExposureState
) -> None:
    tools = listing(store, legacy)
    assert list(tools) == ["observe", "query_dom"]
    assert modes(tools["observe"]) == ["errors", "logs", "page"]
    assert "_meta" not in tools["query_dom"]


def test_1_modern_fresh_server_lists_every_tool_with_filtered_modes(
    store: TelemetryState, modern: ExposureState
) -> None:
    tools = listing(store, modern)
    assert list(tools) == ["observe", "analyze", "generate", "configure", "query_dom"]
    assert modes(tools["observe"]) == ["errors", "logs", "page"]
    assert modes(tools["analyze"]) == ["accessibility"]
    assert modes(tools["generate"]) == ["sarif"]
    assert modes(tools["configure"]) == list(CONFIGURE_MODES)


# -- scenario 2 -------------------------------------------------------------------------


def test_2_network_adds_observe_network_and_generate_har_after_first_observe(
    store: TelemetryState, legacy: ExposureState
) -> None:
    store.ingest(batch([request(0, "/api/items", response_body=[{"id": 1}])]))
    tools = listing(store, legacy)
    assert "network" in modes(tools["observe"])
    assert "generate" not in tools  # disclosure not lifted yet
    do_observe(store, legacy)
    tools = listing(store, legacy)
    assert "har" in modes(tools["generate"])
    assert "api" in modes(tools["analyze"])


def test_2_modern_sees_har_without_observing(store: TelemetryState, modern: ExposureState) -> None:
    store.ingest(batch([request(0)]))
    assert "har" in modes(listing(store, modern)["generate"])


# -- scenario 3 -------------------------------------------------------------------------


def test_3_first_observe_lifts_progressive_disclosure(store: TelemetryState, legacy: ExposureState) -> None:
    assert do_observe(store, legacy, "logs") is True  # tools/list changed for this client
    assert list(listing(store, legacy)) == ["observe", "analyze", "generate", "configure", "query_dom"]
    assert do_observe(store, legacy) is False  # only the first one changes anything


def test_3_observe_without_data_counts_as_an_observation(
    store: TelemetryState, legacy: ExposureState
) -> None:
    answer = observe(store, {"what": "network"})  # no data at all: a hint, not an error
    assert answer.empty and "No network requests" in answer.text
    assert legacy.note_observe(exposure_enabled=True) is True


def test_3_failed_observe_and_tools_list_do_not_count(store: TelemetryState, legacy: ExposureState) -> None:
    for _ in range(3):
        listing(store, legacy)
    with pytest.raises(InvalidTelemetryArguments):
        observe(store, {"what": "everything"})
    assert not legacy.observed
    assert list(listing(store, legacy)) == ["observe", "query_dom"]


def test_3_modern_tools_list_never_changes_because_of_observe(
    store: TelemetryState, modern: ExposureState
) -> None:
    before = listing(store, modern)
    assert do_observe(store, modern) is False
    assert listing(store, modern) == before


# -- scenario 4 -------------------------------------------------------------------------


def test_4_actions_add_observe_actions_timeline_reproduction_and_test(
    store: TelemetryState, legacy: ExposureState
) -> None:
    do_observe(store, legacy)
    before = listing(store, legacy)
    assert "actions" not in modes(before["observe"])
    assert "timeline" not in modes(before["analyze"])
    store.ingest(batch([action(0, "click", role="button", name="Buy")]))
    tools = listing(store, legacy)
    assert "actions" in modes(tools["observe"])
    assert "timeline" in modes(tools["analyze"])
    assert {"reproduction", "test"} <= set(modes(tools["generate"]))


# -- scenario 5 -------------------------------------------------------------------------


def test_5_vitals_add_observe_vitals_and_analyze_performance(
    store: TelemetryState, legacy: ExposureState
) -> None:
    do_observe(store, legacy)
    store.ingest(batch([nav(0), vitals(500, LCP=1200.0, CLS=0.01)]))
    tools = listing(store, legacy)
    assert "vitals" in modes(tools["observe"])
    assert "performance" in modes(tools["analyze"])


# -- scenario 6 -------------------------------------------------------------------------


def test_6_configure_always_lists_every_action_once_lifted(
    store: TelemetryState, legacy: ExposureState
) -> None:
    assert "configure" not in listing(store, legacy)
    do_observe(store, legacy)
    assert modes(listing(store, legacy)["configure"]) == list(CONFIGURE_MODES)
    store.ingest(batch([request(0), action(1, "click", text="Go")]))
    tools = listing(store, legacy)
    assert modes(tools["configure"]) == list(CONFIGURE_MODES)
    assert "_meta" not in tools["configure"]


# -- scenario 7 -------------------------------------------------------------------------


def test_7_meta_data_counts_track_buffer_sizes(store: TelemetryState, modern: ExposureState) -> None:
    store.ingest(
        batch(
            [
                nav(0),
                console(1, "hello"),
                console(2, "world", level="warn"),
                error(3, "TypeError: x is undefined"),
                request(4, "/api/a", response_body={"a": 1}),
                request(5, "/api/b", response_body={"b": 1}),
                action(6, "click", text="Go"),
            ]
        )
    )
    tools = listing(store, modern)
    observe_meta = tools["observe"]["_meta"]
    assert observe_meta["data_counts"] == {"errors": 1, "logs": 2, "network": 2, "actions": 1}
    assert observe_meta["available_modes"] == ["errors", "logs", "network", "actions", "page"]
    assert tools["analyze"]["_meta"]["data_counts"] == {"api": 2, "changes": 7, "timeline": 1}
    assert tools["generate"]["_meta"]["data_counts"] == {
        "reproduction": 1,
        "test": 1,
        "pr_summary": 7,
        "har": 2,
    }
    store.ingest(batch([console(7, "more")]))
    assert listing(store, modern)["observe"]["_meta"]["data_counts"]["logs"] == 3


# -- scenario 8 -------------------------------------------------------------------------


def test_8_enum_has_network_but_not_actions(store: TelemetryState, modern: ExposureState) -> None:
    store.ingest(batch([request(0)]))
    what = modes(listing(store, modern)["observe"])
    assert "network" in what
    assert "actions" not in what
    assert "websocket_events" not in what and "vitals" not in what


# -- the exposure switch and the change signal ------------------------------------------


def test_exposure_off_lists_everything_always_and_keeps_counts(
    store: TelemetryState, legacy: ExposureState
) -> None:
    configure(store, {"action": "exposure", "enabled": False})
    tools = listing(store, legacy)  # no progressive disclosure either
    assert list(tools) == ["observe", "analyze", "generate", "configure", "query_dom"]
    assert modes(tools["observe"]) == list(OBSERVE_MODES) and len(modes(tools["generate"])) == 5
    assert tools["observe"]["_meta"]["data_counts"]["network"] == 0
    assert tools["observe"]["_meta"]["available_modes"] == ["errors", "logs", "page"]
    answer = observe(store, {"what": "websocket_status"})
    assert answer.empty and "No WebSocket connections" in answer.text
    assert legacy.note_observe(exposure_enabled=False) is False  # nothing to change


def test_listener_fires_when_availability_changes_not_when_counts_do(store: TelemetryState) -> None:
    calls: list[int] = []
    store.add_listener(lambda: calls.append(1))
    store.ingest(batch([console(0, "a")]))  # any data: analyze(changes), generate(pr_summary)
    assert calls == [1]
    report = store.ingest(batch([console(1, "b"), error(2, "boom")]))  # only counts moved
    assert calls == [1] and not report.availability_changed
    report = store.ingest(batch([request(3)]))
    assert calls == [1, 1] and report.availability_changed
    store.ingest(batch([request(4)]))
    assert len(calls) == 2
    configure(store, {"action": "exposure", "enabled": False})
    assert len(calls) == 3
    configure(store, {"action": "clear"})
    assert len(calls) == 3  # exposure is off: clearing changes nothing listed
    configure(store, {"action": "exposure", "enabled": True})
    assert len(calls) == 4


def test_signature_ignores_counts() -> None:
    a = signature(DataCounts(network=1, logs=5), exposure_enabled=True)
    b = signature(DataCounts(network=9, logs=500), exposure_enabled=True)
    assert a == b
    assert a != signature(DataCounts(), exposure_enabled=True)


def test_definitions_are_valid_mcp_tools(store: TelemetryState, modern: ExposureState) -> None:
    from jsonschema import Draft202012Validator

    store.ingest(batch([request(0), action(1, "click", text="x")]))
    for tool in listing(store, modern).values():
        assert set(tool) <= {"name", "title", "description", "inputSchema", "annotations", "_meta"}
        Draft202012Validator.check_schema(tool["inputSchema"])
        assert tool["inputSchema"]["type"] == "object"
        assert tool["description"]


def test_descriptions_only_describe_listed_modes(store: TelemetryState, modern: ExposureState) -> None:
    text = listing(store, modern)["observe"]["description"]
    assert "- errors:" in text and "- websocket_events:" not in text
    assert "Other modes appear" in text


def test_specs_argument_models_and_mode_tables_agree() -> None:
    from typing import get_args

    from tabmcp.core.telemetry import AnalyzeArgs, ConfigureArgs, GenerateArgs, ObserveArgs
    from tabmcp.core.telemetry.availability import TOOL_MODES
    from tabmcp.core.telemetry.definitions import SPECS

    models = {
        "observe": ObserveArgs,
        "analyze": AnalyzeArgs,
        "generate": GenerateArgs,
        "configure": ConfigureArgs,
    }
    for tool, model in models.items():
        spec = SPECS[tool]
        assert tuple(spec.mode_help) == TOOL_MODES[tool]
        annotation = model.model_fields[spec.mode_param].annotation
        assert tuple(get_args(annotation)) == TOOL_MODES[tool]
        assert set(spec.properties) | {spec.mode_param} == set(model.model_fields)


def test_input_schemas_are_derived_from_the_argument_models() -> None:
    """One definition: each tool's properties are its argument model's (names, types, bounds,
    defaults, descriptions), in the compact form a listing needs (no titles, no null branches,
    no references), so a field added to a model is listed and a listed field is accepted."""
    from tabmcp.core.telemetry.definitions import SPECS

    def keys(node: Any) -> set[str]:
        """Every keyword of a schema and its subschemas (property names are not keywords)."""
        if not isinstance(node, dict):
            return set()
        found = set(node)
        for key, value in node.items():
            if key == "properties":
                for sub in value.values():
                    found |= keys(sub)
            elif key in ("items", "additionalProperties"):
                found |= keys(value)
        return found

    for name, spec in SPECS.items():
        fields = {k: f for k, f in spec.args.model_fields.items() if k != spec.mode_param}
        assert list(spec.properties) == list(fields), name
        seen = set().union(*(keys(p) for p in spec.properties.values()))
        assert not seen & {"title", "anyOf", "$ref", "$defs"}, (name, seen)
        assert "null" not in str([p.get("type") for p in spec.properties.values()]), name
        for key, field in fields.items():
            assert spec.properties[key].get("description") == field.description, (name, key)
        assert set(spec.required) == {k for k, f in fields.items() if f.is_required()}, name
    assert SPECS["query_dom"].required == ("selector",)
    assert SPECS["observe"].properties["since"]["type"] == ["number", "string"]
    assert SPECS["configure"].properties["rule"]["required"] == ["match", "pattern"]
