"""``python -m tabmcp.cli``: the ``tabmcp`` command."""

import sys

from .entry import main

sys.exit(main())
