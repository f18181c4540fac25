from __future__ import annotations

import pytest
from tabmcp_mediator.naming import is_valid_name, normalize_source, sanitize_name, split_words, unique_names


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("gt_usr", ["gt", "usr"]),
        ("getUsrByID", ["get", "usr", "by", "id"]),
        ("list-orders.v2", ["list", "orders", "v", "2"]),
        ("HTTPServerStatus", ["http", "server", "status"]),
        ("___", []),
    ],
)
def test_split_words(name: str, words: list[str]) -> None:
    assert split_words(name) == words


def test_sanitize_makes_any_name_legal() -> None:
    assert sanitize_name("get_user") == "get_user"
    assert sanitize_name("get user!") == "get_user"
    assert sanitize_name("!!!") == "tool"
    long = sanitize_name("a b" * 100)
    assert is_valid_name(long) and len(long) == 128


def test_unique_names_gives_an_unchanged_name_priority_then_suffixes_in_order() -> None:
    # 'del' was expanded to 'delete', but the page also has a real 'delete': the real one keeps it.
    assert unique_names(["delete", "delete", "delete"], ["del", "delete", "rm"]) == [
        "delete_2",
        "delete",
        "delete_3",
    ]
    assert unique_names(["a b", "a_b"], ["x", "a_b"]) == ["a_b_2", "a_b"]
    assert unique_names(["a b", "a_b"], ["x", "y"]) == ["a_b", "a_b_2"]


def test_unique_names_is_deterministic_and_legal_at_the_length_limit() -> None:
    name = "n" * 128
    first = unique_names([name, name], ["p", "q"])
    assert first == unique_names([name, name], ["p", "q"])
    assert first[0] == name and first[1].endswith("_2") and len(first[1]) == 128
    assert all(is_valid_name(n) for n in first)


@pytest.mark.parametrize(
    "source", ["example.com", "www.Example.com", "https://www.example.com/app?x=1", "EXAMPLE.COM."]
)
def test_normalize_source(source: str) -> None:
    assert normalize_source(source) == "example.com"
