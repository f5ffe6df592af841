"""Build ``biocortex_cli/data/secret_rules.json`` from gitleaks' published rule set.

gitleaks (MIT, https://github.com/gitleaks/gitleaks) keeps ``config/gitleaks.toml``: ~220 rules,
each a Go RE2 regex with keywords (a cheap prefilter), an entropy floor and allow-lists. This
script converts them to Python ``re`` syntax, checks that every one compiles, and records the
commit and licence beside them (``biocortex_cli/data/NOTICE-gitleaks.txt``). biocortex's scanner
(``store/secrets.py``) loads the JSON on the first write that needs it, never on the read path.

    git -C GITLEAKS_CLONE show COMMIT:config/gitleaks.toml > gitleaks.toml
    python scripts/build_secret_rules.py gitleaks.toml --commit COMMIT --license GITLEAKS_CLONE/LICENSE

RE2 -> Python: a flag group in the middle of a pattern (``p8e-(?i)[a-z0-9]{32}``) becomes a
scoped group running to the end of its enclosing group (``p8e-(?i:[a-z0-9]{32})``); ``\\z``
becomes ``\\Z``; POSIX classes become ranges; patterns compile with ``re.ASCII`` (RE2's ``\\w``,
``\\s`` and ``\\b`` are ASCII). Rules that apply only to certain file paths (``.tf``, ``.php``,
``nuget.config``, ``*.p12``) are left out: a vault holds none of those files.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "biocortex_cli" / "data" / "secret_rules.json"
NOTICE = ROOT / "biocortex_cli" / "data" / "NOTICE-gitleaks.txt"
_POSIX = {"[:alnum:]": "A-Za-z0-9", "[:alpha:]": "A-Za-z", "[:digit:]": "0-9", "[:upper:]": "A-Z",
          "[:lower:]": "a-z", "[:space:]": r"\t\n\v\f\r ", "[:xdigit:]": "0-9A-Fa-f"}
_FLAGS = re.compile(r"\(\?([a-zA-Z]*(?:-[a-zA-Z]+)?)\)")


def to_python(pattern: str) -> str:
    """An RE2 pattern in Python ``re`` syntax (see the module docstring)."""
    out: list[str] = []
    scoped: list[list[str]] = [[]]  # per open group: the flag groups opened in it, closed at its end
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            esc = pattern[i : i + 2]
            out.append(r"\Z" if esc == r"\z" else esc)
            i += 2
            continue
        if in_class:
            posix = next((k for k in _POSIX if pattern.startswith(k, i)), None)
            if posix:
                out.append(_POSIX[posix])
                i += len(posix)
                continue
            if c == "]":
                in_class = False
            out.append("\\[" if c == "[" else c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":  # a leading ] is a literal
                out.append("\\]")
                i += 1
            continue
        flags = _FLAGS.match(pattern, i) if c == "(" else None
        if flags:
            if not out:  # at the very start: Python takes it as a global flag
                out.append(flags.group(0))
            else:
                out.append(f"(?{flags.group(1)}:")
                scoped[-1].append(flags.group(1))
            i = flags.end()
            continue
        if c == "(":
            scoped.append([])
        elif c == ")":
            out.append(")" * len(scoped.pop()))
        elif c == "|" and scoped[-1]:  # RE2 flags run on into the next alternative: reopen them there
            out += [")" * len(scoped[-1]), "|", *(f"(?{f}:" for f in scoped[-1])]
            i += 1
            continue
        out.append(c)
        i += 1
    out.append(")" * len(scoped.pop()))
    return "".join(out)


def compiles(pattern: str) -> str | None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            re.compile(pattern, re.ASCII)
        except (re.error, FutureWarning) as exc:
            return str(exc)
    return None


def convert(cfg: dict[str, Any], commit: str) -> dict[str, Any]:
    rules, skipped = [], []
    for rule in cfg["rules"]:
        if "path" in rule or "regex" not in rule:
            skipped.append({"id": rule["id"], "why": "applies only to files named like " + rule.get("path", "?")})
            continue
        regex = to_python(rule["regex"])
        problem = compiles(regex)
        if problem:
            raise SystemExit(f"{rule['id']}: {problem}\n  {regex}")
        allowlists = []
        for allow in rule.get("allowlists", []):
            regexes = [to_python(r) for r in allow.get("regexes", [])]
            for r in regexes:
                if compiles(r):
                    raise SystemExit(f"{rule['id']} allowlist: {compiles(r)}\n  {r}")
            if allow.get("paths") and not (regexes or allow.get("stopwords")):
                continue  # a path-only allow-list: nothing to apply to text
            allowlists.append({"target": allow.get("regexTarget", "secret"), "regexes": regexes,
                               "stopwords": [w.lower() for w in allow.get("stopwords", [])],
                               "all": allow.get("condition", "OR").upper() == "AND"})
        rules.append({"id": rule["id"], "description": rule.get("description", ""), "regex": regex,
                      "secret_group": int(rule.get("secretGroup", 0)), "entropy": float(rule.get("entropy", 0.0)),
                      "keywords": sorted({k.lower() for k in rule.get("keywords", [])}),
                      "allowlists": allowlists})
    glob = cfg.get("allowlist", {})
    return {
        "source": "gitleaks config/gitleaks.toml (https://github.com/gitleaks/gitleaks)",
        "commit": commit,
        "license": "MIT (see NOTICE-gitleaks.txt)",
        "generated_by": "scripts/build_secret_rules.py",
        "allowlist": {"regexes": [to_python(r) for r in glob.get("regexes", [])],
                      "stopwords": [w.lower() for w in glob.get("stopwords", [])]},
        "rules": rules,
        "skipped": skipped,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("toml", type=Path, help="gitleaks' config/gitleaks.toml")
    ap.add_argument("--commit", required=True, help="the gitleaks commit the file comes from")
    ap.add_argument("--license", type=Path, required=True, help="gitleaks' LICENSE file")
    args = ap.parse_args(argv)
    data = convert(tomllib.loads(args.toml.read_text(encoding="utf-8")), args.commit)
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    NOTICE.write_text(
        "biocortex_cli/data/secret_rules.json is converted from config/gitleaks.toml of gitleaks\n"
        f"(https://github.com/gitleaks/gitleaks), commit {args.commit}, by scripts/build_secret_rules.py.\n"
        "gitleaks is distributed under the following licence:\n\n" + args.license.read_text(encoding="utf-8"),
        encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(data['rules'])} rules ({len(data['skipped'])} path-only rules "
          f"left out) from gitleaks {args.commit[:12]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
