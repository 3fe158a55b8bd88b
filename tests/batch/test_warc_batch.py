"""Batch over WARC files: rows equal the library's own verdicts, locally and on a Dask cluster."""

from __future__ import annotations

import gc
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import robotskit
from robotskit.batch import BatchConfig, load_agents
from robotskit.batch.inputs import discover
from robotskit.batch.output import SCHEMA, read_part, sample_paths
from robotskit.batch.runner import local_cluster, process_unit, run_batch, unit_part
from tests.batch.conftest import PATHS, Capture, build_warc, corpus_files, corrupt_copy


@pytest.fixture(scope="module")
def config(agents_file: Path) -> BatchConfig:
    return BatchConfig(agents=load_agents(agents_file), paths=PATHS)


@pytest.fixture(scope="module")
def local_rows(
    tmp_path_factory: pytest.TempPathFactory, warc_set: tuple[list[Path], list[Capture]], config: BatchConfig
) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("local") / "results.parquet"
    run_batch(warc_set[0], out, config, scheduler="sync")
    return pq.read_table(out).to_pylist()


def _key(row: dict[str, Any]) -> tuple[str, str]:
    return row["source"], row["url"]


def test_one_row_per_capture_with_the_documented_schema(
    tmp_path: Path, warc_set: tuple[list[Path], list[Capture]], config: BatchConfig
) -> None:
    """Every response record gives exactly one row, and the file carries the documented schema."""
    out = tmp_path / "r.parquet"
    summary = run_batch(warc_set[0], out, config, scheduler="sync")
    table = pq.read_table(out)
    assert table.schema.remove_metadata() == SCHEMA
    assert sample_paths(table) == list(PATHS)
    assert summary.rows == table.num_rows == len(warc_set[1])
    assert sorted(_key(r) for r in table.to_pylist()) == sorted((c.source, c.url) for c in warc_set[1])
    # The summary's counts (made while merging) are those of the file written.
    outcomes = Counter(r["outcome"] or "unknown" for r in table.to_pylist())
    assert summary.outcomes == dict(outcomes) and len(outcomes) > 2
    assert summary.errors == sum(r["error"] is not None for r in table.to_pylist()) > 0
    # Readers can skip row groups by the flat columns (min/max kept); the agents' nested
    # verdicts carry none (they would span every value of a unit's captures).
    group = pq.ParquetFile(out).metadata.row_group(0)
    stats = {group.column(i).path_in_schema: group.column(i).is_stats_set for i in range(group.num_columns)}
    assert stats["host"] and stats["status"] and stats["lint_ids.list.element"]
    assert not any(set_ for path, set_ in stats.items() if path.startswith("agents."))


def test_outcomes_follow_spec_section_6(
    local_rows: list[dict[str, Any]], warc_set: tuple[list[Path], list[Capture]]
) -> None:
    """200 -> ok, 404 -> unavailable, 503/429/undecodable gzip -> unreachable, uncaptured redirect -> null."""
    rows = {_key(r): r for r in local_rows}
    for capture in warc_set[1]:
        row = rows[(capture.source, capture.url)]
        assert row["outcome"] == capture.expect, capture.url
        assert row["status"] == capture.status
        assert row["redirects"] == capture.redirects
        if capture.expect == "unavailable":
            assert all(a["root"] and a["verdict"] == "allowed" for a in row["agents"])
        if capture.expect == "unreachable":
            assert all(not a["root"] and not any(a["paths"]) for a in row["agents"])
        if capture.expect is None:
            assert row["agents"] == [] and "not in input" in row["reason"]


def test_html_and_bad_bodies_are_flagged(local_rows: list[dict[str, Any]]) -> None:
    """An HTML error page is marked html; a gzip body that does not decode names the error."""
    by_host = {r["host"]: r for r in local_rows}
    assert by_host["gone.example"]["html"] is True
    assert "body" in by_host["badgz.example"]["error"]
    assert any(r["html"] and r["outcome"] == "ok" for r in local_rows)  # corpus HTML served with 200


