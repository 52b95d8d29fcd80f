"""Training one generation on the sliding window of self-play positions (a ``Trainer`` for
``training.loop.run_loop``).

The window is the positions of the last generations' shards. Each step samples a batch
uniformly from it, maps each position by a random one of the 8 symmetries (board and policy
target together), and minimises the cross-entropy between the network's policy (over legal
moves) and the search's policy target, counted on full searches only (KataGo's rule for
playout-cap randomisation), plus ``value_weight`` times the squared error of the value
against the game's result (mixed with the search's root value by ``value_mix``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from othellolab.core.files import replace_dir
from othellolab.core.games import Game, get_game
from othellolab.nn.io import save_model
from othellolab.nn.models import PolicyValueNet
from othellolab.nn.precision import fast_bfloat16, training_layout
from othellolab.training.rundir import RunDir
from othellolab.training.selfplay.records import NO_SCORE
from othellolab.training.selfplay.runconfig import SelfPlayRunConfig
from othellolab.training.selfplay.shards import Shard
from othellolab.training.supervised import (
    load_optimizer,
    make_optimizer,
    network_checkpoint,
    restore_network_checkpoint,
)

__all__ = ["Window", "WindowTrainer"]


def outcome_value(
    result: np.ndarray, score: np.ndarray, game: str | Game, score_value: float
) -> np.ndarray:
    """The value target of finished games, as the search values a finished game
    (``core.games.game_value``): the result mixed with the final score over the game's
    ``score_scale`` (Othello's squares); a resigned game (no score) counts at its result."""
    r = result.astype(np.float32)
    if score_value == 0:
        return r
    scale = np.float32(get_game(game).score_scale)
    s = np.where(score == NO_SCORE, r * scale, score.astype(np.float32)) / scale
    return ((1 - score_value) * r + score_value * s).astype(np.float32)


class Window:
    """The training window: the position arrays of several shards, concatenated."""

    FIELDS = ("player", "opponent", "policy", "value", "result", "score", "full_search")

    def __init__(self, shards: list[Shard], game: str | Game) -> None:
        self.game = get_game(game)
        self.shards = [s.path.name for s in shards]
        self.arrays = {
            name: np.concatenate([s.arrays[name] for s in shards]) for name in self.FIELDS
        }
        self.new_positions = 0
        self.skipped: list[str] = []

    def __len__(self) -> int:
        return int(self.arrays["player"].shape[0])

    def batch(
        self,
        rows: np.ndarray,
        planes: tuple[str, ...],
        rng: np.random.Generator,
        *,
        symmetries: bool,
        value_mix: float,
        score_value: float = 0.0,
    ) -> dict[str, np.ndarray]:
        """The inputs and targets of ``rows``, each under a random symmetry when asked."""
        a = self.arrays
        p, o, policy = a["player"][rows], a["opponent"][rows], a["policy"][rows]
        if symmetries:
            ks = rng.integers(0, self.game.symmetries, size=rows.shape[0])
            p, o = self.game.transform_states(p, o, ks)
            policy = self.game.transform_policies(policy, ks)
        outcome = outcome_value(a["result"][rows], a["score"][rows], self.game, score_value)
        value = (1 - value_mix) * outcome + value_mix * a["value"][rows]
        return {
            "planes": self.game.encode(p, o, planes),
            "legal": self.game.legal_mask_batch(p, o),
            "policy": np.ascontiguousarray(policy, dtype=np.float32),
            "value": value.astype(np.float32),
            "full": a["full_search"][rows].astype(np.float32),
        }


def losses(
    out: tuple[torch.Tensor, ...], b: dict[str, torch.Tensor], value_weight: float
) -> dict[str, torch.Tensor]:
    """Policy cross-entropy over legal moves (full searches only), value MSE, their sum, and
    the policy's entropy (logged, not trained)."""
    logits = out[0].float().masked_fill(~b["legal"], -1e9)
    logp = F.log_softmax(logits, dim=1)
    full = b["full"]
    ce = -(b["policy"] * logp).sum(dim=1)
    policy = (ce * full).sum() / full.sum().clamp(min=1.0)
    value = F.mse_loss(out[1].float(), b["value"])
    entropy = -(logp.exp() * logp.clamp(min=-1e4)).sum(dim=1).mean()
    return {
        "loss": policy + value_weight * value,
        "policy_loss": policy,
        "value_loss": value,
        "policy_entropy": entropy,
    }


class WindowTrainer:
    """One generation's training: the network of the previous generation (and its optimiser's
    state), ``steps`` batches from the window."""

    def __init__(
        self,
        cfg: SelfPlayRunConfig,
        model: PolicyValueNet,
        window: Window,
        *,
        generation: int,
        previous_state: Path | None,
        device: torch.device,
        target: Path,
    ) -> None:
        self.cfg = cfg
        self.target = target
        self.meta: dict[str, Any] = {}
        self.model = model.to(device)
        self.model.train()
        self.autocast = cfg.runtime.mixed_precision and fast_bfloat16(device)
        self.channels_last = training_layout(self.model, device, self.autocast)
        self.window = window
        self.generation = generation
        self.device = device
        self.planes = model.config.planes
        self.rows = len(window)
        self.steps_per_epoch = cfg.train.steps(window.new_positions)
        self.optimizer = make_optimizer(cfg.optim, self.model)
        if previous_state is not None and (previous_state / "optimizer.safetensors").exists():
            meta = json.loads((previous_state / "state.json").read_text()).get("optimizer")
            if meta is not None:
                self._load_optimizer(previous_state, meta)
        torch.manual_seed(cfg.seed * 100_003 + generation)
        # as the supervised trainer: the compiled module shares the model's parameters
        self.forward = (
            torch.compile(self.model, dynamic=False) if cfg.runtime.compile else self.model
        )

    def _load_optimizer(self, folder: Path, meta: dict[str, Any]) -> None:
        """The previous generation's optimiser state, at this run's learning rate."""
        load_optimizer(self.optimizer, folder, meta)
        for group in self.optimizer.param_groups:
            group["lr"] = self.cfg.optim.lr
            group["weight_decay"] = self.cfg.optim.weight_decay

    def batches(self, epoch: int) -> Iterator[dict[str, np.ndarray]]:
        rng = np.random.default_rng([self.cfg.seed, self.generation, epoch])
        t = self.cfg.train
        for _ in range(self.steps_per_epoch):
            rows = rng.integers(0, self.rows, size=min(t.batch_size, self.rows))
            yield self.window.batch(
                rows,
                self.planes,
                rng,
                symmetries=t.symmetries,
                value_mix=t.value_mix,
                score_value=self.cfg.selfplay.score_value,
            )

    def learning_rate(self, step: int) -> float:
        """The generation's learning rate (``[train] lr_decay_generations``), every step."""
        return self.cfg.optim.lr * self.cfg.train.lr_factor(self.generation)

    def step(self, batch: dict[str, np.ndarray], step: int) -> tuple[int, dict[str, float]]:
        for group in self.optimizer.param_groups:
            group["lr"] = self.learning_rate(step)
        b = {k: torch.from_numpy(v).to(self.device) for k, v in batch.items()}
        if self.channels_last:
            b["planes"] = b["planes"].contiguous(memory_format=torch.channels_last)
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.autocast):
            out = self.forward(b["planes"])
        found = losses(out, b, self.cfg.train.value_weight)
        self.optimizer.zero_grad(set_to_none=True)
        found["loss"].backward()
        if self.cfg.optim.grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.optim.grad_clip)
        self.optimizer.step()
        return len(batch["value"]), {k: float(v.detach()) for k, v in found.items()}

    def validate(self) -> tuple[float, dict[str, float]]:
        """Losses on a fixed sample of the window's newest positions, without symmetries."""
        n = min(4096, self.window.new_positions or self.rows)
        rows = np.arange(self.rows - n, self.rows)
        batch = self.window.batch(
            rows,
            self.planes,
            np.random.default_rng(0),
            symmetries=False,
            value_mix=0.0,
            score_value=self.cfg.selfplay.score_value,
        )
        self.model.eval()
        with torch.inference_mode():
            b = {k: torch.from_numpy(v).to(self.device) for k, v in batch.items()}
            found = {k: float(v) for k, v in losses(self.model(b["planes"]), b, 1.0).items()}
        self.model.train()
        metrics = {f"window_{k}": v for k, v in found.items()}
        return found["loss"], metrics

    def weights(self) -> dict[str, Any]:
        return {}

    def save(self) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        return network_checkpoint(self.model, self.optimizer)

    def restore(self, run: RunDir, state: dict[str, Any]) -> None:
        restore_network_checkpoint(run.state, state, self.model, self.optimizer)

    def export(self, state: dict[str, Any], metrics: dict[str, float]) -> Path:
        """Write the trained generation to ``target`` (whole, by one rename), with the
        loop's counters, the window's metrics and ``meta`` in its config."""
        training = {
            **self.meta,
            "generation": self.generation,
            "score_value": self.cfg.selfplay.score_value,
            "steps": state["step"],
            "samples": state["samples"],
            "window_positions": self.rows,
            "window_shards": self.window.shards,
            "new_positions": self.window.new_positions,
            "skipped_shards": self.window.skipped,
            "window_metrics": metrics,
        }
        self.model.eval()
        with replace_dir(self.target, overwrite=True) as tmp:
            save_model(self.model, tmp, training=training)
        return self.target

    def after_checkpoint(self, run: RunDir) -> None:
        return None
