"""Figures of the reinforcement-learning runs: learning curves as PNG, value maps as an animated
GIF, each written under a temporary name and renamed into place."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from othellolab.core.files import replacing
from othellolab.rl.tabular import TrainingLog


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: Path, *, dpi: int = 80) -> None:
    """Save a matplotlib figure as PNG atomically and close it."""
    plt = _pyplot()
    with replacing(path, keep_suffix=True) as tmp:
        fig.savefig(tmp, dpi=dpi)
    plt.close(fig)


def write_gif(frames: Sequence[np.ndarray], path: Path, *, fps: float = 4.0) -> None:
    """Write RGB frames ``(h, w, 3)`` uint8 as a looping GIF (with Pillow), atomically."""
    from PIL import Image

    if not frames:
        raise ValueError("no frames to write")
    images = [
        Image.fromarray(f).convert("P", palette=Image.Palette.ADAPTIVE, colors=64) for f in frames
    ]
    with replacing(path, keep_suffix=True) as tmp:
        images[0].save(
            tmp,
            format="GIF",
            save_all=True,
            append_images=images[1:],
            duration=int(1000 / fps),
            loop=0,
            optimize=True,
        )


def label_frame(
    frame: np.ndarray, text: str, *, values: Sequence[tuple[int, int, str]] = ()
) -> np.ndarray:
    """``frame`` with a caption strip above it, and short labels at pixel positions ``(y, x)``
    (Pillow's built-in font, so that no font file is needed)."""
    from PIL import Image, ImageDraw

    h, w, _ = frame.shape
    canvas = Image.new("RGB", (w, h + 14), (255, 255, 255))
    canvas.paste(Image.fromarray(frame), (0, 14))
    draw = ImageDraw.Draw(canvas)
    draw.text((3, 1), text, fill=(0, 0, 0))
    for y, x, label in values:
        draw.text((x, y + 14), label, fill=(0, 0, 0))
    return np.asarray(canvas)


def maze_curve_figure(logs: dict[str, list[TrainingLog]], shortest: int) -> Any:
    """Steps to the goal per episode (mean over runs, log scale) and the share of runs whose
    greedy path is the shortest after each episode, one line per agent."""
    plt = _pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    for i, (name, runs) in enumerate(logs.items()):
        steps = np.mean([r.steps for r in runs], axis=0)
        ax1.plot(np.arange(1, steps.size + 1), steps, color=f"C{i}", label=name)
        if runs[0].greedy_steps and name != "random":
            greedy = np.array([r.greedy_steps for r in runs])
            share = (greedy == shortest).mean(axis=0)
            ax2.plot(np.arange(1, share.size + 1), share, color=f"C{i}", label=name)
    ax1.set_yscale("log")
    ax1.axhline(shortest, color="grey", linestyle=":", label=f"shortest ({shortest})")
    ax1.set_xlabel("episode")
    ax1.set_ylabel("steps to the goal (while learning)")
    ax1.legend(fontsize=8)
    ax2.set_xlabel("episode")
    ax2.set_ylabel("runs whose greedy path is the shortest")
    ax2.set_ylim(-0.02, 1.02)
    ax2.set_xscale("log")
    ax2.legend(fontsize=8)
    runs = len(next(iter(logs.values())))
    fig.suptitle(f"The maze: mean of {runs} seeded run{'s' if runs > 1 else ''}")
    fig.tight_layout()
    return fig


def othello_curve_figure(curves: dict[str, list[tuple[int, float]]], *, title: str) -> Any:
    """Share of 4x4 positions where the greedy move is optimal, against episodes (log scale)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, points in curves.items():
        xs, ys = zip(*points, strict=True)
        ax.plot(xs, ys, "o-", markersize=3, label=name)
    ax.set_xscale("log")
    ax.set_ylim(0.5, 1.005)
    ax.axhline(1.0, color="grey", linestyle=":")
    ax.set_xlabel("episodes (games)")
    ax.set_ylabel("optimal-move share")
    ax.set_title(title)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig
