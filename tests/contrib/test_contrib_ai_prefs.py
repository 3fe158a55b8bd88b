"""Content-Signal (Cloudflare) and Content-Usage (IETF aipref) records, typed and scoped."""

from __future__ import annotations

import pytest

import robotskit
from robotskit.ai_prefs import (
    content_signal,
    content_usage,
    licenses,
    llm_policies,
    parse_sf_dictionary,
)

# draft-ietf-aipref-attach section 3.4, with the vocabulary's `train-ai` label.
ATTACH_EXAMPLE = b"""User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: train-ai=y
"""


@pytest.mark.parametrize(
    ("url", "agent", "expected"),
    [
        ("https://example.com/test", "OtherBot", False),
        ("https://example.com/never/test", "OtherBot", None),
        ("https://example.com/ai-ok/test", "OtherBot", True),
        ("https://example.com/never/test", "ExampleBot", True),
        ("https://example.com/ai-ok/test", "ExampleBot/1.0 (+https://e.test)", True),
    ],
)
def test_content_usage_attach_example(url: str, agent: str, expected: bool | None) -> None:
    """The attach draft's table: longest path wins, disallowed URLs carry no preference, groups apply."""
    robots = robotskit.parse(ATTACH_EXAMPLE)
    usage = content_usage(robots, url, agent)
    if expected is None:
        assert usage is None
    else:
        assert usage is not None
        assert usage.train_ai is expected


def test_content_usage_carries_lines_and_path() -> None:
    """The winning rule's line number, path and raw expression are reported."""
    robots = robotskit.parse(ATTACH_EXAMPLE)
    usage = content_usage(robots, "https://example.com/ai-ok/x", "bot")
    assert usage is not None
    assert usage.lines == (5,)
    assert usage.path == "/ai-ok/"
    assert usage.raw == ("train-ai=y",)
    assert usage.get("train-ai") is not None and usage.get("train-ai").line == 5  # type: ignore[union-attr]


def test_content_usage_same_path_most_restrictive() -> None:
    """Rules with identical paths combine: any `n` wins (vocab section 7.1)."""
    body = b"User-agent: *\nContent-Usage: /a/ train-ai=y, search=y\nContent-Usage: /a/ train-ai=n\n"
    usage = content_usage(robotskit.parse(body), "/a/page", "bot")
    assert usage is not None
    assert usage.train_ai is False
    assert usage.search is True
    assert usage.lines == (2, 3)


def test_content_usage_wildcard_and_anchor_paths() -> None:
    """Paths match like Allow/Disallow patterns: `*` wildcards and a final `$` anchor."""
    body = b"User-agent: *\nContent-Usage: /*.pdf$ train-ai=n\nContent-Usage: train-ai=y\n"
    robots = robotskit.parse(body)
    assert content_usage(robots, "/docs/a.pdf", "bot").train_ai is False  # type: ignore[union-attr]
    assert content_usage(robots, "/docs/a.pdf?x", "bot").train_ai is True  # type: ignore[union-attr]


def test_content_usage_unparsable_value_is_unknown() -> None:
    """A value that is not an RFC 9651 Dictionary (upper case) makes every preference unknown."""
    body = b"User-agent: *\nContent-Usage: Train-AI=N\n"
    usage = content_usage(robotskit.parse(body), "/", "bot")
    assert usage is not None
    assert usage.valid is False
    assert usage.train_ai is None


def test_content_usage_non_token_values_are_unknown() -> None:
    """Only the Tokens `y`/`n` carry a preference; strings and booleans are unknown (vocab 6.5)."""
    body = b'User-agent: *\nContent-Usage: train-ai="n", search, ai-use=y;p=1, x-new=n\n'
    usage = content_usage(robotskit.parse(body), "/", "bot")
    assert usage is not None and usage.valid
    assert usage.train_ai is None
    assert usage.search is None
    assert usage.ai_use is True
    assert usage.get("x-new") is not None  # unknown labels are kept


def test_content_usage_outside_agent_groups_ignored() -> None:
    """A Content-Usage line in another agent's group does not apply (attach section 3)."""
    body = b"User-agent: GPTBot\nAllow: /\nContent-Usage: train-ai=n\n\nUser-agent: *\nAllow: /\n"
    robots = robotskit.parse(body)
    assert content_usage(robots, "/", "GPTBot").train_ai is False  # type: ignore[union-attr]
    assert content_usage(robots, "/", "OtherBot") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("train-ai=n, search=y", {"train-ai": "tok:n", "search": "tok:y"}),
        ("train-ai=y,train-ai=n", {"train-ai": "tok:n"}),
        ("a;x=1, b=(y n);q", {"a": "bool:?1", "b": "list:"}),
        (
            's="q\\"x", n=-1.5, b=?0, bin=:AQ==:',
            {"s": 'str:"q\\"x"', "n": "num:-1.5", "b": "bool:?0", "bin": "bin::AQ==:"},
        ),
        ("", {}),
    ],
)
def test_sf_dictionary_parses(text: str, expected: dict[str, str]) -> None:
    """The RFC 9651 Dictionary reader accepts valid members and keeps the last duplicate."""
    assert parse_sf_dictionary(text) == expected


@pytest.mark.parametrize("text", ["Train-ai=n", "train-ai=n,", "a=n b=y", "a=?2", 'a="open', "1a=y", "a=:AQ"])
def test_sf_dictionary_rejects(text: str) -> None:
    """Invalid Dictionaries (upper-case key, trailing comma, junk, bad items) fail as a whole."""
    assert parse_sf_dictionary(text) is None


CLOUDFLARE = b"""# As a condition of accessing this website, you agree to abide by ...
User-agent: *
Content-Signal: search=yes,ai-train=no,use=reference
Allow: /

User-agent: GPTBot
Disallow: /

User-agent: Googlebot
Content-Signal: search=yes, ai-input=no
Allow: /
"""


