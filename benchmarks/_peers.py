"""Adapters giving every implementation the same two calls: ``parse(body)`` and ``check(parsed, url, agent)``.

Everything an implementation needs to turn the raw bytes into its own input (decoding to ``str`` for the
``str``-only peers) happens inside ``parse``, because a crawler holds bytes: that cost is part of parsing.
Google's C++ library (both bindings) has no parsed object: every call parses the body again, so its
``parse`` only keeps the body and its ``check`` is parse + match. The table says so.
"""

# Peers are imported inside their factory on purpose: a peer that is not installed becomes a "not available"
# column instead of an ImportError for the whole suite.
# ruff: noqa: PLC0415

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any

ParseFn = Callable[[bytes], Any]
CheckFn = Callable[[Any, str, str], Any]  # peers return bool or bool-like


@dataclass(slots=True)
class Impl:
    """One implementation under test, or the reason it is missing."""

    name: str
    kind: str  # "python" (tracemalloc sees its memory) or "native"
    parse: ParseFn | None = None
    check: CheckFn | None = None
    version: str = ""
    # bind(parsed) -> the library's own callable for that parsed file, so the timed loop calls it with no
    # adapter frame in between; agent_first says whether it takes (agent, url) rather than (url, agent).
    bind: Callable[[Any], Callable[[str, str], Any]] | None = None
    agent_first: bool = False
    reparses: bool = False  # check() re-parses the whole body on every call
    # full(parsed) forces a lazy parse to read the whole file: the parse measure then includes it
    full: Callable[[Any], Any] | None = None
    missing: str = ""  # "not available: <reason>" when it could not be loaded
    notes: list[str] = field(default_factory=list)

    @property
    def available(self) -> bool:
        return not self.missing


def _text(body: bytes) -> str:
    # The str-only peers get what a crawler would give them: UTF-8, undecodable bytes replaced.
    return body.decode("utf-8", "replace")


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def _robotskit(profile: str | None) -> Impl:
    if importlib.util.find_spec("robotskit") is None:  # outside .venv-bench: measure the working tree
        sys.path.insert(1, str(Path(__file__).resolve().parents[1] / "src"))
    import robotskit

    parse_fn = robotskit.parse

    if profile is None:

        def parse(body: bytes) -> Any:
            return parse_fn(body)
    else:

        def parse(body: bytes) -> Any:
            return parse_fn(body, profile)

    def check(robots: Any, url: str, agent: str) -> Any:
        return robots.allowed(url, agent)

    parse(b"User-agent: *\nDisallow: /x\n").allowed("http://e.com/x", "bot")  # fail early if unusable
    name = "robotskit" if profile is None else f"robotskit[{profile}]"
    return Impl(
        name,
        "python",
        parse,
        check,
        str(getattr(robotskit, "__version__", _version("robotskit"))),
        bind=lambda r: r.allowed,
        # robotskit reads only what the first check needs; the parse measure is the whole read
        # (groups, records, sitemaps, diagnostics), which any of these properties forces.
        full=lambda r: r.sitemaps,
    )


def _protego() -> Impl:
    from protego import Protego

    def parse(body: bytes) -> Any:
        return Protego.parse(_text(body))

    def check(rp: Any, url: str, agent: str) -> Any:
        return rp.can_fetch(url, agent)

    return Impl("Protego", "python", parse, check, _version("Protego"), bind=lambda rp: rp.can_fetch)


def _urllib() -> Impl:
    import platform
    from urllib.robotparser import RobotFileParser

    def parse(body: bytes) -> Any:
        rp = RobotFileParser()
        rp.parse(_text(body).splitlines())
        return rp

    def check(rp: Any, url: str, agent: str) -> Any:
        return rp.can_fetch(agent, url)

    version = f"py{platform.python_version()}"
    return Impl("urllib", "python", parse, check, version, bind=lambda rp: rp.can_fetch, agent_first=True)


