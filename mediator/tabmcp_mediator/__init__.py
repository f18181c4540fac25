"""tabmcp-mediator: improve badly described tools before an agent sees them.

Standalone: it never imports the bridge (``tabmcp``). The bridge loads it through its
tool-middleware hook when the ``[mediator]`` config section is enabled.
"""

__version__ = "0.1.0"
