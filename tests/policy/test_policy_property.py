"""Property tests of the sans-IO policy: any answer a server gives yields a sane entry (SPEC.md 6)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robotskit.errors import FetchError
from robotskit.fetch import FetchResponse
from robotskit.policy import Outcome, RobotsEntry, decide, fetch_flow

NOW = 1_767_225_600.0
HEADERS = st.dictionaries(
    st.sampled_from(["location", "retry-after", "cache-control", "content-type"]),
    st.one_of(
        st.text(max_size=30), st.sampled_from(["/r.txt", "120", "max-age=5", "https://b.example/robots.txt"])
    ),
)
RESPONSES = st.builds(
    FetchResponse,
    url=st.just(""),
    protocol=st.sampled_from(["http", "gemini", "ftp"]),
    status=st.integers(min_value=-5, max_value=1000),
    body=st.binary(max_size=200),
    headers=HEADERS,
    meta=st.one_of(
        st.text(max_size=20), st.sampled_from(["text/gemini", "/x", "30", "gemini://g.example/r"])
    ),
    truncated=st.booleans(),
)
ANSWERS = st.lists(st.one_of(RESPONSES, st.builds(FetchError, st.text(max_size=10))), min_size=1, max_size=10)


def _drive(
    answers: list[FetchResponse | FetchError], previous: RobotsEntry | None = None
) -> tuple[RobotsEntry, int]:
    flow = fetch_flow("https://example.com/x", clock=lambda: NOW, previous=previous)
    request, requests = next(flow), 1
    for answer in answers * 10:  # the flow must end before running out of answers
        try:
            if isinstance(answer, FetchError):
                request = flow.throw(answer)
            else:
                request = flow.send(
                    FetchResponse(
                        request.url,
                        answer.protocol,
                        answer.status,
                        answer.body,
                        answer.headers,
                        answer.meta,
                        answer.truncated,
                    )
                )
        except StopIteration as stop:
            return stop.value, requests
        requests += 1
    raise AssertionError("the flow never ended")


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(ANSWERS)
def test_any_answers_give_a_bounded_entry(answers: list[FetchResponse | FetchError]) -> None:
    """SPEC.md 6: whatever the server says, at most 6 requests, an outcome, and a TTL in (0, 24 h]."""
    entry, requests = _drive(answers)
    assert requests <= 6
    assert entry.authority == "https://example.com"
    assert entry.outcome in (Outcome.OK, Outcome.UNAVAILABLE, Outcome.UNREACHABLE)
    assert 0 < entry.expires_at - NOW <= 86_400
    if entry.outcome is Outcome.UNREACHABLE:
        assert entry.expires_at - NOW <= 3_600  # never 24 h
    decision = decide(entry, "https://example.com/x", "bot")
    assert decision.allowed in (True, False)
    assert decision.reason


@settings(max_examples=60, deadline=None)
@given(ANSWERS, ANSWERS)
def test_previous_entry_never_breaks_the_flow(
    first: list[FetchResponse | FetchError], second: list[FetchResponse | FetchError]
) -> None:
    """SPEC.md 6 row 5: a fetch after any earlier one is consistent (stale only over a good copy)."""
    previous, _ = _drive(first)
    entry, _ = _drive(second, previous)
    if entry.stale:
        assert previous.has_rules
        assert entry.body == previous.body
    if entry.outcome is Outcome.OK:
        assert entry.failures == 0
