"""Docstrings where users read them: every name in the ``__all__`` of ``othellolab`` and of each
of its modules (packages and modules alike) has a docstring that ``help()``, the editor and the
API reference of the docs site show.

What is checked, name by name:

- modules, classes and functions (and any other object that carries its own ``__doc__``, such
  as a compiled Numba kernel) need their own docstring. A dataclass or named tuple without
  one gets a generated ``Name(field, ...)`` line, which says nothing of what or why: it counts
  as missing; a class does not inherit its base's docstring here.
- objects that cannot carry a docstring of their own (type aliases such as ``Literal[...]``,
  instances such as Numba intrinsics) are documented by the string literal right under their
  assignment, as the API reference reads it (``name = ...`` then ``\"\"\"...\"\"\"``), found in
  the module that assigns the name, following ``from ... import`` re-exports.
- plain constants (numbers, strings, tuples, dicts, arrays, paths, dtypes, signatures, Numba
  types, option declarations) are skipped: their value is most of their meaning, and most
  carry the same kind of string literal, which the reference shows where it exists.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import sys
import types
import typing
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

import othellolab

CONSTANTS = (int, float, complex, str, bytes, bool, tuple, list, dict, set, frozenset)
"""Plain values, skipped (see the module's docstring)."""
DATA = (np.ndarray, np.dtype, np.generic, Path, inspect.Signature, type(None))


def public_modules() -> list[types.ModuleType]:
    """``othellolab`` and every module below it, imported (``__main__`` modules, which run a
    command when imported, are left out)."""
    modules = [othellolab]
    for info in pkgutil.walk_packages(othellolab.__path__, "othellolab."):
        if info.name.rsplit(".", 1)[-1] != "__main__":
            modules.append(importlib.import_module(info.name))
    return modules


def _skipped(obj: Any) -> bool:
    """A plain constant (see the module's docstring)."""
    if isinstance(obj, CONSTANTS + DATA):
        return True
    module = getattr(type(obj), "__module__", "")
    if module == "othellolab.config.options" and type(obj).__name__ == "Option":
        return True
    return module == "numba.core.types.abstract" or module.startswith("numba.core.types")


def _own_doc(obj: Any) -> str | None:
    """The docstring an object carries itself, or None (a generated dataclass or named tuple
    line counts as none)."""
    if inspect.isclass(obj):
        doc = obj.__dict__.get("__doc__")
        if doc and doc.startswith(f"{obj.__name__}(") and doc.rstrip().endswith(")"):
            return None  # dataclasses' and namedtuple's generated signature line
        return doc
    if inspect.ismodule(obj) or inspect.isroutine(obj):
        return obj.__doc__
    doc = getattr(obj, "__doc__", None)
    # an instance's __doc__ is usually its type's: only an object's own one counts
    if doc is not None and doc != getattr(type(obj), "__doc__", None):
        return doc
    return None


@cache
def _tree(module: str) -> ast.Module | None:
    try:
        spec = importlib.util.find_spec(module)
    except ValueError:  # a module made in memory (the self-test's)
        return None
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return None
    return ast.parse(Path(spec.origin).read_text(encoding="utf-8"))


def attribute_doc(module: str, name: str, depth: int = 0) -> str | None:
    """The string literal under ``name``'s assignment in ``module``, following the ``from X
    import name`` that brought it there."""
    tree = _tree(module)
    if tree is None or depth > 8:
        return None
    body = tree.body
    for i, node in enumerate(body):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            nxt = body[i + 1] if i + 1 < len(body) else None
            if (
                isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)
            ):
                return nxt.value.value
            return None
    for node in body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    source = node.module
                    if node.level:
                        base = module.rsplit(".", node.level)[0]
                        source = f"{base}.{node.module}"
                    return attribute_doc(source, alias.name, depth + 1)
    return None


def undocumented(modules: list[types.ModuleType]) -> list[str]:
    """``module.name`` of each ``__all__`` name that needs a docstring and has none."""
    missing = []
    for module in modules:
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if _skipped(obj):
                continue
            doc = _own_doc(obj)
            if not (inspect.isclass(obj) or inspect.ismodule(obj) or inspect.isroutine(obj)):
                doc = doc or attribute_doc(module.__name__, name)
            if not (doc and doc.strip()):
                missing.append(f"{module.__name__}.{name}")
    return missing


def test_every_public_name_has_a_docstring() -> None:
    modules = public_modules()
    assert len(modules) > 100, "the walk found too few modules"
    assert sum(len(getattr(m, "__all__", ())) for m in modules) > 500
    assert undocumented(modules) == []


def test_the_check_finds_what_it_is_for() -> None:
    """A name without a docstring of each kind is found; documented ones and constants pass."""
    import dataclasses

    fake = types.ModuleType("othellolab_fake_public")

    def bare(x: int) -> int:
        return x

    def told(x: int) -> int:
        """Says what and why."""
        return x

    @dataclasses.dataclass
    class Plain:
        x: int

    class Empty:
        pass

    class Documented(Empty):
        """Says what and why."""

    fake.bare, fake.told, fake.Plain, fake.Empty, fake.Documented = (
        bare,
        told,
        Plain,
        Empty,
        Documented,
    )
    fake.LIMIT, fake.Kind = 3, typing.Literal["a", "b"]
    fake.__all__ = ["Documented", "Empty", "Kind", "LIMIT", "Plain", "bare", "told"]
    sys.modules[fake.__name__] = fake
    try:
        assert undocumented([fake]) == [
            "othellolab_fake_public.Empty",
            "othellolab_fake_public.Kind",
            "othellolab_fake_public.Plain",
            "othellolab_fake_public.bare",
        ]
    finally:
        del sys.modules[fake.__name__]
    # an intrinsic is documented by the literal under its assignment, through two re-exports
    assert attribute_doc("othellolab.core.games", "heuristic_at") == attribute_doc(
        "othellolab.core.rules_kernels", "heuristic_at"
    )
    assert attribute_doc("othellolab.core.rules_kernels", "heuristic_at")
