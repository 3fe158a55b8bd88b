"""robotskit: exact robots.txt parsing, matching, fetching and caching for the web and Gemini.

    >>> import robotskit
    >>> robots = robotskit.parse(b"User-agent: *\\nDisallow: /private/\\n")
    >>> robots.allowed("https://example.com/private/x", "MyBot")
    False

The core (parse, match) uses only the standard library. See README.md for the tour.
"""

from robotskit._lexer import lex
from robotskit._model import (
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
from robotskit._robots import RobotsTxt, parse
from robotskit._url import path_params_query
from robotskit.agents import GEMINI_PURPOSES, Agent, product_token
from robotskit.errors import (
    CacheError,
    FetchError,
    FetchTimeout,
    InvalidArgument,
    InvalidURL,
    ProtocolViolation,
    RobotskitError,
    UnknownProfile,
)
from robotskit.extensions import RequestRate
from robotskit.profiles import PROFILES

__version__ = "0.1.0"

__all__ = [
    "GEMINI_PURPOSES",
    "PROFILES",
    "Agent",
    "CacheError",
    "Decision",
    "Diagnostic",
    "FetchError",
    "FetchTimeout",
    "Group",
    "InvalidArgument",
    "InvalidURL",
    "Line",
    "LineKind",
    "ProtocolViolation",
    "Record",
    "RequestRate",
    "RobotsTxt",
    "RobotskitError",
    "Rule",
    "RuleKind",
    "Severity",
    "TokenVerdict",
    "UnknownProfile",
    "__version__",
    "lex",
    "parse",
    "path_params_query",
    "product_token",
]
