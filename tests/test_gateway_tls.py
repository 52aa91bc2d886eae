"""TLS on the gateway: a CA, a server certificate and a client certificate made here with
cryptography; HTTPS, mutual TLS required or optional, refused handshakes, ``memguard serve``."""

from __future__ import annotations

import datetime
import ipaddress
import os
import signal
import ssl
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import typer
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from gateway_helpers import fact, running_gateway
from typer.testing import CliRunner

from memguard import Source, SourceKind, Turn
from memguard.client import GatewayUnavailable, MemguardClient, RetryPolicy
from memguard.gateway.cli import serve
from memguard.gateway.server import free_port
from memguard.tokens.sts import SecurityTokenService


@dataclass
class Pki:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    other_ca: Path

    def context(self, *, client: bool = True, ca: Path | None = None) -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=str(ca or self.ca))
        if client:
            ctx.load_cert_chain(str(self.client_cert), str(self.client_key))
        return ctx


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _write_key(key: ec.EllipticCurvePrivateKey, path: Path) -> None:
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                       serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))


def _ca(tmp: Path, name: str) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(_name(name)).issuer_name(_name(name))
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True,
                                         crl_sign=True, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False,
                                         decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                           critical=False)
            .sign(key, hashes.SHA256()))
    path = tmp / f"{name}.pem"
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return key, cert, path


def _leaf(tmp: Path, name: str, ca_key: ec.EllipticCurvePrivateKey, ca: x509.Certificate,
          *, server: bool) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(_name(name)).issuer_name(ca.subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                   ca_key.public_key()), critical=False)
               .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH if server
                                                     else ExtendedKeyUsageOID.CLIENT_AUTH]),
                              critical=False))
    if server:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]),
            critical=False)
    cert = builder.sign(ca_key, hashes.SHA256())
    cert_path, key_path = tmp / f"{name}.pem", tmp / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    _write_key(key, key_path)
    return cert_path, key_path


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    tmp = tmp_path_factory.mktemp("pki")
    ca_key, ca, ca_path = _ca(tmp, "test-ca")
    server_cert, server_key = _leaf(tmp, "gateway", ca_key, ca, server=True)
    client_cert, client_key = _leaf(tmp, "agent", ca_key, ca, server=False)
    _, _, other = _ca(tmp, "other-ca")
    return Pki(ca_path, server_cert, server_key, client_cert, client_key, other)


def test_mutual_tls_required(tmp_path: Path, pki: Pki) -> None:
    tls = {"cert": str(pki.server_cert), "key": str(pki.server_key),
           "client_ca": str(pki.ca), "client_cert": "required"}
    with running_gateway(tmp_path, mcp=False, server={"tls": tls}) as gw:
        assert gw.base.startswith("https://") and gw.resource.startswith("https://")
        ok = httpx.get(f"{gw.base}/healthz", verify=pki.context(), timeout=10)
        assert ok.status_code == 200
        token = gw.user_token()
        with MemguardClient(gw.base, token, verify=pki.context(), retry=RetryPolicy.none()) as c:
            out = c.write("over mTLS", namespace="n", source=Source(kind=SourceKind.USER_MESSAGE),
                          turn=Turn(session_id="s", turn_index=0))
            assert c.get(out.fact_id).text == "over mTLS"
        with pytest.raises(httpx.HTTPError):  # no client certificate: no handshake
            httpx.get(f"{gw.base}/healthz", verify=pki.context(client=False), timeout=10)
        with pytest.raises(httpx.HTTPError):  # a server the client's CA did not sign
            httpx.get(f"{gw.base}/healthz", verify=pki.context(ca=pki.other_ca), timeout=10)
        with pytest.raises(httpx.HTTPError):  # plain HTTP on the TLS port
            httpx.get(gw.base.replace("https://", "http://") + "/healthz", timeout=10)
        with MemguardClient(gw.base, token, verify=pki.context(client=False),
                            retry=RetryPolicy.none()) as c, pytest.raises(GatewayUnavailable):
            c.search("x")


def test_client_certificate_optional_and_tls_only(tmp_path: Path, pki: Pki) -> None:
    tls = {"cert": str(pki.server_cert), "key": str(pki.server_key),
           "client_ca": str(pki.ca), "client_cert": "optional"}
    with running_gateway(tmp_path / "a", mcp=False, server={"tls": tls}) as gw:
        assert httpx.get(f"{gw.base}/healthz", verify=pki.context(client=False),
                         timeout=10).status_code == 200
    plain = {"cert": str(pki.server_cert), "key": str(pki.server_key)}
    with running_gateway(tmp_path / "b", mcp=False, server={"tls": plain}) as gw:
        r = httpx.post(f"{gw.base}/v1/facts", json=fact("x"), headers=gw.headers(gw.user_token()),
                       verify=pki.context(client=False), timeout=10)
        assert r.status_code == 201


def test_serve_refuses_half_a_tls_configuration(tmp_path: Path, pki: Pki) -> None:
    app = typer.Typer()
    app.command()(serve)
    cfg = tmp_path / "gw.yaml"
    cfg.write_text(f"state_dir: {tmp_path / 's'}\n", "utf-8")
    result = CliRunner().invoke(app, ["--config", str(cfg), "--tls-cert", str(pki.server_cert)])
    assert result.exit_code == 3 and "--tls-key" in result.output
    result = CliRunner().invoke(app, ["--config", str(cfg), "--tls-cert", str(tmp_path / "no"),
                                      "--tls-key", str(pki.server_key)])
    assert result.exit_code == 3 and "server.tls.cert" in result.output
    result = CliRunner().invoke(app, ["--config", str(cfg), "--tls-cert", str(pki.server_key),
                                      "--tls-key", str(pki.server_cert)])  # swapped
    assert result.exit_code == 3 and "cannot load" in result.output


@pytest.mark.slow
def test_memguard_serve_with_tls_options(tmp_path: Path, pki: Pki) -> None:
    port = free_port()
    resource = f"https://127.0.0.1:{port}"
    cfg = tmp_path / "gw.yaml"
    cfg.write_text(f"state_dir: state\nserver: {{port: {port}}}\nmcp: {{enabled: false}}\n",
                   "utf-8")
    sts = SecurityTokenService(tmp_path / "state" / "sts", issuer=resource, audiences=(resource,))
    log = tmp_path / "serve.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "memguard.gateway", "--config", str(cfg),
             "--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key),
             "--tls-client-ca", str(pki.ca)],
            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=sink,
            env={**os.environ, "SSL_CERT_FILE": str(pki.ca)})
    try:
        ctx = pki.context()
        import time

        deadline = time.monotonic() + 180
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                if httpx.get(f"{resource}/readyz", verify=ctx, timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline
            time.sleep(0.2)
        token = sts.issue_user_token("alice", scopes=("memory:read", "memory:write"))
        r = httpx.post(f"{resource}/v1/facts", json=fact("tls"), verify=ctx, timeout=10,
                       headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 201
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    lines = [line for line in log.read_text().splitlines() if '"gateway.request"' in line]
    assert lines, "the access lines go to stderr as JSON"

