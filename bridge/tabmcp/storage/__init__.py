"""Everything the bridge keeps on disk: the state folder, the SQLite file's tables and their
migrations, the secrets' values (OS keychain or the fallback file).

The only package that opens files for the core: ``core/`` names what it needs as small interfaces
(:mod:`tabmcp.core.stores`), one module here implements each, and ``build.py`` puts a core object on its store.
"""
