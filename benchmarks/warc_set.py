"""A Common-Crawl-like robots.txt WARC set made from ../shared/corpus, with its ground truth.

    python benchmarks/warc_set.py OUT_DIR [--captures 20000] [--per-warc 2000] [--seed 16] [--unique]

Writes `OUT_DIR/robots-NNNNN.warc.gz` (one gzip member per record, as Common Crawl does: a
`warcinfo` record, then a `request` and a `response` record per capture) and `OUT_DIR/truth.jsonl`:
one line per row `robotskit batch` must write, with the record's kind and what its row must say:

    {"source": WARC path, "record": offset of the response record, "url": ..., "kind": ...,
     "outcome": "ok" | "unavailable" | "unreachable" | null, "error": true | false,
     "html": true | false, "body": corpus file judged (null when no body is judged),
     "final": final URL after redirects, "status": first status or null}

Record kinds (see KINDS for their shares): plain and gzip-encoded and chunked 200s, 200s with a
`Cache-Control: max-age` in non-ASCII digits, redirect chains of 1-3 hops across hosts,
redirects to a URL not captured, HTML soft-404 pages served with 200, 403/404/410, 5xx and 429
(some with `Retry-After` in non-ASCII digits), an undecodable gzip body, bodies cut by the
crawler (`WARC-Truncated`) or short of their Content-Length, a non-numeric status line, response
records with an empty block, gzip members overwritten with junk, and a last record cut by the
end of its file. About 5% of captures are recrawls of an earlier URL at a later date.

`--unique` appends a comment naming the capture to every body, so no two captures share bytes
(measures throughput without the content-hash caches helping).
Nothing here is committed data: the set is rebuilt from the corpus on demand.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import random
import re
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO

CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"
START = datetime(2025, 3, 1, tzinfo=UTC)
PARSE_LIMIT = 512_000  # robotskit batch --max-bytes default
ARABIC_INDIC = str.maketrans("0123456789", "".join(map(chr, range(0x660, 0x66A))))
FULLWIDTH = str.maketrans("0123456789", "".join(map(chr, range(0xFF10, 0xFF1A))))
SUPERSCRIPT = str.maketrans(
    "0123456789", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
)  # isdigit(), not int()
DIGITS = (ARABIC_INDIC, FULLWIDTH, SUPERSCRIPT)

# kind -> weight (per mille of captures)
KINDS: dict[str, int] = {
    "ok": 640,
    "ok-gzip": 50,
    "ok-chunked": 20,
    "ok-maxage": 20,
    "redirect": 50,
    "redirect-missing": 10,
    "soft404": 40,
    "404": 60,
    "403": 15,
    "410": 5,
    "5xx": 30,
    "5xx-retry-digits": 8,
    "429": 7,
    "429-retry-digits": 5,
    "bad-gzip": 5,
    "truncated": 10,
    "short": 5,
    "bad-status": 5,
    "empty-block": 5,
    "corrupt": 5,
}
SOFT_404 = (
    b"<!DOCTYPE html>\n<html><head><title>Page not found</title></head>\n"
    b"<body><h1>Sorry, this page does not exist</h1><p>Try the <a href='/'>home page</a>.</p></body></html>\n"
)
NOT_FOUND = b"<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>\n"


@dataclass(slots=True)
class Truth:
    """The row one response record must produce."""

    source: str
    record: int
    url: str
    kind: str
    outcome: str | None
    error: bool
    html: bool = False
    body: str | None = None
    final: str | None = None
    status: int | None = None

    def json(self) -> str:
        return json.dumps(
            {
                "source": self.source,
                "record": self.record,
                "url": self.url,
                "kind": self.kind,
                "outcome": self.outcome,
                "error": self.error,
                "html": self.html,
                "body": self.body,
                "final": self.final,
                "status": self.status,
            }
        )


@dataclass(slots=True)
class _Writer:
    """Writes records into one WARC file, one gzip member each, and remembers their offsets."""

    fh: IO[bytes]
    path: str
    truths: list[Truth] = field(default_factory=list)
    members: list[tuple[int, int]] = field(default_factory=list)  # (start, end) of response records

    def record(
        self, kind: str, uri: str, date: datetime, block: bytes, extra: dict[str, str] | None = None
    ) -> int:
        headers = {
            "WARC-Type": kind,
            "WARC-Record-ID": f"<urn:uuid:{uuid.UUID(int=random.getrandbits(128))}>",
            "WARC-Date": date.strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        if uri:
            headers["WARC-Target-URI"] = uri
        if kind in ("request", "response"):
            headers["Content-Type"] = f"application/http; msgtype={kind}"
        headers.update(extra or {})
        headers["Content-Length"] = str(len(block))
        head = "WARC/1.0\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
        start = self.fh.tell()
        self.fh.write(gzip.compress(head.encode() + block + b"\r\n\r\n", compresslevel=1, mtime=0))
        if kind == "response":
            self.members.append((start, self.fh.tell()))
        return start

    def capture(
        self,
        uri: str,
        date: datetime,
        status_line: str,
        headers: list[tuple[str, str]],
        body: bytes,
        **extra: str,
    ) -> int:
        host = uri.split("/")[2]
        request = f"GET /robots.txt HTTP/1.1\r\nHost: {host}\r\nUser-Agent: CCBot/2.0\r\n\r\n".encode()
        self.record("request", uri, date, request)
        head = status_line + "\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
        return self.record("response", uri, date, head.encode("utf-8") + body, extra)


def _chunked(body: bytes) -> bytes:
    out = b""
    for i in range(0, len(body), 1000):
        piece = body[i : i + 1000]
        out += f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    return out + b"0\r\n\r\n"


def _plain(body: bytes, kind: str = "text/plain") -> list[tuple[str, str]]:
    return [("Content-Type", kind), ("Content-Length", str(len(body)))]


class _Set:
    """Builds the captures of one set; `bodies` cycles through the corpus files in a shuffled order."""

    def __init__(self, out: Path, seed: int, unique: bool) -> None:
        self.out = out
        self.rng = random.Random(seed)
        random.seed(seed)
        with (CORPUS / "manifest.jsonl").open(encoding="utf-8") as fh:
            manifest = [json.loads(line) for line in fh]
        self.web = [m for m in manifest if m["kind"] == "web" and not m["is_html"]]
        self.html = [m for m in manifest if m["is_html"]]
        self.rng.shuffle(self.web)
        self.unique = unique
        self.count = 0
        self.seen_urls: list[tuple[str, str]] = []  # (url, corpus file) for recrawls

    def _body(self, entry: dict[str, object]) -> bytes:
        body = (CORPUS / "files" / str(entry["file"])).read_bytes()
        if self.unique:
            body += f"\n# capture {self.count}\n".encode()
        return body

    def _next_web(self) -> dict[str, object]:
        return self.web[self.count % len(self.web)]

    def _url(self, entry: dict[str, object]) -> str:
        scheme = "https" if self.count % 3 else "http"
        return f"{scheme}://{self._host(entry)}/robots.txt"

    def _host(self, entry: dict[str, object]) -> str:
        lap = self.count // len(self.web)
        site = re.sub(r"[^a-z0-9.-]+", "-", str(entry["site"]).lower()).strip(".-") or "example.org"
        if site.rsplit(".", 1)[-1].isdigit():  # an IP address: no prefix makes a host name of it
            site = f"ip-{site.replace('.', '-')}.example"
        return site if lap == 0 else f"w{lap}.{site}"

    def write(self, captures: int, per_warc: int) -> list[Path]:
        files: list[Path] = []
        truths: list[Truth] = []
        index = 0
        while self.count < captures:
            path = self.out / f"robots-{index:05d}.warc.gz"
            with path.open("wb") as fh:
                writer = _Writer(fh, str(path))
                writer.record("warcinfo", "", START, b"software: robotskit benchmarks/warc_set.py\r\n")
                made = 0
                while made < per_warc and self.count < captures:
                    made += self._one(writer)
                    self.count += 1
                cut_last = index % 4 == 3 and writer.truths
                if cut_last:
                    _cut_last(writer)
            _corrupt(path, writer)
            truths.extend(writer.truths)
            files.append(path)
            index += 1
        with (self.out / "truth.jsonl").open("w", encoding="utf-8") as fh:
            for truth in truths:
                fh.write(truth.json() + "\n")
        return files

    def _kind(self) -> str:
        return self.rng.choices(list(KINDS), weights=list(KINDS.values()))[0]

    def _one(self, w: _Writer) -> int:  # one branch per record kind reads best flat
        date = START + timedelta(seconds=self.count * 7)
        if self.seen_urls and self.rng.random() < 0.05:
            url, name = self.rng.choice(self.seen_urls)
            entry: dict[str, object] = {"file": name}
            body = self._body(entry)
            offset = w.capture(url, date + timedelta(days=30), "HTTP/1.1 200 OK", _plain(body), body)
            w.truths.append(
                Truth(w.path, offset, url, "recrawl", "ok", False, body=name, final=url, status=200)
            )
            return 1
        kind = self._kind()
        entry = self._next_web()
        url = self._url(entry)
        body = self._body(entry)
        name = str(entry["file"])

        def truth(outcome: str | None, error: bool, **more: object) -> None:
            w.truths.append(Truth(w.path, offset, url, kind, outcome, error, **more))  # type: ignore[arg-type]

        if kind == "ok":
            offset = w.capture(url, date, "HTTP/1.1 200 OK", _plain(body), body)
            truth("ok", False, body=name, final=url, status=200)
            self.seen_urls.append((url, name))
        elif kind == "ok-gzip":
            packed = gzip.compress(body, mtime=0)
            headers = [*_plain(packed), ("Content-Encoding", "gzip")]
            offset = w.capture(url, date, "HTTP/1.1 200 OK", headers, packed)
            truth("ok", False, body=name, final=url, status=200)
        elif kind == "ok-chunked":
            headers = [("Content-Type", "text/plain"), ("Transfer-Encoding", "chunked")]
            offset = w.capture(url, date, "HTTP/1.1 200 OK", headers, _chunked(body))
            truth("ok", False, body=name, final=url, status=200)
        elif kind == "ok-maxage":
            age = str(self.rng.randint(60, 86400)).translate(self.rng.choice(DIGITS))
            headers = [*_plain(body), ("Cache-Control", f"public, max-age={age}")]
            offset = w.capture(url, date, "HTTP/1.1 200 OK", headers, body)
            truth("ok", False, body=name, final=url, status=200)
        elif kind == "redirect":
            host = url.split("/")[2]
            hops = [f"https://rk-hop{n}.{host}/robots.txt" for n in range(self.rng.randint(1, 3))]
            chain = [url, *hops]
            codes = ("301 Moved Permanently", "302 Found", "307 Temporary Redirect", "308 Permanent Redirect")
            for here, there in itertools.pairwise(chain):
                code = self.rng.choice(codes)
                offset = w.capture(
                    here, date, f"HTTP/1.1 {code}", [("Location", there), ("Content-Length", "0")], b""
                )
                w.truths.append(
                    Truth(
                        w.path,
                        offset,
                        here,
                        kind,
                        "ok",
                        False,
                        body=name,
                        final=chain[-1],
                        status=int(code[:3]),
                    )
                )
            offset = w.capture(chain[-1], date, "HTTP/1.1 200 OK", _plain(body), body)
            w.truths.append(
                Truth(w.path, offset, chain[-1], kind, "ok", False, body=name, final=chain[-1], status=200)
            )
        elif kind == "redirect-missing":
            target = f"https://moved-{self.count}.example/robots.txt"
            offset = w.capture(url, date, "HTTP/1.1 301 Moved Permanently", [("Location", target)], b"")
            truth(None, False, status=301)
        elif kind == "soft404":
            page = (
                self._body(self.rng.choice(self.html)) if self.html and self.rng.random() < 0.5 else SOFT_404
            )
            offset = w.capture(url, date, "HTTP/1.1 200 OK", _plain(page, "text/html; charset=utf-8"), page)
            truth("ok", False, html=True, final=url, status=200)
        elif kind in ("404", "403", "410"):
            reason = {"404": "Not Found", "403": "Forbidden", "410": "Gone"}[kind]
            offset = w.capture(
                url, date, f"HTTP/1.1 {kind} {reason}", _plain(NOT_FOUND, "text/html"), NOT_FOUND
            )
            truth("unavailable", False, html=True, final=url, status=int(kind))
        elif kind.startswith(("5xx", "429")):
            code = (
                "429 Too Many Requests"
                if kind.startswith("429")
                else self.rng.choice(
                    ("500 Internal Server Error", "502 Bad Gateway", "503 Service Unavailable")
                )
            )
            retry = str(self.rng.randint(1, 3600))
            if kind.endswith("digits"):
                retry = retry.translate(self.rng.choice(DIGITS))
            offset = w.capture(
                url, date, f"HTTP/1.1 {code}", [("Retry-After", retry), ("Content-Length", "0")], b""
            )
            truth("unreachable", False, final=url, status=int(code[:3]))
        elif kind == "bad-gzip":
            junk = b"\x1f\x8b\x08\x00" + b"not really gzip" * 3
            offset = w.capture(
                url, date, "HTTP/1.1 200 OK", [*_plain(junk), ("Content-Encoding", "gzip")], junk
            )
            truth("unreachable", True, final=url, status=200)
        elif kind == "truncated":
            body = body + b"# " + b"x" * 200 + b"\n" if len(body) < 64 else body
            kept = body[: max(16, len(body) // 2)]
            extra = {"WARC-Truncated": "length"}
            offset = w.capture(url, date, "HTTP/1.1 200 OK", _plain(body), kept, **extra)
            if len(kept) > PARSE_LIMIT:  # cut past the parse limit: judged, as a parser stops there
                truth("ok", False, body=name, final=url, status=200)
            else:
                truth(None, True, status=200)
        elif kind == "short":
            body = body if len(body) >= 64 else body + b"# " + b"y" * 200 + b"\n"
            headers = [("Content-Type", "text/plain"), ("Content-Length", str(len(body) + 500))]
            offset = w.capture(url, date, "HTTP/1.1 200 OK", headers, body)
            truth(None, True, status=200)
        elif kind == "bad-status":
            offset = w.capture(url, date, "HTTP/1.1 OK 200", _plain(body), body)
            truth(None, True)
        elif kind == "empty-block":
            offset = w.record("response", url, date, b"")
            truth(None, True)
        elif kind == "corrupt":
            offset = w.capture(url, date, "HTTP/1.1 200 OK", _plain(body), body)
            truth(None, True)
        return 1


def _cut_last(writer: _Writer) -> None:
    """End the file inside its last response record (a crawl interrupted mid-write)."""
    start, end = writer.members[-1]
    # Rewrite the last member uncompressed-then-cut: a gzip member missing its tail.
    writer.fh.seek(start)
    writer.fh.truncate(start + max(40, (end - start) // 2))
    last = writer.truths[-1]
    if last.record == start:
        last.kind, last.outcome, last.error, last.body, last.html = "cut-end", None, True, None, False
    else:  # the last response belongs to a chain or was a later hop: keep it simple, drop it
        writer.truths.pop()


def _corrupt(path: Path, writer: _Writer) -> None:
    """Overwrite the inside of each `corrupt` record's gzip member with junk bytes."""
    targets = {t.record for t in writer.truths if t.kind == "corrupt"}
    if not targets:
        return
    data = bytearray(path.read_bytes())
    for start, end in writer.members:
        if start in targets and end <= len(data):
            middle = start + 12
            data[middle : end - 4] = b"\x00" * max(0, end - 4 - middle)
    path.write_bytes(bytes(data))


def build(
    out: Path, captures: int, *, per_warc: int = 2000, seed: int = 16, unique: bool = False
) -> list[Path]:
    """Write the set into `out` (created); return the WARC paths."""
    out.mkdir(parents=True, exist_ok=True)
    return _Set(out, seed, unique).write(captures, per_warc)


def truths(out: Path) -> Iterator[dict[str, object]]:
    """The ground truth of a set `build` wrote."""
    with (out / "truth.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--captures", type=int, default=20_000)
    parser.add_argument("--per-warc", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--unique", action="store_true", help="no two captures share a body")
    args = parser.parse_args()
    files = build(args.out, args.captures, per_warc=args.per_warc, seed=args.seed, unique=args.unique)
    rows = sum(1 for _ in truths(args.out))
    print(f"{len(files)} WARC files, {rows} response records -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
