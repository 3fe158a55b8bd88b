"""The analyzer's shortcuts (group keys, per-body cache, probe short-cuts) never change a verdict."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

import robotskit
from robotskit.ai_prefs import content_signal
from robotskit.audit.report import sample_paths
from robotskit.batch import BatchConfig, Capture, default_agents
from robotskit.batch.analysis import Analyzer, Row
from tests.batch.conftest import CORPUS, PATHS

ALLOWED, PARTIAL, DISALLOWED = "allowed", "partial", "disallowed"


def _corpus(kind: str | None = None) -> list[tuple[str, str, bytes]]:
    """(file, robots.txt URL, body) for corpus files, gemini ones under gemini://."""
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    found = []
    with (CORPUS / "manifest.jsonl").open(encoding="utf-8") as fh:
        for entry in map(json.loads, fh):
            if kind is not None and entry["kind"] != kind:
                continue
            scheme = "gemini" if entry["kind"] == "gemini" else "https"
            url = f"{scheme}://{entry['site']}/robots.txt"
            found.append((entry["file"], url, (CORPUS / "files" / entry["file"]).read_bytes()))
    return found


def _slow_row(body: bytes, url: str, config: BatchConfig) -> list[tuple[object, ...]]:
    """Every agent judged one by one on every probe, with the public API only (the reference)."""
    # The profile is named, not left to the URL: with profile None, asking for `groups` first
    # builds the rfc9309 view, which a later gemini:// check reuses without the Gemini preamble
    # (a core bug reported separately; batch always names the profile).
    profile = "gemini" if url.startswith("gemini://") else "rfc9309"
    robots = robotskit.parse(body, profile, max_bytes=config.max_bytes)
    origin = url[: -len("/robots.txt")]
    probe = list(dict.fromkeys(["/", *config.paths, *sample_paths(robots)]))
    expected = []
    for spec in config.agents:
        agent = robotskit.Agent(spec.token, purposes=spec.purposes, aliases=spec.aliases)
        verdicts = {path: robots.allowed(origin + path, agent) for path in probe}
        blocked = list(verdicts.values()).count(False)
        verdict = DISALLOWED if blocked == len(verdicts) else PARTIAL if blocked else ALLOWED
        signal = content_signal(robots, agent)
        expected.append(
            (
                spec.name,
                verdict,
                verdicts["/"],
                tuple(verdicts[p] for p in config.paths),
                robots.crawl_delay(agent),
                None if signal is None else (signal.search, signal.ai_input, signal.ai_train),
            )
        )
    return expected


def _fast_row(row: Row, config: BatchConfig) -> list[tuple[object, ...]]:
    agents = row.agents
    return [
        (spec.name, k.verdict, k.root, k.paths, k.crawl_delay, k.content_signal)
        for spec, k in zip(config.agents, (agents.keys[i] for i in agents.of_agent), strict=True)
    ]


def _check(files: list[tuple[str, str, bytes]], config: BatchConfig) -> None:
    analyzer = Analyzer(config)
    for name, url, body in files:
        row = analyzer.analyze(Capture(source=name, record=0, url=url, body=body))
        assert row.outcome == "ok", name
        assert _fast_row(row, config) == _slow_row(body, url, config), name


def test_every_agent_gets_the_library_verdicts_on_corpus_files() -> None:
    """On 130 corpus files (web and Gemini), each of the 94 default agents gets exactly the
    verdicts, crawl delay and Content-Signal the library gives it when asked one by one."""
    files = _corpus()
    chosen = [f for f in files if f[1].startswith("gemini")] + files[40:4993:41]
    _check(chosen, BatchConfig(agents=default_agents(), paths=PATHS))


@pytest.mark.slow
def test_every_agent_gets_the_library_verdicts_on_the_whole_corpus() -> None:
    """The same over all 5,002 corpus files."""
    _check(_corpus(), BatchConfig(agents=default_agents(), paths=PATHS))


def test_duplicate_bodies_are_judged_once_and_rows_still_differ_by_capture() -> None:
    """A body seen again hits the per-body cache; URL, authority and record stay the capture's own."""
    analyzer = Analyzer(BatchConfig(agents=default_agents()))
    body = b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n"
    first = analyzer.analyze(Capture(source="a", record=1, url="https://a.example/robots.txt", body=body))
    second = analyzer.analyze(Capture(source="a", record=2, url="http://b.example/robots.txt", body=body))
    assert (analyzer.misses, analyzer.hits) == (1, 1)
    assert second.agents is first.agents and second.sha256 == first.sha256
    assert (second.authority, second.record) == ("http://b.example", 2)
    keys = {first.agents.keys[i].verdict for i in first.agents.of_agent}
    assert keys == {DISALLOWED, PARTIAL}  # GPTBot fully blocked, the rest partly
    assert len(first.agents.keys) == 2  # 94 agents, two group keys: judged twice, not 94 times


