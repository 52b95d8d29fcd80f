"""Training one generation on the sliding window of self-play positions (a ``Trainer`` for
``training.loop.run_loop``).

The window is the positions of the last generations' shards. Each step samples a batch
uniformly from it, maps each position by a random one of the 8 symmetries (board and policy
target together), and minimises the cross-entropy between the network's policy (over legal
moves) and the search's policy target, counted on full searches only (KataGo's rule for
playout-cap randomisation), plus ``value_weight`` times the squared error of the value
against the game's result (mixed with the search's root value by ``value_mix``), plus the
auxiliary losses of the heads the model has, each by its ``[train]`` weight (KataGo's
targets): ``ownership_weight`` times the mean squared error of each cell's final owner,
``score_weight`` times the cross-entropy of the score distribution with the final score, and
``opponent_policy_weight`` times the cross-entropy of the opponent-policy head with the
reply played. A row without a target (a resigned game, the last move, a shard written before
the targets) adds nothing to that loss.
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

    FIELDS = (
        "player",
        "opponent",
        "policy",
        "value",
        "result",
        "score",
        "full_search",
        "final_player",
        "final_opponent",
        "final_side",
        "next_action",
    )

    def __init__(self, shards: list[Shard], game: str | Game) -> None:
        self.game = get_game(game)
        self.shards = [s.path.name for s in shards]
        self.arrays = {
            name: np.concatenate([s.arrays[name] for s in shards]) if shards else np.empty(0)
            for name in self.FIELDS
        }
        self.new_positions = 0
        self.skipped: list[str] = []
        self.description = f"{len(self):,} positions of {len(shards)} shards"

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], game: str | Game) -> Window:
        """A window of rows made elsewhere (``anchor``'s expert positions): one array per
        name of ``FIELDS``, of one length."""
        missing = [f for f in cls.FIELDS if f not in arrays]
        if missing:
            raise ValueError(f"Window.from_arrays: no {', '.join(missing)}")
        window = cls([], game)
        window.arrays = {name: arrays[name] for name in cls.FIELDS}
        window.description = f"{len(window):,} positions"
        return window

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
        aux: tuple[str, ...] = (),
    ) -> dict[str, np.ndarray]:
        """The inputs and targets of ``rows``, each under a random symmetry when asked, and
        the targets of the auxiliary heads named in ``aux`` (``ModelConfig.outputs``)."""
        a = self.arrays
        p, o, policy = a["player"][rows], a["opponent"][rows], a["policy"][rows]
        ks = None
        if symmetries:
            ks = rng.integers(0, self.game.symmetries, size=rows.shape[0])
            p, o = self.game.transform_states(p, o, ks)
            policy = self.game.transform_policies(policy, ks)
        outcome = outcome_value(a["result"][rows], a["score"][rows], self.game, score_value)
        value = (1 - value_mix) * outcome + value_mix * a["value"][rows]
        out = {
            "planes": self.game.encode(p, o, planes),
            "legal": self.game.legal_mask_batch(p, o),
            "policy": np.ascontiguousarray(policy, dtype=np.float32),
            "value": value.astype(np.float32),
            "full": a["full_search"][rows].astype(np.float32),
        }
        out.update(aux_targets(self.game, {k: v[rows] for k, v in a.items()}, ks, aux))
        return out


def aux_targets(
    game: Game, a: dict[str, np.ndarray], ks: np.ndarray | None, aux: tuple[str, ...]
) -> dict[str, np.ndarray]:
    """The targets of the auxiliary heads ``aux`` for the rows ``a`` (window arrays), under
    the symmetries ``ks`` (``None``: none), each with a 0/1 mask of the rows that have it."""
    out: dict[str, np.ndarray] = {}
    n = a["player"].shape[0]
    if "ownership" in aux:
        side = a["final_side"].astype(np.float32)
        fp, fo = a["final_player"], a["final_opponent"]
        if ks is not None:
            fp, fo = game.transform_states(fp, fo, ks)
        owned = np.zeros((n, game.rows * game.cols), dtype=np.float32)
        has = side != 0
        if has.any():
            owned[has] = game.ownership_batch(fp[has], fo[has]) * side[has, None]
        out["ownership"], out["ownership_mask"] = owned, has.astype(np.float32)
    if "score_logits" in aux:
        lo, hi = game.score_range  # type: ignore[misc]
        score = a["score"].astype(np.int64)
        has = (score != NO_SCORE) & (score >= lo) & (score <= hi)
        out["score_bin"] = np.where(has, score - lo, 0)
        out["score_mask"] = has.astype(np.float32)
    if "opponent_policy_logits" in aux:
        nxt = a["next_action"].astype(np.int64)
        has = nxt >= 0
        reply = np.zeros((n, game.n_actions), dtype=np.float32)
        reply[np.flatnonzero(has), nxt[has]] = 1.0
        if ks is not None:
            reply = game.transform_policies(reply, ks)
        out["opponent_policy"] = np.ascontiguousarray(reply, dtype=np.float32)
        out["opponent_mask"] = has.astype(np.float32)
    return out


AUX_LOSSES = {
    "ownership": "ownership_loss",
    "score_logits": "score_loss",
    "opponent_policy_logits": "opponent_policy_loss",
}
"""The loss of each auxiliary head (named by its output)."""


def _masked_mean(per_row: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (per_row * mask).sum() / mask.sum().clamp(min=1.0)


def aux_losses(
    named: dict[str, torch.Tensor], b: dict[str, torch.Tensor]
) -> dict[str, torch.Tensor]:
    """The auxiliary losses of the heads in ``named`` (the forward's outputs by name) whose
    targets ``b`` holds: ownership MSE per cell, score and opponent-policy cross-entropies."""
    found = {}
    if "ownership" in named and "ownership" in b:
        per_row = ((named["ownership"].float() - b["ownership"]) ** 2).mean(dim=1)
        found["ownership_loss"] = _masked_mean(per_row, b["ownership_mask"])
    if "score_logits" in named and "score_bin" in b:
        per_row = F.cross_entropy(named["score_logits"].float(), b["score_bin"], reduction="none")
        found["score_loss"] = _masked_mean(per_row, b["score_mask"])
    if "opponent_policy_logits" in named and "opponent_policy" in b:
        logp = F.log_softmax(named["opponent_policy_logits"].float(), dim=1)
        per_row = -(b["opponent_policy"] * logp).sum(dim=1)
        found["opponent_policy_loss"] = _masked_mean(per_row, b["opponent_mask"])
    return found


def losses(
    out: tuple[torch.Tensor, ...],
    b: dict[str, torch.Tensor],
    value_weight: float,
    aux: dict[str, float] | None = None,
    outputs: tuple[str, ...] = ("policy_logits", "value"),
) -> dict[str, torch.Tensor]:
    """Policy cross-entropy over legal moves (full searches only), value MSE, the auxiliary
    losses of the heads named in ``outputs`` (the model's, ``ModelConfig.outputs``) weighted
    by ``aux`` (loss name -> weight), their sum, and the policy's entropy (logged, not
    trained)."""
    logits = out[0].float().masked_fill(~b["legal"], -1e9)
    logp = F.log_softmax(logits, dim=1)
    full = b["full"]
    ce = -(b["policy"] * logp).sum(dim=1)
    policy = (ce * full).sum() / full.sum().clamp(min=1.0)
    value = F.mse_loss(out[1].float(), b["value"])
    entropy = -(logp.exp() * logp.clamp(min=-1e4)).sum(dim=1).mean()
    total = policy + value_weight * value
    extra = aux_losses(dict(zip(outputs, out, strict=False)), b)
    for name, loss in extra.items():
        total = total + (aux or {}).get(name, 0.0) * loss
    return {
        "loss": total,
        "policy_loss": policy,
        "value_loss": value,
        **extra,
        "policy_entropy": entropy,
    }


class WindowTrainer:
    """One generation's training: the network of the previous generation (and its optimiser's
    state), ``steps`` batches from the window, the last ``[train] anchor_share`` of each from
    ``anchor`` (expert rows, ``training.selfplay.anchor``) when one is given."""

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
        anchor: Window | None = None,
    ) -> None:
        self.cfg = cfg
        self.target = target
        self.meta: dict[str, Any] = {}
        self.model = model.to(device)
        self.model.train()
        self.autocast = cfg.runtime.mixed_precision and fast_bfloat16(device)
        self.channels_last = training_layout(self.model, device, self.autocast)
        self.window = window
        self.anchor = anchor
        """Expert rows mixed into each batch (``[train] anchor_share``), or None."""
        self.generation = generation
        self.device = device
        self.planes = model.config.planes
        self.rows = len(window)
        self.steps_per_epoch = cfg.train.steps(window.new_positions)
        self.outputs = model.config.outputs
        t = cfg.train
        weights = {
            "ownership": t.ownership_weight,
            "score_logits": t.score_weight,
            "opponent_policy_logits": t.opponent_policy_weight,
        }
        self.aux = tuple(h for h, w in weights.items() if w > 0 and h in self.outputs)
        """The auxiliary heads trained (the model has them and their weight is not 0)."""
        self.aux_weights = {AUX_LOSSES[h]: weights[h] for h in self.aux}
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
        size = min(t.batch_size, self.rows)
        mixed = t.anchor_rows() if self.anchor is not None else 0
        for _ in range(self.steps_per_epoch):
            rows = rng.integers(0, self.rows, size=max(1, size - mixed))
            batch = self._batch(self.window, rows, rng)
            if mixed:
                assert self.anchor is not None
                extra = self._batch(self.anchor, rng.integers(0, len(self.anchor), mixed), rng)
                batch = {k: np.concatenate([batch[k], extra[k]]) for k in batch}
            yield batch

    def _batch(
        self, window: Window, rows: np.ndarray, rng: np.random.Generator
    ) -> dict[str, np.ndarray]:
        t = self.cfg.train
        return window.batch(
            rows,
            self.planes,
            rng,
            symmetries=t.symmetries,
            value_mix=t.value_mix,
            score_value=self.cfg.selfplay.score_value,
            aux=self.aux,
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
        found = losses(out, b, self.cfg.train.value_weight, self.aux_weights, self.outputs)
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
            aux=self.aux,
        )
        self.model.eval()
        with torch.inference_mode():
            b = {k: torch.from_numpy(v).to(self.device) for k, v in batch.items()}
            out = self.model(b["planes"])
            found = losses(out, b, 1.0, self.aux_weights, self.outputs)
            found = {k: float(v) for k, v in found.items()}
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
