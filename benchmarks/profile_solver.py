"""Where the exact solver spends its time: FFO positions solved under Linux ``perf``, by kernel.

``perf`` cannot name the functions Numba compiles at run time, so this script runs the solves in
a child process under ``perf record``, has the child write a perf map (``/tmp/perf-PID.map``:
address, size and name of every function in every compiled library) once it is done, and then
sums ``perf report``'s samples by kernel. The child compiles into a fresh Numba cache directory,
because functions loaded from the on-disk cache come without the modules that list them.

Run ``python benchmarks/profile_solver.py --ffo 45 49`` (needs ``perf``; shares are of the
samples in compiled kernels, so the compile time and Python are left out). For a per-instruction
view, keep the data with ``--keep DIR`` and use ``perf report -i DIR/perf.data``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_search import DATA, solve_ffo

_CHILD = "OTHELLOLAB_PROFILE_CHILD"


def demangle(name: str) -> str:
    """``othellolab.players.search.lastempties.nws_shallow`` from Numba's Itanium-style symbol name (the
    length-prefixed parts after ``_ZN``, up to the ABI tags); other names unchanged."""
    if not name.startswith("_ZN"):
        return name
    parts, i = [], 3
    while i < len(name) and name[i].isdigit():
        m = re.match(r"\d+", name[i:])
        assert m is not None
        length = int(m.group())
        start = i + len(m.group())
        parts.append(name[start : start + length])
        i = start + length
    return ".".join(parts) or name


def write_perf_map() -> Path:
    """Write ``/tmp/perf-PID.map`` for every function compiled in this process; return its path."""
    import gc

    from numba.core.registry import CPUDispatcher

    functions: dict[int, str] = {}
    for obj in gc.get_objects():
        if not isinstance(obj, CPUDispatcher):
            continue
        for cres in obj.overloads.values():
            library = cres.library
            module = getattr(library, "_final_module", None)
            if module is None:
                continue
            for fn in module.functions:
                if fn.is_declaration:
                    continue
                address = library.get_pointer_to_function(fn.name)
                if address:
                    functions[address] = demangle(fn.name)
    if not functions:
        raise RuntimeError("no compiled function found (were they loaded from Numba's cache?)")
    path = Path(f"/tmp/perf-{os.getpid()}.map")
    starts = sorted(functions)
    with path.open("w") as fh:
        for start, end in zip(starts, [*starts[1:], starts[-1] + 4096], strict=True):
            fh.write(f"{start:x} {min(end - start, 1 << 16):x} {functions[start]}\n")
    return path


def child(numbers: list[int], table_bits: int, midgame_depth: int, positions: int) -> None:
    """Solve the positions as the benchmark does (its table rows, with the score checked; the
    seconds include the compile time), or search ``positions`` WTHOR midgame positions to
    ``midgame_depth`` as the default player does; then write the perf map."""
    if midgame_depth:
        from bench_search import midgame_positions
        from bench_smp import run

        run(midgame_positions(positions), midgame_depth, 1, 0)
    else:
        for number in numbers:
            solve_ffo(number, table_bits, None)
    print(f"perf map: {write_perf_map()}", flush=True)


def summarise(report: str) -> list[tuple[str, float]]:
    """Shares of the compiled kernels' samples by kernel, largest first, from ``perf report
    --stdio --sort symbol`` output."""
    by_kernel: dict[str, float] = defaultdict(float)
    for line in report.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(\S+)", line)
        if m and m.group(2).startswith(("othellolab.", "cpython.othellolab.")):
            by_kernel[m.group(2).removeprefix("cpython.")] += float(m.group(1))
    total = sum(by_kernel.values()) or 1.0
    return sorted(((k, 100.0 * v / total) for k, v in by_kernel.items()), key=lambda kv: -kv[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ffo", type=int, nargs="+", default=[45], help="FFO numbers, 40-59")
    parser.add_argument("--table-bits", type=int, default=22)
    parser.add_argument("--frequency", type=int, default=999, help="samples per second")
    parser.add_argument("--keep", type=Path, help="keep perf.data in this folder")
    parser.add_argument(
        "--midgame",
        type=int,
        default=0,
        metavar="DEPTH",
        help="profile the default player's midgame search to DEPTH on --positions WTHOR "
        "positions (ProbCut 1.5, patterns-r1) instead of the solver",
    )
    parser.add_argument("--positions", type=int, default=20, help="positions for --midgame")
    args = parser.parse_args()
    if not 0 <= args.midgame <= 30 or args.positions < 1:
        parser.error("--midgame must be within 0-30 (0: the solver) and --positions at least 1")
    if bad := [n for n in args.ffo if not 40 <= n <= 59]:
        parser.error(f"FFO numbers must be in 40-59, got {bad}")
    if os.environ.get(_CHILD):
        child(args.ffo, args.table_bits, args.midgame, args.positions)
        return
    perf = shutil.which("perf")
    if perf is None:
        sys.exit("profile_solver: needs Linux perf on the PATH (apt-get install linux-perf)")
    if not args.midgame and not (DATA / "ffo" / "fforum-40-59.obf").exists():
        sys.exit(f"profile_solver: no FFO file under {DATA} (set OTHELLOLAB_DATA)")
    with tempfile.TemporaryDirectory() as tmp:
        out = args.keep or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        data = out / "perf.data"
        env = dict(os.environ, **{_CHILD: "1", "NUMBA_CACHE_DIR": str(Path(tmp) / "numba")})
        cmd = [perf, "record", "-q", "-F", str(args.frequency), "-o", str(data), "--"]
        cmd += [sys.executable, __file__, "--ffo", *map(str, args.ffo)]
        cmd += ["--table-bits", str(args.table_bits), "--midgame", str(args.midgame)]
        cmd += ["--positions", str(args.positions)]
        run = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, check=True)
        print(run.stdout, end="")
        perf_map = re.search(r"perf map: (\S+)", run.stdout)
        report = subprocess.run(
            [perf, "report", "-i", str(data), "--stdio", "--no-children", "--sort", "symbol"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            check=True,
        ).stdout
        if perf_map and not args.keep:
            Path(perf_map.group(1)).unlink(missing_ok=True)
    rows = summarise(report)
    if not rows:
        sys.exit("profile_solver: perf recorded no samples in the compiled kernels")
    print("\nshare of the samples in compiled kernels:")
    for name, share in rows:
        if share >= 0.1:
            print(f"  {share:5.1f}%  {name}")


if __name__ == "__main__":
    main()
