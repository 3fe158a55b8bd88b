"""Who is asking: product tokens, Gemini purposes, aliases and how their verdicts combine.

SPEC.md section 4. An `Agent` is what a caller passes (a plain string is shorthand for
`Agent(string)`). Each profile turns it into the list of tokens to judge:

- web profiles, combine="merge": one view, the groups of every token pooled (Google's way of
  checking `googlebot-news` together with `googlebot`);
- web profiles, combine="most_restrictive": each token judged alone, disallowed if any says no;
- gemini: `*`, every purpose and the bot's own token, each judged alone; all must allow.

`fallbacks` is a crawler's documented chain (Google: Googlebot-Image obeys the `googlebot`
group when no group names it, rather than `*`): when no group names the token or an alias,
the first fallback token that a group names decides; none: the `*` groups, as for any token.
`Agent.crawler(name)` builds such an agent from the bundled crawler table (core.crawlers).
A plain token has no fallbacks, so its semantics (and the google profile's bit-exactness
with Google's C++ parser, which takes one token) are untouched: the chain is the crawler's
choice, not the parser's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from robotskit.core.crawlers import load_crawlers
from robotskit.errors import InvalidArgument

MERGE = "merge"
MOST_RESTRICTIVE = "most_restrictive"
GEMINI_PURPOSES = ("archiver", "indexer", "researcher", "webproxy")

_PRODUCT_TOKEN = re.compile(r"(?:[A-Za-z0-9_-]|[^\x00-\x7f\s])*")  # as profiles._RFC_TOKEN


@lru_cache(maxsize=4096)
def product_token(user_agent: str) -> str:
    """The product token of a user-agent string: its leading run of `[A-Za-z0-9_-]` (and non-ASCII letters).

    RFC 9309 2.2.1 asks crawlers to match on the product token: `MyBot/2.1 (+https://x)` -> `MyBot`.
    `*` stays `*`. Case is kept; matching is case-insensitive.
    """
    if not isinstance(user_agent, str):
        raise TypeError(f"user_agent must be a str, not {type(user_agent).__name__}")
    text = user_agent.strip()
    if text == "*":
        return "*"
    match = _PRODUCT_TOKEN.match(text)
    return match.group(0) if match else ""


def _as_tuple(values: Iterable[str] | str, what: str) -> tuple[str, ...]:
    if isinstance(values, str):
        values = (values,)
    try:
        result = tuple(values)
    except TypeError:
        raise TypeError(f"{what} must be an iterable of str, not {type(values).__name__}") from None
    for value in result:
        if not isinstance(value, str):
            raise TypeError(f"{what} must hold str values, not {type(value).__name__} ({value!r})")
    return result


@dataclass(frozen=True, slots=True, init=False)
class Agent:
    """A crawler identity: a product token (or a full user-agent string), purposes and aliases.

    `token` may be None for an anonymous Gemini client that only declares purposes.
    `purposes` are Gemini virtual agents (`archiver`, `indexer`, `researcher`, `webproxy`); web
    profiles ignore them, and any other purpose is a ValueError (a typo would silently judge
    nothing). `aliases` are further tokens the crawler obeys (e.g. `googlebot` for
    `googlebot-news`); `combine` says how their groups combine in web profiles. `fallbacks`
    are tokens tried in order only when no group names the token or an alias: the first one
    that a group names decides (see `Agent.crawler`). Any iterable of strings (a list, a tuple)
    is accepted for `purposes`, `aliases` and `fallbacks`; they are stored as tuples. A wrong
    type is a TypeError naming the parameter.
    """

    token: str | None
    purposes: tuple[str, ...]
    aliases: tuple[str, ...]
    combine: str
    fallbacks: tuple[str, ...]

    def __init__(
        self,
        token: str | None,
        purposes: Iterable[str] = (),
        aliases: Iterable[str] = (),
        combine: str = MERGE,
        fallbacks: Iterable[str] = (),
    ) -> None:
        if token is not None and not isinstance(token, str):
            raise TypeError(f"token must be a str or None, not {type(token).__name__}")
        chosen = tuple(p.lower() for p in _as_tuple(purposes, "purposes"))
        unknown = [p for p in chosen if p not in GEMINI_PURPOSES]
        if unknown:
            raise InvalidArgument(
                f"unknown purpose {unknown[0]!r}: purposes are {', '.join(GEMINI_PURPOSES)}"
            )
        if not isinstance(combine, str):
            raise TypeError(f"combine must be a str, not {type(combine).__name__}")
        if combine not in (MERGE, MOST_RESTRICTIVE):
            raise InvalidArgument(f"combine must be {MERGE!r} or {MOST_RESTRICTIVE!r}, got {combine!r}")
        object.__setattr__(self, "token", token)
        object.__setattr__(self, "purposes", chosen)
        object.__setattr__(self, "aliases", _as_tuple(aliases, "aliases"))
        object.__setattr__(self, "combine", combine)
        object.__setattr__(self, "fallbacks", _as_tuple(fallbacks, "fallbacks"))

    @classmethod
    def crawler(cls, name: str) -> Agent:
        """The agent of a well-known crawler, obeying its documented fallback chain.

        `Agent.crawler("Googlebot-Image")` obeys a group naming `googlebot-image`, else one naming
        `googlebot` (Google's common-crawlers list), else `*`. The name is looked up in the
        bundled crawler table case-insensitively; a crawler without a documented chain is a
        plain token. Raises ValueError (InvalidArgument) naming `name` when it is not in the table.
        """
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        crawler = load_crawlers().get(name)
        if crawler is None:
            raise InvalidArgument(f"unknown crawler {name!r}: not in the bundled crawler table")
        return cls(crawler.token, fallbacks=crawler.fallbacks)

    @property
    def lone_token(self) -> str | None:
        """The token when it alone judges this agent (no aliases, no fallbacks): such an Agent
        is read exactly as that string is (`as_agent`); None otherwise. Purposes only count in
        the gemini profile, where every token is judged alone anyway."""
        return self.token if not self.aliases and not self.fallbacks else None

    @property
    def names(self) -> tuple[str, ...]:
        """The token and aliases as given (no purposes)."""
        return ((self.token,) if self.token is not None else ()) + self.aliases


def as_agent(agent: str | Agent | None) -> Agent:
    """Accept a token, a full user-agent string, an `Agent`, or None (the global agent `*`)."""
    if isinstance(agent, Agent):
        return agent
    if agent is None:
        return _STAR
    if isinstance(agent, str):
        return _agent_from_string(agent)
    raise TypeError(f"agent must be a str, a robotskit.Agent or None, not {type(agent).__name__}")


@lru_cache(maxsize=1024)
def _agent_from_string(agent: str) -> Agent:
    return Agent(agent)


_STAR = Agent("*")
