"""The one table: measure x implementation, ratios to robotskit, and the targets of issues 7 and 15."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from _timing import Result

Table = dict[str, dict[str, Result]]


@dataclass(frozen=True, slots=True)
class Row:
    """A row of the table: which measure, how it is labelled, and whether lower is better."""

    key: str
    label: str
    lower_is_better: bool = True


ROWS = (
    Row("check", "(a) check, median file  µs/URL"),
    Row("parse", "(b) parse, corpus mean  µs"),
    Row("parse_median", "    parse, median file  µs"),
    Row("parse_first", "    parse + 1st check, mean  µs"),
    Row("rules10k", "(c) 10k prefix rules  µs/check"),
    Row("hostile:8 stars /*a*a*a*a*a*a*a*a*b", "(d) /*a*a*a*a*a*a*a*a*b  µs/check"),
    Row("hostile:1,000 rules /*a*<i>*b", "    1,000 x /*a*<i>*b  µs/check"),
    Row("hostile:1,000 rules, every <i> in path", "    same, every <i> in the path  µs/check"),
    Row("hostile:one rule with 50 stars", "    one rule, 50 stars  µs/check"),
    Row("hostile:1,000 near-miss rules, 12-64 stars", "    1,000 near-miss rules, 12-64 stars  µs/check"),
    Row("many_agents", "(g) 94 agents x 1 URL, parse incl.  µs/file"),
    Row("mem_file", "(e) memory per parsed file  KiB"),
    Row("mem500k", "    memory, 500 KiB file  MiB"),
    Row("wild500k", "(f) 500 KiB wildcards, parse+1st  ms"),
    Row("agents500k", "    500 KiB of user-agents, parse+1st  ms"),
    Row("disagree", "    verdicts != Google C++  count"),
)


def _num(v: float) -> str:
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def _scaled(row: Row, r: Result) -> float | None:
    if r.value is None:
        return None
    if row.key == "mem_file":
        return r.value / 1024
    if row.key == "mem500k":
        return r.value / 1024 / 1024
    return r.value


def cell(row: Row, r: Result | None, base: Result | None, is_base: bool) -> str:
    """``value ±spread ratiox``; the ratio is peer / robotskit, so 5.0x = robotskit five times better."""
    if r is None:
        return "-"
    v = _scaled(row, r)
    if v is None:
        return r.note or "-"
    if row.key == "disagree":
        return f"{v:.0f}/{r.note}"
    text = _num(v)
    if r.spread is not None and r.spread >= 0.005:
        text += f" ±{r.spread * 100:.0f}%"
    if not is_base and base is not None and base.value and r.value is not None:
        ratio = r.value / base.value
        text += f" {ratio:.2f}x" if ratio < 0.1 else f" {ratio:.1f}x"
    return text


def _val(t: Table, key: str, impl: str) -> float | None:
    r = t.get(key, {}).get(impl)
    return None if r is None else r.value


Target = tuple[str, Callable[[Table], tuple[str, str]]]


def _ratio_target(key: str, peer: str, factor: float) -> Callable[[Table], tuple[str, str]]:
    def judge(t: Table) -> tuple[str, str]:
        mine, theirs = _val(t, key, "robotskit"), _val(t, key, peer)
        if mine is None or theirs is None:
            return "-", "n/a"
        ratio = theirs / mine
        return f"{ratio:.1f}x {peer}", "PASS" if ratio >= factor else "FAIL"

    return judge


def _check_target(t: Table) -> tuple[str, str]:
    text, status = _ratio_target("check", "Protego", 5.0)(t)
    mine = _val(t, "check", "robotskit")
    natives = {
        n: v for n in ("reppy", "fast-robotstxt", "jwm.robotstxt") if (v := _val(t, "check", n)) is not None
    }
    if status == "n/a" or mine is None or not natives:
        return text, "n/a"  # half a target is no verdict
    fastest = min(natives, key=lambda n: natives[n])
    text += f"; {natives[fastest] / mine:.1f}x {fastest}"
    return text, "PASS" if status == "PASS" and mine < natives[fastest] else "FAIL"


def _within(key: str, peer: str, factor: float) -> Callable[[Table], tuple[str, str]]:
    def judge(t: Table) -> tuple[str, str]:
        mine, theirs = _val(t, key, "robotskit"), _val(t, key, peer)
        if mine is None or theirs is None:
            return "-", "n/a"
        return f"{mine / theirs:.1f}x of {peer}", "PASS" if mine <= factor * theirs else "FAIL"

    return judge


def _both(a: tuple[str, str], b: tuple[str, str]) -> tuple[str, str]:
    status = "n/a" if "n/a" in (a[1], b[1]) else "PASS" if a[1] == b[1] == "PASS" else "FAIL"
    return f"{a[0]}; {b[0]}", status


def _at_most(key: str, limit: float) -> Callable[[Table], tuple[str, str]]:
    def judge(t: Table) -> tuple[str, str]:
        r = t.get(key, {}).get("robotskit")
        if r is None or r.value is None:
            return (r.note if r else "-"), "FAIL" if r is not None and r.note.startswith(">") else "n/a"
        return "", "PASS" if r.value <= limit else "FAIL"

    return judge


TARGETS: dict[str, tuple[str, Callable[[Table], tuple[str, str]]]] = {
    "check": (">=5x Protego, < natives", _check_target),
    "parse": (">=4x Protego", _ratio_target("parse", "Protego", 4.0)),
    "parse_first": (
        ">=5x Protego, <=3.5x Google C++",
        lambda t: _both(
            _ratio_target("parse_first", "Protego", 5.0)(t), _within("parse_first", "fast-robotstxt", 3.5)(t)
        ),
    ),
    "rules10k": ("<=20 µs", _at_most("rules10k", 20.0)),
    "hostile:8 stars /*a*a*a*a*a*a*a*a*b": (
        "<=1000 µs",
        _at_most("hostile:8 stars /*a*a*a*a*a*a*a*a*b", 1000.0),
    ),
    "hostile:1,000 rules /*a*<i>*b": ("<=1000 µs", _at_most("hostile:1,000 rules /*a*<i>*b", 1000.0)),
    "hostile:1,000 rules, every <i> in path": (
        "<=1000 µs",
        _at_most("hostile:1,000 rules, every <i> in path", 1000.0),
    ),
    "hostile:one rule with 50 stars": ("<=1000 µs", _at_most("hostile:one rule with 50 stars", 1000.0)),
    "hostile:1,000 near-miss rules, 12-64 stars": (
        "<=1000 µs",
        _at_most("hostile:1,000 near-miss rules, 12-64 stars", 1000.0),
    ),
    "many_agents": (">=3x Protego", _ratio_target("many_agents", "Protego", 3.0)),
    "mem500k": ("a few MB (<=5 MiB)", _at_most("mem500k", 5 * 1024 * 1024)),
    "wild500k": ("well under 1 s", _at_most("wild500k", 1000.0)),
    "agents500k": ("well under 1 s", _at_most("agents500k", 1000.0)),
    "disagree": ("google profile: 0", lambda t: ("", "n/a")),
}


def _rows(table: Table) -> list[Row]:
    """ROWS, with a row for every other hostile case (the near-miss families) after the last hostile row."""
    known = {row.key for row in ROWS}
    extra = [
        Row(key, f"    {key.removeprefix('hostile:')}  µs/check")
        for key in table
        if key.startswith("hostile:") and key not in known
    ]
    last = max(i for i, row in enumerate(ROWS) if row.key.startswith("hostile:"))
    return [*ROWS[: last + 1], *extra, *ROWS[last + 1 :]]


def render(table: Table, impls: list[str], crosscheck: str) -> str:
    """The whole table as text, followed by the exactness cross-check line."""
    header = ["measure", *impls, "target", "status"]
    rows: list[list[str]] = []
    for row in _rows(table):
        if row.key not in table:
            continue
        base = table[row.key].get("robotskit")
        cells = [cell(row, table[row.key].get(n), base, n == "robotskit") for n in impls]
        target, status = "", ""
        if row.key in TARGETS or row.key.startswith("hostile:"):
            target, judge = TARGETS.get(row.key) or ("<=1000 µs", _at_most(row.key, 1000.0))
            detail, verdict = judge(table)
            status = f"{verdict} {detail}".strip()
            if row.key == "disagree":
                status = crosscheck
        rows.append([row.label, *cells, target, status])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(line.rstrip() for line in lines)
