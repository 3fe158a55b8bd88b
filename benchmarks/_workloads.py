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


# --- near-miss families (issue 15): every literal of a rule occurs in the path, the rule still fails -------
#
# Each family is a file of wildcard rules and a 5,000-character path of its own shape. Each rule is a
# near miss: every literal it holds occurs in the path, so no filter on characters or single literals can
# reject it, and the greedy match runs through almost all of its segments before it fails. The families
# differ in what a faster evaluation could exploit: shared segment prefixes or none, single or
# multi-character literals, failing on order or on the final `$`, verdicts that do match among them, few
# rules with many stars, a 500 KiB file, and literals whose search must scan the whole path to fail.
# Query strings appended by the benchmarks (`?x=<i>`) use none of the families' literal characters.

_LETTERS = "abcdefghijklmnop"


def _near_miss_file(rules: list[str], allow_every: int = 0) -> bytes:
    lines = [
        f"{'Allow' if allow_every and i % allow_every == 0 else 'Disallow'}: {rule}\n"
        for i, rule in enumerate(rules)
    ]
    return ("User-agent: *\n" + "".join(lines)).encode()


def _glob(segments: list[str], anchored: bool, path: str) -> bool:
    """The greedy reference (SPEC 3), kept here so the generator does not import robotskit."""
    if not path.startswith(segments[0]):
        return False
    position = len(segments[0])
    for segment in segments[1:-1]:
        found = path.find(segment, position)
        if found < 0:
            return False
        position = found + len(segment)
    last = segments[-1]
    if len(segments) == 1:
        return len(path) == position if anchored else True
    if anchored:
        return path.endswith(last) and len(path) - len(last) >= position
    return path.find(last, position) >= 0


def _chain(
    rng: random.Random, path: str, count: int, start: int, width: tuple[int, int], gap: int = 60
) -> list[str]:
    """``count`` literals of the path taken at increasing offsets from ``start``: a valid embedding, so
    the greedy match of them all succeeds."""
    out = []
    position = start
    for _ in range(count):
        size = rng.randint(*width)
        out.append(path[position : position + size])
        position += size + rng.randint(0, gap)
    return out


def _distinct_near_misses(
    rng: random.Random, path: str, n: int, stars: tuple[int, int], anchored: bool = False, gap: int = 60
) -> list[str]:
    """``n`` distinct rules of random path literals in order, failing only on their last segment.

    Anchored rules need a path whose last 8 characters occur nowhere else."""
    rules: list[str] = []
    seen: set[str] = set()
    unique_heads = [i for i in range(1, 40) if path.count(path[i : i + 6]) == 1]
    while len(rules) < n:
        middle = _chain(rng, path, rng.randint(*stars) - 1, 60, (2, 3), gap)
        if anchored:  # the chain ends on a literal of the path's tail, past where the `$` literal starts
            middle.append(path[-6:-4])
            last = path[-8:]
        else:  # a literal that occurs once, before the chain ends
            head = rng.choice(unique_heads)
            last = path[head : head + 6]
        segments = ["/", *middle, last]
        rule = "*".join(segments) + ("$" if anchored else "")
        if rule in seen or _glob(segments, anchored, path) or not _glob([*segments[:-1], ""], False, path):
            continue
        seen.add(rule)
        rules.append(rule)
    return rules