def test_a_library_failure_on_one_body_is_an_error_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception while judging one body costs that row (error set, no verdicts), not the run."""
    analyzer = Analyzer(BatchConfig(agents=default_agents()))

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(sys.modules["robotskit.batch.analysis"], "probe_paths", boom)
    row = analyzer.analyze(Capture(source="x", record=0, url="https://x.example/robots.txt", body=b"a"))
    assert row.outcome == "ok" and row.error == "analyze: RuntimeError: bug" and not row.agents.of_agent


def test_gemini_capture_is_judged_with_the_gemini_profile(tmp_path: Path) -> None:
    """A gemini:// capture: purposes are virtual agents judged alone, as RFC 9309 leaves to Gemini."""
    analyzer = Analyzer(BatchConfig(agents=default_agents()))
    body = b"User-agent: archiver\nDisallow: /\n"
    row = analyzer.analyze(Capture(source="g", record=0, url="gemini://g.example/robots.txt", body=body))
    by_name = {
        spec.name: row.agents.keys[i]
        for spec, i in zip(analyzer.config.agents, row.agents.of_agent, strict=True)
    }
    assert row.profile == "gemini"
    assert by_name["archiver"].verdict == DISALLOWED and by_name["indexer"].verdict == ALLOWED
    web = analyzer.analyze(Capture(source="w", record=0, url="https://g.example/robots.txt", body=body))
    assert web.profile == "rfc9309"


def test_workers_share_judged_bodies_through_the_run_store(tmp_path: Path) -> None:
    """A second worker process finds a body the first judged in the run's store, with equal rows;
    an unusable store path only means judging alone."""
    from robotskit.batch.shared import SharedFacts

    config = BatchConfig(agents=default_agents())
    body = b"User-agent: GPTBot\nDisallow: /\n"
    capture = Capture(source="a", record=1, url="https://a.example/robots.txt", body=body)
    first, second = Analyzer(config), Analyzer(config)
    first.shared = SharedFacts(str(tmp_path / "facts.sqlite"))
    second.shared = SharedFacts(str(tmp_path / "facts.sqlite"))
    one = first.analyze(capture)
    first.shared.flush()  # as a unit's end does
    two = second.analyze(capture)
    assert (first.misses, second.misses, second.shared_hits) == (1, 0, 1)
    assert one == two
    alone = Analyzer(config)
    alone.shared = SharedFacts(str(tmp_path / "no" / "such" / "dir" / "facts.sqlite"))
    assert alone.analyze(capture) == one and alone.misses == 1


def test_the_run_store_writes_puts_in_batches_and_at_flush(tmp_path: Path) -> None:
    """Puts reach the file 32 at a time (one transaction each) and the rest at `flush`; a
    disabled store drops what is pending and answers nothing."""
    from robotskit.batch import shared
    from robotskit.batch.analysis import NO_AGENTS, Facts

    facts = Facts(groups=1, rules=2, sitemaps=0, lint_ids=(), truncated=False, size=10, agents=NO_AGENTS)
    writer = shared.SharedFacts(str(tmp_path / "facts.sqlite"))
    reader = shared.SharedFacts(str(tmp_path / "facts.sqlite"))
    for i in range(shared._BATCH + 1):
        writer.put(b"k%d" % i, facts)
    assert reader.get(b"k0") == facts and reader.get(b"k%d" % (shared._BATCH - 1)) == facts
    assert reader.get(b"k%d" % shared._BATCH) is None  # pending
    writer.flush()
    assert reader.get(b"k%d" % shared._BATCH) == facts
    writer.put(b"late", facts)
    writer._disable()
    writer.flush()
    assert reader.get(b"late") is None and writer.get(b"k0") is None


def test_the_run_store_keeps_every_field_of_the_facts(tmp_path: Path) -> None:
    """What the store writes (plain tuples, not the dataclasses) reads back equal, every field
    set; a field added to `Facts` or `Verdicts` fails here until `encode` writes it. A value
    that is not what `encode` wrote disables the store: the worker then judges alone."""
    import dataclasses
    import pickle

    from robotskit.batch import shared
    from robotskit.batch.analysis import AgentVerdicts, Facts, Verdicts

    assert [f.name for f in dataclasses.fields(Facts)] == [
        "groups", "rules", "sitemaps", "lint_ids", "truncated", "size", "agents", "lint_error",
    ]  # fmt: skip
    assert [f.name for f in dataclasses.fields(Verdicts)] == [
        "verdict", "root", "paths", "crawl_delay", "content_signal",
    ]  # fmt: skip
    keys = (
        Verdicts("partial", True, (True, False), 2.5, (True, None, False)),
        Verdicts("allowed", False, (), None, None),
    )
    facts = Facts(3, 7, 1, ("RK101", "RK203"), True, 4096, AgentVerdicts(keys, (1, 0, 1)), "lint: boom")
    assert shared.decode(shared.encode(facts)) == facts
    store = shared.SharedFacts(str(tmp_path / "facts.sqlite"))
    store.put(b"k", facts)
    store.flush()
    assert store.get(b"k") == facts and store.get_many([b"k"]) == {b"k": facts}
    assert store._db is not None
    store._db.execute("INSERT INTO facts VALUES (?, ?)", (b"bad", pickle.dumps(("not", "facts"))))
    assert store.get_many([b"k", b"bad"]) == {} and store.get(b"k") is None  # disabled


