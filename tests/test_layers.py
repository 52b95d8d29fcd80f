"""The import rule of DESIGN.md: a module imports only from layers ranked below it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "othellolab"
RANK = {
    "core": 0,
    "config": 1,
    "shards": 1,
    "parallel": 1,
    "records": 2,
    "protocols": 3,
    "datasets": 4,
    "nn": 5,
    "players": 6,
    "arena": 7,
    "training": 8,
    "fitting": 8,
    "measure": 8,
    "envs": 9,
    "rl": 10,
    "ui": 10,
    "cli": 11,
    "testing": 11,
}
"""DESIGN.md's rank, with the mechanisms (config, shards, the executor) just above ``core``;
packages of one rank (training, fitting, measure; rl, ui) import none of each other."""


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "othellolab" else None


def imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
    return out


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE or p.stem == "testing")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layer_rank(path: Path) -> None:
    own = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
    assert own in RANK, f"{own} is not a known layer; add it to DESIGN.md's rank and here"
    for module in imports(path):
        layer = layer_of(module)
        if layer is None or layer == own:
            continue
        assert layer in RANK, f"{path.name} imports unknown layer {module}"
        assert RANK[layer] < RANK[own], (
            f"{path.relative_to(PACKAGE)} ({own}, rank {RANK[own]}) imports {module} "
            f"({layer}, rank {RANK[layer]})"
        )


SEARCH_ORDER = (
    "geometry",
    "state",
    "heuristic",
    "_pattern_tables",
    "simd",
    "_pattern_kernel",
    "pattern_terms",
    "patterns",
    "evaluation",
    "incremental",
    "table",
    "probcut",
    "priors",
    "smp",
    "lastempties",
    "ordering",
    "parallel_solve",
    "endgame",
    "pvs",
    "midgame",
    "book",
    "negamax",
    "exact4",
    "solved6",
)
"""The modules of ``players/search`` in the order their docstring gives: each imports only those
before it."""


def test_the_search_package_imports_only_downwards() -> None:
    folder = PACKAGE / "players" / "search"
    found = {p.stem for p in folder.glob("*.py")} - {"__init__"}
    assert found == set(SEARCH_ORDER), f"update SEARCH_ORDER and the package docstring: {found}"
    for rank, name in enumerate(SEARCH_ORDER):
        for module in imports(folder / f"{name}.py"):
            if module.startswith("othellolab.players.search."):
                other = module.rsplit(".", 1)[1]
                assert SEARCH_ORDER.index(other) < rank, f"search.{name} imports search.{other}"


def test_no_import_circles_between_modules() -> None:
    """Imports between othellolab's modules form no cycle, lazy ones inside functions included
    (a module may import its own package, whose ``__init__`` re-exports it)."""
    names = {
        ".".join(("othellolab", *p.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(
            ".__init__"
        ): p
        for p in PACKAGE.rglob("*.py")
    }
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        tree = ast.parse(path.read_text())
        deps = set()
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            deps |= {t for t in targets if t in names and t != name}
        graph[name] = deps
    # A package imports its own modules in its __init__; count a module's edge to its own
    # package's __init__ only when the package is not its parent (re-exports are not cycles).
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for dep in graph[node]:
            if node.startswith(dep + "."):
                continue  # a module importing its parent package
            if state.get(dep) == 1:
                cycle = [*stack[stack.index(dep) :], dep]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep)
        stack.pop()
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node)
