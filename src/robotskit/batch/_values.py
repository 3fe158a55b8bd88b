"""The values the batch pipeline passes between stages: plain, frozen, picklable.

`Capture` is one robots.txt as an input delivered it (a WARC response record, a file on disk,
or a live fetch). `BatchConfig` is what every worker needs to turn a capture into a row; it is
shipped to Dask workers, so it holds only plain data.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """One agent to judge every capture for.

    `name` labels the agent in the output (unique in a run). `token` is the product token
    (None: only `*` and the purposes apply, as Gemini's virtual agents do: docs/profiles/gemini.md).
    """

    name: str
    token: str | None
    purposes: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BatchConfig:
    """What a worker needs besides the capture: agents, sample paths and parse options."""

    agents: tuple[AgentSpec, ...]
    paths: tuple[str, ...] = ()
    profile: str | None = None
    max_bytes: int = 512_000
    lint: bool = True


@dataclass(frozen=True, slots=True)
class Capture:
    """One robots.txt capture, before analysis.

    `record` orders captures inside their input (the WARC record offset, the file's index in a
    directory, the host's line number). `status` is the captured status; `final_status` the
    status after following redirects inside the input (RFC 9309 2.3.1.2), `redirects` the hop
    targets. `outcome` is set when the input already applied the fetch policy (live fetches).
    `body` is the decoded payload (content-encoding undone) of the final response;
    `size` counts every decoded byte. `error` says what went wrong: with `outcome` None the
    input itself was damaged (nothing is known about the site); with an outcome set, the
    response was bad and the policy judged it (RFC 9309 2.3.1.4: unreachable).
    `body` is at most `max_bytes` long; `truncated` says it was cut there.
    """

    source: str
    record: int
    url: str | None = None
    host: str | None = None
    fetched_at: float | None = None
    status: int | None = None
    final_status: int | None = None
    redirects: tuple[str, ...] = ()
    outcome: str | None = None
    reason: str = ""
    content_type: str | None = None
    body: bytes | None = None
    size: int | None = None
    truncated: bool = False
    error: str | None = None


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run: `done` units are kept in the `parts` folder; a rerun resumes from them."""

    def __init__(self, parts: str, done: int, total: int) -> None:
        super().__init__(f"{done} of {total} units done")
        self.parts, self.done, self.total = parts, done, total


class WorkerLost(RuntimeError):
    """A worker process of the local pool ended in the middle of the run (killed, out of memory):
    the units done are kept, and a rerun resumes from them."""
