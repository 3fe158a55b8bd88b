"""Where captures come from: WARC files, directories of robots.txt files, lists of hosts.

Everything here streams. A job is cut into `InputUnit`s (one WARC file, or a chunk of files or
hosts); a unit is the grain of scheduling and of resuming. Reading a unit yields `Capture`s one
at a time. WARC files are read by `robotskit.batch.warc`; host lists are fetched live with
`robotskit.RobotsClient`, whose policy, redirects and cache apply unchanged.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from robotskit.batch._values import Capture

WARC_SUFFIXES = (".warc", ".warc.gz")
MANIFEST = "manifest.jsonl"
DEFAULT_CHUNK = 200


@dataclass(frozen=True, slots=True)
class InputUnit:
    """One unit of work: a WARC file, or a chunk of `items`.

    `items` are (file name, base URL or None) for directories, (line number, host) for host lists.
    """

    kind: str  # "warc" | "dir" | "hosts"
    path: str
    items: tuple[tuple[str, str | None], ...] = field(default=())

    @property
    def label(self) -> str:
        if self.kind == "warc":
            return self.path
        return f"{self.path}[{self.items[0][0]}..{self.items[-1][0]}]" if self.items else self.path


def kind_of(path: Path) -> str:
    """Classify an input path: a WARC file by suffix, a directory, or else a list of hosts."""
    if path.is_dir():
        return "dir"
    if path.name.lower().endswith(WARC_SUFFIXES):
        return "warc"
    return "hosts"


def discover(paths: Sequence[str | Path], chunk: int = DEFAULT_CHUNK) -> list[InputUnit]:
    """Cut the inputs into units, in a stable order (so unit ids survive a rerun)."""
    units: list[InputUnit] = []
    for raw in paths:
        path = Path(raw)
        kind = kind_of(path)
        if kind == "warc":
            units.append(InputUnit("warc", str(path)))
        elif kind == "dir":
            units.extend(_chunks("dir", path, _directory_items(path), chunk))
        else:
            units.extend(_chunks("hosts", path, _host_items(path), chunk))
    return units


def _chunks(kind: str, path: Path, items: list[tuple[str, str | None]], chunk: int) -> Iterator[InputUnit]:
    for start in range(0, len(items), max(1, chunk)):
        yield InputUnit(kind, str(path), tuple(items[start : start + chunk]))


def _directory_items(root: Path) -> list[tuple[str, str | None]]:
    """Every regular file under `root` (sorted), with its site's base URL from a manifest.jsonl if any.

    The manifest convention is the corpus's: one JSON object per line with `file` and `base_url`
    (or `site`). Knowing the base URL lets Gemini captures be judged with the gemini profile.
    """
    bases: dict[str, str] = {}
    manifest = root / MANIFEST
    if manifest.is_file():
        with manifest.open(encoding="utf-8") as fh:
            for line in fh:
                entry = _json_object(line)
                name = entry.get("file")
                base = entry.get("base_url") or (f"https://{entry['site']}" if entry.get("site") else None)
                if isinstance(name, str) and isinstance(base, str):
                    bases[name] = base
    names = sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and p.name != MANIFEST and not p.name.startswith(".")
    )
    return [(name, bases.get(name)) for name in names]


def _json_object(line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _host_items(path: Path) -> list[tuple[str, str | None]]:
    """Non-empty, non-comment lines of a host list, keyed by line number."""
    items: list[tuple[str, str | None]] = []
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            text = line.split("#", 1)[0].strip()
            if text:
                items.append((str(number), text))
    return items


# --------------------------------------------------------------------------- directories


def read_directory(unit: InputUnit, max_bytes: int) -> Iterator[Capture]:
    """One capture per file; no status is known, so the body is taken as served with 200."""
    root = Path(unit.path)
    for index, (name, base) in enumerate(unit.items):
        file = root / name
        url = base.rstrip("/") + "/robots.txt" if base else None
        record = index
        try:
            stat = file.stat()
            with file.open("rb") as fh:
                body = fh.read(max_bytes + 1)
        except OSError as exc:
            yield Capture(source=str(file), record=record, url=url, host=_host(url), error=f"read: {exc}")
            continue
        yield Capture(
            source=str(file),
            record=record,
            url=url,
            host=_host(url),
            fetched_at=stat.st_mtime,
            body=body[:max_bytes],
            size=stat.st_size,
            truncated=len(body) > max_bytes,
        )


def _host(url: str | None) -> str | None:
    if not url:
        return None
    return urlsplit(url).hostname


# --------------------------------------------------------------------------- live fetches


@dataclass(frozen=True, slots=True)
class FetchOptions:
    """How host lists are fetched: politely, through one robotskit.RobotsClient per unit."""

    user_agent: str = "robotskit-batch"
    cache: str | None = None
    timeout: float = 10.0
    concurrency: int = 16  # fetches in flight overall (per unit, i.e. per worker task)
    per_host: int = 1  # fetches in flight per authority
    scheme: str = "https"  # for lines that are bare host names


def host_url(line: str, scheme: str) -> str:
    """A host-list line as a URL: full URLs are kept, bare hosts get `scheme://host/`."""
    return line if "://" in line else f"{scheme}://{line}/"


def read_hosts(unit: InputUnit, max_bytes: int, options: FetchOptions) -> Iterator[Capture]:
    """Fetch each host's robots.txt with the client (its policy, redirects and cache), in line order."""
    import robotskit  # noqa: PLC0415 - the client arrives with the fetch extras

    client_cls = getattr(robotskit, "RobotsClient", None)
    if client_cls is None:
        for number, line in unit.items:
            yield Capture(
                source=unit.path, record=int(number), url=line, error="robotskit.RobotsClient unavailable"
            )
        return
    kwargs: dict[str, Any] = {
        "user_agent": options.user_agent,
        "timeout": options.timeout,
        "max_bytes": max_bytes,
    }
    if options.cache:
        kwargs["cache"] = options.cache
    locks: dict[str, threading.BoundedSemaphore] = {}
    guard = threading.Lock()

    def slot(key: str) -> threading.BoundedSemaphore:
        with guard:
            return locks.setdefault(key, threading.BoundedSemaphore(max(1, options.per_host)))

    with client_cls(options.user_agent, **kwargs) as client:

        def fetch(item: tuple[str, str | None]) -> Capture:
            number, line = item
            url = host_url(line or "", options.scheme)
            key = _authority(url)
            with slot(key):
                try:
                    entry = client.lookup(url)
                except Exception as exc:  # a failed host is a row, never the end of the job
                    return Capture(
                        source=unit.path,
                        record=int(number),
                        url=url,
                        host=_host(url),
                        error=f"fetch: {type(exc).__name__}: {exc}",
                    )
            return _entry_capture(unit.path, int(number), url, entry)

        with ThreadPoolExecutor(max_workers=max(1, options.concurrency)) as pool:
            yield from pool.map(fetch, unit.items)


