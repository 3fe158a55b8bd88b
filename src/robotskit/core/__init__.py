"""The core: bytes to verdicts. Standard library only; imports nothing else of robotskit
but `robotskit.errors`.

lexer (Line events) -> parser (groups, records) -> matcher (views, decisions) -> checker (the
hot path). `profiles` is the only place that knows what a profile changes.
"""
