"""Where captures come from: WARC files, directories of robots.txt files, lists of hosts.

Everything here streams. A job is cut into `InputUnit`s (one WARC file, or a chunk of files or
hosts); a unit is the grain of scheduling and of resuming. Reading a unit yields `Capture`s one
at a time. WARC files are read by `robotskit.batch.warc`; host lists are fetched live with
`robotskit.RobotsClient`, whose policy, redirects and cache apply unchanged.
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from robotskit import RobotsEntry, authority_key
from robotskit.batch._values import Capture
from robotskit.batch.warc import read_warc
from robotskit.batch.warc_ranges import MemberIndex, read_warc_range, split_points

WARC_SUFFIXES = (".warc", ".warc.gz")
MANIFEST = "manifest.jsonl"
DEFAULT_CHUNK = 200
_MAX_LINE = 2048  # a host-list line longer than this is not a host
_MAX_NAME = 4096  # bytes: PATH_MAX on Linux; a longer manifest `file` names no file
_SHOWN = 120  # characters of a file name quoted in an error


@dataclass(frozen=True, slots=True)
class Item:
    """One file of a directory or one line of a host list.

    `key` is the file's path relative to the directory, or the line number; `value` the file's
    robots.txt URL (None: unknown) or the host-list line; `error` why it cannot be read (the
    item still becomes a row, with that error).
    """

    key: str
    value: str | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class InputUnit:
    """One unit of work: a WARC file, or a chunk of directory files or host-list lines."""

    kind: str  # "warc" | "dir" | "hosts"
    path: str
    items: tuple[Item, ...] = field(default=())
    # A byte range of a WARC file: the records that start in [start, end) (end None: to the end).
    span: tuple[int, int | None] | None = None

    @property
    def label(self) -> str:
        if self.span is not None:
            return f"{self.path}[{self.span[0]}:{'' if self.span[1] is None else self.span[1]}]"
        if self.kind == "warc":
            return self.path
        return f"{self.path}[{self.items[0].key}..{self.items[-1].key}]" if self.items else self.path


@dataclass(frozen=True, slots=True)
class Plan:
    """The units of a run, and how many directory files were not read (not robots.txt files)."""

    units: list[InputUnit]
    skipped_files: int = 0


class InputError(ValueError):
    """An input that does not exist or cannot be read: the run does not start."""


def kind_of(path: Path) -> str:
    """Classify an input path: a WARC file by suffix, a directory, or else a list of hosts."""
    if path.is_dir():
        return "dir"
    if path.name.lower().endswith(WARC_SUFFIXES):
        return "warc"
    return "hosts"


def discover(paths: Sequence[str | Path], chunk: int = DEFAULT_CHUNK, split: int | None = None) -> Plan:
    """Cut the inputs into units, in a stable order (so unit ids survive a rerun).

    `split`: cut a `.warc.gz` file bigger than this many bytes into ranges of about that size
    (robotskit.batch.warc_ranges), for runs whose units go to several workers.
    Raises `InputError` (one line) for an input that is missing or unreadable, before anything runs.
    """
    units: list[InputUnit] = []
    skipped = 0
    for raw in paths:
        if not os.fspath(raw):  # (Path("") is ".": the run would read the working directory)
            raise InputError("an input path is empty")
        path = Path(raw)
        _check_readable(path)
        kind = kind_of(path)
        if kind == "warc":
            units.extend(_warc_units(path, split))
        elif kind == "dir":
            items, not_read = _directory_items(path)
            skipped += not_read
            units.extend(_chunks("dir", path, items, chunk))
        else:
            units.extend(_chunks("hosts", path, _host_items(path), chunk))
    return Plan(units, skipped)


def _warc_units(path: Path, split: int | None) -> list[InputUnit]:
    size = path.stat().st_size
    if split is None or size <= split or not path.name.lower().endswith(".gz"):
        return [InputUnit("warc", str(path))]
    points = split_points(str(path), size, split)
    if len(points) < 2:
        return [InputUnit("warc", str(path))]
    ends: list[int | None] = [*points[1:], None]
    return [InputUnit("warc", str(path), span=(start, end)) for start, end in zip(points, ends, strict=True)]


def _check_readable(path: Path) -> None:
    name = _quoted(str(path))  # escapes, so that a hostile name cannot drive the terminal
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise InputError(f"no such input: {name}") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read input {name}: {getattr(exc, 'strerror', None) or exc}") from None
    # A pipe (`<(...)`), a device or a socket is refused before it is opened: opening a FIFO to
    # read waits for a writer, /dev/zero never ends, and a pipe could not be read twice (the
    # run counts its lines, then reads them) nor be recognised on a rerun.
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise InputError(
            f"input {name} is not a regular file or folder ({_kind(mode)}): save it to a file first"
        )
    try:
        if stat.S_ISDIR(mode):
            next(iter(path.iterdir()), None)
        else:
            with path.open("rb") as fh:
                fh.read(1)
    except OSError as exc:
        raise InputError(f"cannot read input {name}: {exc.strerror or exc}") from None


def _chunks(kind: str, path: Path, items: list[Item], chunk: int) -> Iterator[InputUnit]:
    for start in range(0, len(items), max(1, chunk)):
        yield InputUnit(kind, str(path), tuple(items[start : start + chunk]))


def _directory_items(root: Path) -> tuple[list[Item], int]:
    """The files of a directory to read (sorted), with their robots.txt URL, and how many were not read.

    With a `manifest.jsonl` (one JSON object per line), exactly the files it names are read. Each
    line gives `file` (relative to the manifest, or to its `files/` folder as in the shared
    corpus) and either `url` (the robots.txt URL) or `site` and `kind` (`web`:
    https://SITE/robots.txt, `gemini`: gemini://SITE/robots.txt) or `base_url`. A line that
    cannot be used is an item with an error. Without a manifest, `robots.txt` and `*.txt` files
    are read. Every other file is counted as skipped. Whether a file is a regular file inside
    the directory is checked when it is read (read_directory): a FIFO, a device or a link
    leading outside becomes an error row there.
    """
    manifest = root / MANIFEST
    present = _listing(root)
    if not manifest.is_file():
        read = [name for name in present if name.lower().endswith(".txt")]
        return [Item(name) for name in read], len(present) - len(read)
    items: list[Item] = []
    used: set[str] = {MANIFEST}
    with manifest.open("rb") as fh:
        for number, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            item = _manifest_item(root, number, raw)
            used.add(item.key)
            items.append(item)
    return items, sum(1 for name in present if name not in used)


def _listing(root: Path) -> list[str]:
    """Every file under `root` that is not a directory (FIFOs, devices and links included: they
    become error rows if read), as sorted relative POSIX paths; hidden files and folders are
    left out, and links to folders are not followed."""
    names: list[str] = []
    for top, folders, files in os.walk(root):
        folders[:] = [name for name in folders if not name.startswith(".")]
        where = Path(top).relative_to(root)
        names.extend((where / name).as_posix() for name in files if not name.startswith("."))
    return sorted(names)


def _manifest_item(root: Path, number: int, raw: bytes) -> Item:
    where = f"{MANIFEST} line {number}"
    try:
        entry = json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: `[[[[...` nested past the stack
        return Item(where, error=f"{where}: not a JSON object")
    if not isinstance(entry, dict) or not isinstance(entry.get("file"), str) or not entry["file"]:
        return Item(where, error=f"{where}: no `file`")
    name = str(entry["file"])
    problem = _name_problem(name)
    if problem is not None:
        return Item(where, error=f"{where}: {problem}")
    if not _is_file(root / name) and _is_file(root / "files" / name):
        name = f"files/{name}"
    try:
        url = manifest_url(entry)
    except ValueError as exc:
        return Item(name, error=f"{where}: {exc}")
    if url is not None and not _is_text(url):
        return Item(name, error=f"{where}: the robots.txt URL is not valid Unicode: {_quoted(url)}")
    return Item(name, url)


def _name_problem(name: str) -> str | None:
    """Why a manifest `file` cannot name a file inside the directory, or None."""
    if "\x00" in name:
        return f"`file` holds a NUL character: {_quoted(name)}"
    try:
        size = len(os.fsencode(name))
    except UnicodeError:
        return f"`file` is not a file name (not valid Unicode): {_quoted(name)}"
    if size > _MAX_NAME:
        return f"`file` is too long to be a file name ({len(name):,} characters)"
    if Path(name).is_absolute() or ".." in Path(name).parts:
        return f"`file` must stay inside the directory: {_quoted(name)}"
    return None


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name too long for the file system, no permission
        return False


def _is_text(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates (JSON "\udcff"; file names that are not UTF-8)
        return False
    return True


def shown(text: str) -> str:
    """`text` as UTF-8 can hold it: bytes of a file name that are not UTF-8 (which Python keeps
    as lone surrogates) as `\\xNN` escapes, any other lone surrogate as `\\uXXXX`."""
    if _is_text(text):
        return text
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _quoted(name: str) -> str:
    """A name for an error message: quoted, cut short if it is long; repr escapes lone surrogates."""
    return repr(name if len(name) <= _SHOWN else name[:_SHOWN] + "...")


def manifest_url(entry: dict[str, object]) -> str | None:
    """The robots.txt URL a manifest entry gives (`url`, `site` + `kind`, or `base_url`), or None."""
    url, site, kind, base = entry.get("url"), entry.get("site"), entry.get("kind"), entry.get("base_url")
    if isinstance(url, str) and url:
        if "://" not in url:
            raise ValueError(f"`url` is not absolute: {url!r}")
        return url
    if isinstance(site, str) and site:
        scheme = "gemini" if kind == "gemini" else "https"
        if kind not in (None, "web", "gemini"):
            raise ValueError(f"unknown `kind` {kind!r} (web or gemini)")
        return f"{scheme}://{site.strip().strip('/')}/robots.txt"
    if isinstance(base, str) and base:
        return base.rstrip("/") + "/robots.txt"
    return None


def _host_items(path: Path) -> list[Item]:
    """Non-empty, non-comment lines of a host list, keyed by line number; bad lines are error items."""
    items: list[Item] = []
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                items.append(Item(str(number), error=f"host list line {number} is not UTF-8"))
                continue
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            if len(text) > _MAX_LINE or any(c.isspace() for c in text):
                items.append(Item(str(number), error=f"host list line {number} is not a host or URL"))
                continue
            items.append(Item(str(number), text))
    return items


# --------------------------------------------------------------------------- directories


def read_directory(unit: InputUnit, max_bytes: int) -> Iterator[Capture]:
    """One capture per file; no status is known, so the body is taken as served with 200.

    Only regular files inside the directory are read: a FIFO (reading it would wait for a writer
    forever), a device (`/dev/zero` never ends), a socket, or a file reached through a link that
    leads outside the directory is an error row, as is a name the system refuses.
    """
    root = Path(unit.path)
    try:
        inside: str | None = os.path.realpath(root)
    except (OSError, ValueError):
        inside = None
    for index, item in enumerate(unit.items):
        file = root / item.key
        source = shown(str(file))
        url = item.value
        if item.error is not None:
            yield Capture(source=source, record=index, url=url, host=_host(url), error=item.error)
            continue
        try:
            body, info = _read_regular(file, item.key, inside, max_bytes + 1)
        except _NotRead as exc:
            yield Capture(source=source, record=index, url=url, host=_host(url), error=f"not read: {exc}")
            continue
        except (OSError, ValueError) as exc:  # ValueError: a name the system cannot take
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else shown(str(exc))
            yield Capture(source=source, record=index, url=url, host=_host(url), error=f"read: {reason}")
            continue
        yield Capture(
            source=source,
            record=index,
            url=url,
            host=_host(url),
            fetched_at=info.st_mtime,
            body=body[:max_bytes],
            size=info.st_size,
            truncated=len(body) > max_bytes,
        )


class _NotRead(Exception):
    """A directory entry that is not read: not a regular file, or outside the directory."""


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
_OPEN_FLAGS = (
    os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
)


def _read_regular(file: Path, key: str, inside: str | None, limit: int) -> tuple[bytes, os.stat_result]:
    """At most `limit` bytes of a regular file inside the directory `inside` (a real path), and
    its stat. Raises _NotRead, or OSError / ValueError from the system."""
    real = os.path.realpath(file)
    if inside is not None and os.path.commonpath([inside, real]) != inside:
        raise _NotRead(f"{_quoted(key)} leads outside the directory, to {_quoted(real)}")
    _check_regular(key, file.stat().st_mode)
    # Checked before opening (opening a FIFO to read waits for a writer); O_NONBLOCK besides, in
    # case the file is swapped for one between the check and the open, and checked again.
    fd = os.open(file, _OPEN_FLAGS)
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        _check_regular(key, info.st_mode)
        return fh.read(limit), info


def _check_regular(key: str, mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise _NotRead(f"{_quoted(key)} is not a regular file ({_kind(mode)})")


def _kind(mode: int) -> str:
    """What a file that is not a regular file is ("a FIFO", "a directory", ...)."""
    return next((name for test, name in _KINDS if test(mode)), "of an unknown kind")


def _host(url: str | None) -> str | None:
    if not url:
        return None
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


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
    locks: dict[str, threading.BoundedSemaphore] = {}
    guard = threading.Lock()

    def slot(key: str) -> threading.BoundedSemaphore:
        with guard:
            return locks.setdefault(key, threading.BoundedSemaphore(max(1, options.per_host)))

    # Here, not at the top: the client imports httpx (about 0.1 s), which a run of WARC files and
    # robots.txt files never needs.
    from robotskit.client.clients import RobotsClient  # noqa: PLC0415

    source = shown(unit.path)  # a file name that is not UTF-8 could not be written to the results
    with RobotsClient(
        options.user_agent,
        user_agent=options.user_agent,
        cache=options.cache,
        timeout=options.timeout,
        max_bytes=max_bytes,
    ) as client:

        def fetch(item: Item) -> Capture:
            number = int(item.key)
            if item.error is not None or item.value is None:
                return Capture(source=source, record=number, error=item.error or "empty line")
            url = host_url(item.value, options.scheme)
            try:
                key = authority_key(url)
            except ValueError as exc:
                return Capture(
                    source=source,
                    record=number,
                    url=url,
                    error=f"not a host or URL: {type(exc).__name__}: {exc}",
                )
            with slot(key):
                try:
                    entry = client.lookup(url)
                except Exception as exc:
                    return Capture(
                        source=source,
                        record=number,
                        url=url,
                        host=_host(url),
                        error=f"fetch: {type(exc).__name__}: {exc}",
                    )
            return _entry_capture(source, number, url, entry)

        with ThreadPoolExecutor(max_workers=max(1, options.concurrency)) as pool:
            yield from pool.map(fetch, unit.items)


def _entry_capture(source: str, number: int, url: str, entry: RobotsEntry) -> Capture:
    """A capture from a RobotsEntry: the client already applied the policy, so its outcome stands."""
    return Capture(
        source=source,
        record=number,
        url=entry.robots_url or url,
        host=_host(url),
        fetched_at=entry.fetched_at,
        status=entry.status,
        final_status=entry.status,
        redirects=entry.redirects,
        outcome=str(entry.outcome.value),
        reason=entry.reason,
        content_type=entry.content_type or None,
        body=entry.body,
        size=entry.size,
        truncated=entry.truncated,
    )


def read_unit(
    unit: InputUnit,
    max_bytes: int,
    options: FetchOptions | None = None,
    index: Sequence[MemberIndex] | None = None,
) -> Iterator[Capture]:
    """The captures of one unit, whatever its kind. `index`: for a range of a WARC file, the
    scans of all the file's ranges (robotskit.batch.warc_ranges); None scans the file here."""
    if unit.kind == "warc" and not _is_text(unit.path):
        # A file name that is not UTF-8: its `source` with escapes (robotskit.batch.warc writes
        # the path as it is, which the results file cannot hold).
        return _with_source(_read_warc_unit(unit, max_bytes, index), shown(unit.path))
    if unit.kind == "warc":
        return _read_warc_unit(unit, max_bytes, index)
    if unit.kind == "dir":
        return read_directory(unit, max_bytes)
    return read_hosts(unit, max_bytes, options or FetchOptions())


def _read_warc_unit(
    unit: InputUnit, max_bytes: int, index: Sequence[MemberIndex] | None
) -> Iterator[Capture]:
    if unit.span is not None:
        return read_warc_range(unit.path, unit.span[0], unit.span[1], max_bytes, index)
    return read_warc(unit.path, max_bytes)


def _with_source(captures: Iterator[Capture], source: str) -> Iterator[Capture]:
    for capture in captures:
        yield dataclasses.replace(capture, source=source)


def unit_fingerprint(unit: InputUnit) -> str:
    """What makes a unit's results reusable: its identity plus the file's size and mtime."""
    try:
        stat = Path(unit.path).stat()
        stamp = f"{stat.st_size}:{stat.st_mtime_ns}" if unit.kind != "dir" else ""
    except OSError:
        stamp = "missing"
    items = [[item.key, item.value, item.error] for item in unit.items]
    identity: list[object] = [unit.kind, str(Path(unit.path).resolve()), stamp, items]
    if unit.span is not None:
        identity.append(list(unit.span))
    return json.dumps(identity, sort_keys=True)
