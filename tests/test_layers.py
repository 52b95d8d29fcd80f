"""The import rule of DESIGN.md: a module imports only from layers ranked below it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "othellolab"
RANK = {
    "core": 0,
    "records": 1,
    "protocols": 2,
    "datasets": 3,
    "nn": 4,
    "players": 5,
    "arena": 6,
    "training": 7,
    "envs": 8,
    "ui": 8,
    "cli": 9,
    "testing": 9,
}


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
