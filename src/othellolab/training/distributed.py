"""Data-parallel training over several processes with PyTorch's own engine (``torchrun``).

``torchrun --nproc_per_node N -m othellolab.cli train supervised FILE`` starts N
processes with ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK`` and a rendezvous address in their
environment; ``Ranks.from_env`` reads them and joins the process group (NCCL on CUDA, gloo on
CPUs, with a timeout on every collective). The trainer wraps its model in
``DistributedDataParallel`` and gives each rank a disjoint part of every batch of the epoch's
one shuffle (``split_batch``): ``[train] batch_size`` is the global batch, so a run resumes
with any number of processes from the global position its checkpoint holds. Rank 0 alone
writes the run directory; every rank reads it, so on several nodes it lies on a filesystem they
share.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, NamedTuple, TypeVar

import numpy as np
import torch
import torch.distributed as dist
from torch import nn

from othellolab.core import ConfigError
from othellolab.training.config import DistributedConfig

__all__ = [
    "GlobalBatchNorm2d",
    "Part",
    "RankError",
    "Ranks",
    "env_world",
    "split_batch",
    "sync_batchnorm",
]

T = TypeVar("T")

ENV = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")
"""What ``torchrun`` sets for each process it starts; a run is distributed when all are set."""


class Part(NamedTuple):
    """One rank's share of a global batch: its rows' arrays, the factor its mean loss is
    scaled by (``split_batch``) and the global batch's row count."""

    batch: dict[str, np.ndarray]
    scale: float
    rows: int


class RankError(RuntimeError):
    """A collective failed or timed out: another rank died or hangs. ``rank`` is the process
    that raises (``torchrun`` names the one that failed first); the run resumes from its last
    checkpoint when started again."""

    def __init__(self, what: str, *, rank: int) -> None:
        self.rank = rank
        super().__init__(f"rank {rank}: {what}")


def env_world() -> tuple[int, int, int] | None:
    """``(rank, world_size, local_rank)`` from the environment ``torchrun`` sets, or ``None``
    for a plain start; a partial or malformed set is an error naming the variable."""
    present = [name for name in ENV if name in os.environ]
    if not present:
        return None
    missing = [name for name in ENV if name not in os.environ]
    if missing:
        raise ConfigError(
            f"a distributed start needs {', '.join(ENV)} in the environment (torchrun sets "
            f"them); {', '.join(missing)} missing"
        )
    values = []
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK"):
        try:
            values.append(int(os.environ[name]))
        except ValueError:
            raise ConfigError(
                f"environment {name}={os.environ[name]!r} is not an integer"
            ) from None
    rank, world, local = values
    if not (world >= 1 and 0 <= rank < world and local >= 0):
        raise ConfigError(
            f"environment RANK={rank}, WORLD_SIZE={world}: expected 0 <= RANK < WORLD_SIZE"
        )
    return rank, world, local


@dataclass
class Ranks:
    """This process's place in a joined process group, and the collectives the trainer uses
    (each raises ``RankError`` rather than waiting forever for a rank that died)."""

    rank: int
    world: int
    local_rank: int
    device: torch.device
    timeout_s: float

    @classmethod
    def from_env(cls, cfg: DistributedConfig, device: torch.device) -> Ranks | None:
        """Join the process group ``torchrun`` describes (``None`` for a plain start); ``device``
        is the configured one, made this process's own GPU (``LOCAL_RANK``) on CUDA."""
        place = env_world()
        if place is None:
            return None
        rank, world, local = place
        backend = cfg.backend
        if backend == "auto":
            backend = "nccl" if device.type == "cuda" else "gloo"
        if backend == "nccl" and device.type != "cuda":
            raise ConfigError(
                "[distributed] backend = 'nccl' needs [runtime] device = 'cuda' (or auto on a "
                "GPU machine)"
            )
        if device.type == "cuda":
            if local >= torch.cuda.device_count():
                raise ConfigError(
                    f"LOCAL_RANK={local} but torch sees {torch.cuda.device_count()} CUDA "
                    "device(s): start at most that many processes a node"
                )
            device = torch.device("cuda", local)
            torch.cuda.set_device(device)
        if not dist.is_initialized():
            dist.init_process_group(
                backend=backend,
                timeout=timedelta(seconds=cfg.timeout_s),
                **({"device_id": device} if device.type == "cuda" else {}),
            )
        return cls(rank, world, local, device, cfg.timeout_s)

    @property
    def writer(self) -> bool:
        """Whether this process writes the run directory (rank 0)."""
        return self.rank == 0

    @contextmanager
    def collective(self, what: str) -> Iterator[None]:
        """Turn a failed or timed-out collective during ``what`` into a ``RankError``."""
        try:
            yield
        except (RuntimeError, dist.DistError) as e:
            if isinstance(e, RankError):
                raise
            raise RankError(
                f"{what} failed: another rank died or did not answer within "
                f"{self.timeout_s:g} s ([distributed] timeout_s); start the same command again "
                f"to resume from the last checkpoint ({type(e).__name__}: {e})",
                rank=self.rank,
            ) from e

    def all_sum(self, values: torch.Tensor, what: str) -> torch.Tensor:
        """``values`` summed over ranks (a new tensor on this rank's device)."""
        out = values.detach().to(self.device, torch.float64).clone()
        with self.collective(what):
            dist.all_reduce(out)
        return out

    def gather(self, value: T, what: str) -> list[T]:
        """Every rank's ``value`` (picklable), by rank."""
        out: list[Any] = [None] * self.world
        with self.collective(what):
            dist.all_gather_object(out, value)
        return out

    def barrier(self, what: str) -> None:
        """Wait for every rank (``what`` names the wait in a timeout's error)."""
        with self.collective(what):
            if self.device.type == "cuda":
                dist.barrier(device_ids=[self.device.index])
            else:
                dist.barrier()

    def broadcast_buffers(self, model: nn.Module) -> None:
        """Rank 0's buffers (batch-norm running statistics) on every rank: without
        ``sync_batchnorm`` each rank updates them from its own share of the batch."""
        with self.collective("sharing rank 0's batch-norm statistics"):
            for buf in model.buffers():
                dist.broadcast(buf.data, src=0)

    def agree(self, facts: dict[str, Any]) -> None:
        """Refuse a start whose ranks disagree on ``facts`` (config hash, rows, checkpoint
        step): the error names the fact and the ranks that differ from rank 0."""
        every = self.gather(facts, "comparing the ranks' configs")
        for key, mine in every[0].items():
            odd = [r for r, f in enumerate(every) if f.get(key) != mine]
            if odd:
                values = ", ".join(f"rank {r}: {every[r].get(key)!r}" for r in odd)
                raise ConfigError(
                    f"the ranks of this run disagree on {key} (rank 0: {mine!r}, {values}); "
                    "start every rank with the same config and data, and the run directory on a "
                    "filesystem all nodes share"
                )

    def close(self, *, wait: bool = False) -> None:
        """Leave the process group; with ``wait`` (a run that ended well) only once every rank
        is leaving too: a rank that tore down gloo while another was still writing the model
        aborted at exit now and then ("terminate called without an active exception")."""
        if not dist.is_initialized():
            return
        if wait:
            with contextlib.suppress(RankError):  # the run's work is done; leave anyway
                self.barrier("leaving the process group")
        dist.destroy_process_group()


