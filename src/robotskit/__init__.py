"""robotskit: exact robots.txt parsing, matching, fetching and caching for the web and Gemini.

    >>> import robotskit
    >>> robots = robotskit.parse(b"User-agent: *\\nDisallow: /private/\\n")
    >>> robots.allowed("https://example.com/private/x", "MyBot")
    False

The core (parse, match) uses only the standard library. See README.md for the tour.
"""

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
