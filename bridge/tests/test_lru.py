"""The bounded memos (core/lru.py): :class:`IdentityMemo` finds what it built by the object asked
about, never by equal content, and holds at most its bound."""

from __future__ import annotations

from typing import Any

from tabmcp.core.lru import IdentityMemo


def test_an_identity_memo_builds_once_per_object_and_anew_for_an_equal_copy():
    memo: IdentityMemo[dict[str, Any], list[str]] = IdentityMemo(lambda schema: sorted(schema), max_entries=8)
    schema = {"type": "object", "properties": {}}
    first = memo.get(schema)
    assert all(memo.get(schema) is first for _ in range(10)) and memo.builds == 1
    copy = dict(schema)  # equal content, another object: what a changed definition would be
    assert memo.get(copy) == first and memo.get(copy) is not first and memo.builds == 2


def test_an_identity_memo_keeps_at_most_its_bound_and_the_objects_it_keys():
    memo: IdentityMemo[dict[str, int], int] = IdentityMemo(lambda d: d["n"], max_entries=4)
    for n in range(100):
        assert memo.get({"n": n}) == n  # each object dropped by the caller at once: the memo holds it
    assert len(memo._memo) == 4 and memo.builds == 100
    kept = [obj for obj, _ in memo._memo._data.values()]
    assert [d["n"] for d in kept] == [96, 97, 98, 99]  # its ids cannot be reused while it is kept
