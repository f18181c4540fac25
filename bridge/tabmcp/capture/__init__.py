"""What the page captures, as data: one record per kind of telemetry event (:mod:`.kinds`).

Its own package because both the protocol and the telemetry core read it; it imports nothing else of tabmcp.
"""
