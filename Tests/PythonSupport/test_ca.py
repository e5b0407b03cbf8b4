"""A throwaway certificate authority for the TLS tests: a CA and the server certificates it
issues (for 127.0.0.1 as an IP SAN, and localhost), written as PEM files the way an operator
gets them from an ACME client or their own CA. Uses the `cryptography` package (which aiortc,
installed by scripts/test, brings).

As a command, `python3 test_ca.py DIR` writes DIR/ca.pem, DIR/server.pem (the server
certificate followed by the CA: a full chain), DIR/server.key, DIR/elsewhere.pem and .key (a
certificate for elsewhere.test only), DIR/soon.pem and .key (valid for 5 more days) and
DIR/other-ca.pem (a CA that issued nothing of this
server's), for tests in other languages."""

import datetime
import ipaddress
import pathlib
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _now():
    return datetime.datetime.now(datetime.timezone.utc)


def _key_pem(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


class TestCA:
    """A CA key and self-signed certificate in `directory` (`<name>.pem`)."""

    def __init__(self, directory, name="ca"):
        self.directory = pathlib.Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"Caucus test CA {name}")])
        now = _now()
        self.certificate = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(subject)
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=365))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
                    key_agreement=False, key_cert_sign=True, crl_sign=True, encipher_only=False, decipher_only=False),
                critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(self.key.public_key()), critical=False)
            .sign(self.key, hashes.SHA256())
        )
        self.pem = self.certificate.public_bytes(serialization.Encoding.PEM)
        self.path = self.directory / f"{name}.pem"
        self.path.write_bytes(self.pem)

    def issue(self, name, serial, valid_for=datetime.timedelta(days=90), not_before=None, common_name=None,
              names=("127.0.0.1", "localhost")):
        """A server certificate for `names` (IP addresses and DNS names; by default 127.0.0.1
        and localhost), and its key: writes `<name>.pem` (certificate then CA) and
        `<name>.key`; returns both paths."""
        key = ec.generate_private_key(ec.SECP256R1())
        start = not_before or (_now() - datetime.timedelta(hours=1))
        certificate = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name or f"caucus test server {serial}")]))
            .issuer_name(self.certificate.subject)
            .public_key(key.public_key())
            .serial_number(serial)
            .not_valid_before(start)
            .not_valid_after(start + valid_for)
            .add_extension(x509.SubjectAlternativeName([_general_name(name) for name in names]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self.key.public_key()), critical=False)
            .sign(self.key, hashes.SHA256())
        )
        certificate_path = self.directory / f"{name}.pem"
        key_path = self.directory / f"{name}.key"
        certificate_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM) + self.pem)
        key_path.write_bytes(_key_pem(key))
        return certificate_path, key_path


def _general_name(name):
    try:
        return x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        return x509.DNSName(name)


def stray_key(path):
    """A private key that belongs to no certificate here."""
    path = pathlib.Path(path)
    path.write_bytes(_key_pem(ec.generate_private_key(ec.SECP256R1())))
    return path


def main(directory):
    ca = TestCA(directory, "ca")
    ca.issue("server", serial=1001)
    ca.issue("elsewhere", serial=1002, names=("elsewhere.test",))
    ca.issue("soon", serial=1003, valid_for=datetime.timedelta(days=5))
    TestCA(directory, "other-ca")


if __name__ == "__main__":
    main(sys.argv[1])
