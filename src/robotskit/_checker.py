"""The hot path: a closure answering allowed/disallowed for one (profile, agent).

`make_checker` turns a `matcher.Plan` into the check a crawler calls for every URL. It gives
the same verdict as `matcher.decide`, without provenance (property tests hold it to that).
"""

from __future__ import annotations

from collections.abc import Callable

from robotskit._model import RuleKind
from robotskit._url import FAST_GOOGLE_PATH, FAST_RFC_PATH, google_match_path, rfc_match_path
from robotskit._url_check import MAX_URL, UrlCheck, compile_url_check
from robotskit.matcher import Plan
from robotskit.profiles import Profile

# Checks with one (profile, agent) before its rule set is compiled into one URL regex (_url_check).
COMPILE_AFTER = 32


Checker = Callable[[str], bool]


def make_checker(profile: Profile, plan: Plan) -> Checker:
    """A closure answering allowed/disallowed for one (profile, agent): the hot path of the library.

    Same verdict as `decide`, without provenance; everything that does not depend on the URL is
    looked up here once, and the common URL shapes take a single regex match (see _url).
    """
    fast = (FAST_RFC_PATH if profile.normalise_urls else FAST_GOOGLE_PATH).match
    slow = rfc_match_path if profile.normalise_urls else google_match_path
    robots_txt_allowed = profile.robots_txt_always_allowed
    rule_sets = plan.rule_sets
    allow = RuleKind.ALLOW
    if not rule_sets:
        return _always_allowed
    if len(rule_sets) == 1:
        rule_set = rule_sets[0]
        best = rule_set.best
        calls = 0
        compiled: UrlCheck | None = None

        def check_one(url: str) -> bool:
            nonlocal calls, compiled
            if compiled is not None:
                if len(url) <= MAX_URL:
                    hit = compiled[0](url)
                    if hit is not None:  # one regex answered the whole check
                        return compiled[1][hit.lastindex or 0]
            elif calls < COMPILE_AFTER:
                calls += 1
                if calls == COMPILE_AFTER:  # a hot rule set: compile it (None if not worth it)
                    compiled = compile_url_check(rule_set.rules, profile)
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

        return check_one

    def check_all(url: str) -> bool:
        path = slow(url)
        if robots_txt_allowed and path == "/robots.txt":
            return True  # RFC 9309 2.2.2
        for rules in rule_sets:  # SPEC 4: every token judged alone must allow
            rule = rules.best(path)
            if rule is not None and rule.kind is not allow:
                return False
        return True

    return check_all


def _always_allowed(url: str) -> bool:
    return True