def test_content_signal_global_group() -> None:
    """Cloudflare's managed file: the `*` group's signal, unknown `use` key kept, line numbers kept."""
    signal = content_signal(robotskit.parse(CLOUDFLARE), "SomeBot/1.0")
    assert signal is not None
    assert (signal.search, signal.ai_train, signal.ai_input) == (True, False, None)
    assert signal.scope == "global"
    assert signal.lines == (3,)
    assert [(s.key, s.value) for s in signal.extra] == [("use", "reference")]
    assert signal.get("ai-train").line == 3  # type: ignore[union-attr]


def test_content_signal_own_group_wins() -> None:
    """A signal in the agent's own group replaces the global one."""
    signal = content_signal(robotskit.parse(CLOUDFLARE), "Googlebot")
    assert signal is not None
    assert signal.scope == "group"
    assert (signal.search, signal.ai_input, signal.ai_train) == (True, False, None)


def test_content_signal_falls_back_to_global_when_own_group_silent() -> None:
    """An agent whose own group has no signal gets the site-wide (`*`) one."""
    signal = content_signal(robotskit.parse(CLOUDFLARE), "GPTBot")
    assert signal is not None and signal.scope == "global" and signal.ai_train is False


def test_content_signal_none_without_lines() -> None:
    """A file without Content-Signal lines yields None."""
    assert content_signal(robotskit.parse(b"User-agent: *\nDisallow: /x\n"), "bot") is None


def test_content_signal_ungrouped_lines() -> None:
    """Lines before any user-agent line count as site-wide signals."""
    body = b"Content-Signal: ai-train=no\nUser-agent: *\nDisallow: /x\n"
    signal = content_signal(robotskit.parse(body), "bot")
    assert signal is not None and signal.ai_train is False and signal.lines == (1,)


def test_content_signal_path_scoped() -> None:
    """`Content-Signal: /path k=v` applies only to URLs under the path; the longest path wins."""
    body = (
        b"User-agent: *\nContent-Signal: ai-train=yes, search=yes\n"
        b"Content-Signal: /blog/ ai-train=no\nAllow: /\n"
    )
    robots = robotskit.parse(body)
    plain = content_signal(robots, "bot")
    assert plain is not None and plain.ai_train is True and plain.scoped_paths == ("/blog/",)
    blog = content_signal(robots, "bot", "https://e.test/blog/post")
    assert blog is not None and blog.ai_train is False and blog.search is True
    assert blog.get("ai-train").path == "/blog/"  # type: ignore[union-attr]
    other = content_signal(robots, "bot", "https://e.test/about")
    assert other is not None and other.ai_train is True


def test_content_signal_conflict_most_restrictive() -> None:
    """Two unscoped lines disagreeing on a key: `no` wins."""
    body = b"User-agent: *\nContent-Signal: ai-train=yes\nContent-Signal: ai-train=no\n"
    signal = content_signal(robotskit.parse(body), "bot")
    assert signal is not None and signal.ai_train is False and signal.lines == (2, 3)


def test_robots_methods_delegate() -> None:
    """RobotsTxt.content_signal / content_usage return the same values as the functions."""
    robots = robotskit.parse(CLOUDFLARE + b"Content-Usage: train-ai=n\n")
    assert robots.content_signal("x") == content_signal(robots, "x")
    assert robots.content_usage("/", "Googlebot") == content_usage(robots, "/", "Googlebot")


def test_llm_policy_and_license_kept_raw() -> None:
    """LLM-Policy and License lines are returned raw with line numbers and groups."""
    body = (
        b"License: https://e.test/license.xml\n"
        b"User-agent: *\nLLM-Policy: https://e.test/llm.json\nDisallow: /x\n"
    )
    robots = robotskit.parse(body)
    (lic,) = licenses(robots)
    (policy,) = llm_policies(robots)
    assert (lic.line, lic.value, lic.group) == (1, "https://e.test/license.xml", None)
    assert (policy.line, policy.value) == (3, "https://e.test/llm.json")
    assert policy.group is not None


def test_to_dict_round_trip_shapes() -> None:
    """to_dict() gives JSON-ready values with line numbers."""
    robots = robotskit.parse(ATTACH_EXAMPLE)
    usage = content_usage(robots, "/ai-ok/x", "bot")
    assert usage is not None
    assert usage.to_dict()["preferences"]["train-ai"] == {"value": "y", "allowed": True, "line": 5}
    signal = content_signal(robotskit.parse(CLOUDFLARE), "x")
    assert signal is not None
    assert signal.to_dict()["signals"]["ai-train"]["allowed"] is False


def test_content_usage_non_ascii_path_matches_encoded_url() -> None:
    """A UTF-8 path in the rule matches the percent-encoded URL (same normalisation as Allow/Disallow)."""
    robots = robotskit.parse("User-agent: *\nContent-Usage: /café/ train-ai=n\n".encode())
    assert content_usage(robots, "https://e.test/caf%C3%A9/x", "bot").train_ai is False  # type: ignore[union-attr]
    assert content_usage(robots, "https://e.test/café/x", "bot").train_ai is False  # type: ignore[union-attr]
    assert content_usage(robots, "https://e.test/cafe/x", "bot") is None


def test_content_usage_google_profile() -> None:
    """In the google profile the rule path is escaped Google's way and still matches."""
    robots = robotskit.parse(b"User-agent: *\nContent-Usage: /a%7eb train-ai=n\n", "google")
    assert content_usage(robots, "/a%7Eb/c", "bot").train_ai is False  # type: ignore[union-attr]
    assert content_usage(robots, "/a~b/c", "bot") is None
