"""What the command refuses before it starts, in one line on stderr with exit status 2: a file
given to `batch report` that is not a robotskit results file, an option value argparse cannot
read, and an `--out` that is not a regular file (a fuzzing run found a 5-line pyarrow error, an
internal KeyError, argparse's 11-line usage block, and a FIFO replaced by the results file)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from robotskit.batch.cli import main as batch_main
from robotskit.batch.output import SCHEMA, metadata
from robotskit.batch.report import NotResults, check_results
from robotskit.cli import main

ROBOTS = b"User-agent: *\nDisallow: /\n"


def _one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err and "usage:" not in err, err
    return err


def _results(path: Path, schema: pa.Schema) -> Path:
    pq.write_table(pa.Table.from_pylist([], schema=schema), path)
    return path


@pytest.fixture
def robots_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "robots.txt").write_bytes(ROBOTS)
    return folder


# --------------------------------------------------------------------------- batch report


def test_report_of_a_parquet_file_that_is_not_results_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), other)
    err = _one_line_exit_2(capsys, ["batch", "report", str(other), "--report-dir", str(tmp_path / "rep")])
    assert f"{other} is not a robotskit batch results file (missing columns: source, record," in err
    assert not (tmp_path / "rep").exists()


def test_report_of_results_without_the_agents_column_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = pa.schema([f for f in SCHEMA if f.name != "agents"], metadata=metadata([], ["GPTBot"]))
    results = _results(tmp_path / "noagents.parquet", schema)
    err = _one_line_exit_2(capsys, ["batch", "report", str(results)])
    assert "not a robotskit batch results file (missing columns: agents)" in err
    assert "internal error" not in err


def test_report_of_a_file_that_is_not_parquet_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "notes.parquet"
    text.write_text("not parquet\n" * 10, encoding="utf-8")
    err = _one_line_exit_2(capsys, ["batch", "report", str(text)])
    assert "is not a robotskit batch results file (not a Parquet file" in err


def test_check_results_reads_the_schema_and_its_metadata(tmp_path: Path) -> None:
    meta = metadata(["/x"], ["GPTBot"])
    check_results(_results(tmp_path / "good.parquet", SCHEMA.with_metadata(meta)))
    with pytest.raises(NotResults, match=r"no robotskit\.schema metadata"):
        check_results(_results(tmp_path / "bare.parquet", SCHEMA))
    with pytest.raises(NotResults, match="schema version '1'"):
        check_results(
            _results(tmp_path / "v1.parquet", SCHEMA.with_metadata({**meta, b"robotskit.schema": b"1"}))
        )
    retyped = pa.schema(
        [pa.field("size", pa.string()) if f.name == "size" else f for f in SCHEMA], metadata=meta
    )
    with pytest.raises(NotResults, match=r"of another type, or repeated: size\)"):
        check_results(_results(tmp_path / "retyped.parquet", retyped))
    bad_agents = {**meta, b"robotskit.agents": json.dumps({"a": 1}).encode()}
    with pytest.raises(NotResults, match=r"robotskit\.agents metadata"):
        check_results(_results(tmp_path / "agents.parquet", SCHEMA.with_metadata(bad_agents)))


# --------------------------------------------------------------------------- option values


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--chunk", "abc"], "argument --chunk: invalid int value: 'abc'"),
        (["--profile", "bad"], "argument --profile: invalid choice: 'bad'"),
        (["--timeout", "-inf"], "'-inf' reads as an option; write --timeout=-inf"),
        (["--timeout=-inf"], "--timeout must be a positive number of seconds"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--out"], "argument --out: expected one argument"),
    ],
)
def test_option_values_argparse_refuses_are_one_line(
    robots_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], says: str
) -> None:
    out = tmp_path / "r.parquet"
    argv = ["batch", str(robots_dir), "--scheduler", "sync", "--no-progress", "--out", str(out), *options]
    err = _one_line_exit_2(capsys, argv)
    assert err.startswith("robotskit batch: error: ") and says in err
    assert not out.exists()


def test_python_m_robotskit_batch_errors_are_one_line_too(
    robots_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        batch_main([str(robots_dir), "--chunk", "abc"])
    err = capsys.readouterr().err
    assert (
        exited.value.code == 2
        and err == "robotskit batch: error: argument --chunk: invalid int value: 'abc'\n"
    )


def test_help_still_prints_the_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", "--help"]) == 0
    assert "usage: robotskit batch" in capsys.readouterr().out


# --------------------------------------------------------------------------- --out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")
def test_out_naming_a_fifo_is_refused_before_the_run(
    robots_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The run ends by renaming the results over OUT: a FIFO or a device would be replaced."""
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    err = _one_line_exit_2(capsys, ["batch", str(robots_dir), "--scheduler", "sync", "--out", str(fifo)])
    assert f"--out {fifo} is not a regular file" in err
    assert stat.S_ISFIFO(fifo.stat().st_mode) and not fifo.with_name(fifo.name + ".parts").exists()


def test_out_naming_a_directory_is_refused(
    robots_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    err = _one_line_exit_2(capsys, ["batch", str(robots_dir), "--scheduler", "sync", "--out", str(folder)])
    assert "is a directory" in err and not (tmp_path / "results.parts").exists()


def test_out_naming_a_regular_file_is_replaced(
    robots_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.parquet"
    out.write_bytes(b"an earlier run")
    assert main(["batch", str(robots_dir), "--scheduler", "sync", "--no-progress", "--out", str(out)]) == 0
    assert pq.read_table(out).num_rows == 1
