"""Everything the bridge keeps on disk: the state folder, the SQLite file's tables and their
migrations, the secrets' values (OS keychain or the fallback file). The only package that opens
files for the core; ``core/`` names what it needs as small interfaces (:mod:`tabmcp.core.stores`)
and the composition root hands these in.

Modules, one store each (all on the bridge's one database file, ``store.path``):

* :mod:`.files` — the person's files alone (folder ``0700``, files ``0600``), the state folder;
* :mod:`.database` — the connection (WAL, autocommit), the change counters the running bridge
  follows, tool usage counts, the forms-as-tools choices, pairings;
* :mod:`.activity`, :mod:`.switches`, :mod:`.trust` (pins and flags, with the ``kept`` column's
  migration), :mod:`.sites`, :mod:`.search` (tool vectors, learned uses), :mod:`.snapshots`
  (telemetry snapshots, schema in ``PRAGMA user_version``), :mod:`.secret_store`.

``build.py`` puts a core object on its store in one step (the CLI, the bridge and tests).
"""
