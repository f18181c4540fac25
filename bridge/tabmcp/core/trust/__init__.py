"""Pages are untrusted: defences for what page tools return and for how their definitions change.

* :mod:`.results` — every page result cleaned (hidden characters), capped and framed as data,
  and scanned for text that gives the agent orders;
* :mod:`.lockdown` — after a flagged result, write tools need the person's approval;
* :mod:`.pins` — the first definition seen per origin and tool is pinned; changes need approval;
* :mod:`.guard` — the three together, as the server's call path uses them.

Everything here is free of network I/O; the pins and flags live in SQLite (:mod:`.store`).
"""
