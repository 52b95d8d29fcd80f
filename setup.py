"""Build hook for the one compiled part: ``othellolab.core._fastboard``, the C fast path of
``Board.play`` and ``Board.legal_actions``. Everything else is configured in pyproject.toml.

The extension is optional: if it does not compile (no C compiler, no Python headers), the
install goes on without it and ``Board`` uses the Numba kernels, with the same results.
"""

import zlib
from pathlib import Path

from setuptools import Extension, setup

SOURCE = "src/othellolab/core/_fastboard.c"
# Ties the build to its source: Board ignores a module built from an older _fastboard.c.
CRC = zlib.crc32((Path(__file__).parent / SOURCE).read_bytes())

setup(
    ext_modules=[
        Extension(
            "othellolab.core._fastboard",
            [SOURCE],
            define_macros=[("FASTBOARD_SOURCE_CRC", f"{CRC}ULL")],
            optional=True,
        )
    ]
)
