"""Everything that decides allow/disallow lives here (SPEC.md sections 3 and 4).

A `View` is one profile family's reading of a parsed file: user-agent values turned into
tokens, patterns normalised, Google's `index.html` rule added. A `Plan` is what one agent
needs from a view: the rule sets to judge, one per token judged alone, built once per
(profile, agent) and cached, so a check is: extract the path, normalise it, and ask each
rule set for its best match.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from robotskit._lexer import to_text
from robotskit._model import Decision, Diagnostic, Group, Rule, RuleKind, Severity, TokenVerdict
from robotskit._pattern import RuleSet
from robotskit._url import (
    google_escape_pattern,
    google_match_path,
    patterns_need_normalising,
    rfc_match_path,
    rfc_normalise_pattern,
)
from robotskit.agents import MOST_RESTRICTIVE, Agent, as_agent, product_token
from robotskit.parser import ParsedFile, RawRule
from robotskit.profiles import Profile, group_token

PREAMBLE_LABEL = "(rules before the first user-agent)"
_MAX_CACHED_PLANS = 2048

REASON_NO_RULE = "no matching rule"
REASON_ALLOW = "matched allow rule"
REASON_DISALLOW = "matched disallow rule"
REASON_ROBOTS_TXT = "implicitly allowed /robots.txt"
REASON_NO_GROUP = "no group applies"


@dataclass(frozen=True, slots=True)
class Judgement:
    """One token judged alone: its label, the groups used, and their merged rules."""

    label: str
    groups: tuple[Group, ...]
    rules: RuleSet | None  # None: no group applies to this token

    @property
    def group_lines(self) -> tuple[int, ...]:
        return tuple(line for group in self.groups for line in group.agent_lines)


@dataclass(frozen=True, slots=True)
class Plan:
    """What one agent needs from a view: one judgement per token judged alone; all must allow."""

    judgements: tuple[Judgement, ...]
    rule_sets: tuple[RuleSet, ...]  # the judgements' rule sets, for the fast path


class View:
    """One profile family's reading of a parsed file.

    The token index is built up front (it only reads user-agent lines); a group's rules are
    normalised into `Rule`s the first time an agent needs that group, so a check against a
    file with thousands of rules for other agents never pays for them. The caches are
    idempotent: two threads racing build equal values.
    """

    __slots__ = (
        "_compiled",
        "_diagnostics",
        "_normalise",
        "_parsed",
        "_plans",
        "_profile",
        "_rule_sets",
        "_tokens",
        "global_groups",
        "index",
        "preamble",
    )

    def __init__(self, parsed: ParsedFile, profile: Profile) -> None:
        self._parsed = parsed
        self._profile = profile
        self._normalise = rfc_normalise_pattern if profile.normalise_urls else google_escape_pattern
        index: dict[str, list[int]] = {}
        global_groups: list[int] = []
        self._compiled: dict[int, Group] = {}  # groups whose rules were normalised, by position
        self._tokens: list[tuple[str, ...]] = []  # every group's tokens, known from the start
        for position, raw in enumerate(parsed.groups):
            # dict, not list: a group may name thousands of agents (a set keeps this linear)
            tokens: dict[str, None] = {}
            for _, value in raw.agents:
                token = group_token(profile, value)
                if token is None or token in tokens:
                    continue
                tokens[token] = None
                if token == "*":
                    global_groups.append(position)
                else:
                    index.setdefault(token, []).append(position)
            self._tokens.append(tuple(tokens))
        self.index: dict[str, tuple[int, ...]] = {token: tuple(found) for token, found in index.items()}
        self.global_groups: tuple[int, ...] = tuple(global_groups)
        self.preamble: Group | None = None
        if parsed.preamble and profile.preamble_applies:
            rules = _compile_rules(parsed.preamble, self._normalise, profile)
            self.preamble = Group(-1, (), (), (), rules, line=0)
        self._diagnostics: tuple[Diagnostic, ...] | None = None
        self._plans: dict[tuple[str, str | Agent], Plan] = {}
        # Agents that end up in the same groups share one RuleSet.
        self._rule_sets: dict[tuple[int, ...], RuleSet] = {}

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """How this profile reads the user-agent values (RK121, RK122); built when first asked for."""
        if self._diagnostics is None:
            found: list[Diagnostic] = []
            for raw in self._parsed.groups:
                for line, value in raw.agents:
                    token = group_token(self._profile, value)
                    if not token or (token != "*" and token != value.lower()):
                        _report_agent_value(self._profile, line, value, token, found)
            self._diagnostics = tuple(found)
        return self._diagnostics

    def group(self, position: int) -> Group:
        """The group at `position`, its rules normalised for this profile (built on first use)."""
        group = self._compiled.get(position)
        if group is not None:
            return group
        raw = self._parsed.groups[position]
        group = Group(
            index=position,
            agents=self._tokens[position],
            agent_lines=tuple(line for line, _ in raw.agents),
            raw_agents=tuple(to_text(value) for _, value in raw.agents),
            rules=_compile_rules(raw.rules, self._normalise, self._profile),
            line=raw.agents[0][0],
        )
        self._compiled[position] = group
        return group

    @property
    def groups(self) -> tuple[Group, ...]:
        """Every group in file order (builds the ones not used yet)."""
        return tuple(self.group(position) for position in range(len(self._parsed.groups)))

    def plan(self, profile: Profile, agent: str | Agent | None) -> Plan:
        """The cached plan for `agent` under `profile` (SPEC 4)."""
        key = (profile.name, agent if agent is not None else "*")
        plan = self._plans.get(key)
        if plan is None:
            if len(self._plans) >= _MAX_CACHED_PLANS:
                self._plans.clear()  # bounded: callers may pass ever-new user-agent strings
            plan = self._make_plan(profile, as_agent(agent))
            self._plans[key] = plan
        return plan

    def _caller_token(self, profile: Profile, name: str) -> str:
        # SPEC 1: rfc9309 reduces the caller's user agent to its product token; google compares it as given.
        return (product_token(name) if profile.reduce_caller_agent else name).lower()

    def _groups_for(self, tokens: list[str]) -> tuple[int, ...]:
        """SPEC 1: the groups naming any of the tokens, merged; else the `*` groups; else none."""
        specific: set[int] = set()
        for token in tokens:
            if token != "*":
                specific.update(self.index.get(token, ()))
        return tuple(sorted(specific)) if specific else self.global_groups

    def _judgement(self, label: str, positions: tuple[int, ...]) -> Judgement:
        groups = tuple(self.group(position) for position in positions)
        if not groups:
            return Judgement(label, groups, None)
        rules = self._rule_sets.get(positions)
        if rules is None:
            rules = self._rule_sets[positions] = RuleSet(rule for group in groups for rule in group.rules)
        return Judgement(label, groups, rules)

    def _make_plan(self, profile: Profile, agent: Agent) -> Plan:
        names = [self._caller_token(profile, name) for name in agent.names]
        judgements: list[Judgement] = []
        if profile.judge_every_token:
            # SPEC 4 (Gemini): `*`, every purpose and the bot's own token(s), each judged alone.
            seen: dict[tuple[int, ...], Judgement] = {}
            for label in ["*", *agent.purposes, *names]:
                positions = self._groups_for([label])
                judgement = seen.get(positions)
                if judgement is None:
                    judgement = seen[positions] = self._judgement(label, positions)
                    judgements.append(judgement)
            if self.preamble is not None:
                judgements.append(Judgement(PREAMBLE_LABEL, (self.preamble,), RuleSet(self.preamble.rules)))
        elif agent.combine == MOST_RESTRICTIVE and len(names) > 1:
            judgements.extend(self._judgement(name, self._groups_for([name])) for name in names)
        else:
            judgements.append(self._judgement("+".join(names) or "*", self._groups_for(names or ["*"])))
        rule_sets = tuple(j.rules for j in judgements if j.rules is not None and j.rules.rules)
        return Plan(tuple(judgements), rule_sets)


def _compile_rules(
    raw_rules: tuple[RawRule, ...], normalise: Callable[[str], str], profile: Profile
) -> tuple[Rule, ...]:
    allow_kind, disallow_kind = RuleKind.ALLOW, RuleKind.DISALLOW
    new = tuple.__new__  # Rule's own constructor handles keywords and defaults: too slow here
    # One search over the whole group tells whether any pattern needs normalising (few do).
    joined = "\n".join(value for _, _, value in raw_rules)
    if not patterns_need_normalising(joined, google=not profile.normalise_urls):
        rules = [
            new(Rule, (line, allow_kind if allow else disallow_kind, value, value, False))
            for line, allow, value in raw_rules
        ]
    else:
        rules = [
            new(Rule, (line, allow_kind if allow else disallow_kind, normalise(value), to_text(value), False))
            for line, allow, value in raw_rules
        ]
    if profile.index_html_allows_directory:
        rules = _with_index_html_rules(rules)
    return tuple(rules)


def _with_index_html_rules(rules: list[Rule]) -> list[Rule]:
    """Google: `Allow: /dir/index.htm(l)` also allows `/dir/`, as the pattern `/dir/$`."""
    extended: list[Rule] = []
    for rule in rules:
        extended.append(rule)
        if rule.kind is RuleKind.ALLOW:
            pattern = rule.pattern
            slash = pattern.rfind("/")
            if slash >= 0 and pattern.startswith("/index.htm", slash):
                extended.append(rule._replace(pattern=pattern[: slash + 1] + "$", derived=True))
    return extended


def _report_agent_value(
    profile: Profile, line: int, value: str, token: str | None, out: list[Diagnostic]
) -> None:
    if not token:
        shown = to_text(value)
        out.append(
            Diagnostic(
                "RK121",
                Severity.WARNING,
                line,
                f"user-agent {shown!r} has no usable product token",
                hint="use the crawler's product token, e.g. `Googlebot`, or `*`",
            )
        )
    elif token not in ("*", value.lower()):
        out.append(
            Diagnostic(
                "RK122",
                Severity.INFO,
                line,
                f"user-agent {to_text(value)!r} is read as {token!r} by the {profile.name} profile",
                hint=f"write `User-agent: {token}`",
            )
        )


def match_path(profile: Profile, url: str) -> str:
    """The path a URL is matched as under `profile` (SPEC 1 and 3)."""
    return rfc_match_path(url) if profile.normalise_urls else google_match_path(url)


def decide(
    view: View, profile: Profile, url: str, agent: str | Agent | None, *, explain: bool = False
) -> Decision:
    """Decide with provenance (SPEC 7): the deciding rule, the tokens and groups judged, a reason."""
    plan = view.plan(profile, agent)
    path = match_path(profile, url)
    tokens = tuple(j.label for j in plan.judgements)
    group_lines = tuple(sorted({line for j in plan.judgements for line in j.group_lines}))
    if profile.robots_txt_always_allowed and path == "/robots.txt":
        return Decision(True, None, REASON_ROBOTS_TXT, profile.name, path, tokens, group_lines)
    verdicts: list[TokenVerdict] = []
    for judgement in plan.judgements:
        rule = judgement.rules.best(path) if judgement.rules is not None else None
        matched = tuple(judgement.rules.matching(path)) if explain and judgement.rules is not None else ()
        verdicts.append(
            TokenVerdict(judgement.label, rule is None or rule.allow, rule, judgement.group_lines, matched)
        )
    denied = next((v for v in verdicts if not v.allowed), None)
    if denied is not None:
        return Decision(
            False, denied.rule, REASON_DISALLOW, profile.name, path, tokens, group_lines, tuple(verdicts)
        )
    deciding = next((v.rule for v in verdicts if v.rule is not None), None)
    if deciding is not None:
        reason = REASON_ALLOW
    elif not any(j.groups for j in plan.judgements):
        reason = REASON_NO_GROUP
    else:
        reason = REASON_NO_RULE
    return Decision(True, deciding, reason, profile.name, path, tokens, group_lines, tuple(verdicts))
