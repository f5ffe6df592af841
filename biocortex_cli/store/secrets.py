"""Credentials and personal data never reach memory unnoticed.

What is looked for: gitleaks' published rule set (~220 rules kept by its maintainers, converted
to ``data/secret_rules.json`` by ``scripts/build_secret_rules.py``; commit and licence in
``data/NOTICE-gitleaks.txt``), plus the few shapes it has no rule for (passwords in URLs and
assignments, PEM blocks without their END line, PuTTY keys, Google OAuth, Stripe webhook and
Azure SAS secrets, HTTP Basic auth, Telegram bot tokens) and, in clinical contexts, obvious
personal data (patient names, dates of birth, record, social security and NHS numbers). Why these
and not detect-secrets or the old hand-written list: docs/reliability.md (measured on
``tests/secret_corpus.py``).

Where: every *decoded* string a write commits (:func:`inspect`: each frontmatter value with its
key, the body, each value of each JSON line, the file name), the commit message and the author
(:func:`guard_commit`), so escaping, YAML folding or a tab cannot hide a token. A finding refuses
the write (``path:line: <kind> in field '<key>'``, nothing written, nothing committed) unless the
command runs with ``--redact`` (the whole secret, a whole PEM block, becomes
``[REDACTED:<kind>]`` in the decoded value, which is then written again, so JSON and YAML stay
valid) or ``--allow-secret`` (written as is, a warning per finding, a ``Secret-Allowed:``
trailer in the commit).

Biology is not a secret: a value that is an accession, an Ensembl/GO/rs id, a sequence, a
digest, a DOI or a data file name is never a finding of the generic (keyword = value) rules.

Cost: the rules load and compile on the first scan, which only writes do (the ``recall`` path
never imports this module); each rule runs only on text holding one of its keywords.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from biocortex_cli.errors import DataError

if TYPE_CHECKING:
    from biocortex_cli.store.notes import Note

REFUSE, REDACT, ALLOW = "refuse", "redact", "allow"
_CTX = r"""(?i)[\w.-]{0,40}?"""  # the start of a "name = value" rule (gitleaks' own prefix)
_ASSIGN = r"""[\w.-]{0,20}?['"]?\s{0,3}(?::{1,2}|=>?|:=)\s{0,3}"""
_PLACEHOLDER = r"""(?!\*+['"]?(?:\s|$)|<|\{|\$\{|\$[A-Z_]+|%\(|\[REDACTED)"""
_VALUE = r"""(?:"([^"\n]{4,})"|'([^'\n]{4,})'|([^\s'"][^\s]{3,}))"""

#: Shapes gitleaks has no rule for (or only in a ``curl`` command): (id, regex, keywords, options).
_OURS: list[tuple[str, str, tuple[str, ...], dict[str, Any]]] = [
    ("private-key-block", r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9_-]"
     r"{0,100}PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)", ("-----begin",), {"whole": True}),
    ("putty-private-key", r"PuTTY-User-Key-File-\d+:[\s\S]*?(?:Private-MAC: ?[0-9a-fA-F]+|$(?![\s\S]))",
     ("putty-user-key-file",), {"whole": True}),
    ("password-in-url", r"\b[a-z][a-z0-9+.-]*://[^\s/:@]*:([^\s/@]{3,})@[^\s/]+", ("://",), {}),
    ("password", _CTX + r"(?:password|passwd|passwort|passphrase|pwd)" + _ASSIGN + _PLACEHOLDER + _VALUE,
     ("password", "passwd", "passwort", "passphrase", "pwd"), {"generic": True}),
    ("secret-assignment", _CTX + r"(?:api[_-]?key|api[_-]?secret|secret|token|credentials?|private[_-]?key|"
     r"access[_-]?key|auth(?!or(?!i[sz])))" + _ASSIGN + _PLACEHOLDER + r"""['"]?([A-Za-z0-9_\-./+=~]{12,})""",
     ("api", "secret", "token", "credential", "private", "access", "auth"), {"generic": True, "entropy": 3.0}),
    ("netrc-password", r"\bmachine\s+\S+\s+login\s+\S+\s+password\s+(\S+)", ("machine",), {}),
    ("mysql-password", r"\bmysql(?:dump|admin)?\b[^\n]*?\s-p(?!\s)(\S{4,})", ("mysql",), {}),
    ("basic-auth", r"(?i)\bauthorization\b['\"]?\s*[:=]\s*['\"]?basic\s+([A-Za-z0-9+/]{8,}={0,2})", ("basic",), {}),
    ("bearer-token", r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{20,}=*)", ("bearer",), {}),
    ("mailgun-key", r"\bkey-[0-9a-f]{32}\b", ("key-",), {}),
    ("google-oauth-client-secret", r"\bGOCSPX-[A-Za-z0-9_-]{20,}", ("gocspx-",), {}),
    ("google-oauth-access-token", r"\bya29\.[A-Za-z0-9_-]{30,}", ("ya29.",), {}),
    ("stripe-webhook-secret", r"\bwhsec_[A-Za-z0-9+/=]{24,}", ("whsec_",), {}),
    ("azure-sas-signature", r"[?&]sig=([A-Za-z0-9%+/=]{20,})", ("sig=",), {}),
    ("telegram-bot-token", r"\b\d{8,10}:AA[A-Za-z0-9_-]{32,33}\b", (":aa",), {}),
    # gitleaks wants the T3BlbkFJ marker inside; a key cut or retyped without it is still a key
    ("openai-key-prefix", r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{32,}", ("sk-proj-", "sk-svcacct-", "sk-admin-"),
     {"whole": True}),
    # personal data in clinical contexts
    ("patient-name", r"(?i)\bpatient[_ ]?name\s*[:=]\s*['\"]?([A-Z][a-z]+(?:[ ,]+[A-Z][a-z]+)+)", ("patient",), {}),
    ("date-of-birth", r"(?i)\b(?:date[_ ]of[_ ]birth|d\.?o\.?b\.?)\s*[:=]\s*['\"]?(\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4})",
     ("birth", "dob", "d.o.b"), {}),
    ("medical-record-number", r"(?i)\b(?:MRN|medical[_ ]record[_ ](?:number|no\.?))\s*[:=#]?\s*(\d{5,})",
     ("mrn", "medical"), {}),
    ("social-security-number", r"(?i)\b(?:SSN|social[_ ]security[_ ](?:number|no\.?))\s*[:=#]?\s*(\d{3}-\d{2}-\d{4})\b",
     ("ssn", "social"), {}),
    ("nhs-number", r"(?i)\bNHS[_ ](?:number|no\.?)\s*[:=#]?\s*(\d{3}\s?\d{3}\s?\d{4})\b", ("nhs",), {}),
]