def near_miss_families() -> dict[str, tuple[bytes, tuple[str, ...]]]:
    """The near-miss families, each a file and its path (see the comment above)."""
    rng = random.Random(SEED)
    families: dict[str, tuple[bytes, tuple[str, ...]]] = {}

    # Shared prefixes, multi-character literals: 8 base chains of a periodic path, cut at 11-63 literals,
    # each ending on one of 7 literals that occur only at the path's start.
    periodic = "/zq" + ("abcdefghij" * 500)[:4997]
    bases = [_chain(rng, periodic, 64, 3, (2, 4)) for _ in range(8)]
    finals = ("zqa", "zqab", "zq", "qa", "qab", "qabc", "zqabc")
    shared = sorted({"/*" + "*".join([*b[:k], f]) for b in bases for k in range(11, 64) for f in finals})
    families["near miss: shared prefixes, 2-4 char literals"] = (
        _near_miss_file(rng.sample(shared, 1000)),
        (HOST + periodic,),
    )

    # All-distinct: random literals of a random path, nothing shared between rules.
    noise = "/" + "".join(rng.choice(_LETTERS) for _ in range(4999))
    families["near miss: distinct literals, 12-64 stars"] = (
        _near_miss_file(_distinct_near_misses(rng, noise, 1000, (12, 64))),
        (HOST + noise,),
    )

    # Out of order: words of the path picked in order, the last two swapped.
    words = [f"{rng.choice(_LETTERS)}{rng.choice(_LETTERS)}{rng.choice(_LETTERS)}{i:x}" for i in range(900)]
    worded = ("/" + "/".join(words))[:5000]
    present = [w for w in words if worded.count(w) == 1 and ("/" + w + "/") in worded + "/"]
    swapped = set()
    while len(swapped) < 1000:
        picked = sorted(rng.sample(range(len(present)), rng.randint(12, 64)))
        chosen = [present[i] for i in picked]
        chosen[-1], chosen[-2] = chosen[-2], chosen[-1]
        swapped.add("/*" + "*".join(chosen))
    families["near miss: literals out of order"] = (_near_miss_file(sorted(swapped)), (HOST + worded,))

    # `$`-anchored: the chain ends inside the tail the anchored literal needs.
    tailed = noise[:-8] + "zyxwvuts"
    families["near miss: $-anchored, 12-64 stars"] = (
        _near_miss_file(_distinct_near_misses(rng, tailed, 1000, (12, 64), anchored=True)),
        (HOST + tailed,),
    )

    # Verdicts that match: allow and disallow mixed, one rule in 20 a shorter rule that matches.
    mixed = _distinct_near_misses(rng, noise, 950, (12, 64))
    matching = ["/*" + "*".join(_chain(rng, noise, rng.randint(3, 10), 1, (2, 3))) for _ in range(50)]
    mixed_rules = [rule for pair in zip(mixed[::19], matching, strict=False) for rule in pair]
    mixed_rules += [rule for i, rule in enumerate(mixed) if i % 19]
    families["near miss: allow/disallow, some match"] = (
        _near_miss_file(mixed_rules, allow_every=3),
        (HOST + noise,),
    )

    # Few rules, many stars: 100 rules of 150-250 literals (a rule set small enough for the per-rule index).
    families["near miss: 100 rules of 150-250 stars"] = (
        _near_miss_file(_distinct_near_misses(rng, noise, 100, (150, 250), gap=12)),
        (HOST + noise,),
    )

    # Literals whose search scans the whole path to fail: a long run of `a`, each rule ending in a literal
    # that occurs only in the path's head.
    run = "/abacadaeafagahaiaj" + "a" * 4981
    scans = [
        "/" + "*a" * k + "*" + "a" * r + c for k in range(10, 50) for r in (1, 2, 3) for c in "bcdefghij"
    ]
    families["near miss: long scans over a run"] = (_near_miss_file(scans[:1000]), (HOST + run,))

    # Past the tail test, shared: the last two literals fit anywhere, the run of `*a` does not fit
    # before the `b` (rules of 101-164 `*a`, a run of 100), so each rule fails a hundred steps in.
    before_b = "/" + "a" * 100 + "b" + "c" * 4898
    late = ["/" + "*a" * k + "*b" + "c" * r for k in range(101, 165) for r in range(16)]
    families["near miss: past the tail test, shared run"] = (_near_miss_file(late[:1000]), (HOST + before_b,))

    # Past the tail test, nothing shared: random chains whose final literal occurs after the last
    # literal's first occurrence but before the chain ends.
    families["near miss: past the tail test, distinct"] = (
        _near_miss_file(_late_final_near_misses(rng, noise, 1000, (12, 64))),
        (HOST + noise,),
    )

    # Random rules, as a generator of hostile files would write them: 1,000 rules of 20 random
    # three-letter literals against a random path, no rule built to pass anything (about one in
    # four literals occurs in the path; every literal distinct enough that nothing is shared).
    loose = random.Random(SEED + 2)
    loose_path = "/" + "".join(loose.choice(_LETTERS) for _ in range(4999))
    loose_rules = [
        "/*" + "*".join("".join(loose.choice(_LETTERS) for _ in range(3)) for _ in range(20))
        for _ in range(1000)
    ]
    families["random literals: 1,000 rules of 20 three-letter literals"] = (
        _near_miss_file(loose_rules),
        (HOST + loose_path,),
    )

    # The same with two-letter literals over all 26 letters, 50 a rule (stop 38): most literals
    # occur in the path, some 700 characters apart, so each rule's walk gets 7-17 literals deep
    # before it fails, and no two rules share a search (the trie walked each: 9.5-11 ms a check).
    pairs = random.Random(SEED + 5)
    letters = "abcdefghijklmnopqrstuvwxyz"
    pairs_path = "/" + "".join(pairs.choice(letters) for _ in range(4999))
    pair_rules = [
        "/*" + "*".join(pairs.choice(letters) + pairs.choice(letters) for _ in range(50)) for _ in range(1000)
    ]
    families["random literals: 1,000 rules of 50 two-letter literals"] = (
        _near_miss_file(pair_rules),
        (HOST + pairs_path,),
    )
    return families


