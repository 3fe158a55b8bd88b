"""A Ctrl-C pressed while the local cluster starts stops the run (before, the start ignored SIGINT
in the command's own process too: the press was lost and the run went on to exit 0)."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

import distributed
import pytest

from robotskit.batch import runner


class _FakeCluster:
    closed = False

    def close(self) -> None:
        self.closed = True


@pytest.mark.skipif(
    sys.platform != "linux", reason="spawned workers (elsewhere) keep SIG_IGN: a press is lost"
)
def test_ctrl_c_during_the_cluster_start_raises_after_closing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[_FakeCluster] = []

    def start(*args: Any, **kwargs: Any) -> _FakeCluster:
        os.kill(os.getpid(), signal.SIGINT)  # the user presses Ctrl-C now
        made.append(_FakeCluster())
        return made[-1]

    monkeypatch.setattr(distributed, "LocalCluster", start)
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        runner.local_cluster(2)
    assert made and made[0].closed
    assert signal.getsignal(signal.SIGINT) is before  # the command's own handler is back


def test_without_a_ctrl_c_the_cluster_is_returned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(distributed, "LocalCluster", lambda *a, **k: _FakeCluster())
    cluster = runner.local_cluster(2)
    assert isinstance(cluster, _FakeCluster) and not cluster.closed
