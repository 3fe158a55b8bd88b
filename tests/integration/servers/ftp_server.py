"""pyftpdlib on 127.0.0.1 in a thread: anonymous read-only on a directory, or no anonymous at all."""

from __future__ import annotations

import logging
import threading
import warnings
from pathlib import Path

# pyftpdlib imports asynchat/asyncore on Python < 3.12, which warn at import time; the test
# suite turns warnings into errors, so the import is scoped (the warning is theirs, not ours).
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from pyftpdlib.authorizers import DummyAuthorizer  # type: ignore[import-untyped]
    from pyftpdlib.handlers import FTPHandler  # type: ignore[import-untyped]
    from pyftpdlib.ioloop import IOLoop  # type: ignore[import-untyped]
    from pyftpdlib.servers import FTPServer  # type: ignore[import-untyped]

logging.getLogger("pyftpdlib").setLevel(logging.WARNING)


class FtpServer:
    """`anonymous=True`: read-only anonymous access to `root`; `False`: only user `robot`
    (password `secret`), so anonymous login is refused with 530."""

    def __init__(self, root: Path, *, anonymous: bool = True) -> None:
        authorizer = DummyAuthorizer()
        if anonymous:
            authorizer.add_anonymous(str(root), perm="elr")
        else:
            authorizer.add_user("robot", "secret", str(root), perm="elr")
        # A handler class per server: pyftpdlib keeps its settings as class attributes.
        # auth_failed_timeout: pyftpdlib stalls 3 s after a refused login; tests need the 530 now.
        settings = {"authorizer": authorizer, "banner": "robotskit test ftpd", "auth_failed_timeout": 0}
        handler = type("Handler", (FTPHandler,), settings)
        # Its own IOLoop: the default one is a process-wide singleton shared by every server.
        self._server = FTPServer(("127.0.0.1", 0), handler, ioloop=IOLoop())
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._server.ioloop.loop(timeout=0.05, blocking=False)
        self._server.close_all()

    @property
    def port(self) -> int:
        return int(self._server.address[1])

    def url(self, path: str = "/robots.txt") -> str:
        return f"ftp://127.0.0.1:{self.port}{path}"

    def start(self) -> FtpServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