def test_the_run_store_answers_and_claims_many_keys_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`get_many` returns the stored facts of the keys that have any (more keys than one
    statement binds, too); `claim_many` returns the keys this worker took, never one another
    worker claimed first, and works one key at a time on SQLite without RETURNING. A disabled
    store finds nothing and lets the worker take every key."""
    from robotskit.batch import shared
    from robotskit.batch.analysis import NO_AGENTS, Facts

    monkeypatch.setattr(shared, "_MAX_VARIABLES", 3)  # several statements per call
    facts = Facts(groups=1, rules=2, sitemaps=0, lint_ids=(), truncated=False, size=10, agents=NO_AGENTS)
    first = shared.SharedFacts(str(tmp_path / "facts.sqlite"))
    second = shared.SharedFacts(str(tmp_path / "facts.sqlite"))
    for i in range(0, 8, 2):
        first.put(b"k%d" % i, facts)
    first.flush()
    keys = [b"k%d" % i for i in range(8)]
    assert second.get_many(keys) == {b"k0": facts, b"k2": facts, b"k4": facts, b"k6": facts}
    assert first.claim_many(keys[:5]) == set(keys[:5])
    assert second.claim_many(keys) == set(keys[5:])
    assert first.claim_many([*keys, b"new"]) == {b"new"}
    monkeypatch.setattr(shared.sqlite3, "sqlite_version_info", (3, 34, 0))
    assert second.claim_many([b"new", b"newer"]) == {b"newer"}
    second._disable()
    assert second.get_many(keys) == {} and second.claim_many(keys[:2]) == set(keys[:2])


def test_prepare_asks_the_store_once_per_batch_and_judges_what_it_claimed(tmp_path: Path) -> None:
    """`prepare` reads what other workers judged (their rows equal those judged here) and claims
    the rest: the claimed bodies are judged here; a body another worker claimed first waits."""
    from robotskit.batch.shared import SharedFacts

    config = BatchConfig(agents=default_agents())

    def capture(i: int) -> Capture:
        body = b"User-agent: *\nDisallow: /%d\n" % i
        return Capture(source="a", record=i, url=f"https://h{i}.example/robots.txt", body=body)

    first, second = Analyzer(config), Analyzer(config)
    first.shared = SharedFacts(str(tmp_path / "facts.sqlite"))
    second.shared = SharedFacts(str(tmp_path / "facts.sqlite"))
    judged_first = first.analyze(capture(0))
    first.shared.flush()
    first.prepare([capture(2)])  # claimed by the first worker, not judged yet
    second.prepare([capture(0), capture(1), capture(2), capture(1)])
    assert second.shared_hits == 1 and second.misses == 0
    assert second.analyze_or_defer(capture(0)) == judged_first and second.misses == 0
    row = second.analyze_or_defer(capture(1))
    assert row is not None and second.misses == 1
    assert second.analyze_or_defer(capture(2)) is None  # the first worker is judging it
    assert Analyzer(config).analyze(capture(1)) == row


def test_a_body_another_worker_is_judging_waits_and_is_then_read_from_the_store(tmp_path: Path) -> None:
    """`analyze_or_defer` lets a capture wait (None) while another worker holds the claim on its
    body; once that worker's facts are in the store, the capture's row is read from there, equal
    to a row judged alone. Without a store nothing waits."""
    from robotskit.batch.shared import SharedFacts

    config = BatchConfig(agents=default_agents())
    capture = Capture(
        source="a", record=1, url="https://a.example/robots.txt", body=b"User-agent: *\nDisallow: /x\n"
    )
    first, second = Analyzer(config), Analyzer(config)
    first.shared = SharedFacts(str(tmp_path / "facts.sqlite"))
    second.shared = SharedFacts(str(tmp_path / "facts.sqlite"))
    one = first.analyze_or_defer(capture)  # claims the body, judges it
    assert one is not None and first.misses == 1
    assert second.analyze_or_defer(capture) is None  # claimed, its facts not written yet
    first.shared.flush()
    assert second.analyze(capture) == one and (second.misses, second.shared_hits) == (0, 1)
    assert Analyzer(config).analyze_or_defer(capture) == one  # no store: judged at once


def test_a_unit_judges_its_waiting_captures_itself_when_the_claimant_never_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """process_unit with every body claimed by a worker that never writes its facts (it died):
    the captures wait, then are judged at the unit's end; the rows equal a run without a store."""
    from robotskit.batch import runner
    from robotskit.batch.analysis import Facts, forget
    from robotskit.batch.inputs import InputUnit, Item

    class DeadClaimant:
        asked = got = 0

        def get(self, key: bytes) -> Facts | None:
            DeadClaimant.got += 1  # only a capture that waited asks for one body alone
            return None

        def get_many(self, keys: Sequence[bytes]) -> dict[bytes, Facts]:
            return {}

        def put(self, key: bytes, facts: Facts) -> None:
            pass

        def flush(self) -> None:
            pass

        def claim(self, key: bytes) -> bool:
            DeadClaimant.asked += 1
            return False

        def claim_many(self, keys: Sequence[bytes]) -> set[bytes]:
            DeadClaimant.asked += len(keys)
            return set()

    config = BatchConfig(agents=default_agents())
    root = tmp_path / "files"
    root.mkdir()
    for i in range(7):
        (root / f"{i}.txt").write_bytes(b"User-agent: *\nDisallow: /%d\n" % (i % 3))
    items = tuple(Item(f"{i}.txt", f"https://h{i}.example/robots.txt") for i in range(7))
    unit = InputUnit("dir", str(root), items)
    forget()
    alone = runner.process_unit(unit, config)
    forget()
    monkeypatch.setattr(runner, "shared_facts", lambda path: DeadClaimant())
    waited = runner.process_unit(unit, config, None, "any")
    judged = runner.analyzer_for(config).misses
    forget()
    # The unit's 7 captures are one batch: its 3 distinct bodies were each asked for once, and
    # refused; every capture waited, then each body was judged once, the rest from the cache.
    assert (DeadClaimant.asked, DeadClaimant.got) == (3, 3)
    assert judged == 3
    assert waited.to_pylist() == alone.to_pylist()


