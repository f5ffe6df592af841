"""Credentials and personal data: what the scanner finds, what it leaves alone, and what a
write does with a finding (refuse, --redact, --allow-secret)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli, git

from biocortex_cli.store.secrets import scan, scrub

FAKE_JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLW5vdC1yZWFs"

POSITIVE = [
    ("AWS key AKIAIOSFODNN7EXAMPLE in the notebook", "AWS access key"),
    ("temporary ASIAY34FZKBOKMUTVV7A creds", "AWS access key"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS secret key"),
    ("key AIzaSyA1234567890abcdefghijklmnopqrstuv", "Google API key"),
    ("DefaultEndpointsProtocol=https;AccountName=lab;AccountKey=" + "A" * 86 + "==", "Azure storage key"),
    ("token ghp_" + "a1B2" * 9, "GitHub token"),
    ("github_pat_" + "11ABCDEFG" * 5, "GitHub token"),
    ("glpat-abcdefghij1234567890", "GitLab token"),
    ("xoxb-123456789012-abcdefghijkl", "Slack token"),
    ("sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "Anthropic API key"),
    ("OPENAI sk-proj-abcdefghijklmnopqrstuvwxyz0123456789AB", "OpenAI API key"),
    ("sk-" + "x1Y2" * 12, "OpenAI API key"),
    ("hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "Hugging Face token"),
    ("sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "Stripe key"),
    ("npm_" + "a" * 36, "npm token"),
    ("pypi-AgEIcHlwaS5vcmc" + "abcdefghij" * 3, "PyPI token"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIE...", "private key"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----", "private key"),
    ("-----BEGIN PRIVATE KEY-----", "private key"),
    (f"Authorization: Bearer {FAKE_JWT}", "bearer token"),
    (f"cookie {FAKE_JWT}", "JSON Web Token"),
    ("postgres://analyst:s3cretPass@db.lab.internal:5432/lims", "password in a URL"),
    ("https://user:hunter22@files.lab.example/data", "password in a URL"),
    ("bearer abcdefghijklmnopqrstuvwxyz012345", "bearer token"),
    ("password: hunter22", "password"),
    ("PASSWD=Tr0ub4dor&3", "password"),
    ("api_key = 9f8e7d6c5b4a39281706", "API key or secret"),
    ("client_secret: 'abcDEF123456ghiJKL'", "API key or secret"),
    ("access-token=abcdefghijklmnop1234", "API key or secret"),
    ("patient_name: John Smith", "patient name"),
    ("Patient name = Maria Garcia Lopez", "patient name"),
    ("DOB: 1980-04-12", "date of birth"),
    ("date of birth: 12/04/1980", "date of birth"),
    ("MRN: 00123456", "medical record number"),
    ("medical record number 7654321", "medical record number"),
    ("SSN: 123-45-6789", "social security number"),
    ("NHS number: 943 476 5919", "NHS number"),
]

NEGATIVE = [
    "TP53 regulates MDM2 (PMID:8319905)",
    "ENSG00000141510 and ENST00000269305",
    "doi:10.1038/s41586-020-2649-2",
    "commit 3f2a9c1d4e5b6a7980f1e2d3c4b5a69788796a5b",
    "md5 d41d8cd98f00b204e9800998ecf8427e",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "uuid 123e4567-e89b-12d3-a456-426614174000",
    "author: Dana Okafor <dokafor@lab.example>",
    "s3://lab-bucket/runs/GSE123456/matrix.h5ad",
    "https://www.ncbi.nlm.nih.gov/geo/query/acc.cgi?acc=GSE123456",
    "git@github.com:lab/pipeline.git",
    "the token budget is 2000 tokens",
    "we use scikit-learn and sk-learn style pipelines",
    "password policy requires rotation every 90 days",
    "password: <set in the vault UI>",
    "password: ${DB_PASSWORD}",
    "api_key: {{ secrets.API_KEY }}",
    "password: ****",
    "Bearer tokens are rejected by the LIMS",
    "the AKIA prefix marks AWS keys",
    "MKVLAAGIVALLLAAGCSSSKEETTPKPVKKHA protein",
    "ACGTACGTTTGACCAGTAGGCATCGATCGATCGATCGGCTAGCTAGCTAGCATCG",
    "date of birth was not recorded for mice",
    "patient name fields were removed before export",
    "MRN column dropped",
    "SSN not collected",
    "30x WGS of 200 samples, DP>=10, GQ>=20",
    "created: '2026-02-17T17:05:00Z'",
    "rs12345 and rs7412 in APOE",
    "CHEMBL25, GO:0008150, E-MTAB-1234",
    "hf_transfer was enabled for downloads",
    "xox is not a token",
    "eyJ alone is not a JWT",
]


@pytest.mark.parametrize(("text", "kind"), POSITIVE)
def test_finds(text: str, kind: str) -> None:
    assert kind in [f.kind for f in scan(text)], scan(text)


@pytest.mark.parametrize("text", NEGATIVE)
def test_leaves_alone(text: str) -> None:
    assert scan(text) == []


def test_table_sizes() -> None:
    assert len(POSITIVE) >= 30 and len(NEGATIVE) >= 30


def test_scrub_redacts_nested_values() -> None:
    data = {"plan": "key AKIAIOSFODNN7EXAMPLE", "lessons": ["password: hunter22"], "n": 3}
    assert scrub(data) == {"plan": "key [REDACTED:AWS-access-key]",
                           "lessons": ["[REDACTED:password]"], "n": 3}


def test_a_secret_refuses_the_write_and_names_the_field(vault: Path, cli: Cli) -> None:
    before = git(vault, "rev-parse", "HEAD")
    r = cli("episode", "add", "--task", "Fetch the run", "--plan", "used AKIAIOSFODNN7EXAMPLE", "--id", "leak")
    assert r.code == 1
    assert "episodes/" in r.err and "AWS access key in field 'plan'" in r.err and "--redact" in r.err
    assert git(vault, "rev-parse", "HEAD") == before
    assert not list(vault.rglob("leak.md")) and git(vault, "status", "--porcelain") == ""


def test_redact_writes_no_secret_anywhere(vault: Path, cli: Cli) -> None:
    r = cli("--redact", "episode", "add", "--task", "Fetch the run", "--id", "red",
            "--plan", "used AKIAIOSFODNN7EXAMPLE", "--lesson", "never paste password: hunter22")
    assert r.code == 0, r.err
    assert "redacted" in r.err
    for path in vault.rglob("*.md"):
        text = path.read_text()
        assert "AKIAIOSFODNN7EXAMPLE" not in text and "hunter22" not in text
    assert "[REDACTED:AWS-access-key]" in next(vault.rglob("red.md")).read_text()


def test_allow_secret_is_loud(vault: Path, cli: Cli) -> None:
    r = cli("--allow-secret", "fact", "add", "LIMS", "has_password", "password: hunter22")
    assert r.code == 0
    assert "WRITTEN ANYWAY" in r.err
    assert "Secret-Allowed: " in git(vault, "log", "-1", "--format=%B")


def test_redact_and_allow_secret_exclude_each_other(vault: Path, cli: Cli) -> None:
    r = cli("--redact", "--allow-secret", "episode", "add", "--task", "x")
    assert r.code == 2 and "exclude each other" in r.err
