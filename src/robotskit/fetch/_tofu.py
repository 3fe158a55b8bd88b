"""Trust-on-first-use certificate pins for the Gemini adapter.

Owns: the `TofuStore` (host:port -> SHA-256 of the leaf DER, in memory or in a JSON file) and
the one certificate fact pins need, the notAfter date that makes a pin lapse. No sockets here:
the fetcher hands in what the TLS handshake presented. Public home: `robotskit.fetch.gemini`.
"""

from __future__ import annotations

import calendar
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from robotskit.errors import FetchError, InvalidArgument

__all__ = ["Pin", "TofuStore", "cert_not_after"]


@dataclass(frozen=True, slots=True)
class Pin:
    """A pinned leaf certificate: its SHA-256, when first seen, and when the pin lapses.

    `expires` is the certificate's notAfter (epoch seconds) when it could be read, capped by the
    store's `max_age`; `None` means the pin never lapses on its own.
    """

    sha256: str
    first_seen: float
    expires: float | None = None


class TofuStore:
    """Trust-on-first-use pins, in memory or persisted to a JSON file the user chooses.

    The first certificate seen for host:port is pinned. A different certificate later raises
    `FetchError(kind="tls")` unless the pin has lapsed (certificate expired, or older than
    `max_age` seconds) or was removed with `forget()` / `clear()`. Thread-safe.
    With `path`, existing pins are loaded at construction (an unreadable file raises
    `InvalidArgument`) and every change is written back atomically (temp file + rename), so a
    crash never leaves a half-written file.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        max_age: float | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._path = Path(path).expanduser() if path is not None else None
        self._max_age = max_age
        self._clock = clock
        self._lock = threading.Lock()
        self._pins: dict[str, Pin] = {}
        if self._path is not None and self._path.exists():
            self._pins = _load(self._path)

    @staticmethod
    def key(host: str, port: int) -> str:
        host = host.lower()
        return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"

    def get(self, host: str, port: int) -> Pin | None:
        with self._lock:
            return self._pins.get(self.key(host, port))

    def pins(self) -> dict[str, Pin]:
        with self._lock:
            return dict(self._pins)

    def pin(self, host: str, port: int, sha256: str, *, expires: float | None = None) -> Pin:
        """Trust `sha256` for host:port from now on (first use, or the user accepting a new cert)."""
        now = self._clock()
        if self._max_age is not None:
            expires = now + self._max_age if expires is None else min(expires, now + self._max_age)
        pin = Pin(sha256.lower(), now, expires)
        with self._lock:
            self._pins[self.key(host, port)] = pin
            self._save()
        return pin

    def forget(self, host: str, port: int) -> None:
        with self._lock:
            if self._pins.pop(self.key(host, port), None) is not None:
                self._save()

    def clear(self) -> None:
        with self._lock:
            self._pins.clear()
            self._save()

    def check(
        self, host: str, port: int, sha256: str, *, expires: float | None = None, url: str = ""
    ) -> None:
        """Accept `sha256` for host:port, pinning it on first use; raise on a changed certificate."""
        current = self.get(host, port)
        if current is not None and current.sha256 == sha256.lower():
            return
        if current is not None and (current.expires is None or current.expires > self._clock()):
            raise FetchError(
                f"TLS certificate of {self.key(host, port)} changed: pinned SHA-256 {current.sha256}, "
                f"server presented {sha256.lower()}. If the change is legitimate, call "
                "TofuStore.forget(host, port) or pin the new fingerprint.",
                url=url,
                kind="tls",
            )
        self.pin(host, port, sha256, expires=expires)

    def _save(self) -> None:
        if self._path is None:
            return
        data = {"version": 1, "pins": {k: asdict(v) for k, v in sorted(self._pins.items())}}
        tmp = self._path.with_name(f".{self._path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        tmp.replace(self._path)


def _load(path: Path) -> dict[str, Pin]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        pins = data["pins"]
        return {
            str(k): Pin(str(v["sha256"]), float(v["first_seen"]), _opt_float(v.get("expires")))
            for k, v in pins.items()
        }
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InvalidArgument(f"cannot read TOFU pins from {path}: {exc!r}") from exc


def _opt_float(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


def _der_item(buf: bytes, pos: int) -> tuple[int, int, int]:
    """(tag, start of content, end of content) of the DER item at `pos`."""
    tag, length = buf[pos], buf[pos + 1]
    pos += 2
    if length & 0x80:
        n = length & 0x7F
        length = int.from_bytes(buf[pos : pos + n], "big")
        pos += n
    return tag, pos, pos + length


def cert_not_after(der: bytes) -> float | None:
    """The notAfter of a DER X.509 certificate as epoch seconds (RFC 5280 4.1), or None.

    The stdlib only decodes certificates it verified, and TOFU verifies none, so the few DER
    items on the way to `validity` are walked here.
    """
    try:
        _, cert, _ = _der_item(der, 0)
        _, tbs, _ = _der_item(der, cert)
        pos = tbs
        tag, _, end = _der_item(der, pos)
        if tag == 0xA0:  # [0] EXPLICIT version
            pos = end
        for _ in range(3):  # serialNumber, signature, issuer
            pos = _der_item(der, pos)[2]
        _, validity, _ = _der_item(der, pos)
        na_pos = _der_item(der, validity)[2]
        tag, start, end = _der_item(der, na_pos)
        text = der[start:end].decode("ascii")
        if tag == 0x17:  # UTCTime YYMMDDHHMMSSZ (RFC 5280 4.1.2.5.1)
            year = int(text[:2])
            text = f"{1900 + year if year >= 50 else 2000 + year}{text[2:]}"
        parsed = time.strptime(text, "%Y%m%d%H%M%SZ")
        return float(calendar.timegm(parsed))
    except (IndexError, ValueError, UnicodeDecodeError):
        return None
