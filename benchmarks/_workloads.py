"""The inputs every implementation is measured on: a corpus sample and synthetic worst cases.

The corpus sample is stratified by size: the 5,002 files are sorted by byte size, cut into N strata of
equal count, and one file is drawn from each with a fixed seed. The sample then has the corpus's size mix
(median, tail and all), so a mean over the sample is a mean over the corpus.

Every body is given to every implementation as a crawler would after applying the 500 KiB limit
(SPEC.md 2: first 512,000 bytes, a line cut by the limit dropped). Without that, the one multi-megabyte
file in the sample would dominate every mean and measure a limit robotskit applies but the peers do not.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / ".." / "shared" / "corpus"
LIMIT = 512_000
SEED = 9309
AGENT = "Googlebot"
CROSSCHECK_AGENTS = ("Googlebot", "ExampleBot")


@dataclass(frozen=True, slots=True)
class Sample:
    """One corpus file: its (limit-cut) body and the 20 absolute URLs to check."""

    file: str
    size: int  # original size in bytes
    body: bytes
    urls: tuple[str, ...]


def crawler_cut(body: bytes, limit: int = LIMIT) -> bytes:
    """First ``limit`` bytes; a line cut by the limit is dropped (SPEC.md 2)."""
    if len(body) <= limit:
        return body
    if body[limit : limit + 1] in (b"\n", b"\r"):
        return body[:limit]
    head = body[:limit]
    end = max(head.rfind(b"\n"), head.rfind(b"\r"))
    return head[: end + 1]


def load_sample(n: int, seed: int = SEED) -> list[Sample]:
    """``n`` corpus files stratified by size (see module docstring), in size order."""
    if not (CORPUS / "manifest.jsonl").exists():
        raise SystemExit(f"corpus not found at {CORPUS.resolve()} (expected ../shared/corpus)")
    manifest = [
        json.loads(line)
        for line in (CORPUS / "manifest.jsonl").read_text(encoding="utf-8").split("\n")
        if line
    ]
    urls = {}
    for line in (CORPUS / "urls.jsonl").read_text(encoding="utf-8").split("\n"):
        if line:
            row = json.loads(line)
            base = row["base_url"] or HOST  # 40 files have no known site; any host will do
            urls[row["file"]] = tuple(base + p for p in row["paths"])
    ranked = sorted(manifest, key=lambda m: (m["bytes"], m["file"]))
    rng = random.Random(seed)
    chosen = []
    for i in range(n):
        lo, hi = i * len(ranked) // n, (i + 1) * len(ranked) // n
        chosen.append(ranked[rng.randrange(lo, hi)])
    out = []
    for m in chosen:
        body = (CORPUS / "files" / m["file"]).read_bytes()
        out.append(Sample(m["file"], len(body), crawler_cut(body), urls.get(m["file"], ())))
    return out


def largest_files(n: int) -> list[Sample]:
    """The ``n`` largest corpus files (cut at the 500 KiB limit), largest first."""
    manifest = [
        json.loads(line)
        for line in (CORPUS / "manifest.jsonl").read_text(encoding="utf-8").split("\n")
        if line
    ]
    urls = {}
    for line in (CORPUS / "urls.jsonl").read_text(encoding="utf-8").split("\n"):
        if line:
            row = json.loads(line)
            urls[row["file"]] = tuple((row["base_url"] or HOST) + p for p in row["paths"])
    biggest = sorted(manifest, key=lambda m: (-m["bytes"], m["file"]))[:n]
    out = []
    for m in biggest:
        body = (CORPUS / "files" / m["file"]).read_bytes()
        out.append(Sample(m["file"], len(body), crawler_cut(body), urls.get(m["file"], ())))
    return out


# --- synthetic files -------------------------------------------------------------------------------------

HOST = "https://example.com"


def many_prefix_rules(n: int = 10_000) -> tuple[bytes, tuple[str, ...]]:
    """``n`` distinct plain-prefix rules; URLs that hit early, middle, late and no rule at all."""
    lines = ["User-agent: *"]
    for i in range(n):
        kind = "Allow" if i % 7 == 0 else "Disallow"
        lines.append(f"{kind}: /section{i % 97}/item{i}/")
    body = ("\n".join(lines) + "\n").encode()
    paths = [f"/section{i % 97}/item{i}/page.html" for i in (0, 1, n // 4, n // 2, n - 2, n - 1)]
    paths += [f"/section{i % 97}/item{i}" for i in (5, n // 3)]  # near misses: no trailing slash
    paths += ["/", "/index.html", "/about/team", "/section5/", "/section5/item99999/x", "/search?q=robots"]
    paths += [f"/other/{i}/deep/path/to/page?x={i}" for i in range(6)]
    return body, tuple(HOST + p for p in paths)


HOSTILE_PATH = "/" + "a" * 4999  # 5,000 characters, no "b": every wildcard pattern must fail
# The same length, but containing every <i> of the 1,000 rules: a pre-filter on "does each literal occur
# at all" cannot reject any rule, so every pattern is really matched (and fails only at the final "b").
EVERY_I_PATH = ("/" + "".join(f"a{i}" for i in range(1000))).ljust(5000, "a")


# Near misses: every literal of every rule occurs in the path, in an order that fails only at the end.
NEAR_MISS_PATH = "/" + "a" * 2500 + "b" * 2499


def near_miss_rules(n: int = 1000) -> bytes:
    """``n`` distinct rules of 12-64 ``*`` segments (``/*a*a...*b*b...*a``): each almost matches
    NEAR_MISS_PATH, failing only on its last segment (no ``a`` after the ``b`` run)."""
    rules = ["/" + "*a" * (10 + i % 40) + "*b" * (1 + i // 40 % 25) + "*a" for i in range(n)]
    return ("User-agent: *\n" + "".join(f"Disallow: {rule}\n" for rule in rules)).encode()


def hostile_cases() -> dict[str, tuple[bytes, tuple[str, ...]]]:
    """The adversarial files of issues 7 and 15, each checked against a 5,000-character path."""
    url = (HOST + HOSTILE_PATH,)
    many = f"User-agent: *\n{chr(10).join(f'Disallow: /*a*{i}*b' for i in range(1000))}\n".encode()
    return {
        "8 stars /*a*a*a*a*a*a*a*a*b": (b"User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*b\n", url),
        "1,000 rules /*a*<i>*b": (many, url),
        "1,000 rules, every <i> in path": (many, (HOST + EVERY_I_PATH,)),
        "one rule with 50 stars": (("User-agent: *\nDisallow: /" + "*a" * 50 + "b\n").encode(), url),
        "1,000 near-miss rules, 12-64 stars": (near_miss_rules(), (HOST + NEAR_MISS_PATH,)),
    }


def _fill(head: str, line_for: object, limit: int) -> bytes:
    out = [head]
    size = len(head)
    i = 0
    while True:
        line = line_for(i)  # type: ignore[operator]
        if size + len(line) > limit:
            break
        out.append(line)
        size += len(line)
        i += 1
    return "".join(out).encode()


def big_one_group(limit: int = LIMIT - 1000) -> bytes:
    """About 500 KiB of plain prefix rules in one ``*`` group (the file whose 4th check built the index)."""

    def line(i: int) -> str:
        return f"{'Allow' if i % 7 == 0 else 'Disallow'}: /section{i % 97}/item{i}/\n"

    return _fill("User-agent: *\n", line, limit)


def big_realistic(limit: int = LIMIT - 1000) -> bytes:
    """About 500 KiB shaped like the large corpus files: many groups, prefix rules, some wildcards."""

    def line(i: int) -> str:
        if i % 60 == 0:
            return f"\n# section {i // 60}\nUser-agent: bot{i // 60}\nCrawl-delay: 5\n"
        if i % 11 == 0:
            return f"Disallow: /*?sessionid={i}*\n"
        if i % 5 == 0:
            return f"Allow: /catalog/{i}/public/\n"
        return f"Disallow: /catalog/{i}/private/page-{i}.html\n"

    return _fill(
        "User-agent: *\nDisallow: /cgi-bin/\nSitemap: https://example.com/sitemap.xml\n", line, limit
    )


def big_wildcards(limit: int = LIMIT - 1000) -> bytes:
    """About 500 KiB of wildcard rules, some anchored with ``$``."""

    def line(i: int) -> str:
        return f"Disallow: /*{i % 13}a*b{i}*.php{'$' if i % 3 == 0 else ''}\n"

    return _fill("User-agent: *\n", line, limit)


def big_agent_group(limit: int = LIMIT - 1000) -> bytes:
    """About 500 KiB of ``User-agent`` lines sharing one group, then one rule: parse time must stay linear
    in the number of agents of a group (a list-membership test per agent makes it quadratic)."""
    tail = "Disallow: /private/\n"
    body = _fill("", lambda i: f"User-agent: crawler{i}x\n", limit - len(tail))
    return body + tail.encode()