def _robotspy() -> Impl:
    from robots import RobotsParser

    def parse(body: bytes) -> Any:
        return RobotsParser.from_string(_text(body))

    def check(rp: Any, url: str, agent: str) -> Any:
        return rp.can_fetch(agent, url)

    return Impl(
        "robotspy",
        "python",
        parse,
        check,
        _version("robotspy"),
        bind=lambda rp: rp.can_fetch,
        agent_first=True,
    )


def _reppy() -> Impl:
    from reppy.robots import Robots

    def parse(body: bytes) -> Any:
        return Robots.parse("", body)

    def check(rp: Any, url: str, agent: str) -> Any:
        return rp.allowed(url, agent)

    return Impl("reppy", "native", parse, check, _version("reppy"), bind=lambda rp: rp.allowed)


def _fast_robotstxt() -> Impl:
    from robotstxt import RobotsMatcher

    matcher = RobotsMatcher()

    def parse(body: bytes) -> Any:
        return _text(body)  # the binding takes str and encodes it again on every call

    def check(text: Any, url: str, agent: str) -> Any:
        return matcher.is_allowed(text, agent, url)

    return Impl(
        "fast-robotstxt",
        "native",
        parse,
        check,
        _version("fast-robotstxt"),
        bind=lambda text: partial(matcher.is_allowed, text),
        agent_first=True,
        reparses=True,
    )


def _jwm() -> Impl:
    from jwm.robotstxt import googlebot

    matcher = googlebot.RobotsMatcher()
    one = matcher.OneAgentAllowedByRobots

    def parse(body: bytes) -> Any:
        return body  # pybind11 takes bytes as std::string: no decoding at all

    def check(body: Any, url: str, agent: str) -> Any:
        return one(body, agent, url)

    return Impl(
        "jwm.robotstxt",
        "native",
        parse,
        check,
        _version("jwm.robotstxt"),
        bind=lambda body: partial(one, body),
        agent_first=True,
        reparses=True,
    )


FACTORIES: dict[str, Callable[[], Impl]] = {
    "robotskit": lambda: _robotskit(None),
    "Protego": _protego,
    "urllib": _urllib,
    "robotspy": _robotspy,
    "reppy": _reppy,
    "fast-robotstxt": _fast_robotstxt,
    "jwm.robotstxt": _jwm,
}
ORDER = tuple(FACTORIES)
# Opt-in columns (`--only robotskit,robotskit[google],...`): robotskit in its other profiles.
FACTORIES["robotskit[google]"] = lambda: _robotskit("google")
FACTORIES["robotskit[rfc9309]"] = lambda: _robotskit("rfc9309")
KIND = {
    "robotskit[google]": "python",
    "robotskit[rfc9309]": "python",
    "robotskit": "python",
    "Protego": "python",
    "urllib": "python",
    "robotspy": "python",
    "reppy": "native",
    "fast-robotstxt": "native",
    "jwm.robotstxt": "native",
}


def load(name: str) -> Impl:
    """Load one implementation; a failure becomes ``Impl.missing`` instead of an exception."""
    if name == "reppy":
        marker = Path(__file__).resolve().parents[1] / ".venv-bench" / "reppy-unavailable.txt"
        if marker.exists() and importlib.util.find_spec("reppy") is None:
            return Impl(name, KIND[name], missing=f"not available: {marker.read_text().strip()}")
    try:
        return FACTORIES[name]()
    except Exception as exc:  # any failure to load a peer becomes a "not available" column
        return Impl(name, KIND[name], missing=f"not available: {type(exc).__name__}: {exc}"[:160])


def load_google_reference() -> tuple[CheckFn | None, str]:
    """The jwm.robotstxt check used as the exactness oracle for robotskit's google profile."""
    impl = load("jwm.robotstxt")
    return impl.check, impl.missing


def load_robotskit_google() -> Impl:
    try:
        return _robotskit("google")
    except Exception as exc:
        return Impl("robotskit[google]", "python", missing=f"not available: {type(exc).__name__}: {exc}")
