"""Everything that decides allow/disallow lives here (SPEC.md sections 3 and 4).

A `View` is one profile family's reading of a parsed file: user-agent values turned into
tokens, patterns normalised, Google's `index.html` rule added. A `Plan` is what one agent
needs from a view: the rule sets to judge, one per token judged alone, built once per
(profile, agent) and cached, so a check is: extract the path, normalise it, and ask each
rule set for its best match.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from operator import itemgetter
from typing import Any, cast

from robotskit.core.agents import MOST_RESTRICTIVE, Agent, as_agent, product_token
from robotskit.core.lexer import to_text
from robotskit.core.model import Decision, Diagnostic, Group, Rule, RuleKind, Severity, TokenVerdict
from robotskit.core.parser import GroupedFile, RawRule
from robotskit.core.pattern import RuleSet
from robotskit.core.profiles import Profile, cached_group_token, group_token, group_token_cache
from robotskit.core.url import (
    google_escape_pattern,
    google_escape_patterns,
    google_match_path,
    patterns_need_normalising,
    rfc_match_path,
    rfc_normalise_pattern,
    rfc_normalise_patterns,
)

PREAMBLE_LABEL = "(rules before the first user-agent)"
_MAX_CACHED_PLANS = 2048

REASON_NO_RULE = "no matching rule"
REASON_ALLOW = "matched allow rule"
REASON_DISALLOW = "matched disallow rule"
REASON_ROBOTS_TXT = "implicitly allowed /robots.txt"
REASON_NO_GROUP = "no group applies"

# A raw rule's allow flag -> its kind (False indexes 0).
_KINDS = (RuleKind.DISALLOW, RuleKind.ALLOW)
# tuple.__new__(Rule, fields): a `Rule` without the Python-level constructor.
_new_tuple = cast(Callable[[Any, Any], Rule], tuple.__new__)


class Judgement:
    """One token judged alone: its label, the groups used, and their merged rules.

    The groups are built when first asked for: a check only needs the rule set, which can
    answer the first checks without the groups' `Rule`s (see `RuleSet.deferred`).
    """

    __slots__ = ("_groups", "_source", "label", "positions", "rules")

    def __init__(
        self,
        label: str,
        rules: RuleSet | None,  # None: no group applies to this token
        *,
        source: GroupSource | None = None,
        positions: tuple[int, ...] = (),
        groups: tuple[Group, ...] | None = None,
    ) -> None:
        self.label = label
        self.rules = rules
        self.positions = positions
        self._source = source
        self._groups = groups

    @property
    def groups(self) -> tuple[Group, ...]:
        groups = self._groups
        if groups is None:
            source = self._source
            assert source is not None
            groups = self._groups = tuple(source.group(position) for position in self.positions)
        return groups

    @property
    def applies(self) -> bool:
        """True if any group applies to this token."""
        return bool(self._groups) if self._groups is not None else bool(self.positions)

    @property
    def group_lines(self) -> tuple[int, ...]:
        if self._groups is None and self._source is not None:
            groups = self._source.parsed.groups
            return tuple(line for position in self.positions for line, _ in groups[position].agents)
        return tuple(line for group in self.groups for line in group.agent_lines)

    def __repr__(self) -> str:
        return f"Judgement(label={self.label!r}, positions={self.positions!r})"


@dataclass(frozen=True, slots=True)
class Plan:
    """What one agent needs from a view: one judgement per token judged alone; all must allow."""

    judgements: tuple[Judgement, ...]
    rule_sets: tuple[RuleSet, ...]  # the judgements' rule sets, for the fast path
    chain: str = ""  # how an agent's fallback chain was followed ("" for agents without one)


class GroupSource:
    """A view's groups, their rules normalised for its profile when first asked for.

    Judgements and deferred rule sets hold this rather than the view: the view holds them (its
    plans and rule sets), so holding the view back would make a reference cycle, and a parsed
    file would then wait for the cycle collector instead of being freed when dropped.
    Idempotent caches: two threads racing build equal values.
    """

    __slots__ = ("_compiled", "_texts", "_tokens", "parsed", "profile")

    def __init__(self, parsed: GroupedFile, profile: Profile, tokens: list[tuple[str, ...]]) -> None:
        self.parsed = parsed
        self.profile = profile
        self._tokens = tokens
        self._compiled: dict[int, Group] = {}  # groups whose rules were normalised, by position
        self._texts: dict[int, _Texts] = {}  # groups' rule values and patterns, "\n"-joined

    def group(self, position: int) -> Group:
        """The group at `position`, its rules normalised for the profile (built on first use)."""
        group = self._compiled.get(position)
        if group is not None:
            return group
        raw = self.parsed.groups[position]
        agent_lines, values = zip(*raw.agents, strict=True)  # a group has at least one user-agent line
        group = Group(
            index=position,
            agents=self._tokens[position],
            agent_lines=agent_lines,
            raw_agents=tuple(map(to_text, values)),
            rules=_compile_rules(raw.rules, self.profile, self.group_texts(position)),
            line=agent_lines[0],
        )
        self._compiled[position] = group
        return group

    def group_texts(self, position: int) -> _Texts:
        texts = self._texts.get(position)
        if texts is None:
            texts = self._texts[position] = _texts(self.parsed.groups[position].rules, self.profile)
        return texts


class View:
    """One profile family's reading of a parsed file.

    The token index is built up front (it only reads user-agent lines); a group's rules are
    normalised into `Rule`s the first time an agent needs that group, so a check against a
    file with thousands of rules for other agents never pays for them. The caches are
    idempotent: two threads racing build equal values.
    """

    __slots__ = (
        "_agent_sets",
        "_diagnostics",
        "_parsed",
        "_plans",
        "_profile",
        "_rule_sets",
        "_source",
        "global_groups",
        "index",
        "preamble",
    )

    def __init__(self, parsed: GroupedFile, profile: Profile) -> None:
        self._parsed = parsed
        self._profile = profile
        index: dict[str, list[int]] = {}
        global_groups: list[int] = []
        group_tokens: list[tuple[str, ...]] = []  # every group's tokens, known from the start
        cache = group_token_cache(profile)
        for position, raw in enumerate(parsed.groups):
            agents = raw.agents
            if len(agents) == 1:  # most groups name one agent
                value = agents[0][1]
                token = cache[value] if value in cache else cached_group_token(profile, cache, value)
                if token is None:
                    group_tokens.append(())
                    continue
                if token == "*":
                    global_groups.append(position)
                else:
                    index.setdefault(token, []).append(position)
                group_tokens.append((token,))
                continue
            # dict, not list: a group may name thousands of agents (a set keeps this linear)
            tokens: dict[str, None] = {}
            for _, value in agents:
                token = cache[value] if value in cache else cached_group_token(profile, cache, value)
                if token is None or token in tokens:
                    continue
                tokens[token] = None
                if token == "*":
                    global_groups.append(position)
                else:
                    index.setdefault(token, []).append(position)
            group_tokens.append(tuple(tokens))
        self._source = GroupSource(parsed, profile, group_tokens)
        self.index: dict[str, tuple[int, ...]] = {token: tuple(found) for token, found in index.items()}
        self.global_groups: tuple[int, ...] = tuple(global_groups)
        self.preamble: Group | None = None
        if parsed.preamble and profile.preamble_applies:
            rules = _compile_rules(parsed.preamble, profile, _texts(parsed.preamble, profile))
            self.preamble = Group(-1, (), (), (), rules, line=0)
        self._diagnostics: tuple[Diagnostic, ...] | None = None
        self._plans: dict[tuple[str, str | Agent], Plan] = {}
        # An `Agent` object's group set (or None: its plan judges several), by profile and agent.
        self._agent_sets: dict[tuple[str, Agent], tuple[int, ...] | None] = {}
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
                    # compare like with like: a Unicode-token profile reads the value decoded
                    written = to_text(value) if self._profile.unicode_tokens else value
                    if not token or (token != "*" and token != written.lower()):
                        _report_agent_value(self._profile, line, value, token, found)
            self._diagnostics = tuple(found)
        return self._diagnostics

    def group(self, position: int) -> Group:
        """The group at `position`, its rules normalised for this profile (built on first use)."""
        return self._source.group(position)

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

    def group_set(self, profile: Profile, agent: str | Agent | None) -> tuple[int, ...] | None:
        """The positions of the groups judging `agent` under `profile` when its plan is one
        judgement, without building the plan; None when it may judge more than one group set
        (the gemini profile's every-token judgement, an `Agent` whose tokens are judged alone).
        Two agents with the same positions have plans with the same rule sets (`_make_plan`)."""
        if profile.judge_every_token:
            return None
        if agent is None:
            return self.global_groups
        if type(agent) is not str:
            if not isinstance(agent, Agent):
                return None
            lone = agent.lone_token
            if lone is None:
                return self._agent_set(profile, agent)
            agent = lone  # read as its token is (`as_agent`)
        # `_groups_for([token])` for one token: an index entry is already its sorted positions
        token = (product_token(agent) if profile.reduce_caller_agent else agent).lower()
        return (self.index.get(token) if token != "*" else None) or self.global_groups

    def _agent_set(self, profile: Profile, agent: Agent) -> tuple[int, ...] | None:
        """`group_set` for an `Agent` object: the positions its one judgement reads, as
        `_make_plan` finds them (its names as caller tokens, then its fallback chain), or None
        when it has several tokens judged alone. Cached: a crawler asks with the same object."""
        key = (profile.name, agent)
        try:
            return self._agent_sets[key]
        except KeyError:
            pass
        names = [self._caller_token(profile, name) for name in agent.names]
        names, _ = self._follow_chain(profile, agent, names)
        positions = (
            None if agent.combine == MOST_RESTRICTIVE and len(names) > 1 else self._groups_for(names or ["*"])
        )
        if len(self._agent_sets) >= _MAX_CACHED_PLANS:
            self._agent_sets.clear()  # bounded like the plans: callers may make ever-new agents
        self._agent_sets[key] = positions
        return positions

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

    def _group_texts(self, position: int) -> _Texts:
        return self._source.group_texts(position)

    def _judgement(self, label: str, positions: tuple[int, ...]) -> Judgement:
        if not positions:
            return Judgement(label, None, source=self._source, positions=positions)
        rules = self._rule_sets.get(positions)
        if rules is None:
            rules = self._rule_sets[positions] = self._rule_set(positions)
        return Judgement(label, rules, source=self._source, positions=positions)

    def _rule_set(self, positions: tuple[int, ...]) -> RuleSet:
        """The merged rules of the groups at `positions`, deferred when their patterns allow."""
        groups = self._parsed.groups
        used = [position for position in positions if groups[position].rules]
        found = [self._group_texts(position) for position in used]
        texts = [text[1] for text in found]
        deferrable = all(text is not None for text in texts) and not (
            self._profile.index_html_allows_directory and any("/index.htm" in text for text in texts if text)
        )
        if not deferrable:
            if len(positions) == 1:
                return RuleSet(self.group(positions[0]).rules)
            return RuleSet(chain.from_iterable(self.group(position).rules for position in positions))
        sources = (
            groups[used[0]].rules
            if len(used) == 1
            else tuple(chain.from_iterable(groups[p].rules for p in used))
        )

        source = self._source  # not `self`: a rule set that held its view would make a cycle

        def build() -> Iterable[Rule]:
            return chain.from_iterable(source.group(position).rules for position in used)

        def rule_at(index: int, pattern: str) -> Rule:
            line, allow, value = sources[index]
            return _new_tuple(Rule, (line, _KINDS[allow], pattern, to_text(value), False))

        listed = found[0][2] if len(found) == 1 else None
        return RuleSet.deferred("\n".join(cast(list[str], texts)), build, rule_at, listed, sources)

    def _follow_chain(self, profile: Profile, agent: Agent, names: list[str]) -> tuple[list[str], str]:
        """The tokens to judge for an agent with a fallback chain, and a note saying which decided.

        Google's user-agent precedence: a crawler that no group names obeys the group of the
        crawler it belongs to (Googlebot-Image obeys `googlebot`, not `*`): the first token of
        the chain that a group names decides. No fallbacks, or a group names the agent itself:
        the names as they are, no note.
        """
        if not agent.fallbacks or any(name in self.index for name in names):
            return names, ""
        own = "+".join(names) or "*"
        tried = []
        for fallback in agent.fallbacks:
            token = self._caller_token(profile, fallback)
            if token in self.index:
                return [token], f"no group names {own}; {token} decides, next in its fallback chain"
            tried.append(token)
        star = "; the * groups apply" if self.global_groups else ""
        return names, f"no group names {own} nor its fallbacks {', '.join(tried)}{star}"

    def _make_plan(self, profile: Profile, agent: Agent) -> Plan:
        names = [self._caller_token(profile, name) for name in agent.names]
        names, chain = self._follow_chain(profile, agent, names)
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
                preamble = self.preamble
                judgements.append(Judgement(PREAMBLE_LABEL, RuleSet(preamble.rules), groups=(preamble,)))
        elif agent.combine == MOST_RESTRICTIVE and len(names) > 1:
            judgements.extend(self._judgement(name, self._groups_for([name])) for name in names)
        else:
            judgements.append(self._judgement("+".join(names) or "*", self._groups_for(names or ["*"])))
        rule_sets = tuple(j.rules for j in judgements if j.rules is not None and not j.rules.empty)
        return Plan(tuple(judgements), rule_sets, chain)


# A group's rule values joined by "\n"; its patterns (the values normalised) joined the same way,
# or None when some value holds a "\n" (the lexer never makes one: a safety net); and the
# patterns as a list when they are the values as written (nothing normalised: a big set's index
# then does not split the text again).
_Texts = tuple[str, str | None, list[str] | None]
_value_of = itemgetter(2)  # RawRule's value


def _texts(raw_rules: tuple[RawRule, ...], profile: Profile) -> _Texts:
    """Normalise a group's patterns as one "\n"-joined string: most groups need nothing (one
    regex search tells), the others a few C-level passes instead of Python steps per value."""
    values = list(map(_value_of, raw_rules))
    joined = "\n".join(values)
    if "\n" in "".join(values):  # (a copy and a memchr: cheaper than counting the joined breaks)
        return joined, None, None
    google = not profile.normalise_urls
    if not patterns_need_normalising(joined, google=google):
        return joined, joined, values
    return joined, google_escape_patterns(joined) if google else rfc_normalise_patterns(joined), None


def _compile_rules(raw_rules: tuple[RawRule, ...], profile: Profile, texts: _Texts) -> tuple[Rule, ...]:
    """The profile's `Rule`s for a group's raw rules (`texts` from `_texts`): patterns
    normalised, `raw` as text, built by C-level `map`s instead of a Python step per rule."""
    if not raw_rules:
        return ()
    lines, allows, values = zip(*raw_rules, strict=True)
    joined, normalised, _ = texts
    patterns: Sequence[str]
    raws: Sequence[str]
    if normalised is None:
        normalise = rfc_normalise_pattern if profile.normalise_urls else google_escape_pattern
        patterns = [normalise(value) for value in values]
        raws = [to_text(value) for value in values]
        normalised = "\n".join(patterns)
    else:
        patterns = values if normalised is joined else normalised.split("\n")
        raws = values if joined.isascii() else to_text(joined).split("\n")
    # Rule's own constructor handles keywords and defaults: too slow here.
    rules: list[Rule] = list(
        map(
            _new_tuple,
            repeat(Rule),
            zip(lines, map(_KINDS.__getitem__, allows), patterns, raws, repeat(False)),
        )
    )
    if profile.index_html_allows_directory and "/index.htm" in normalised:
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
    chain = f" ({plan.chain})" if plan.chain else ""
    denied = next((v for v in verdicts if not v.allowed), None)
    if denied is not None:
        return Decision(
            False,
            denied.rule,
            REASON_DISALLOW + chain,
            profile.name,
            path,
            tokens,
            group_lines,
            tuple(verdicts),
        )
    deciding = next((v.rule for v in verdicts if v.rule is not None), None)
    if deciding is not None:
        reason = REASON_ALLOW
    elif not any(j.applies for j in plan.judgements):
        reason = REASON_NO_GROUP
    else:
        reason = REASON_NO_RULE
    return Decision(True, deciding, reason + chain, profile.name, path, tokens, group_lines, tuple(verdicts))