def _late_final_near_misses(rng: random.Random, path: str, n: int, stars: tuple[int, int]) -> list[str]:
    """Distinct near misses that a test of their last two literals alone does not reject."""
    rules: list[str] = []
    seen: set[str] = set()
    while len(rules) < n:
        middle = _chain(rng, path, rng.randint(*stars) - 1, 1, (2, 3), 40)
        position = 1
        for segment in middle:
            position = path.find(segment, position) + len(segment)
        low = path.find(middle[-1]) + len(middle[-1])
        if position - 5 <= low:
            continue
        start = rng.randrange(low, position - 5)
        final = path[start : start + 5]  # occurs after `low`; a near miss if not after the chain too
        segments = ["/", *middle, final]
        rule = "*".join(segments)
        if rule in seen or _glob(segments, False, path) or not _glob(["/", *middle, ""], False, path):
            continue
        seen.add(rule)
        rules.append(rule)
    return rules


def near_miss_500k(limit: int = LIMIT - 1000) -> tuple[bytes, tuple[str, ...]]:
    """About 500 KiB of distinct near-miss rules (12-64 stars) against a 5,000-character random path."""
    rng = random.Random(SEED + 1)
    noise = "/" + "".join(rng.choice(_LETTERS) for _ in range(4999))
    body = b"User-agent: *\n"
    rules: list[str] = []
    size = len(body)
    for rule in _distinct_near_misses(rng, noise, limit // 60, (12, 64)):
        size += len(rule) + 11
        if size > limit:
            break
        rules.append(rule)
    return _near_miss_file(rules), (HOST + noise,)


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
        **near_miss_families(),
        "near miss: 500 KiB of distinct rules": near_miss_500k(),
        **shallow_families(),
        **random_families(),
    }


