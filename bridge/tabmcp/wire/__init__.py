"""The wire messages by direction, one module each; :mod:`tabmcp.protocol` is their index (import
them from there) and reads the extension's frames."""
