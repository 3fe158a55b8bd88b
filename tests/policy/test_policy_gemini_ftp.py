"""SPEC.md section 6 for Gemini (status classes 1x-6x, 44 SLOW DOWN) and FTP (550, 530, 4yz)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from robotskit.policy import Outcome
from robotskit.testing import ftp_response, gemini_response

if TYPE_CHECKING:
    from .conftest import Drive


GEMINI = "gemini://gem.example/robots.txt"
FTP = "ftp://ftp.example.org/robots.txt"
BODY = b"User-agent: *\nDisallow: /private/\n"


@pytest.mark.parametrize("meta", ["text/gemini", "text/plain", "text/plain; charset=utf-8", "TEXT/GEMINI"])
def test_gemini_20_text_is_ok(drive: Drive, meta: str) -> None:
    """SPEC.md 6 row 1: Gemini 20 with text/gemini or text/plain is parsed without a note."""
    entry, _ = drive("gemini://gem.example/log/", {GEMINI: gemini_response(20, meta, BODY)})
    assert entry.outcome is Outcome.OK
    assert entry.protocol == "gemini"
    assert entry.reason == "Gemini 20"
    assert entry.notes == ()
    assert entry.robots is not None
    assert not entry.robots.allowed("gemini://gem.example/private/x", "bot")


@pytest.mark.parametrize("meta", ["application/octet-stream", "", "text/html"])
def test_gemini_20_other_mime_parsed_with_note(drive: Drive, meta: str) -> None:
    """SPEC.md 6 row 1: other Gemini MIME types are still parsed, with a note saying so."""
    entry, _ = drive("gemini://gem.example/", {GEMINI: gemini_response(20, meta, BODY)})
    assert entry.outcome is Outcome.OK
    assert any("MIME type" in n for n in entry.notes)
    assert entry.robots is not None
    assert not entry.robots.allowed("gemini://gem.example/private/", "bot")


def test_gemini_2x_unknown_second_digit_is_success(drive: Drive) -> None:
    """Gemini spec: an unknown x-digit is handled as x0, so 21 reads like 20."""
    entry, _ = drive("gemini://gem.example/", {GEMINI: gemini_response(21, "text/gemini", BODY)})
    assert entry.outcome is Outcome.OK


@pytest.mark.parametrize("status", [30, 31])
def test_gemini_redirects_followed(drive: Drive, status: int) -> None:
    """SPEC.md 6 row 2: Gemini 30 and 31 are followed, relative META resolved, across hosts."""
    script = {
        GEMINI: gemini_response(status, "/files/robots.txt"),
        "gemini://gem.example/files/robots.txt": gemini_response(status, "gemini://other.example/robots.txt"),
        "gemini://other.example/robots.txt": gemini_response(20, "text/gemini", BODY),
    }
    entry, fetcher = drive("gemini://gem.example/", script)
    assert fetcher.urls == [
        GEMINI,
        "gemini://gem.example/files/robots.txt",
        "gemini://other.example/robots.txt",
    ]
    assert entry.outcome is Outcome.OK
    assert entry.authority == "gemini://gem.example"


def test_gemini_redirect_chain_past_five_is_unavailable(drive: Drive) -> None:
    """SPEC.md 6 row 2: Gemini redirects obey the same five-hop limit."""
    script = {f"gemini://gem.example/r{i}": gemini_response(30, f"/r{i + 1}") for i in range(10)}
    script[GEMINI] = gemini_response(30, "/r0")
    entry, fetcher = drive("gemini://gem.example/", script)
    assert entry.outcome is Outcome.UNAVAILABLE
    assert fetcher.count() == 6


@pytest.mark.parametrize("status", [10, 11, 50, 51, 52, 53, 59, 60, 61, 62])
def test_gemini_1x_5x_6x_unavailable(drive: Drive, status: int) -> None:
    """SPEC.md 6 row 3: Gemini input (1x), permanent failure (5x, 51 not found), cert (6x): allow all."""
    entry, _ = drive("gemini://gem.example/", {GEMINI: gemini_response(status, "nope")})
    assert entry.outcome is Outcome.UNAVAILABLE
    assert entry.reason == f"Gemini {status}"


@pytest.mark.parametrize("status", [40, 41, 42, 43])
def test_gemini_4x_unreachable(drive: Drive, status: int) -> None:
    """SPEC.md 6 row 4: Gemini temporary failures (4x) are unreachable: disallow all."""
    entry, _ = drive("gemini://gem.example/", {GEMINI: gemini_response(status, "try later")})
    assert entry.outcome is Outcome.UNREACHABLE
    assert entry.retry_after is None


def test_gemini_44_wait_is_honoured(drive: Drive, clock) -> None:  # type: ignore[no-untyped-def]
    """SPEC.md 6 row 4: 44 SLOW DOWN is unreachable and its META wait sets the retry time."""
    entry, _ = drive("gemini://gem.example/", {GEMINI: gemini_response(44, "600")})
    assert entry.outcome is Outcome.UNREACHABLE
    assert entry.retry_after == 600.0
    assert entry.expires_at == clock() + 600.0


@pytest.mark.parametrize("status", [0, 7, 70, 99])
def test_gemini_invalid_status_unreachable(drive: Drive, status: int) -> None:
    """SPEC.md 6 row 4: a status outside 10..69 is a bad response."""
    entry, _ = drive("gemini://gem.example/", {GEMINI: gemini_response(status, "")})
    assert entry.outcome is Outcome.UNREACHABLE
    assert entry.notes


@pytest.mark.parametrize("status", [226, 250])
def test_ftp_file_read_is_ok(drive: Drive, status: int) -> None:
    """SPEC.md 6 row 1: an FTP file read (226/250 after RETR) is parsed."""
    entry, _ = drive("ftp://ftp.example.org/pub/", {FTP: ftp_response(status, BODY)})
    assert entry.outcome is Outcome.OK
    assert entry.protocol == "ftp"
    assert entry.robots is not None
    assert not entry.robots.allowed("ftp://ftp.example.org/private/a", "bot")


@pytest.mark.parametrize("status", [550, 553])
def test_ftp_no_such_file_unavailable(drive: Drive, status: int) -> None:
    """SPEC.md 6 row 3: FTP 550 (no such file) is unavailable: allow all."""
    entry, _ = drive("ftp://ftp.example.org/", {FTP: ftp_response(status, meta="No such file")})
    assert entry.outcome is Outcome.UNAVAILABLE
    assert entry.reason == f"FTP {status}"


def test_ftp_login_refused_unavailable(drive: Drive) -> None:
    """SPEC.md 6 row 3 (decided): FTP 530 login refused is unavailable, as HTTP 401/403 (RFC 9309 2.3.1.3)."""
    entry, _ = drive("ftp://ftp.example.org/", {FTP: ftp_response(530, meta="Login incorrect.")})
    assert entry.outcome is Outcome.UNAVAILABLE
    assert entry.reason == "FTP 530"


@pytest.mark.parametrize("status", [421, 425, 426, 450, 451])
def test_ftp_transient_failures_unreachable(drive: Drive, status: int) -> None:
    """SPEC.md 6 row 4: FTP 4yz replies (RFC 959: transient) are unreachable."""
    entry, _ = drive("ftp://ftp.example.org/", {FTP: ftp_response(status)})
    assert entry.outcome is Outcome.UNREACHABLE


@pytest.mark.parametrize(
    ("code", "text"),
    [
        (450, "robots.txt: No such file or directory"),
        (450, "File unavailable"),
        (451, "not found"),
        (421, "does not exist"),
        (450, "File busy, try later"),
    ],
)
def test_ftp_transient_code_is_unreachable_whatever_its_text(drive: Drive, code: int, text: str) -> None:
    """RFC 959 4.2: a 4yz reply is transient whatever its text: unreachable, never "no file"."""
    entry, _ = drive("ftp://ftp.example.org/", {FTP: ftp_response(code, meta=text)})
    assert entry.outcome is Outcome.UNREACHABLE
