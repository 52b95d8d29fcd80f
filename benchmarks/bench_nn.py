"""Speed of the networks on this CPU: training positions/s and inference positions/s.

Training: one optimiser step (forward, masked policy cross-entropy + value MSE, backward, AdamW)
on real WTHOR batches, one torch thread; data preparation (planes, symmetries) is measured on
its own. Inference: ``NetworkEvaluator`` with the cache off, at batch 1 and 256 (planes,
forward, legal masking). Every figure has a ratio to ``mlp-classic`` measured in the same run.
Run ``python benchmarks/bench_nn.py --write docs/benchmarks.md`` (a few minutes).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from bench_core import float_arg, int_arg, machine, write_section

from othellolab.core.games import get_game
from othellolab.datasets.feeds import ArraySource, positions_from_wthor
from othellolab.nn.config import ModelConfig, model_config
from othellolab.nn.inference import NetworkEvaluator
from othellolab.nn.models import build_model, count_parameters
from othellolab.nn.precision import bf16_in_hardware

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "wthor" / "WTH_2004.wtb"
MODELS = ("mlp-classic", "resnet-b4c32", "resnet-b6c48", "resnet-b6c64", "cnn-13x128")


def train_rate(
    name: str | ModelConfig,
    batches: list[dict[str, np.ndarray]],
    budget: float,
    *,
    compile: bool = False,
    channels_last: bool = False,
    bf16: bool = False,
) -> float:
    """Positions per second of full training steps, run for about ``budget`` seconds (after
    three warm-up steps, which include the compilation with ``compile``). ``bf16`` is the
    trainer's ``mixed_precision`` (bfloat16 autocast), ``channels_last`` its memory layout."""
    torch.manual_seed(0)
    config = model_config(name) if isinstance(name, str) else name
    model = build_model(config).train()
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    forward = torch.compile(model, dynamic=False) if compile else model
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    fmt = torch.channels_last if channels_last else torch.contiguous_format

    def step(b: dict[str, np.ndarray]) -> None:
        x = torch.from_numpy(b["planes"][:, : len(config.planes)]).contiguous(memory_format=fmt)
        legal = torch.from_numpy(b["legal"])
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=bf16):
            out = forward(x)
        logp = F.log_softmax(out[0].float().masked_fill(~legal, -1e9), dim=1)
        loss = -(torch.from_numpy(b["policy"]) * logp).sum(1).mean()
        loss = loss + F.mse_loss(out[1].float(), torch.from_numpy(b["value"]))
        opt.zero_grad()
        loss.backward()
        opt.step()

    for b in batches[:3]:
        step(b)
    n, t0 = 0, time.perf_counter()
    for b in batches[3:]:
        step(b)
        n += len(b["value"])
        if time.perf_counter() - t0 > budget:
            break
    return n / (time.perf_counter() - t0)


def infer_rate(name: str, p: np.ndarray, o: np.ndarray, batch: int, budget: float) -> float:
    """Positions per second through ``NetworkEvaluator.evaluate`` at a given batch size."""
    torch.manual_seed(0)
    ev = NetworkEvaluator(build_model(model_config(name)), cache_size=0)
    ev.evaluate(p[:batch], o[:batch], get_game("othello"))
    n, t0, i = 0, time.perf_counter(), 0
    while time.perf_counter() - t0 < budget:
        s = (i * batch) % (len(p) - batch)
        ev.evaluate(p[s : s + batch], o[s : s + batch], get_game("othello"))
        n += batch
        i += 1
    return n / (time.perf_counter() - t0)


COMPARED = {
    "cnn-13x128": model_config("cnn-13x128"),
    "cnn-8x64-bn": model_config(
        "cnn-8x64", batch_norm=True, planes=("player", "opponent", "legal")
    ),
    "resnet-b4c32": model_config("resnet-b4c32", planes=("player", "opponent", "legal")),
    "resnet-b6c48": model_config("resnet-b6c48", planes=("player", "opponent", "legal")),
    "resnet-b6c64": model_config("resnet-b6c64", planes=("player", "opponent", "legal")),
    "resnet-b8c64": model_config(
        "resnet-b8c64", planes=("player", "opponent", "legal"), score_head=True
    ),
}
"""The networks of the architecture comparison in docs/supervised.md, with their planes: the
seeds' plain 13-layer CNN on two planes, an 8-layer CNN with batch norm, the ResNet presets
(``resnet-b8c64`` as issue 39's CPU run trains it, with a score head)."""

VARIANTS = {
    "eager": {},
    "channels-last": {"channels_last": True},
    "compile": {"compile": True},
    "bf16": {"bf16": True, "channels_last": True},
    "bf16 + compile": {"bf16": True, "channels_last": True, "compile": True},
}
"""How a training step can run on a CPU: float32 eager (the baseline), channels-last memory,
``torch.compile``, bfloat16 autocast (what ``mixed_precision`` does, channels-last included)."""


