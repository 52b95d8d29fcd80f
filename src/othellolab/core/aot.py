"""Ahead-of-time build of the scalar kernels ``Board`` calls, from the same source as the JIT.

``make setup`` runs ``python -m othellolab.core.aot``: it compiles ``kernels.legal_mask``,
``flip_mask``, ``play_with_moves``, ``transform`` and ``hash_position`` (their very Python
functions, so there is one implementation of each rule) into the extension module
``_rules_aot``. Importing that module needs neither Numba nor its JIT warm-up, which keeps a
cold ``import othellolab`` plus the first ``Board().legal_moves`` fast. The module records a
checksum of ``kernels.py``; ``core._fast`` uses it only while the checksum matches.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import warnings
import zlib
from pathlib import Path

MODULE = "_rules_aot"
KERNELS_PATH = Path(__file__).with_name("kernels.py")

EXPORTS = {
    "legal_mask": "u8(u8, u8, i8)",
    "flip_mask": "u8(u8, u8, i8, i8)",
    "play_with_moves": "Tuple((u8, u8, u8, i8))(u8, u8, i8, i8)",
    "transform": "u8(u8, i8, i8)",
    "hash_position": "u8(u8, u8)",
}
"""Kernels compiled ahead of time, with their Numba signatures."""


def source_checksum() -> int:
    """CRC-32 of ``kernels.py``: ties a build to the source it was compiled from."""
    return zlib.crc32(KERNELS_PATH.read_bytes())


def build(output_dir: Path | None = None) -> Path:
    """Compile the extension into ``output_dir`` (default: this package) and return its path."""
    import numba
    from numba.pycc import CC

    from othellolab.core import kernels
    from othellolab.core.files import replacing

    out = Path(output_dir) if output_dir else Path(__file__).parent
    checksum = source_checksum()

    def source_tag() -> int:
        return checksum

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cc = CC(MODULE)
        with tempfile.TemporaryDirectory() as tmp:
            cc.output_dir = tmp
            cc.verbose = False
            for name, sig in EXPORTS.items():
                cc.export(name, sig)(getattr(kernels, name).py_func)
            cc.export("source_tag", "i8()")(numba.njit(source_tag).py_func)
            cc.compile()
            (built,) = Path(tmp).glob(f"{MODULE}*")
            target = out / built.name
            with replacing(target) as staging:
                shutil.copyfile(built, staging)
    return target


if __name__ == "__main__":
    path = build(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
    print(f"built {path}")
