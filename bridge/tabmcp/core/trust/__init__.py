"""Pages are untrusted: defences for what page tools return and for how their definitions change
(docs/security.md); no network I/O, the pins and flags live in SQLite.
"""