#: A value a generic rule captured that is biology (or research bookkeeping), not a credential.
_BIOLOGY = re.compile(r"""(?x)
    ENS[A-Z]{0,6}[GTPER]\d{11}(?:\.\d+)?                             # Ensembl
  | (?:[SED]RR|[SED]RX|[SED]RS|[SED]RP|PRJ(?:NA|EB|DB)|SAM(?:N|EA|D)|GS[EM]|GPL|EGA[SDF])\d{4,}  # runs, studies
  | E-[A-Z]{4}-\d+                                                   # ArrayExpress
  | [OPQ][0-9][A-Z0-9]{3}[0-9](?:-\d+)? | [A-NR-Z][0-9](?:[A-Z][A-Z0-9]{2}[0-9]){1,2}(?:-\d+)?  # UniProt
  | [NXYAW][MRPC]_\d{6,9}(?:\.\d+)?                                  # RefSeq
  | [A-Za-z]{2,10}[:_]\d{5,}                                         # GO:, HP:, CHEMBL, CVCL_ …
  | rs\d{3,}                                                         # dbSNP
  | 10\.\d{4,9}/\S+                                                  # DOI
  | (?:sha(?:1|256|512)|md5):[0-9a-f]{32,128}                        # digests
  | [ACGTUN]{8,} | [ACDEFGHIKLMNPQRSTVWY]{8,}                        # sequences, peptides
  | [A-Z]{14}-[A-Z]{10}-[A-Z]                                        # InChIKey
  | [\w.+-]+\.(?:f(?:ast)?q|bam|cram|sam|vcf|bcf|bed|bigwig|bw|h5ad|h5|loom|mtx|tsv|csv|txt|fa|fasta|gtf|gff3?)
    (?:\.gz|\.bz2)?                                                    # data files
""")


_MARKER = re.compile(r"\[REDACTED:[a-z0-9-]+\]")


@dataclass(frozen=True)
class Finding:
    kind: str  # the rule's id, e.g. github-pat, password, private-key-block
    line: int
    field: str  # frontmatter key (dotted for nested values), "body", "file name", "line N", …
    start: int  # span of the secret in the string it was found in
    end: int
    secret: str = dataclasses.field(default="", repr=False, compare=False)  # never printed: masks a path (_refusal)


