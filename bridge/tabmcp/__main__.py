"""``python -m tabmcp``: the ``tabmcp`` command (what ``tabmcp setup`` writes when no script is found)."""

import sys

from .cli import main

sys.exit(main())
