"""robotskit: exact robots.txt parsing, matching, fetching and caching for the web and Gemini.

    >>> import robotskit
    >>> robots = robotskit.parse(b"User-agent: *\\nDisallow: /private/\\n")
    >>> robots.allowed("https://example.com/private/x", "MyBot")
    False

The core (parse, match) uses only the standard library. See README.md for the tour.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from robotskit.audit.diff import VerdictChange, VerdictDiff, diff_verdicts
    from robotskit.cache import Cache, MemoryCache, RedisCache, SQLiteCache, open_cache
    from robotskit.client.clients import AsyncRobotsClient, RobotsClient
    from robotskit.core.agents import GEMINI_PURPOSES, Agent, product_token
    from robotskit.core.extensions import RequestRate, VisitTime
    from robotskit.core.lexer import lex
    from robotskit.core.model import (
        Decision,
        Diagnostic,
        Group,
        Line,
        LineKind,
        Record,
        Rule,
        RuleKind,
        Severity,
        TokenVerdict,
    )
    from robotskit.core.profiles import PROFILES
    from robotskit.core.url import path_params_query
    from robotskit.document import RobotsTxt, parse
    from robotskit.errors import (
        CacheError,
        ClientClosed,
        FetchError,
        FetchTimeout,
        InvalidArgument,
        InvalidURL,
        ProtocolViolation,
        RobotskitError,
        UnknownProfile,
    )
    from robotskit.policy.authority import authority_key, robots_txt_url
    from robotskit.policy.flow import Outcome, PolicyConfig, RobotsEntry

# Every name is imported on first use (PEP 562): `import robotskit` costs nothing, a program loads
# the parts it touches (the core for `parse`; httpx only with a client; sqlite3 and redis only
# with a cache), and a `robotskit` command is inside its own Ctrl-C handling before anything heavy
# loads. Measured (time.perf_counter around the import, best of 3): `import robotskit` took 143 ms
# when it loaded everything, 98 ms with only the core, and `robotskit batch` on WARC files
# reached its first unit 0.07 s sooner.
_LAZY = {
    "VerdictChange": "robotskit.audit.diff",
    "VerdictDiff": "robotskit.audit.diff",
    "diff_verdicts": "robotskit.audit.diff",
    "Cache": "robotskit.cache",
    "MemoryCache": "robotskit.cache",
    "RedisCache": "robotskit.cache",
    "SQLiteCache": "robotskit.cache",
    "open_cache": "robotskit.cache",
    "AsyncRobotsClient": "robotskit.client.clients",
    "RobotsClient": "robotskit.client.clients",
    "Agent": "robotskit.core.agents",
    "GEMINI_PURPOSES": "robotskit.core.agents",
    "product_token": "robotskit.core.agents",
    "RequestRate": "robotskit.core.extensions",
    "VisitTime": "robotskit.core.extensions",
    "lex": "robotskit.core.lexer",
    "Decision": "robotskit.core.model",
    "Diagnostic": "robotskit.core.model",
    "Group": "robotskit.core.model",
    "Line": "robotskit.core.model",
    "LineKind": "robotskit.core.model",
    "Record": "robotskit.core.model",
    "Rule": "robotskit.core.model",
    "RuleKind": "robotskit.core.model",
    "Severity": "robotskit.core.model",
    "TokenVerdict": "robotskit.core.model",
    "PROFILES": "robotskit.core.profiles",
    "path_params_query": "robotskit.core.url",
    "RobotsTxt": "robotskit.document",
    "parse": "robotskit.document",
    "CacheError": "robotskit.errors",
    "ClientClosed": "robotskit.errors",
    "FetchError": "robotskit.errors",
    "FetchTimeout": "robotskit.errors",
    "InvalidArgument": "robotskit.errors",
    "InvalidURL": "robotskit.errors",
    "ProtocolViolation": "robotskit.errors",
    "RobotskitError": "robotskit.errors",
    "UnknownProfile": "robotskit.errors",
    "authority_key": "robotskit.policy.authority",
    "robots_txt_url": "robotskit.policy.authority",
    "Outcome": "robotskit.policy.flow",
    "PolicyConfig": "robotskit.policy.flow",
    "RobotsEntry": "robotskit.policy.flow",
}


# (Hidden from type checkers, which then flag a misspelt name instead of reading it as Any.)
if not TYPE_CHECKING:
    from robotskit._lazy import lazy_names

    __getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())

__version__ = "0.1.0"

__all__ = [
    "GEMINI_PURPOSES",
    "PROFILES",
    "Agent",
    "AsyncRobotsClient",
    "Cache",
    "CacheError",
    "ClientClosed",
    "Decision",
    "Diagnostic",
    "FetchError",
    "FetchTimeout",
    "Group",
    "InvalidArgument",
    "InvalidURL",
    "Line",
    "LineKind",
    "MemoryCache",
    "Outcome",
    "PolicyConfig",
    "ProtocolViolation",
    "Record",
    "RedisCache",
    "RequestRate",
    "RobotsClient",
    "RobotsEntry",
    "RobotsTxt",
    "RobotskitError",
    "Rule",
    "RuleKind",
    "SQLiteCache",
    "Severity",
    "TokenVerdict",
    "UnknownProfile",
    "VerdictChange",
    "VerdictDiff",
    "VisitTime",
    "__version__",
    "authority_key",
    "diff_verdicts",
    "lex",
    "open_cache",
    "parse",
    "path_params_query",
    "product_token",
    "robots_txt_url",
]