@dataclass
class _Rule:
    id: str
    pattern: str
    keywords: tuple[str, ...]
    secret_group: int = 0
    entropy: float = 0.0
    generic: bool = False  # a "name = value" rule: the biology allow-list applies to the value
    whole: bool = False  # redact the whole match (a key block), not only the secret group
    allowlists: tuple[dict[str, Any], ...] = ()
    _regex: re.Pattern[str] | None = dataclasses.field(default=None, repr=False)

    @property
    def regex(self) -> re.Pattern[str]:
        if self._regex is None:
            self._regex = re.compile(self.pattern, re.ASCII)
        return self._regex


@dataclass(frozen=True)
class _RuleSet:
    rules: tuple[_Rule, ...]
    by_keyword: dict[str, tuple[int, ...]]
    keywords: re.Pattern[str]
    allow_regexes: tuple[re.Pattern[str], ...]
    stopwords: tuple[str, ...]


@functools.cache
def _ruleset(ours: bool = True) -> _RuleSet:
    """gitleaks' rules and (``ours``) biocortex's additions, loaded on the first scan."""
    from pathlib import Path

    data = json.loads((Path(__file__).resolve().parents[1] / "data" / "secret_rules.json").read_text(encoding="utf-8"))
    rules = [_Rule(r["id"], r["regex"], tuple(r["keywords"]), r["secret_group"], r["entropy"],
                   generic=r["regex"].startswith("(?i)[\\w.-]{0,50}?"), allowlists=tuple(r["allowlists"]))
             for r in data["rules"]]
    if ours:
        rules += [_Rule(rid, rx, kws, entropy=opts.get("entropy", 0.0), generic=opts.get("generic", False),
                        whole=opts.get("whole", False)) for rid, rx, kws, opts in _OURS]
    by_keyword: dict[str, list[int]] = {}
    for i, rule in enumerate(rules):
        for kw in rule.keywords:
            by_keyword.setdefault(kw, []).append(i)
    return _RuleSet(tuple(rules), {k: tuple(v) for k, v in by_keyword.items()},
                    re.compile(f"(?=({_trie(sorted(by_keyword))}))"),
                    tuple(re.compile(r, re.ASCII) for r in data["allowlist"]["regexes"]),
                    tuple(data["allowlist"]["stopwords"]))


def _trie(words: list[str]) -> str:
    """One regex for ``words`` shaped as a trie (``a(?:pi|uth)``): ~20x faster than a flat
    alternation of 400 keywords, the prefilter every scan runs."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def walk(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + walk(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else f"(?:{'|'.join(alts)})"
        return f"(?:{body})?" if "" in node else body

    return walk(tree)


def _entropy(text: str) -> float:
    counts: dict[str, int] = {}
    for ch in text:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in counts.values()) if n else 0.0


def _secret_span(rule: _Rule, m: re.Match[str]) -> tuple[int, int]:
    if rule.whole or m.re.groups == 0:
        return m.span()
    if rule.secret_group:
        return m.span(rule.secret_group)
    for g in range(1, m.re.groups + 1):  # gitleaks: the first group that matched something
        if m.group(g):
            return m.span(g)
    return m.span()


def _allowed(rule: _Rule, secret: str, match: str, line: str, rs: _RuleSet) -> bool:
    low = secret.lower()
    if any(r.search(secret) for r in rs.allow_regexes) or any(w in low for w in rs.stopwords):
        return True
    for allow in rule.allowlists:
        target = {"match": match, "line": line}.get(allow["target"], secret)
        hits = []
        if allow["regexes"]:
            hits.append(any(re.search(r, target, re.ASCII) for r in allow["regexes"]))
        if allow["stopwords"]:
            hits.append(any(w in low for w in allow["stopwords"]))
        if hits and (all(hits) if allow["all"] else any(hits)):
            return True
    return bool(rule.generic and _BIOLOGY.fullmatch(secret.strip("'\"`.,;")))


def _spans(text: str, rs: _RuleSet | None = None) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every secret in ``text``, overlapping ones merged, in order."""
    if len(text) < 8:
        return []
    if rs is None:
        return [] if _keyword_free(text) else list(_spans_of(text))
    return _find(text, rs)


