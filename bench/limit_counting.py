"""What counting a page's bytes costs the extension (extension/limits.js, issue 35): a heavy tab's
definitions measured against the limits, which are bytes of UTF-8. CPU time in node (the same V8
as the worker) of ``utf8Bytes`` (counted past the first non-ASCII unit, never encoded) and of
``fitDefinitions`` (each definition's bytes counted once, and only when 3 bytes a UTF-16 unit
cannot prove the document fits), against the earlier count in the same run: a text with any
non-ASCII unit encoded with ``TextEncoder`` to be counted, and a document added up by its UTF-16
length (wrong for 3-byte characters: such a page passed 4 MiB at 12 MiB). "admitted and sized" is
the worker's work per snapshot: the definitions admitted and the list's bytes for the tab's limit
(``tab_limits.js``), which it no longer counts again when ``fitDefinitions`` has. The first
quartile of the repetitions (the machine is shared).

    ./dev bench limit_counting            (python -m bench.limit_counting)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from bench._table import print_table

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    node = shutil.which("node")
    if node is None:
        print("node is not installed (./dev setup installs it)")
        return 1
    done = subprocess.run([node, str(HERE / "limit_counting.mjs")], capture_output=True, text=True, timeout=600, check=True)
    rows = [[case, f"{units / 1e6:.2f} M", f"{size / 1e6:.2f} MB", f"{now:.2f}", f"{earlier:.2f}", f"{now / earlier:.2f}"]
            for case, units, size, now, earlier in json.loads(done.stdout)["rows"]]
    headers = ["case", "UTF-16 units", "UTF-8", "now ms CPU", "earlier ms CPU", "now / earlier"]
    print_table("counting a heavy tab's bytes (extension/limits.js)", headers, rows,
                note=f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(__import__("sys").argv[1:]))
