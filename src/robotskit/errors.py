"""The exception tree. Content never raises: a robots.txt body always parses.

RobotskitError
+-- InvalidArgument (also ValueError)      a caller passed something unusable
|   +-- InvalidURL                          no host, unsupported scheme, unparsable URL
|   +-- UnknownProfile                      profile name not rfc9309 / google / gemini
+-- FetchError                              the network layer could not get a response
|   |                                       (.url, .kind: timeout/dns/tls/connection/protocol/...)
|   +-- FetchTimeout
|   +-- ProtocolViolation                   a malformed HTTP, Gemini or FTP response
+-- CacheError                              a cache backend failed (.backend)
+-- ClientClosed (also RuntimeError)        a RobotsClient used after close()
"""

from __future__ import annotations


class RobotskitError(Exception):
    """Base class of every exception robotskit raises."""


class InvalidArgument(RobotskitError, ValueError):
    """The caller passed an argument robotskit cannot use."""


class InvalidURL(InvalidArgument):
    """A URL with no host, an unsupported scheme, or one that cannot be parsed."""

    def __init__(self, message: str, url: str = "") -> None:
        super().__init__(message)
        self.url = url


class UnknownProfile(InvalidArgument):
    """A profile name other than `rfc9309`, `google` or `gemini`."""


class FetchError(RobotskitError):
    """A robots.txt could not be fetched: no response, or a response robotskit cannot read.

    `kind` is one of: `timeout`, `dns`, `tls`, `connection`, `reset`, `protocol`, `refused`.
    """

    def __init__(self, message: str, *, url: str = "", kind: str = "connection") -> None:
        super().__init__(message)
        self.url = url
        self.kind = kind


class FetchTimeout(FetchError):
    """Connecting, sending or reading took longer than the timeout."""

    def __init__(self, message: str, *, url: str = "") -> None:
        super().__init__(message, url=url, kind="timeout")


class ProtocolViolation(FetchError):
    """The server answered, but not in the protocol's grammar (bad status line, bad header)."""

    def __init__(self, message: str, *, url: str = "") -> None:
        super().__init__(message, url=url, kind="protocol")


class CacheError(RobotskitError):
    """A cache backend failed to read or write."""

    def __init__(self, message: str, *, backend: str = "") -> None:
        super().__init__(message)
        self.backend = backend


class ClientClosed(RobotskitError, RuntimeError):
    """A `RobotsClient` or `AsyncRobotsClient` was used after `close()` (or its `with` block)."""
