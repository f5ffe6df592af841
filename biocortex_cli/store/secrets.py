"""Credentials and personal data never reach memory unnoticed.

Every note a transaction writes is scanned before it touches the disk. A finding refuses the write
(`path:line: <what> in field '<key>'`, nothing written, nothing committed) unless the command runs
with ``--redact`` (the secret is replaced by ``[REDACTED:<kind>]``) or ``--allow-secret`` (written
as is, with a warning per finding on stderr and a ``Secret-Allowed:`` trailer in the commit).

What is looked for: cloud keys (AWS, Google, Azure), API tokens (GitHub, GitLab, Slack, OpenAI,
Anthropic, Hugging Face, Stripe, npm, PyPI), private key blocks, JSON Web Tokens, passwords in
URLs, bearer tokens, ``password=``/``api_key:``-style assignments, and in clinical contexts
obvious personal data: patient names, dates of birth, medical record numbers, US social security
numbers, NHS numbers. Patterns are specific on purpose: a git commit hash, a checksum, an
Ensembl id, a DOI or an author's e-mail address is not a finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from biocortex_cli.errors import DataError

REFUSE, REDACT, ALLOW = "refuse", "redact", "allow"

_PATTERNS: list[tuple[str, str]] = [
    ("private key", r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----"),
    ("AWS access key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA)[0-9A-Z]{16}\b"),
    ("AWS secret key", r"(?i)\baws_?secret_?access_?key\b\s*[:=]\s*['\"]?[A-Za-z0-9/+=]{40}\b"),
    ("Google API key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    ("Azure storage key", r"(?i)\bAccountKey=[A-Za-z0-9+/=]{40,}"),
    ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b"),
    ("GitLab token", r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
    ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),
    ("Anthropic API key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    ("OpenAI API key", r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_\-]{32,}"),
    ("Hugging Face token", r"\bhf_[A-Za-z]{30,}\b"),
    ("Stripe key", r"\b(?:sk|rk)_live_[A-Za-z0-9]{20,}\b"),
    ("npm token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("PyPI token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{20,}"),
    ("JSON Web Token", r"\beyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"),
    ("password in a URL", r"\b[a-z][a-z0-9+.\-]*://[^\s/:@]+:[^\s/@]{3,}@[^\s/]+"),
    ("bearer token", r"(?i)\bbearer\s+[A-Za-z0-9\-._~+/]{20,}=*"),
    ("password", r"(?i)\b(?:password|passwd|pwd)\s*[:=]\s*['\"]?(?!\*+|<|\{|\$\{|\[REDACTED)[^\s'\"]{4,}"),
    ("API key or secret", r"(?i)\b(?:api[_-]?key|api[_-]?secret|client[_-]?secret|access[_-]?token|"
                          r"secret[_-]?key|auth[_-]?token)\b['\"]?\s*[:=]\s*['\"]?(?!<|\{|\$\{|\[REDACTED)"
                          r"[A-Za-z0-9_\-./+=]{12,}"),
    # personal data in clinical contexts
    ("patient name", r"(?i)\bpatient[_ ]?name\s*[:=]\s*['\"]?[A-Z][a-z]+(?:[ ,]+[A-Z][a-z]+)+"),
    ("date of birth", r"(?i)\b(?:date[_ ]of[_ ]birth|d\.?o\.?b\.?)\s*[:=]\s*['\"]?\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}"),
    ("medical record number", r"(?i)\b(?:MRN|medical[_ ]record[_ ](?:number|no\.?))\s*[:=#]?\s*\d{5,}"),
    ("social security number", r"(?i)\b(?:SSN|social[_ ]security[_ ](?:number|no\.?))\s*[:=#]?\s*\d{3}-\d{2}-\d{4}\b"),
    ("NHS number", r"(?i)\bNHS[_ ](?:number|no\.?)\s*[:=#]?\s*\d{3}\s?\d{3}\s?\d{4}\b"),
]
_REGEX = re.compile("|".join(
    f"(?P<p{i}>(?i:{p[4:]}))" if p.startswith("(?i)") else f"(?P<p{i}>{p})" for i, (_k, p) in enumerate(_PATTERNS)))
_KEY_LINE = re.compile(r"^([A-Za-z_][\w.-]*):")


@dataclass(frozen=True)
class Finding:
    kind: str
    line: int
    field: str  # frontmatter key, or "body"
    start: int
    end: int


def scan(text: str) -> list[Finding]:
    """Every finding in a note's text, in order."""
    if not text:
        return []
    findings: list[Finding] = []
    for m in _REGEX.finditer(text):
        kind = _PATTERNS[int((m.lastgroup or "p0")[1:])][0]
        line = text.count("\n", 0, m.start()) + 1
        findings.append(Finding(kind, line, _field_at(text, line), m.start(), m.end()))
    return findings


def _field_at(text: str, line: int) -> str:
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return "body"
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            break
    else:
        return "body"
    if line - 1 >= end:
        return "body"
    for i in range(line - 1, 0, -1):
        m = _KEY_LINE.match(lines[i])
        if m:
            return m.group(1)
    return "frontmatter"


def redact(text: str, findings: list[Finding]) -> str:
    out, pos = [], 0
    for f in findings:
        out += [text[pos:f.start], f"[REDACTED:{f.kind.replace(' ', '-')}]"]
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


def scrub(value: Any, kinds: list[str] | None = None) -> Any:
    """``value`` (str, list, dict, nested) with every finding in its strings redacted: used on a
    record's input under --redact, before ids, entities and file names are derived from it.
    The kinds found are appended to ``kinds`` when given."""
    if isinstance(value, str):
        found = scan(value)
        if kinds is not None:
            kinds.extend(f.kind for f in found)
        return redact(value, found) if found else value
    if isinstance(value, list):
        return [scrub(v, kinds) for v in value]
    if isinstance(value, dict):
        return {k: scrub(v, kinds) for k, v in value.items()}
    return value


def scrub_input(value: Any, what: str) -> Any:
    """:func:`scrub`, saying on stderr what was redacted."""
    import sys

    kinds: list[str] = []
    cleaned = scrub(value, kinds)
    if kinds:
        sys.stderr.write(f"biocortex: warning: redacted {len(kinds)} finding(s) in {what}: "
                         f"{', '.join(sorted(set(kinds)))}\n")
    return cleaned


def check_path(rel: str) -> None:
    """A finding in a file name can be neither redacted nor committed: always refused."""
    found = scan(rel)
    if found:
        raise DataError(f"{found[0].kind} in a file name; nothing was written", path=rel,
                        hint="remove it from the name or id you gave")


def guard(rel: str, text: str, policy: str) -> tuple[str, list[Finding]]:
    """The text to write under ``policy``; raises DataError (nothing written) when refused."""
    findings = scan(text)
    if not findings:
        return text, []
    if policy == REDACT:
        return redact(text, findings), findings
    if policy == ALLOW:
        return text, findings
    first = findings[0]
    more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
    raise DataError(f"{first.kind} in field '{first.field}'{more}; nothing was written",
                    path=rel, line=first.line,
                    hint="remove it, or rerun with --redact to replace it by [REDACTED:…] "
                         "(--allow-secret writes it anyway, into git history for good)")