def test_a_unit_leaves_no_batch_of_captures_in_the_analyzer(tmp_path: Path) -> None:
    """The per-process analyzer outlives units: after one, it holds no captures of its last batch
    (their bodies) and no claims; the unit's rows equal a run without a store."""
    from robotskit.batch import runner
    from robotskit.batch.analysis import forget
    from robotskit.batch.inputs import InputUnit, Item

    config = BatchConfig(agents=default_agents())
    root = tmp_path / "files"
    root.mkdir()
    for i in range(5):
        (root / f"{i}.txt").write_bytes(b"User-agent: *\nDisallow: /%d\n" % i)
    unit = InputUnit(
        "dir", str(root), tuple(Item(f"{i}.txt", f"https://h{i}.example/robots.txt") for i in range(5))
    )
    forget()
    alone = runner.process_unit(unit, config)
    forget()
    stored = runner.process_unit(unit, config, None, str(tmp_path / "facts.sqlite"))
    analyzer = runner.analyzer_for(config)
    try:
        assert analyzer.misses == 5 and stored.to_pylist() == alone.to_pylist()
        assert analyzer._prepared == {} and not analyzer._mine and not analyzer._theirs
    finally:
        forget()


def test_a_store_that_fails_on_batches_still_gives_every_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The batched lookup is an accelerator only: a store whose batch calls raise leaves each
    capture to be asked about alone, with the same rows."""
    from robotskit.batch import runner
    from robotskit.batch.analysis import forget
    from robotskit.batch.inputs import InputUnit, Item
    from robotskit.batch.shared import SharedFacts

    class Broken(SharedFacts):
        def get_many(self, keys: Sequence[bytes]) -> dict[bytes, Facts]:
            raise RuntimeError("boom")

    from robotskit.batch.analysis import Facts

    config = BatchConfig(agents=default_agents())
    root = tmp_path / "files"
    root.mkdir()
    for i in range(4):
        (root / f"{i}.txt").write_bytes(b"User-agent: *\nDisallow: /%d\n" % (i % 2))
    unit = InputUnit(
        "dir", str(root), tuple(Item(f"{i}.txt", f"https://h{i}.example/robots.txt") for i in range(4))
    )
    forget()
    alone = runner.process_unit(unit, config)
    forget()
    broken = Broken(str(tmp_path / "facts.sqlite"))
    monkeypatch.setattr(runner, "shared_facts", lambda path: broken)
    try:
        assert runner.process_unit(unit, config, None, "any").to_pylist() == alone.to_pylist()
        assert runner.analyzer_for(config).misses == 2
    finally:
        forget()
