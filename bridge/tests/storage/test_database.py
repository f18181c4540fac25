"""The bridge's SQLite file (storage/database.py): the usage counts against a file that refuses a write."""

from __future__ import annotations

import sqlite3

import pytest
from tabmcp.core.stores import StoreUnavailable
from tabmcp.storage.database import UsageStore


def test_a_usage_write_the_file_refuses_keeps_the_counts_for_the_next_one(tmp_path):
    """A locked file (another writer past the busy timeout) fails the write with a named error;
    the counts stay pending (with those recorded meanwhile) and the next write keeps them all."""
    path = tmp_path / "tabmcp.db"
    usage = UsageStore(path)
    usage._db.execute("PRAGMA busy_timeout=0")
    usage.record("https://a.test", "save")
    usage.record("https://a.test", "save")
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # a third writer holds the file
    with pytest.raises(StoreUnavailable):
        usage.flush()
    usage.record("https://a.test", "save")
    blocker.execute("COMMIT")
    assert usage.top(5) == [("https://a.test", "save", 3)]
    blocker.close()
    usage.close()


def test_a_call_whose_count_cannot_be_written_is_not_failed_by_it(tmp_path):
    """``record`` runs on a call's path and writes every ``FLUSH_EVERY_S``: a locked file keeps the
    counts and says so in the log, it does not fail the call that recorded one."""
    path = tmp_path / "tabmcp.db"
    usage = UsageStore(path)
    usage._db.execute("PRAGMA busy_timeout=0")
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    usage._flushed_at -= UsageStore.FLUSH_EVERY_S + 1  # a write is due with this count
    usage.record("https://a.test", "save")
    assert usage.origins() == {}  # a read while the file is locked reads what is written
    blocker.execute("COMMIT")
    assert usage.top(5) == [("https://a.test", "save", 1)]
    blocker.close()
    usage.close()