def variants_section(batches: list[dict[str, np.ndarray]], args: argparse.Namespace) -> None:
    """Training positions/s of each compared network under each way of running a step, as a
    ratio to eager float32 measured next to it (alternated twice, the median kept); full
    batches only, so nothing recompiles. bfloat16 is measured only where the CPU does it in
    hardware (AMX or AVX512-BF16). ``--networks`` picks some of them, ``--section`` names the
    markdown section written (one per machine, say)."""
    full = [b for b in batches if len(b["value"]) == args.batch]
    names = [v for v in VARIANTS if bf16_in_hardware() or "bf16" not in v]
    lines = [
        "## Training speed per network and way of running (`benchmarks/bench_nn.py --variants"
        + ("" if args.section == "nn-variants" else f" --section {args.section}")
        + "`)\n",
        f"{_dt.date.today()}, {machine()}, torch {torch.__version__}, {args.threads} torch "
        f"thread(s), batch {args.batch}; every variant alternated twice with eager float32, "
        f"{args.budget:.0f} s each, medians. Positions/s, and in brackets the ratio to eager.\n",
        "| network | " + " | ".join(names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for label in args.networks:
        config = COMPARED[label]
        rates: dict[str, list[float]] = {v: [] for v in names}
        for _ in range(2):
            for v in names:
                rates[v].append(train_rate(config, full, args.budget, **VARIANTS[v]))
        med = {v: float(np.median(r)) for v, r in rates.items()}
        print(label, {v: round(r) for v, r in med.items()}, flush=True)
        cells = [f"{med['eager']:,.0f}"] + [
            f"{med[v]:,.0f} ({med[v] / med['eager']:.2f}x)" for v in names[1:]
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if args.write:
        write_section(args.write, args.section, "\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", type=Path, help="write the figures to this markdown file")
    parser.add_argument(
        "--budget", type=float_arg(0.1, 3600), default=4.0, help="seconds per measurement"
    )
    parser.add_argument("--batch", type=int_arg(1, 65536), default=128, help="training batch size")
    parser.add_argument(
        "--variants",
        action="store_true",
        help="only the training speed of the compared networks: eager, channels-last, "
        "torch.compile, bfloat16",
    )
    parser.add_argument("--threads", type=int_arg(1, 1024), default=1, help="torch threads")
    parser.add_argument(
        "--networks",
        default=",".join(k for k in COMPARED if k != "resnet-b8c64"),
        help=f"--variants: comma-separated networks of {', '.join(COMPARED)}",
    )
    parser.add_argument(
        "--section", default="nn-variants", help="--variants: the section of --write to replace"
    )
    args = parser.parse_args()
    args.networks = [n.strip() for n in args.networks.split(",") if n.strip()]
    unknown = [n for n in args.networks if n not in COMPARED]
    if unknown or not args.networks:
        parser.error(f"--networks: unknown {unknown or 'empty'}; known: {', '.join(COMPARED)}")
    if not args.section.replace("-", "").isalnum():
        parser.error(f"--section: letters, digits and dashes only, got {args.section!r}")
    torch.set_num_threads(args.threads)

    arrays = positions_from_wthor([DATA], max_games=300)
    src = ArraySource(
        arrays, planes=("player", "opponent", "legal") if args.variants else ("player", "opponent")
    )
    rng = np.random.default_rng(0)
    list(src.batches(args.batch, rng, augment=True))
    t0 = time.perf_counter()
    batches = list(src.batches(args.batch, np.random.default_rng(1), augment=True))
    data_rate = len(src) / (time.perf_counter() - t0)

    if args.variants:
        variants_section(batches, args)
        return

    rows = []
    base_train = base_1 = base_256 = 0.0
    for name in MODELS:
        tr = train_rate(name, batches, args.budget)
        i1 = infer_rate(name, arrays.player, arrays.opponent, 1, args.budget / 2)
        i256 = infer_rate(name, arrays.player, arrays.opponent, 256, args.budget / 2)
        if name == "mlp-classic":
            base_train, base_1, base_256 = tr, i1, i256
        params = count_parameters(build_model(model_config(name)))
        rows.append((name, params, tr, tr / base_train, i1, i1 / base_1, i256, i256 / base_256))
        print(
            f"{name:14s} {params:>9,d} params  train {tr:9.0f} pos/s  infer b1 {i1:7.0f}  b256 {i256:8.0f}"
        )
    print(f"data preparation (planes, legal masks, symmetries): {data_rate:,.0f} positions/s")

    lines = [
        "## Networks (`benchmarks/bench_nn.py`)\n",
        f"{_dt.date.today()}, {machine()}, torch {torch.__version__}, 1 torch thread, "
        f"training batch {args.batch}; the machine was shared, so read the ratios.\n",
        "| model | parameters | train pos/s | vs MLP | infer b=1 pos/s | vs MLP | infer b=256 pos/s | vs MLP |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, params, tr, rtr, i1, r1, i256, r256 in rows:
        lines.append(
            f"| {name} | {params:,} | {tr:,.0f} | {rtr:.3f} | {i1:,.0f} | {r1:.2f} | {i256:,.0f} | {r256:.3f} |"
        )
    lines.append(
        f"\nData preparation (planes, legal masks, symmetries): {data_rate:,.0f} positions/s.\n"
    )
    if args.write:
        write_section(args.write, "nn", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
