"""Where a command's input comes from: ROBOTS (a file, `-` for stdin, or a fetched URL), URL lists and agents.

Also owns the exit statuses and `CliError`, the one exception a command raises for a usage or
I/O problem, and the client every fetching command shares (cache, timeout, profile).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import robotskit
from robotskit.cli._origin import FILE, STDIN, Origin, fetch_entry
from robotskit.cli._output import warn
from robotskit.core.agents import GEMINI_PURPOSES, MERGE, product_token
from robotskit.core.crawlers import load_crawlers
from robotskit.core.profiles import profile_for_url
from robotskit.errors import FetchError
from robotskit.fetch.gemini import TofuStore
from robotskit.policy.authority import authority_key, robots_txt_url

if TYPE_CHECKING:
    from robotskit import RobotsTxt
    from robotskit.core.model import Decision
    from robotskit.policy.flow import RobotsEntry

__all__ = [
    "ERROR",
    "FOUND",
    "OK",
    "URL_SCHEMES",
    "CliClient",
    "CliError",
    "Loaded",
    "agent_of",
    "agent_value",
    "agents_of",
    "cache_spec",
    "default_cache_path",
    "is_url",
    "load",
    "load_file",
    "make_client",
    "pins_path",
    "profile_of",
    "read_local",
    "read_url_file",
    "split_targets",
    "warn",
]

OK, FOUND, ERROR = 0, 1, 2  # Google's robots_main convention
URL_SCHEMES = ("http", "https", "ftp", "gemini")


class CliError(Exception):
    """A usage or I/O problem: reported on stderr (or as JSON) with exit code 2."""


def default_cache_path() -> Path:
    """The default SQLite cache file: the one $ROBOTSKIT_CACHE names (a path or a sqlite:// URL),
    else the file in the user's cache dir (XDG on Unix). When $ROBOTSKIT_CACHE is another cache URL
    (memory://, redis://...), `cache_spec` uses that cache and no SQLite file is used."""
    override = os.environ.get("ROBOTSKIT_CACHE", "")
    if override and "://" not in override:
        return Path(override)
    if override.lower().startswith("sqlite://") and (file := _sqlite_file(override)):
        return Path(file)
    if base := os.environ.get("XDG_CACHE_HOME"):
        root = Path(base)
    elif sys.platform == "win32":
        root = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        root = Path.home() / "Library" / "Caches"
    else:
        root = Path.home() / ".cache"
    return root / "robotskit" / "robots.db"


def _sqlite_file(url: str) -> str:
    """The file of a sqlite:// URL as open_cache reads it: sqlite:///abs/x.db -> /abs/x.db,
    sqlite://x.db -> x.db."""
    return url[len("sqlite://") :].split("?", 1)[0].split("#", 1)[0]


def cache_spec(args: argparse.Namespace) -> str:
    """The cache URL: memory:// with --no-cache; else --cache, else $ROBOTSKIT_CACHE (both read
    alike: a cache URL as given, anything else a SQLite file); else the default SQLite file.

    Nothing is created here (the SQLite cache makes its directory when opened), so a read-only
    `cache info` leaves the disk as it found it. An empty value or an unknown scheme is refused.
    """
    if args.no_cache:
        return "memory://"
    given, where = args.cache, "--cache"
    if given is None:
        # an empty $ROBOTSKIT_CACHE is unset, as the shell convention goes
        given, where = os.environ.get("ROBOTSKIT_CACHE") or None, "$ROBOTSKIT_CACHE"
    if given is not None and not given.strip():
        raise CliError(f"{where} is empty: give a SQLite file or a cache URL")
    if given is not None and "://" in given:
        # open_cache's schemes: a URL of another scheme would be refused only later, per fetch
        if given.partition("://")[0].lower() not in ("memory", "sqlite", "redis", "rediss", "unix"):
            raise CliError(
                f"{where} {given!r} is not a cache URL: use memory://, sqlite:///path/file.db, "
                "redis://host:port/db, or a SQLite file path"
            )
        return str(given)
    path = Path(given) if given is not None else default_cache_path()
    try:
        return f"sqlite://{path.resolve()}"  # sqlite:///abs/path.db
    except (OSError, ValueError) as exc:  # a NUL in the path, a symlink loop
        raise CliError(f"{where} {str(path)!r} is not a usable file path: {exc}") from exc


def is_url(text: str) -> bool:
    """A URL of a scheme robotskit fetches. (`urlsplit` raises on a broken bracketed host, as
    in `http://[::1`: such text still reads as a URL, and the check of the URL refuses it.)"""
    if "://" not in text:
        return False
    scheme = text.partition(":")[0]
    return scheme.lower() in URL_SCHEMES


def is_robots_url(text: str) -> bool:
    """A URL naming a robots.txt itself: robots.txt lives only at `/robots.txt` (RFC 9309 2.3)."""
    try:
        return is_url(text) and urlsplit(text).path == "/robots.txt"
    except ValueError:
        return False


def split_targets(targets: Sequence[str], robots: str | None) -> tuple[str | None, list[str]]:
    """Tell ROBOTS from the URLs to check.

    With `--robots`, every positional is a URL. Otherwise the first positional is ROBOTS when
    it is `-`, anything that is not a URL (a file path), or a URL whose path is `/robots.txt`;
    if it is any other URL, there is no ROBOTS and each URL's own robots.txt is fetched.
    """
    if robots is not None or not targets:
        return robots, list(targets)
    first = targets[0]
    if first == "-" or not is_url(first) or is_robots_url(first):
        return first, list(targets[1:])
    return None, list(targets)


# The most of a file or stdin a command reads. A robots.txt parser reads the first 500 KiB
# (RFC 9309 2.5), so a verdict never depends on what lies past this; `/dev/zero` or an endless
# pipe must not take all memory. URL lists (`--urls`) are refused past it.
READ_LIMIT = 16 * 1024 * 1024


def read_local(source: str, what: str = "ROBOTS") -> bytes:
    """A file's (or stdin's, for `-`) first READ_LIMIT bytes; a warning says when there was more."""
    data = _read_bounded(source)
    if len(data) > READ_LIMIT:
        shown = "standard input" if source == "-" else source
        warn(
            f"{what} {shown} is larger than {READ_LIMIT // 1024 // 1024} MiB: only its first "
            f"{READ_LIMIT // 1024 // 1024} MiB were read (a robots.txt parser reads the first 500 KiB)"
        )
        data = data[:READ_LIMIT]
    return data


def _read_bounded(source: str) -> bytes:
    """At most READ_LIMIT + 1 bytes of `source` (one more tells a longer input)."""
    if not source:
        raise CliError("cannot read an empty path: give a file, - for stdin, or a robots.txt URL")
    if source == "-":
        stream = sys.stdin
        if stream is None:  # started with stdin closed (`<&-`)
            raise CliError("cannot read standard input: standard input is closed")
        try:
            return stream.buffer.read(READ_LIMIT + 1)
        except (OSError, ValueError) as exc:
            raise CliError(f"cannot read standard input: {exc}") from exc
    try:
        with Path(source).open("rb") as handle:
            return handle.read(READ_LIMIT + 1)
    except FileNotFoundError as exc:
        # `check example.com /x`: a host name is not a file; say what to write instead.
        if "/" not in source and "." in source.strip("."):
            raise CliError(
                f"cannot read {source}: no such file (for a site, give https://{source}/robots.txt)"
            ) from exc
        raise CliError(f"cannot read {source}: {exc.strerror or exc}") from exc
    except OSError as exc:
        raise CliError(f"cannot read {source}: {exc.strerror or exc}") from exc
    except ValueError as exc:  # a NUL in the path
        raise CliError(f"cannot read {source!r}: {exc}") from exc


@dataclass(frozen=True, slots=True)
class Loaded:
    """A ROBOTS argument, read: the parsed file (None if the fetch gave no file), the fetch entry
    when it was a URL, and where it came from (`origin`: file, stdin, fetched, cached or stale)."""

    source: str
    robots: RobotsTxt | None
    origin: Origin
    entry: RobotsEntry | None = None


class _RecordingTofu(TofuStore):
    """The CLI's pins: a TofuStore that also remembers a changed certificate, to report it as such."""

    def __init__(self, path: Path | None) -> None:
        super().__init__(path)
        self.changed: dict[str, tuple[str, str]] = {}  # host:port -> (pinned, presented)

    def check(
        self, host: str, port: int, sha256: str, *, expires: float | None = None, url: str = ""
    ) -> None:
        pinned = self.get(host, port)
        try:
            super().check(host, port, sha256, expires=expires, url=url)
        except FetchError:
            if pinned is not None:
                self.changed[self.key(host, port)] = (pinned.sha256, sha256.lower())
            raise


def pins_path(args: argparse.Namespace) -> Path | None:
    """Where Gemini certificate pins persist: beside the SQLite cache file (a path or a sqlite://
    URL, from --cache or $ROBOTSKIT_CACHE, else the default file).

    None (pins in memory only) with --no-cache and for a memory:// or Redis cache: they have no
    file to sit beside, and the default file's pins belong to the default cache, so using or
    clearing another cache must never read or wipe them.
    """
    if getattr(args, "no_cache", False):
        return None
    spec = cache_spec(args)  # refuses what the cache would refuse, before a directory is made
    if not spec.lower().startswith("sqlite://"):
        return None
    given = getattr(args, "cache", None)
    if given is not None and "://" in given:
        base = Path(_sqlite_file(given))
    else:
        base = Path(given) if given is not None else default_cache_path()  # $ROBOTSKIT_CACHE's
    return base.parent / "gemini-pins.json"


class CliClient:
    """The client a command fetches with, and the Gemini pins it trusts on first use (persisted)."""

    def __init__(self, args: argparse.Namespace, agent: str | robotskit.Agent) -> None:
        from robotskit.client.clients import RobotsClient  # noqa: PLC0415 - only commands that fetch need it
        from robotskit.fetch.gemini import GeminiFetcher  # noqa: PLC0415

        path = pins_path(args)
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except (FileExistsError, NotADirectoryError) as exc:
                raise CliError(
                    f"cannot use the cache folder {path.parent}: a file, not a folder, is in the way "
                    f"({exc.filename})"
                ) from exc
        self.tofu = _RecordingTofu(path)
        self.refresh = bool(getattr(args, "refresh", False))
        self.client = RobotsClient(
            agent,
            user_agent=getattr(args, "user_agent", None),
            cache=cache_spec(args),
            profile=getattr(args, "profile", None),
            timeout=args.timeout,
            fetchers={"gemini": GeminiFetcher(self.tofu)},
        )
        # authority -> where its answer came from (the first lookup's origin: a later one in
        # the same command is answered from the cache but is just as fresh)
        self.origins: dict[str, Origin] = {}

    def lookup(self, url: str) -> tuple[RobotsEntry, Origin]:
        """`url`'s robots.txt entry and its origin; --refresh refetches once per authority."""
        key = authority_key(url)
        entry, origin = fetch_entry(self.client, url, refresh=self.refresh and key not in self.origins)
        return entry, self.origins.setdefault(key, origin)

    def decide(self, url: str, agent: str | robotskit.Agent) -> tuple[Decision, Origin]:
        _, origin = self.lookup(url)
        return self.client.decide(url, agent), origin

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> CliClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def make_client(args: argparse.Namespace, agent: str | robotskit.Agent | None = None) -> CliClient:
    if agent is None:
        agents = agents_of(args, required=False)
        agent = agents[0] if agents else "robotskit"
    return CliClient(args, agent)


def load(source: str, args: argparse.Namespace, client: CliClient | None = None) -> Loaded:
    """Read ROBOTS: a file or stdin is parsed; a robots.txt URL is fetched through the client.

    The profile is `--profile`, else the one the URL's scheme implies (gemini for gemini://), so
    lint and audit judge a Gemini file as Gemini crawlers read it.
    """
    profile = profile_of(args, source)
    if is_url(source):
        if client is not None:
            entry, origin = client.lookup(source)
        else:
            with make_client(args, "robotskit") as own:
                entry, origin = own.lookup(source)
        return Loaded(source, entry.parsed(profile), origin, entry)
    if "://" in source:
        raise CliError(f"unsupported URL scheme in {source!r}: use one of {', '.join(URL_SCHEMES)}")
    origin = Origin(STDIN, "-") if source == "-" else Origin(FILE, source)
    return Loaded(source, robotskit.parse(read_local(source), profile), origin)


def agent_value(text: str, args: argparse.Namespace) -> str | robotskit.Agent:
    """The one place an `--agent` string becomes the agent judged (with --purpose/--alias/--combine).

    An empty value is refused; a full user-agent string is reduced to its product token (RFC
    9309 2.2.1) with a warning saying so, since only that token is matched against the file.
    """
    stripped = text.strip()
    if not stripped:
        raise CliError("--agent is empty: give the crawler's product token, e.g. --agent MyBot")
    if "://" in stripped or stripped.startswith("/"):
        raise CliError(
            f"--agent {text!r} looks like a URL or a path, not a crawler's product token "
            "(were --agent and a URL swapped?)"
        )
    token = product_token(stripped)
    if not token:
        raise CliError(f"--agent {text!r} has no product token (letters, digits, '-' or '_')")
    if token != stripped:
        warn(
            f"--agent {text!r} is a user-agent string, not a product token: judged as {token!r} "
            "(RFC 9309 2.2.1 matches the product token only)"
        )
    purposes = tuple(getattr(args, "purpose", None) or ())
    aliases = tuple(getattr(args, "alias", None) or ())
    for alias in aliases:
        if not product_token(alias) or product_token(alias) != alias.strip():
            raise CliError(f"--alias {alias!r} is not a product token (letters, digits, '-' or '_')")
    fallbacks = _table_fallbacks(token)
    if not purposes and not aliases and not fallbacks:
        return token
    combine = getattr(args, "combine", None) or MERGE
    return robotskit.Agent(token, purposes=purposes, aliases=aliases, combine=combine, fallbacks=fallbacks)


def _table_fallbacks(token: str) -> tuple[str, ...]:
    """A known crawler's documented fallback chain (bundled table), said on stderr when it has one."""
    crawler = load_crawlers().get(token)
    if crawler is None or not crawler.fallbacks:
        return ()
    chain = ", then ".join(crawler.chain)
    sys.stderr.write(
        f"robotskit: note: --agent {token} is a known crawler (bundled crawler table): it obeys {chain}, "
        f"the first that a group names, else '*' ({crawler.operator}: {crawler.fallbacks_source})\n"
    )
    return crawler.fallbacks


def agents_of(args: argparse.Namespace, *, required: bool = True) -> list[str | robotskit.Agent]:
    """Every `--agent` (repeatable: each is judged separately), in the order given, duplicates dropped."""
    given: list[str] = list(getattr(args, "agent", None) or ())
    for purpose in getattr(args, "purpose", None) or ():
        if purpose.lower() not in GEMINI_PURPOSES:
            raise CliError(f"unknown --purpose {purpose!r}: purposes are {', '.join(GEMINI_PURPOSES)}")
    if not given:
        if required:
            raise CliError("give the crawler's product token with --agent NAME")
        if getattr(args, "purpose", None) or getattr(args, "alias", None):
            raise CliError("--purpose and --alias describe an --agent: give --agent NAME too")
        return []
    agents: dict[str | robotskit.Agent, None] = {}
    for text in given:
        agents.setdefault(agent_value(text, args), None)
    return list(agents)


def profile_of(args: argparse.Namespace, source: str | None) -> str | None:
    """`--profile`, else the profile a ROBOTS URL's scheme implies (None for a file: chosen per URL)."""
    chosen: str | None = getattr(args, "profile", None)
    if chosen is None and source is not None and is_url(source):
        chosen = profile_for_url(source).name
    return chosen


def agent_of(args: argparse.Namespace) -> str | robotskit.Agent:
    """The first `--agent` (commands that judge one agent at a time loop over `agents_of`)."""
    return agents_of(args)[0]


def read_url_file(path: str) -> list[str]:
    data = _read_bounded(path)
    if len(data) > READ_LIMIT:
        shown = "standard input" if path == "-" else path
        raise CliError(f"--urls {shown} is larger than {READ_LIMIT // 1024 // 1024} MiB: split the list")
    text = data.decode("utf-8", "replace")
    return [s for s in (line.strip() for line in text.splitlines()) if s and not s.startswith("#")]


def load_file(source: str, args: argparse.Namespace) -> Loaded:
    """Read ROBOTS for a command that needs the file itself; a fetch that gave none is an error (exit 2).

    A URL that is not a robots.txt (`lint https://example.com/shop`) stands for the robots.txt
    of its authority; a warning says which file that is.
    """
    if is_url(source) and not is_robots_url(source):
        warn(f"{source} is not a robots.txt URL: using {robots_txt_url(source)}, which governs it")
    loaded = load(source, args)
    if loaded.robots is None:
        reason = loaded.entry.reason if loaded.entry else "no file"
        raise CliError(f"cannot read {source}: {reason} ({loaded.origin.describe()})")
    return loaded
