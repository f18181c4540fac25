"""The SQLite cache and the caching wrapper, without any LLM."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

import pytest
from mediator_testkit import FakeClock
from tabmcp_mediator import (
    CachedTransformer,
    CacheError,
    EnhancedTool,
    EnhancementCache,
    RawTool,
    ToolContext,
)
from tabmcp_mediator.cache import hash_tools

CTX = ToolContext(source="example.com")
RAW = [RawTool(name="gt_usr", description="gets user"), RawTool(name="del")]


class Counting:
    """An inner transformer that counts its calls; ``answer`` None means it cannot help."""

    name, priority = "counting", 50

    def __init__(self, answer: bool = True, delay: float = 0.0) -> None:
        self.calls, self.answer, self.delay = 0, answer, delay

    async def transform(self, tools: Sequence[RawTool], context: ToolContext) -> list[EnhancedTool] | None:
        self.calls += 1
        await asyncio.sleep(self.delay)
        if not self.answer:
            return None
        return [EnhancedTool(name=f"x_{t.name}", original_name=t.name, metadata=t.metadata) for t in tools]


def test_hash_ignores_order_and_metadata_but_not_content() -> None:
    a, b = RawTool(name="a", metadata={"tab": 1}), RawTool(name="b")
    assert hash_tools([a, b]) == hash_tools([b, RawTool(name="a", metadata={"tab": 2})])
    assert hash_tools([a, b]) != hash_tools([a, RawTool(name="b", description="now described")])


async def test_get_set_and_ttl(tmp_path: Path) -> None:
    clock = FakeClock()
    cache = EnhancementCache(tmp_path, ttl=timedelta(hours=1), clock=clock)
    assert cache.path == tmp_path / "enhancements.sqlite3"
    key = cache.key("ns", "www.example.com", RAW)
    assert await cache.get(key) is None
    tools = [EnhancedTool(name="get_user", original_name="gt_usr")]
    await cache.set(key, tools)
    assert await cache.get(cache.key("ns", "https://example.com/", list(reversed(RAW)))) == tools
    assert await cache.get(cache.key("other-namespace", "example.com", RAW)) is None
    clock.advance(3599)
    assert await cache.get(key) == tools
    clock.advance(1)
    assert await cache.get(key) is None


async def test_entries_survive_a_new_cache_object_and_expired_rows_are_purged(tmp_path: Path) -> None:
    clock = FakeClock()
    first = EnhancementCache(tmp_path, ttl=10, clock=clock)
    old = first.key("ns", "old.com", RAW)
    await first.set(old, [EnhancedTool(name="a", original_name="gt_usr")])
    clock.advance(11)
    second = EnhancementCache(tmp_path, ttl=10, clock=clock)
    await second.set(second.key("ns", "new.com", RAW), [EnhancedTool(name="b", original_name="gt_usr")])
    with sqlite3.connect(second.path) as db:
        assert [row[0] for row in db.execute("SELECT source FROM enhancements")] == ["new.com"]


async def test_a_corrupt_entry_is_a_cache_error(tmp_path: Path) -> None:
    cache = EnhancementCache(tmp_path)
    key = cache.key("ns", "example.com", RAW)
    await cache.set(key, [EnhancedTool(name="a", original_name="gt_usr")])
    with sqlite3.connect(cache.path) as db:
        db.execute("UPDATE enhancements SET payload = 'garbage'")
    with pytest.raises(CacheError):
        await cache.get(key)


def test_an_unusable_location_is_a_cache_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(CacheError):
        EnhancementCache(blocker / "sub" / "cache.sqlite3")


async def test_second_call_is_served_from_the_cache(tmp_path: Path) -> None:
    inner = Counting()
    cached = CachedTransformer(inner, EnhancementCache(tmp_path))
    assert (cached.name, cached.priority) == ("cached-counting", 60)
    first = await cached.transform(RAW, CTX)
    again = await CachedTransformer(inner, EnhancementCache(tmp_path)).transform(
        [RawTool(name="del"), RawTool(name="gt_usr", description="gets user", metadata={"tab": 9})], CTX
    )
    assert inner.calls == 1
    assert first is not None and again is not None
    assert [t.name for t in again] == [t.name for t in first]
    assert again[0].metadata == {"tab": 9}  # this visit's metadata, not the cached one


async def test_ttl_expiry_calls_the_inner_transformer_again(tmp_path: Path) -> None:
    clock, inner = FakeClock(), Counting()
    cached = CachedTransformer(inner, EnhancementCache(tmp_path, ttl=timedelta(days=7), clock=clock))
    await cached.transform(RAW, CTX)
    clock.advance(timedelta(days=7).total_seconds() - 1)
    await cached.transform(RAW, CTX)
    assert inner.calls == 1
    clock.advance(1)
    await cached.transform(RAW, CTX)
    assert inner.calls == 2


async def test_none_is_not_cached(tmp_path: Path) -> None:
    inner = Counting(answer=False)
    cached = CachedTransformer(inner, EnhancementCache(tmp_path))
    assert await cached.transform(RAW, CTX) is None
    assert await cached.transform(RAW, CTX) is None
    assert inner.calls == 2


async def test_concurrent_requests_share_one_inner_call(tmp_path: Path) -> None:
    inner = Counting(delay=0.1)
    cached = CachedTransformer(inner, EnhancementCache(tmp_path))
    results = await asyncio.gather(*(cached.transform(RAW, CTX) for _ in range(5)))
    assert inner.calls == 1
    assert all(r == results[0] for r in results)


async def test_a_broken_cache_is_bypassed(tmp_path: Path) -> None:
    inner = Counting()
    cache = EnhancementCache(tmp_path)
    cached = CachedTransformer(inner, cache)
    cache.path.unlink()
    cache.path.mkdir()  # now neither readable nor writable as a database
    assert await cached.transform(RAW, CTX) is not None
    assert inner.calls == 1