#: strings and lines known to hold no keyword of the default rules (:func:`_keyword_free`)
_CLEAN: set[str] = set()
_CLEAN_MAX = 200_000


def _keyword_free(text: str, *, remember: bool = True) -> bool:
    """Whether ``text`` holds no keyword of any rule: then :func:`_find` runs no rule on it and
    it holds no finding. Decided line by line (no keyword spans a newline: tests/test_secrets.py;
    they are ASCII, so a line lowers as it does in the whole text) and remembered, because a
    batch repeats most values and lines (the author, dates, a note's fixed text): an import of
    10,000 facts holds ~350,000 strings, ~60,000 distinct lines, 4 with a keyword.
    ``remember=False``: a text not seen again (a note's strings joined, :func:`_none_in`)."""
    if text in _CLEAN:
        return True
    if len(_CLEAN) > _CLEAN_MAX:
        _CLEAN.clear()
    search = _ruleset().keywords.search
    for line in text.split("\n") if "\n" in text else (text,):
        if line not in _CLEAN:
            if search(line.lower()):
                return False
            _CLEAN.add(line)
    if remember:
        _CLEAN.add(text)
    return True


#: strings :func:`_spans` found nothing in, remembered (:func:`_none_in`), up to _REMEMBER_MAX characters
_FOUND_NONE: set[str] = set()
_REMEMBER_MAX = 256


def _none_in(texts: list[str]) -> bool:
    """Whether :func:`_spans` finds nothing in any of ``texts`` (with the default rules). A
    batch of notes repeats most strings (the author with its keyword ``auth``, dates, names):
    the ones seen clean are skipped, the others checked for keywords at once, joined by newlines
    (no keyword spans one), and scanned one by one only when that finds one."""
    todo = [t for t in texts if len(t) >= 8 and t not in _FOUND_NONE]
    if not todo:
        return True
    if not _keyword_free("\n".join(todo), remember=False) and any(_spans(t) for t in todo):
        return False
    if len(_FOUND_NONE) > _CLEAN_MAX:
        _FOUND_NONE.clear()
    _FOUND_NONE.update(t for t in todo if len(t) <= _REMEMBER_MAX)  # what repeats is short
    return True


@functools.lru_cache(maxsize=8192)
def _spans_of(text: str) -> tuple[tuple[int, int, str], ...]:
    """:func:`_find` with the default rules, remembered: a batch repeats most values (tools,
    lessons, the author, field names), and a scan is pure."""
    return tuple(_find(text, _ruleset()))


def _find(text: str, rs: _RuleSet) -> list[tuple[int, int, str]]:
    low = text.lower()
    longest = {m.group(1) for m in rs.keywords.finditer(low)}  # the longest keyword at each position
    hits = {h[:n] for h in longest for n in range(1, len(h) + 1)}  # and those it starts with
    candidates = sorted({i for kw in hits for i in rs.by_keyword.get(kw, ())})
    markers = [m.span() for m in _MARKER.finditer(text)] if "[REDACTED:" in text else []
    found: list[tuple[int, int, str, bool]] = []
    for i in candidates:
        rule = rs.rules[i]
        for m in rule.regex.finditer(text):
            start, end = _secret_span(rule, m)
            secret = text[start:end]
            if not secret or (rule.entropy and _entropy(secret) <= rule.entropy):
                continue
            if any(s < end and start < e for s, e in markers):  # what --redact left is no secret
                continue
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = text.find("\n", m.end())
            if _allowed(rule, secret, m.group(0), text[line_start : line_end if line_end >= 0 else len(text)], rs):
                continue
            found.append((start, end, rule.id, rule.generic))
    found.sort()
    merged: list[tuple[int, int, str, bool]] = []
    for start, end, kind, generic in found:
        if merged and start < merged[-1][1]:  # one secret: named by the specific rule, else the longest
            s, e, k, g = merged[-1]
            keep = (not g, e - s) >= (not generic, end - start)
            merged[-1] = (s, max(e, end), k if keep else kind, g if keep else generic)
        else:
            merged.append((start, end, kind, generic))
    return [(s, e, k) for s, e, k, _g in merged]


def scan(text: str, field: str = "text", first_line: int = 1, *, count_lines: bool = True) -> list[Finding]:
    """Every finding in ``text``, in order (``line`` counts from ``first_line``; a decoded value
    is on its key's line, ``count_lines=False``)."""
    return [Finding(kind, first_line + (text.count("\n", 0, start) if count_lines else 0), field, start, end,
                    text[start:end]) for start, end, kind in _spans(text)]


