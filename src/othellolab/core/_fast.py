"""The scalar kernels that ``Board`` calls: the ahead-of-time build of ``kernels.py`` when it
is present and current (no Numba import, no JIT warm-up), else the JIT kernels themselves.

Set ``OTHELLOLAB_NO_AOT=1`` to force the JIT kernels.
"""

from __future__ import annotations

import os
import warnings
from types import ModuleType


def _load() -> ModuleType:
    if not os.environ.get("OTHELLOLAB_NO_AOT"):
        try:
            from othellolab.core import _rules_aot  # type: ignore[attr-defined]
        except ImportError:
            pass
        else:
            from othellolab.core.aot import source_checksum

            if _rules_aot.source_tag() == source_checksum():
                return _rules_aot
            warnings.warn(
                "othellolab: the ahead-of-time kernels are older than kernels.py; using the JIT "
                "(rebuild with `python -m othellolab.core.aot`)",
                stacklevel=3,
            )
    from othellolab.core import kernels

    return kernels


rules = _load()
USING_AOT = rules.__name__.endswith("_rules_aot")
