"""Self-signed certificates made at test time with `cryptography` (never shipped in the repo)."""

from __future__ import annotations

import datetime as dt
import hashlib
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class CertPair:
    """PEM files on disk plus the SHA-256 of the DER leaf certificate (what TOFU pins)."""

    cert: Path
    key: Path
    sha256: str
    not_after: dt.datetime


def make_cert(directory: Path, name: str = "localhost", *, days: int = 30) -> CertPair:
    """A self-signed EC certificate for `name`, `localhost` and 127.0.0.1 valid for `days` days."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    not_after = now + dt.timedelta(days=days)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(not_after)
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.DNSName(name),
                    x509.DNSName("localhost"),
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                ]
            ),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    directory.mkdir(parents=True, exist_ok=True)
    cert_path = directory / f"{name}-{cert.serial_number:x}.crt"
    key_path = directory / f"{name}-{cert.serial_number:x}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    sha = hashlib.sha256(cert.public_bytes(serialization.Encoding.DER)).hexdigest()
    return CertPair(cert_path, key_path, sha, not_after.replace(microsecond=0))