def _authority(url: str) -> str:
    try:
        from robotskit import authority_key  # noqa: PLC0415

        return str(authority_key(url))
    except (ImportError, ValueError):
        # Not a host robotskit can key (InvalidURL): the lookup reports it as this row's error.
        return url


def _entry_capture(source: str, number: int, url: str, entry: Any) -> Capture:
    """A capture from a RobotsEntry: the client already applied the policy, so its outcome stands."""
    outcome = getattr(entry, "outcome", None)
    redirects = tuple(getattr(entry, "redirects", ()) or ())
    status = getattr(entry, "status", None)
    return Capture(
        source=source,
        record=number,
        url=str(getattr(entry, "robots_url", url) or url),
        host=_host(url),
        fetched_at=getattr(entry, "fetched_at", None),
        status=status,
        final_status=status,
        redirects=redirects,
        outcome=str(getattr(outcome, "value", outcome)) if outcome is not None else None,
        reason=str(getattr(entry, "reason", "")),
        body=bytes(getattr(entry, "body", b"") or b""),
        size=getattr(entry, "size", None),
        truncated=bool(getattr(entry, "truncated", False)),
    )


def read_unit(unit: InputUnit, max_bytes: int, options: FetchOptions | None = None) -> Iterator[Capture]:
    """The captures of one unit, whatever its kind."""
    if unit.kind == "warc":
        from robotskit.batch.warc import read_warc  # noqa: PLC0415 - warcio is only needed for WARC inputs

        return read_warc(unit.path, max_bytes)
    if unit.kind == "dir":
        return read_directory(unit, max_bytes)
    return read_hosts(unit, max_bytes, options or FetchOptions())


def unit_fingerprint(unit: InputUnit) -> str:
    """What makes a unit's results reusable: its identity plus the file's size and mtime."""
    try:
        stat = Path(unit.path).stat()
        stamp = f"{stat.st_size}:{stat.st_mtime_ns}" if unit.kind != "dir" else ""
    except OSError:
        stamp = "missing"
    return json.dumps([unit.kind, str(Path(unit.path).resolve()), stamp, list(unit.items)], sort_keys=True)