def random_families() -> dict[str, tuple[bytes, tuple[str, ...]]]:
    """Random wildcard rules in shapes the families above leave out (stop 36): rules of equal
    length, half allow, nearly all matching (the order of precedence must end the search); rules
    led by `*` alone; a last literal too short for a q-gram behind a longer one, escapes included;
    one rule repeated; many rules of one head that a long path starts with. Each against a random
    5,000-character path over their characters, the last against 1,666 `€` (15,000 characters
    once percent-encoded)."""
    rng = random.Random(SEED + 4)
    chars = "abcdefghijklmnopqrstuvwxyz0123456789"

    def word(size: int) -> str:
        return "".join(rng.choice(chars) for _ in range(size))

    url = (HOST + "/" + word(4999),)
    mixed = "".join(f"Allow: /*{word(2)}*{word(2)}\nDisallow: /*{word(2)}*{word(2)}\n" for _ in range(1000))
    led = "".join(f"Disallow: *{word(6)}\n" for _ in range(1000))
    escaped = "".join(f"Disallow: /*%{rng.randrange(256):02X}*{word(3)}%2F*{word(2)}\n" for _ in range(1000))
    euro = "".join(f"Disallow: /%E2%82%AC*{word(3)}\n" for _ in range(1000))
    return {
        "equal lengths: 1,000 allow, 1,000 disallow /*ab*cd": (f"User-agent: *\n{mixed}".encode(), url),
        "star-led: 1,000 rules *<six random characters>": (f"User-agent: *\n{led}".encode(), url),
        "short last literal: 1,000 rules /*%XX*abc%2F*de": (f"User-agent: *\n{escaped}".encode(), url),
        "repeated: 10,000 copies of /*a*b": (
            ("User-agent: *\n" + "Disallow: /*a*b\n" * 10_000).encode(),
            url,
        ),
        "one head: 1,000 rules /%E2%82%AC*abc, a path of 1,666 €": (
            f"User-agent: *\n{euro}".encode(),
            (HOST + "/" + "€" * 1666,),
        ),
    }


def shallow_families() -> dict[str, tuple[bytes, tuple[str, ...]]]:
    """Big sets of shallow wildcard rules, as a generator of hostile files writes them (stop 31),
    against a random 5,000-character path that holds every character they use: a rule's head
    (`/ab*...`) or its literals must then do the rejecting, not its characters."""
    rng = random.Random(SEED + 3)
    chars = "abcdefghijklmnopqrstuvwxyz0123456789"
    path = "/" + "".join(rng.choice(chars) for _ in range(4999))
    url = (HOST + path,)

    def pair() -> str:
        return rng.choice(chars) + rng.choice(chars)

    def group(lines: list[str]) -> bytes:
        return ("User-agent: *\n" + "".join(f"Disallow: {line}\n" for line in lines)).encode()

    headed = [f"/{pair()}*{pair()}{i}" for i in range(25_000)]
    mixed = "éàüß漢字abc"  # (short runs of non-ASCII bytes between ASCII ones, in rules and path)
    groups = "".join(f"User-agent: googlebot\nDisallow: /*{pair()[0]}*{pair()}*{i}x\n" for i in range(3000))
    return {
        "shallow: 1,000 rules /ab*cd<i>": (group(headed[:1000]), url),
        "shallow: 1,000 rules /*ab*cd<i>": (group([f"/*{pair()}*{pair()}{i}" for i in range(1000)]), url),
        "shallow: 5,000 rules /*ab*cd<i>": (group([f"/*{pair()}*{pair()}{i}" for i in range(5000)]), url),
        "shallow: 500 KiB of /ab*cd<i>": (crawler_cut(group(headed)), url),
        "shallow: 3,000 groups naming the agent": (groups.encode(), url),
        "non-ASCII: 1,000 near misses, a non-ASCII path": (
            group(["/*" + "*".join(rng.choice(mixed) for _ in range(20)) + "*Z" for _ in range(1000)]),
            (HOST + "/" + "".join(rng.choice(mixed) for _ in range(4999)),),
        ),
        "deep: 300 rules, 301-character literals": (
            group([f"/*a*b*c*d*e*{path[i * 10 + 1 : i * 10 + 302]}*{path[5:40]}Q" for i in range(300)]),
            url,
        ),
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
