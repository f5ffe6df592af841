"""The layering of docs/architecture.md, enforced: which packages may import which, no import
cycles, typer and rich only in cli/, the MCP SDK nowhere (the server is hand-written; the tests
use the SDK's client), nothing below cli/ writes to stdout.

Imports are read with ``ast`` from every module, at module level and inside functions (a lazy
import is still a dependency); imports under ``if TYPE_CHECKING:`` are for annotations only and
are left out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "biocortex_cli"

#: Lowest first. A module may import from a lower layer, or from its own package (``facts.*``
#: from ``facts.*``); never from a higher layer, nor from another package of its own layer.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("errors", ("biocortex_cli", "errors", "records", "packed", "lazy")),  # version; errors; NamedTuple; packed; lazy
    ("foundation", ("tokens", "bio", "dates", "progress")),  # tokens; bio entities, tokenizer; dates; progress
    ("store", ("store",)),  # the vault: files, git, notes, config, the walker, episodes, entity notes
    ("render", ("render",)),  # text of values: what the index caches and what people read
    ("index", ("index",)),  # the sidecar index (episodes, feedback utilities, query weights)
    ("compress", ("compress",)),  # working memory
    ("features", ("facts", "lessons")),  # vertical slices: model → notes → render → index → recall part
    ("recall", ("recall",)),  # episodic recall, and the recall that composes every part
    ("operations", ("context", "evaluate", "ops")),  # across features: context, eval, check, sync, …
    ("api", ("api",)),  # the library API: keyword arguments in, frozen dataclasses out; CLI and MCP call it
    ("mcp", ("mcp_server",)),
    ("cli", ("cli",)),
    ("main", ("__main__",)),
]
_RANK = {package: rank for rank, (_name, packages) in enumerate(LAYERS) for package in packages}


@dataclass(frozen=True)
class Import:
    source: str  # importing module, e.g. biocortex_cli.facts.index
    target: str  # imported module (or package)
    line: int


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(module: str, path: Path, known: dict[str, Path]) -> list[Import]:
    out: list[Import] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                for orelse in child.orelse:  # type: ignore[attr-defined]
                    visit(orelse)
                continue
            if isinstance(child, ast.Import):
                out.extend(Import(module, a.name, child.lineno) for a in child.names
                           if a.name.split(".")[0] == "biocortex_cli")
            elif (isinstance(child, ast.ImportFrom) and child.module and child.level == 0
                  and child.module.split(".")[0] == "biocortex_cli"):
                for alias in child.names:
                    sub = f"{child.module}.{alias.name}"
                    out.append(Import(module, sub if sub in known else child.module, child.lineno))
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return out


MODULES = _modules()
IMPORTS = [imp for name, path in MODULES.items() for imp in _imports(name, path, MODULES) if imp.target != name]


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _where(imp: Import) -> str:
    return f"{MODULES[imp.source].relative_to(PACKAGE.parent)}:{imp.line}: {imp.source} imports {imp.target}"


def test_every_module_has_a_layer() -> None:
    assert sorted({_package(m) for m in MODULES} - set(_RANK)) == []


def test_imports_go_down_the_layers() -> None:
    wrong = []
    for imp in IMPORTS:
        src, dst = _package(imp.source), _package(imp.target)
        if src == dst:
            continue
        if _RANK[dst] >= _RANK[src]:
            wrong.append(_where(imp))
    assert wrong == [], "imports against docs/architecture.md's layering:\n" + "\n".join(wrong)


def test_no_import_cycles() -> None:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for imp in IMPORTS:
        if imp.target in graph:
            graph[imp.source].add(imp.target)
    cycles = _cycles(graph)
    assert cycles == [], f"import cycles: {cycles}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def _third_party(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize(("library", "allowed"), [("typer", ("cli",)), ("rich", ("cli",)), ("mcp", ())])
def test_interface_libraries_stay_in_their_face(library: str, allowed: tuple[str, ...]) -> None:
    found = [m for m, path in MODULES.items() if _package(m) not in allowed and library in _third_party(path)]
    assert found == [], f"{library} imported below {allowed}: {found}"


def test_nothing_below_the_faces_writes_to_stdout() -> None:
    """stdout carries only what was asked for (docs/json.md, "Streams"): warnings go to stderr."""
    wrong = []
    for module, path in MODULES.items():
        if _RANK[_package(module)] >= _RANK["mcp_server"]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "stdout" and getattr(node.value, "id", "") == "sys":
                wrong.append(f"{module}:{node.lineno}: sys.stdout")
            if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "print"
                    and not any(k.arg == "file" for k in node.keywords)):
                wrong.append(f"{module}:{node.lineno}: print() to stdout")
    assert wrong == []