def redact(text: str, findings: list[Finding] | None = None) -> str:
    """``text`` with every secret (``findings`` of it, else all) replaced by ``[REDACTED:kind]``."""
    spans = [(f.start, f.end, f.kind) for f in findings] if findings is not None else _spans(text)
    out, pos = [], 0
    for start, end, kind in spans:
        out += [text[pos:start], f"[REDACTED:{kind}]"]
        pos = end
    out.append(text[pos:])
    return "".join(out)


# --- decoded values ---------------------------------------------------------------------------

def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """(field path, text) for every string in ``value``; a mapping's string values also come
    as ``key: value`` so a rule sees the name a value was given (``password: …``)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            sub = f"{path}.{k}" if path else str(k)
            yield sub, str(k)
            if isinstance(v, str):
                yield sub, f"{k}: {v}"
            else:
                yield from _strings(v, sub)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, f"{path}[{i}]")


def _texts(value: Any, out: list[str]) -> list[str]:
    """The strings :func:`_strings` yields for ``value``, without their field paths (appended to
    ``out``): what a clean note's check needs, at a fraction of the cost."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.append(str(k))
            if isinstance(v, str):
                out.append(f"{k}: {v}")
            else:
                _texts(v, out)
    elif isinstance(value, list):
        for v in value:
            _texts(v, out)
    return out


def scan_value(value: Any, field: str = "", line: int = 1) -> list[Finding]:
    """Every finding in the strings of ``value`` (str, list, dict, nested)."""
    return [f for path, text in _strings(value, field) for f in scan(text, path or "value", line, count_lines=False)]


def scrub(value: Any, kinds: list[str] | None = None) -> Any:
    """``value`` (str, list, dict, nested) with every secret in its strings redacted: the
    record-level helper callers apply to input before ids, entities and file names are derived
    from it. The kinds found are appended to ``kinds`` when given."""
    if isinstance(value, str):
        spans = _spans(value)
        if kinds is not None:
            kinds.extend(k for _s, _e, k in spans)
        return redact(value, [Finding(k, 0, "", s, e) for s, e, k in spans]) if spans else value
    if isinstance(value, list):
        return [scrub(v, kinds) for v in value]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            key = scrub(k, kinds) if isinstance(k, str) else k
            if isinstance(v, str) and not _spans(v):
                pair = f"{k}: {v}"  # a secret seen only with its name (password: x)
                spans = [s for s in _spans(pair) if s[0] >= len(k) + 2]
                if spans:
                    if kinds is not None:
                        kinds.extend(s[2] for s in spans)
                    v = redact(pair, [Finding(kd, 0, "", s, e) for s, e, kd in spans])[len(k) + 2 :]
            out[key] = scrub(v, kinds)
        return out
    return value


def scrub_input(value: Any, what: str) -> Any:
    """:func:`scrub`, saying on stderr what was redacted."""
    import sys

    from biocortex_cli.progress import plural

    kinds: list[str] = []
    cleaned = scrub(value, kinds)
    if kinds:
        sys.stderr.write(f"biocortex: warning: redacted {plural(len(kinds), 'finding')} in {what}: "
                         f"{', '.join(sorted(set(kinds)))}\n")
    return cleaned


def inspect(rel: str, text: str, parsed: Note | None = None) -> list[Finding]:
    """Every finding in a file about to be written, scanned as decoded values: a note's
    frontmatter values (with their keys) and body, each JSON line's values, else the text.
    ``parsed``: the note already parsed from ``text`` (a write parses it once)."""
    if rel.endswith(".md") and text.startswith("---"):
        note = _parsed_note(text, rel) if parsed is None else (parsed.meta, parsed.key_lines, parsed.body,
                                                                parsed.body_line)
        if note is not None:
            return _note_findings(*note)
    if rel.endswith(".jsonl"):
        found = []
        for number, raw in enumerate(text.split("\n"), start=1):
            try:
                data = json.loads(raw) if raw.strip() else None
            except ValueError:
                data = raw
            found += scan_value(data, "", number) if data is not None else []
        return found
    return scan(text)


def note_findings(note: Note) -> list[Finding]:
    """Every finding in a note as it is on disk (``check``: a note edited by hand never passes a
    write's scan), by field and line."""
    return _note_findings(note.meta, note.key_lines, note.body, note.body_line)


