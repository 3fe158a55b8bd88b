"""A host list line whose host is not one is that row's error, never the end of the job (issue 14).

Hosts are read as browsers read them: `foo.1` (a name ending in a number that is no IPv4
address), `a..b` or `256.0.0.1` are not hosts. The batch reports such a line and goes on.
"""

from __future__ import annotations

from robotskit.batch.inputs import FetchOptions, InputUnit, read_hosts


def test_invalid_host_lines_are_rows_with_an_error() -> None:
    """Every line yields a row; the invalid ones carry an error naming InvalidURL."""
    items = (("1", "foo.1"), ("2", "a..b"), ("3", "256.0.0.1"))
    unit = InputUnit(kind="hosts", path="hosts.txt", items=items)
    captures = list(read_hosts(unit, 512_000, FetchOptions(timeout=1.0, concurrency=2)))
    assert [c.record for c in captures] == [1, 2, 3]
    assert all(c.error and "InvalidURL" in c.error for c in captures), [c.error for c in captures]