def test_verdicts_equal_the_library_on_each_file(
    local_rows: list[dict[str, Any]], warc_set: tuple[list[Path], list[Capture]], config: BatchConfig
) -> None:
    """For every parsed capture, each agent's `/` and sample-path verdicts are robotskit.parse's own."""
    rows = {_key(r): r for r in local_rows}
    checked = 0
    for capture in warc_set[1]:
        if capture.expect != "ok":
            continue
        row = rows[(capture.source, capture.url)]
        robots = robotskit.parse(capture.body)
        assert row["groups"] == len(robots.groups)
        assert row["rules"] == sum(len(g.rules) for g in robots.groups)
        assert row["sitemaps"] == len(robots.sitemaps)
        origin = (
            "https://" + capture.url.split("/")[2]
            if capture.redirects
            else capture.url[: -len("/robots.txt")]
        )
        for spec, agent_row in zip(config.agents, row["agents"], strict=True):
            agent = robotskit.Agent(spec.token, purposes=spec.purposes, aliases=spec.aliases)
            assert agent_row["agent"] == spec.name
            assert agent_row["root"] == robots.allowed(origin + "/", agent)
            assert agent_row["paths"] == [robots.allowed(origin + p, agent) for p in PATHS]
            assert agent_row["crawl_delay"] == robots.crawl_delay(agent)
            if not agent_row["root"]:
                assert agent_row["verdict"] in ("disallowed", "partial")
        checked += 1
    assert checked > 60


def test_gzip_and_redirected_bodies_are_judged_decoded(
    local_rows: list[dict[str, Any]], warc_set: tuple[list[Path], list[Capture]]
) -> None:
    """A gzip-encoded body is decoded before judging; a redirect chain is judged by its final body."""
    rows = {_key(r): r for r in local_rows}
    chained = [c for c in warc_set[1] if len(c.redirects) == 2]
    assert chained
    for capture in chained:
        row = rows[(capture.source, capture.url)]
        final = rows[(capture.source, capture.redirects[-1])]
        assert row["final_status"] == 200 and row["size"] == len(capture.body)
        assert row["agents"] == final["agents"]