def _note_findings(meta: dict[str, Any], key_lines: dict[str, int], body: str, body_line: int) -> list[Finding]:
    if _none_in(_texts(meta, [body])):
        return []  # nothing found in any of its strings: no need to say where
    found = [f for key, value in meta.items() for f in scan_value({key: value}, "", key_lines.get(key, 1))]
    return found + scan(body, "body", body_line)


def _parsed_note(text: str, rel: str) -> tuple[dict[str, Any], dict[str, int], str, int] | None:
    from biocortex_cli.store.notes import parse_note

    try:
        note = parse_note(text, rel)
    except DataError:
        return None
    return note.meta, note.key_lines, note.body, note.body_line


def redact_file(rel: str, text: str) -> str:
    """``text`` with every secret redacted in its decoded values, written again in its own
    format: a JSON line is dumped anew (valid JSON), frontmatter is edited round-trip (comments
    and key order kept), a body or any other text is redacted as text."""
    if rel.endswith(".jsonl"):
        lines = text.split("\n")
        for i, raw in enumerate(lines):
            try:
                data = json.loads(raw) if raw.strip() else None
            except ValueError:
                data = None
            if data is None:
                lines[i] = redact(raw) if raw.strip() else raw
            elif scan_value(data):
                lines[i] = json.dumps(scrub(data), ensure_ascii=False)
        return "\n".join(lines)
    if rel.endswith(".md") and text.startswith("---"):
        note = _parsed_note(text, rel)
        if note is not None:
            from biocortex_cli.store.notes import edit_frontmatter, split_frontmatter

            meta = note[0]
            updates = {k: scrub({k: v})[k] for k, v in meta.items() if scan_value({k: v})}
            head = edit_frontmatter(text, updates, rel) if updates else text
            _fm, body, _line = split_frontmatter(head, rel)
            return head[: len(head) - len(body)] + redact(body)
    return redact(text)


def check_path(rel: str) -> None:
    """A secret in a file name can be neither redacted here nor committed: always refused
    (``--redact`` removes it from the input the name is derived from)."""
    parts = rel.split("/")
    names = "\n".join([*parts, parts[-1].rsplit(".", 1)[0]])  # each name, and the last without its suffix
    found = scan(names, "file name")
    if found:
        raise DataError(f"{found[0].kind} in a file name; nothing was written", path=masked_path(rel, found),
                        hint="remove it from the name or id you gave (--redact removes it from text you give)")


def masked_path(rel: str, findings: list[Finding]) -> str:
    """``rel`` as an error may show it: any piece of a secret found (an id made from it) is cut."""
    shown = redact(rel)
    for word in {w for f in findings for w in re.findall(r"[A-Za-z0-9]{4,}", f.secret)}:
        shown = re.sub(re.escape(word), "…", shown, flags=re.IGNORECASE)
    return shown


def _refusal(rel: str, findings: list[Finding], what: str | None = None) -> DataError:
    first = findings[0]
    more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
    where = what or f"field '{first.field}'"
    return DataError(f"{first.kind} in {where}{more}; nothing was written",
                     path=masked_path(rel, findings), line=first.line if what is None else None,
                     hint="remove it, or rerun with --redact to replace it by [REDACTED:…] "
                          "(--allow-secret writes it anyway, into git history for good)")


def guard(rel: str, text: str, policy: str, parsed: Note | None = None) -> tuple[str, list[Finding]]:
    """The text to write under ``policy``; raises DataError (nothing written) when refused."""
    findings = inspect(rel, text, parsed)
    if not findings:
        return text, []
    if policy == REDACT:
        cleaned = redact_file(rel, text)
        left = inspect(rel, cleaned)
        if left:  # never expected: refuse rather than write a secret
            raise _refusal(rel, left)
        return cleaned, findings
    if policy == ALLOW:
        return text, findings
    raise _refusal(rel, findings)


def guard_commit(message: str, author: str, policy: str) -> tuple[str, list[Finding]]:
    """The commit message to use under ``policy``; the author (``Name <email>``) is refused when
    it holds a secret (``--redact`` removes it when the author is read, store/vault.py)."""
    in_author = scan(author, "author")
    if in_author and policy != ALLOW:
        raise _refusal("--author", in_author, "the commit author")
    found = scan(message, "commit message")
    if not found or policy == ALLOW:
        return message, found + in_author
    if policy == REDACT:
        return redact(message, found), found
    raise _refusal("the commit message", found, "the commit message")
