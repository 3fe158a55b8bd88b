"""The hot path: what answers allowed/disallowed for one (profile, agent), URL after URL.

`make_checker` turns a `matcher.Plan` into a `Check`, giving the same verdict as
`matcher.decide` without provenance (property tests hold it to that). A crawler asks one rule
set about many URLs, so after `COMPILE_AFTER` checks a single-rule-set plan is compiled into one
URL regex (`_url_check`) that `RobotsTxt.allowed` calls directly: for the common URL shapes a
check is then one C-level regex match and a tuple lookup.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable

from robotskit.core.matcher import Plan
from robotskit.core.model import RuleKind
from robotskit.core.profiles import Profile
from robotskit.core.url import (
    FAST_GOOGLE_PATH,
    FAST_RFC_PATH,
    google_match_path,
    rfc_decode_escapes,
    rfc_match_path,
    rfc_slow_match_path,
)
from robotskit.core.url_check import HOST_PREFIX, MAX_RULES, MAX_URL, UrlCheck, compile_url_check

# Checks with one (profile, agent) before its rule set is compiled into one URL regex (_url_check).
# Compiling costs about 0.5-2 ms (Python's regex compiler) and saves about 1 µs per check, so it
# pays after several hundred checks: a crawler deep in one site gets it, an audit or a broad
# crawl asking each file a few times does not pay for it.
COMPILE_AFTER = 512

Matcher = Callable[[str], "re.Match[str] | None"]
# Matches nothing, at the cost of one C call: the `url` matcher of a check not compiled (yet).
_NO_MATCH: Matcher = re.compile(r"(?!)").match
# Verdicts of a compiled check's marker groups; `_NO_MATCH` never yields one.
_NO_VERDICTS: tuple[bool, ...] = ()


_NO_URL = object()  # the memo's URL before any: equal to no argument, None included


class Check:
    """One (profile, agent)'s check. `RobotsTxt.allowed` tries `url_match` itself, then calls
    `after_miss`; everyone else calls the check like a function.

    `url_match(url)` returns a match whose `lastindex` indexes `verdicts`, or None: not compiled
    yet, or a URL shape the compiled regex leaves to the general path (normalisation needed, a
    long URL, a gemini:// URL under a check that is not gemini's). Attributes change once, when
    the check is compiled; a thread reading the old pair still gets a correct answer.
    """

    __slots__ = (
        "__weakref__",
        "after_miss",
        "memo",
        "url_match",
        "verdicts",
    )  # weak: a client keeps it per host

    def __init__(self, after_miss: Callable[[str], bool]) -> None:
        self.url_match: Matcher = _NO_MATCH
        self.verdicts = _NO_VERDICTS
        self.after_miss = after_miss
        # The last (URL, verdict) asked of this check by an agent other than the last one: agents
        # that share a group set share this check, so a file judged for many agents about one URL
        # pays one verdict per distinct group set. One tuple, read and written atomically.
        self.memo: tuple[object, bool] = (_NO_URL, True)  # (not None: `allowed(None)` matched it)

    def compiled(self, url_check: UrlCheck) -> None:
        # verdicts first: a racing reader that sees the new matcher must see its verdicts
        self.verdicts = url_check.verdicts
        self.url_match = url_check.url

    def __call__(self, url: str) -> bool:
        hit = self.url_match(url)
        if hit is not None:
            return self.verdicts[hit.lastindex or 0]
        return self.after_miss(url)


def make_checker(profile: Profile, plan: Plan) -> Check:
    """The check for one (profile, agent): everything that does not depend on the URL is looked
    up here once, and the common URL shapes take a single regex match (see _url)."""
    fast = (FAST_RFC_PATH if profile.normalise_urls else FAST_GOOGLE_PATH).match
    slow = rfc_match_path if profile.normalise_urls else google_match_path
    # After a miss of the compiled URL regex the fast shapes cannot apply: go straight to the slow path.
    after_compiled = rfc_slow_match_path if profile.normalise_urls else google_match_path
    decode_escapes = rfc_decode_escapes if profile.normalise_urls else None
    robots_txt_allowed = profile.robots_txt_always_allowed
    rule_sets = plan.rule_sets
    allow = RuleKind.ALLOW
    if not rule_sets:
        return Check(_always_allowed)
    if len(rule_sets) > 1:

        def check_all(url: str) -> bool:
            path = slow(url)
            if robots_txt_allowed and path == "/robots.txt":
                return True  # RFC 9309 2.2.2
            for rules in rule_sets:  # SPEC 4: every token judged alone must allow
                rule = rules.best(path)
                if rule is not None and rule.kind is not allow:
                    return False
            return True

        return Check(check_all)

    rule_set = rule_sets[0]
    best = rule_set.best
    calls = 0
    compiled: UrlCheck | None = None

    def after_miss(url: str) -> bool:
        nonlocal calls, compiled
        if compiled is not None:  # the URL regex missed
            if decode_escapes is not None and "%" in url:
                # Most misses carry escapes. The escape-aware regex reads kept ones (`%C3`, `%2F`)
                # as they are; letters spelt as escapes (`%7E`, `%41`) are decoded first, which
                # is exact: only the escape step of the normalisation runs early (see
                # `rfc_decode_escapes`), and decoding never moves the path's bounds.
                # (the property read apart from the call: mypyc would call the property's getter
                # with the argument instead of the matcher it returns)
                url_escaped = compiled.url_escaped
                hit = url_escaped(decode_escapes(url))
                if hit is not None:
                    return compiled.verdicts[hit.lastindex or 0]
            # (a URL over MAX_URL missed by length alone: its fast shapes may still apply)
            path = after_compiled(url) if len(url) <= MAX_URL else slow(url)
            path_match = compiled.path
            hit = path_match(path)
            if hit is not None:
                return compiled.verdicts[hit.lastindex or 0]
        else:
            if calls < COMPILE_AFTER:
                calls += 1
                # a hot rule set: compile it (None if not worth it; a big set is not even built)
                if calls == COMPILE_AFTER and rule_set.size <= MAX_RULES:
                    # The URLs a crawler asks one robots.txt about share this one's host.
                    host = HOST_PREFIX.match(url)
                    compiled = compile_url_check(rule_set.rules, profile, host[0] if host else "")
                    check = check_ref()
                    if compiled is not None and check is not None:
                        check.compiled(compiled)
            found = fast(url)
            if found is None:
                path = slow(url)
            else:
                path = found.group(1) or "/"
                if path[0] != "/":
                    path = "/" + path
        if robots_txt_allowed and path == "/robots.txt":
            return True  # RFC 9309 2.2.2
        rule = best(path)
        return rule is None or rule.kind is allow

    check = Check(after_miss)
    # The check holds `after_miss`, which reaches the check weakly (only to hand it the compiled
    # regex): a dropped file is freed at once rather than left to the cycle collector.
    check_ref = _reference(check)
    return check


def _reference(check: Check) -> Callable[[], Check | None]:
    """A weak reference to `check`; a strong one in the mypyc build, whose native `Check` takes
    no weak reference (a dropped file is then freed by the cycle collector)."""
    try:
        return weakref.ref(check)
    except TypeError:
        return lambda: check


def _always_allowed(url: str) -> bool:
    return True