@pytest.mark.slow
def test_dask_cluster_gives_identical_results(
    tmp_path: Path,
    warc_set: tuple[list[Path], list[Capture]],
    config: BatchConfig,
    local_rows: list[dict[str, Any]],
) -> None:
    """A 2-worker cluster joined by its tcp:// address writes exactly the rows the in-process run
    writes (every column: verdicts, lint ids, profile, sha256, errors)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        scheduler_kwargs={"dashboard": False},
    ) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://")
        out = tmp_path / "cluster.parquet"
        summary = run_batch(warc_set[0], out, config, scheduler=address)
    assert summary.units == len(warc_set[0])
    assert pq.read_table(out).to_pylist() == local_rows


@pytest.mark.slow
@pytest.mark.parametrize("scheduler", ["local", "dask"])
def test_local_scheduler_gives_identical_results_on_the_generated_set(
    tmp_path: Path, small_set: tuple[list[Path], list[dict[str, Any]]], config: BatchConfig, scheduler: str
) -> None:
    """`scheduler="local"` (a pool of worker processes) and `"dask"` (its own LocalCluster) equal
    `sync` on every record kind, error rows included; each leaves no scan, store or probe behind."""
    sync, local = tmp_path / "sync.parquet", tmp_path / "local.parquet"
    run_batch(small_set[0], sync, config, scheduler="sync")
    summary = run_batch(small_set[0], local, config, scheduler=scheduler, workers=2)
    assert summary.units == len(small_set[0]) and summary.result_bytes == 0  # the workers wrote their parts
    assert pq.read_table(local).to_pylist() == pq.read_table(sync).to_pylist()
    left = sorted(p.name for p in local.with_name(local.name + ".parts").iterdir())
    assert all(name == "done.jsonl" or name.startswith("part-") for name in left), left


def test_corrupt_record_is_a_row_and_reading_goes_on(tmp_path: Path, config: BatchConfig) -> None:
    """A damaged gzip member yields one error row; the records after it are still read."""
    clean = tmp_path / "clean.warc.gz"
    expected = build_warc(clean, corpus_files(8, start=200))
    broken = tmp_path / "broken.warc.gz"
    corrupt_copy(clean, broken, at_record=2)
    out = tmp_path / "r.parquet"
    run_batch([broken], out, config, scheduler="sync")
    rows = pq.read_table(out).to_pylist()
    errors = [r for r in rows if r["error"] and r["outcome"] is None]
    assert len(errors) == 1 and "corrupt record" in errors[0]["error"]
    urls = {r["url"] for r in rows}
    assert expected[-1].url in urls and expected[0].url in urls
    assert len(rows) >= len(expected) - 1


def test_rerun_skips_done_inputs_and_adds_new_ones(
    tmp_path: Path, warc_set: tuple[list[Path], list[Capture]], config: BatchConfig
) -> None:
    """A rerun runs nothing already done; a new input alone is processed; the result is the union."""
    out = tmp_path / "r.parquet"
    first = run_batch(warc_set[0][:2], out, config, scheduler="sync")
    assert (first.units, first.skipped) == (2, 0)
    again = run_batch(warc_set[0][:2], out, config, scheduler="sync")
    assert (again.units, again.skipped, again.rows) == (0, 2, first.rows)
    more = run_batch(warc_set[0], out, config, scheduler="sync")
    assert (more.units, more.skipped) == (1, 2)
    assert more.rows == len(warc_set[1])
    assert sum(more.outcomes.values()) == more.rows  # the parts done before are counted too
    changed = BatchConfig(agents=config.agents[:2], paths=config.paths)
    assert run_batch(warc_set[0][:1], out, changed, scheduler="sync").units == 1  # new config: redone


def test_a_rerun_redoes_units_whose_part_another_version_wrote(
    tmp_path: Path, warc_set: tuple[list[Path], list[Capture]], config: BatchConfig
) -> None:
    """A done entry naming a part of another format (a Parquet part of an earlier version) is not
    taken as done: the unit runs again and the result is whole."""
    import json

    out = tmp_path / "r.parquet"
    first = run_batch(warc_set[0][:1], out, config, scheduler="sync")
    parts = out.with_name(out.name + ".parts")
    manifest = parts / "done.jsonl"
    entry = json.loads(manifest.read_text(encoding="utf-8").splitlines()[0])
    old = parts / f"part-{entry['id']}.parquet"
    (parts / entry["part"]).rename(old)
    manifest.write_text(json.dumps({**entry, "part": old.name}) + "\n", encoding="utf-8")
    again = run_batch(warc_set[0][:1], out, config, scheduler="sync")
    assert (again.units, again.skipped, again.rows) == (1, 0, first.rows)


def test_a_worker_that_sees_the_parts_folder_writes_its_part(
    tmp_path: Path, warc_set: tuple[list[Path], list[Capture]], config: BatchConfig
) -> None:
    """A worker reading the run's probe token writes the unit's part and returns only its row
    count; one that reads another token (its own disk, not the driver's) returns the table."""
    unit = discover(warc_set[0][:1]).units[0]
    expected = process_unit(unit, config)
    probe = tmp_path / "probe-run"
    probe.write_text("token-of-this-run", encoding="ascii")
    part = tmp_path / "part-a.arrow"
    written = unit_part(unit, config, None, None, str(part), (str(probe), "token-of-this-run"))
    assert written == expected.num_rows
    assert read_part(part).to_pylist() == expected.to_pylist()
    elsewhere = tmp_path / "part-b.arrow"
    returned = unit_part(unit, config, None, None, str(elsewhere), (str(probe), "token-of-another-run"))
    assert not isinstance(returned, int) and returned.to_pylist() == expected.to_pylist()
    assert not elsewhere.exists()
    missing = unit_part(unit, config, None, None, str(elsewhere), (str(tmp_path / "no-probe"), "t"))
    assert not isinstance(missing, int) and not elsewhere.exists()


@pytest.mark.slow
def test_runs_on_one_cluster_never_share_facts(
    tmp_path: Path, warc_set: tuple[list[Path], list[Capture]], config: BatchConfig
) -> None:
    """Two runs with different sample paths into the same output, on one long-lived cluster:
    the second run's rows equal a sync run's (its workers never read the first run's per-body
    store), and local workers write their own parts (no table is sent to the driver)."""
    distributed = pytest.importorskip("distributed")
    other = BatchConfig(agents=config.agents, paths=("/other/",))
    out = tmp_path / "r.parquet"
    with local_cluster(1) as cluster, distributed.Client(cluster) as client:
        first = run_batch(warc_set[0], out, config, scheduler=client)
        second = run_batch(warc_set[0], out, other, scheduler=client)
    assert first.result_bytes == second.result_bytes == 0
    reference = tmp_path / "sync.parquet"
    run_batch(warc_set[0], reference, other, scheduler="sync")
    assert pq.read_table(out).to_pylist() == pq.read_table(reference).to_pylist()
    assert not list(out.with_name(out.name + ".parts").glob("facts-*")), "the run's store is deleted"


def test_quiet_cluster_settings_are_dask_settings() -> None:
    """Every setting the run's own LocalCluster gets is a key dask knows (a renamed key would be
    silently ignored), and none is a value dask already has by default (it would change nothing)."""
    import dask
    import distributed  # noqa: F401 - loads distributed's defaults into dask.config

    from robotskit.batch.runner import QUIET_CLUSTER

    for key, value in QUIET_CLUSTER.items():
        default = dask.config.get(key)  # raises KeyError for a key dask does not have
        assert default != value, key


@pytest.mark.slow
def test_dask_scheduler_workers_run_with_the_quiet_settings(tmp_path: Path, config: BatchConfig) -> None:
    """`scheduler="dask"` starts its workers with QUIET_CLUSTER (no stack sampling, slow ticks)."""
    import dask
    import distributed

    from robotskit.batch import runner

    seen: list[dict[str, object]] = []
    start = distributed.LocalCluster

    def spying_cluster(*args: Any, **kwargs: Any) -> Any:
        cluster = start(*args, **kwargs)
        with distributed.Client(cluster) as client:
            seen.extend(client.run(lambda: {k: dask.config.get(k) for k in runner.QUIET_CLUSTER}).values())
        return cluster

    warc = tmp_path / "one.warc.gz"
    build_warc(warc, corpus_files(3, start=300))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(distributed, "LocalCluster", spying_cluster)
        run_batch([warc], tmp_path / "r.parquet", config, scheduler="dask", workers=1)
    assert seen == [dict(runner.QUIET_CLUSTER)]
    assert dask.config.get("distributed.worker.profile.enabled") is True  # the caller's config is untouched


def test_units_go_out_largest_first(tmp_path: Path) -> None:
    """Dask gets the biggest WARC file first, then smaller ones; chunks by their item count; a
    missing file last; equal units in input order."""
    from robotskit.batch.inputs import InputUnit, Item
    from robotskit.batch.runner import largest_first

    sizes = {"a": 10, "b": 300, "c": 300, "d": 50}
    units = []
    for name, size in sizes.items():
        (tmp_path / f"{name}.warc.gz").write_bytes(b"x" * size)
        units.append((name, InputUnit("warc", str(tmp_path / f"{name}.warc.gz"))))
    units.append(("gone", InputUnit("warc", str(tmp_path / "gone.warc.gz"))))
    assert [uid for uid, _ in largest_first(units)] == ["b", "c", "d", "a", "gone"]
    chunks = [(str(n), InputUnit("dir", "d", tuple(Item(str(i), "") for i in range(n)))) for n in (2, 200, 7)]
    assert [uid for uid, _ in largest_first(chunks)] == ["200", "7", "2"]


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("empty.warc.gz", b"", "empty file"),
        # a blank line, then junk: warcio yields a record of no type, and no error (its row says so)
        ("junk.warc", b"\n" + bytes(range(14, 256)) * 12, "unreadable record: it names no WARC-Type"),
        ("requests-only.warc", b"", "no WARC response record"),
    ],
)
def test_a_file_with_no_response_record_is_one_error_row(
    tmp_path: Path, config: BatchConfig, name: str, content: bytes, reason: str
) -> None:
    """An input that yields nothing (empty, junk warcio takes for ARC, a WARC without responses)
    is one row with the reason, never silently absent from the results."""
    path = tmp_path / name
    if name == "requests-only.warc":
        from warcio.warcwriter import WARCWriter

        with path.open("wb") as fh:
            writer = WARCWriter(fh, gzip=False)
            record = writer.create_warc_record("http://example.com/robots.txt", "request", payload=None)
            writer.write_record(record)
    else:
        path.write_bytes(content)
    out = tmp_path / "r.parquet"
    run_batch([path], out, config, scheduler="sync")
    rows = pq.read_table(out).to_pylist()
    assert len(rows) == 1
    assert rows[0]["outcome"] is None and reason in rows[0]["error"]
    assert rows[0]["source"] == str(path)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_worker_freezes_its_own_heap() -> None:
    """A worker forked from a process that froze its heap (the command) freezes again: what it
    built after the fork (Dask's worker) would otherwise be scanned by every full collection."""
    from robotskit.batch.runner import freeze_heap

    freeze_heap()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's verdict is its exit status
        built_after_fork = [[i] for i in range(1000)]  # (lists: always tracked by the collector)
        before = gc.get_freeze_count()
        freeze_heap()
        os._exit(0 if gc.get_freeze_count() >= before + len(built_after_fork) else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    gc.unfreeze()  # this test process is not a command: give its heap back to the collector
