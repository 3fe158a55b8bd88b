"""The agents column's struct blocks are shared by value across units and tables of a process:
sharing must never give a row another run's agent names or another body's verdicts."""

from __future__ import annotations

from robotskit.batch import output
from robotskit.batch.analysis import AgentVerdicts, Row, Verdicts, _delay

ALLOW = Verdicts("allowed", True, (True,), None, None)
BLOCK = Verdicts("disallowed", False, (False,), 2.0, (True, False, None))


def _agents(table: object) -> list[list[tuple[str, str, float | None]]]:
    return [
        [(a["agent"], a["verdict"], a["crawl_delay"]) for a in row["agents"]]
        for row in table.to_pylist()  # type: ignore[attr-defined]
    ]


def test_equal_verdicts_of_different_bodies_and_units_give_the_same_rows() -> None:
    first = AgentVerdicts((ALLOW, BLOCK), (0, 1))
    twin = AgentVerdicts((ALLOW, BLOCK), (0, 1))  # another body's, equal by value
    unit_a = output.to_table([Row("a", 0, agents=first)], ["A", "B"])
    unit_b = output.to_table([Row("b", 0, agents=twin), Row("b", 1, agents=first)], ["A", "B"])
    expected = [("A", "allowed", None), ("B", "disallowed", 2.0)]
    assert _agents(unit_a) == [expected]
    assert _agents(unit_b) == [expected, expected]


def test_another_agent_list_or_other_verdicts_are_never_given_a_shared_block() -> None:
    verdicts = AgentVerdicts((ALLOW, BLOCK), (0, 1))
    output.to_table([Row("a", 0, agents=verdicts)], ["A", "B"])
    renamed = output.to_table([Row("a", 0, agents=verdicts)], ["X", "Y"])
    assert _agents(renamed) == [[("X", "allowed", None), ("Y", "disallowed", 2.0)]]
    swapped = output.to_table([Row("a", 0, agents=AgentVerdicts((ALLOW, BLOCK), (1, 0)))], ["A", "B"])
    assert _agents(swapped) == [[("A", "disallowed", 2.0), ("B", "allowed", None)]]


def test_a_negative_zero_delay_is_zero() -> None:
    """`Crawl-delay: -0` is 0 seconds (and -0.0 == 0.0 could otherwise share a block with 0.0)."""
    shown = _delay(-0.0)
    assert shown == 0.0 and str(shown) == "0.0"
    assert _delay(None) is None and _delay(1.5) == 1.5
