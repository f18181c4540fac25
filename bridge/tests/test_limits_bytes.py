"""What one page may send (extension/limits.js) is counted in the unit its limits say: bytes of
UTF-8, as the link carries them, never UTF-16 units (a JS string's length), and never by encoding a
text to count it. Run in node on the extension's own script (limits_bytes.mjs). Node is installed by
``./dev setup``: under ``CI=true`` a missing node fails these tests instead of skipping them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .helpers import node_scenario

HERE = Path(__file__).resolve().parent


def scenario(name: str) -> Any:
    return node_scenario(HERE / "limits_bytes.mjs", name, "the extension's limits")


def test_a_texts_bytes_are_counted_as_utf8_for_every_kind_of_unit() -> None:
    # 1 to 4 bytes a character, surrogate pairs (4 bytes for 2 units) and lone surrogates (3, as
    # U+FFFD), and 3,000 random texts of such units: each as node's own encoder counts it.
    out = scenario("counts")
    assert out["checked"] == 3000
    assert out["wrong"] == [], out["wrong"][:5]


def test_a_message_under_its_limit_in_units_but_over_it_in_bytes_is_over() -> None:
    out = scenario("over")
    assert out["units"] < out["limit"] < out["bytes"]
    assert out["over"] == out["bytes"]


def test_a_document_in_three_byte_characters_is_cut_where_the_same_bytes_in_ascii_are() -> None:
    # 20 definitions of 240,000 bytes: 4.8 MB, over the 4 MiB of one document. In CJK or U+FDFA
    # they are 1.6 Mi UTF-16 units, which passed as "under"; now the same 3 are refused as in ASCII.
    out = scenario("document")
    limit = out["limit"]
    assert out["cjk"]["units"] < limit < out["ascii"]["units"]
    refused = [["tool", f"over_{i}", limit] for i in (17, 18, 19)]
    for kind in ("ascii", "cjk", "fdfa"):
        assert out[kind]["refused"] == refused, (kind, out[kind])
        assert out[kind]["kept"] == 17 and out[kind]["keptBytes"] <= limit, (kind, out[kind])
        assert out[kind]["encoded"] == 0, (kind, out[kind])  # counted, never encoded to be counted
        assert out[kind]["listBytes"] == out[kind]["textBytes"] == out[kind]["keptBytes"], (kind, out[kind])
    assert out["small"] == {"kept": 2, "bytes": {"tools": -1, "categories": -1}}  # proved by the bound, not counted


def test_a_document_of_exactly_its_limit_in_mixed_characters_is_kept_whole_and_one_byte_more_is_not() -> None:
    out = scenario("edge")
    assert out["exact"]["bytes"] == out["limit"] and out["exact"]["refused"] == [] and out["exact"]["kept"] == 18
    assert out["oneMore"]["bytes"] == out["limit"] + 1 and out["oneMore"]["refused"] == ["edge_last"]
    assert out["exact"]["encoded"] == out["oneMore"]["encoded"] == 0
