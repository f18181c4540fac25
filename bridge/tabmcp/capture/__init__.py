"""What the page captures, as data: one record per kind of telemetry event (:mod:`.kinds`).

Its own package, beside :mod:`tabmcp.protocol`, because the events are wire messages: the
protocol's ``telemetry`` message carries them typed, and the telemetry core
(:mod:`tabmcp.core.telemetry`) reads the records. It imports nothing else of tabmcp.
"""