def config_hash(config: dict[str, Any], ignore: tuple[str, ...]) -> str:
    """A short hash of a config's tables except ``ignore`` (those may differ between ranks)."""
    kept = {k: v for k, v in config.items() if k not in ignore}
    return hashlib.sha256(json.dumps(kept, sort_keys=True).encode()).hexdigest()[:16]


def split_batch(
    index: np.ndarray, symmetries: np.ndarray, rank: int, world: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """Rank ``rank``'s contiguous part of one global batch (``np.array_split``), and the factor
    its mean loss is scaled by so that DDP's mean over ranks is the global batch's mean
    (``rows_here * world / rows``). A rank left without rows (a last batch smaller than the
    world) takes the batch's first row with factor 0: it still joins the gradient all-reduce."""
    part = np.array_split(np.arange(len(index)), world)[rank]
    if len(part) == 0:
        return index[:1], symmetries[:1], 0.0
    return index[part], symmetries[part], len(part) * world / len(index)


class _AllSum(torch.autograd.Function):
    """A sum over ranks whose gradient is the sum of the ranks' gradients."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        out = x.clone()
        dist.all_reduce(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        out = grad.clone()
        dist.all_reduce(out)
        return out


class GlobalBatchNorm2d(nn.BatchNorm2d):
    """Batch norm whose training statistics cover the global batch of every rank (one
    all-reduce of per-channel sums a layer, differentiable), for the CPU where
    ``torch.nn.SyncBatchNorm`` does not run; it is a ``BatchNorm2d`` with the same parameters
    and buffers, so checkpoints and exports do not change."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not (self.training and dist.is_initialized() and dist.get_world_size() > 1):
            return super().forward(x)
        xf = x.float()
        c = xf.shape[1]
        local = torch.cat(
            [
                xf.sum(dim=(0, 2, 3)),
                (xf * xf).sum(dim=(0, 2, 3)),
                xf.new_full((1,), float(xf.numel() // c)),
            ]
        )
        total = _AllSum.apply(local)
        n = total[-1]
        mean = total[:c] / n
        var = (total[c : 2 * c] / n - mean * mean).clamp_min(0.0)
        if self.track_running_stats and self.running_mean is not None:
            with torch.no_grad():
                assert self.running_var is not None and self.num_batches_tracked is not None
                self.num_batches_tracked += 1
                m = self.momentum
                if m is None:  # a cumulative average, as BatchNorm2d keeps one
                    m = 1.0 / float(self.num_batches_tracked)
                unbiased = var * (n / (n - 1).clamp_min(1.0))
                self.running_mean.mul_(1 - m).add_(m * mean.detach())
                self.running_var.mul_(1 - m).add_(m * unbiased.detach())
        y = (xf - mean[None, :, None, None]) * torch.rsqrt(var + self.eps)[None, :, None, None]
        if self.affine:
            y = y * self.weight[None, :, None, None] + self.bias[None, :, None, None]
        return y.to(x.dtype)


def sync_batchnorm(model: nn.Module, device: torch.device) -> nn.Module:
    """``model`` with every ``BatchNorm2d`` computing its statistics over the global batch:
    ``torch.nn.SyncBatchNorm`` on CUDA, ``GlobalBatchNorm2d`` on CPUs (the same weights)."""
    if device.type == "cuda":
        return nn.SyncBatchNorm.convert_sync_batchnorm(model)

    def convert(module: nn.Module) -> nn.Module:
        if type(module) is nn.BatchNorm2d:
            new = GlobalBatchNorm2d(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                device=device,
            )
            new.load_state_dict(module.state_dict())
            new.train(module.training)
            return new
        for name, child in module.named_children():
            setattr(module, name, convert(child))
        return module

    return convert(model)


def on_rank(ranks: Ranks | None, fn: Callable[[], T], what: str) -> T | None:
    """Run ``fn`` on the writing rank (every process of a plain start), then wait for the
    others to reach the same point; returns ``fn``'s value where it ran."""
    out = fn() if ranks is None or ranks.writer else None
    if ranks is not None:
        ranks.barrier(what)
    return out
