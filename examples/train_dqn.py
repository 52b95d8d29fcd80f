"""Train a masked Q-network for 6x6 Othello against the random opponent, on CPU.

Experience comes from ``OthelloVectorEnv`` (many games per kernel call, the agent playing
either colour) into a DQN-style replay buffer, each move labelled with its Monte-Carlo return
once its game ends (the reward comes only at the end, and a 16-move 6x6 game makes one-step
bootstrapping slow); the trained agent is evaluated in the single-agent Gymnasium env
``othellolab/Othello6x6-v0`` against the registry's ``random`` player, half the games as black
and half as white. Illegal actions are never chosen: Q-values of masked actions are set to
-inf when acting.

    python examples/train_dqn.py --out runs/dqn6   # a few minutes; writes curve.png, result.json
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import othellolab.envs  # noqa: F401 - registers the Gymnasium ids
from othellolab.core.kernels import transform_grid, transform_square
from othellolab.envs import OthelloVectorEnv


@dataclass(frozen=True)
class Config:
    """Every knob of a run; the defaults are the documented full run."""

    size: int = 6
    transitions: int = 300_000
    num_envs: int = 32
    hidden: int = 256
    lr: float = 5e-4
    gamma: float = 0.99
    batch: int = 256
    buffer: int = 50_000
    updates_per_step: int = 1
    learning_starts: int = 2_000
    eps_start: float = 1.0
    eps_end: float = 0.05
    eps_fraction: float = 0.3
    symmetries: bool = True
    eval_games: int = 200
    eval_every: int = 50_000
    seed: int = 0


@dataclass
class Result:
    """What a run measured: the final evaluation and the curves behind the plot."""

    win_rate: float
    draw_rate: float
    loss_rate: float
    seconds: float
    transitions: int
    curve_steps: list[int] = field(default_factory=list)
    curve_train_win: list[float] = field(default_factory=list)
    eval_steps: list[int] = field(default_factory=list)
    eval_win: list[float] = field(default_factory=list)


class QNet(nn.Module):
    """An MLP from the observation planes to one Q-value per action."""

    def __init__(self, n_inputs: int, n_actions: int, hidden: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Flatten(),
            nn.Linear(n_inputs, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, n_actions),
        )

    def forward(self, planes: torch.Tensor) -> torch.Tensor:
        return self.body(planes.float())


def masked_argmax(q: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Index of the best legal action per row."""
    return q.masked_fill(mask == 0, -torch.inf).argmax(dim=1)


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of a 0/1 mask."""
    noise = rng.random(mask.shape) * mask
    return noise.argmax(axis=1)


def evaluate(net: QNet, cfg: Config, games: int, seed: int) -> tuple[float, float, float]:
    """Win, draw and loss rates of the greedy policy against ``random`` in the Gymnasium env."""
    env = gym.make(f"othellolab/Othello{cfg.size}x{cfg.size}-v0", opponent="random")
    wins = draws = 0
    with torch.no_grad():
        for g in range(games):
            color = "black" if g % 2 == 0 else "white"
            obs, _ = env.reset(seed=seed + g, options={"player_color": color})
            done = False
            reward = 0.0
            while not done:
                q = net(torch.as_tensor(obs["observation"][None]))
                a = int(masked_argmax(q, torch.as_tensor(obs["action_mask"][None]))[0])
                obs, reward, done, _, _ = env.step(a)
            wins += reward > 0
            draws += reward == 0
    env.close()
    return wins / games, draws / games, (games - wins - draws) / games


def train(cfg: Config, *, progress: bool = True) -> tuple[QNet, Result]:
    """Train from scratch; returns the network and the measured result.

    Each finished game labels its agent moves with their Monte-Carlo return (the final reward
    discounted by ``gamma`` per remaining agent move); the Q-network regresses onto those labels
    from a replay buffer, each batch under a random one of the 8 board symmetries, while acting
    ε-greedily over the legal actions only; the learning rate decays linearly to a tenth.
    """
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    envs = OthelloVectorEnv(
        cfg.num_envs,
        size=cfg.size,
        opponent="random",
        player_color="random",
        autoreset_mode="same_step",
    )
    planes_shape = envs.single_observation_space["observation"].shape
    n_actions = envs.single_action_space.n
    net = QNet(int(np.prod(planes_shape)), n_actions, cfg.hidden)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)

    cap = cfg.buffer
    b_obs = np.zeros((cap, *planes_shape), dtype=np.uint8)
    b_act = np.zeros(cap, dtype=np.int64)
    b_ret = np.zeros(cap, dtype=np.float32)
    size = pos = 0
    max_len = cfg.size * cfg.size  # an agent never makes more moves than there are squares
    t_obs = np.zeros((cfg.num_envs, max_len, *planes_shape), dtype=np.uint8)
    t_act = np.zeros((cfg.num_envs, max_len), dtype=np.int64)
    t_len = np.zeros(cfg.num_envs, dtype=np.int64)
    rows = np.arange(cfg.num_envs)
    perms = [
        np.array([transform_square(a, k, cfg.size) for a in range(n_actions)]) for k in range(8)
    ]

    obs, _ = envs.reset(seed=cfg.seed)
    result = Result(0.0, 0.0, 0.0, 0.0, 0)
    recent: list[float] = []
    t0 = time.perf_counter()
    steps = 0
    next_eval = cfg.eval_every
    tick = tqdm_or_none(cfg.transitions, progress)
    while steps < cfg.transitions:
        frac = steps / (cfg.eps_fraction * cfg.transitions)
        eps = max(cfg.eps_end, cfg.eps_start - (cfg.eps_start - cfg.eps_end) * frac)
        mask = obs["action_mask"]
        with torch.no_grad():
            greedy = masked_argmax(
                net(torch.as_tensor(obs["observation"])), torch.as_tensor(mask)
            ).numpy()
        explore = rng.random(cfg.num_envs) < eps
        actions = np.where(explore, random_legal(mask, rng), greedy)
        t_obs[rows, t_len] = obs["observation"]
        t_act[rows, t_len] = actions
        t_len += 1
        obs, reward, term, _, _ = envs.step(actions)
        for i in np.flatnonzero(term):
            k = t_len[i]
            idx = (pos + np.arange(k)) % cap
            b_obs[idx] = t_obs[i, :k]
            b_act[idx] = t_act[i, :k]
            b_ret[idx] = reward[i] * cfg.gamma ** np.arange(k - 1, -1, -1)
            pos = (pos + k) % cap
            size = min(size + k, cap)
            t_len[i] = 0
            recent.append(float(reward[i] > 0))
        steps += cfg.num_envs
        if tick is not None:
            tick.update(cfg.num_envs)

        if steps >= cfg.learning_starts:
            for group in opt.param_groups:
                group["lr"] = cfg.lr * (1 - 0.9 * steps / cfg.transitions)
            for _ in range(cfg.updates_per_step):
                j = rng.integers(size, size=cfg.batch)
                k = int(rng.integers(8)) if cfg.symmetries else 0
                planes = np.ascontiguousarray(transform_grid(b_obs[j], k))
                acts = perms[k][b_act[j]]
                q = net(torch.as_tensor(planes)).gather(1, torch.as_tensor(acts)[:, None])
                loss = nn.functional.mse_loss(q[:, 0], torch.as_tensor(b_ret[j]))
                opt.zero_grad()
                loss.backward()
                opt.step()

        if len(recent) >= 200:
            result.curve_steps.append(steps)
            result.curve_train_win.append(float(np.mean(recent)))
            recent.clear()
        if steps >= next_eval and steps < cfg.transitions:
            next_eval += cfg.eval_every
            w, _, _ = evaluate(net, cfg, 100, seed=10_000_000 + steps)
            result.eval_steps.append(steps)
            result.eval_win.append(w)
    if tick is not None:
        tick.close()
    result.win_rate, result.draw_rate, result.loss_rate = evaluate(
        net, cfg, cfg.eval_games, seed=cfg.seed + 1_000_000
    )
    result.eval_steps.append(steps)
    result.eval_win.append(result.win_rate)
    result.seconds = time.perf_counter() - t0
    result.transitions = steps
    envs.close()
    return net, result


def tqdm_or_none(total: int, enabled: bool):  # type: ignore[no-untyped-def]
    """A tqdm progress bar if wanted and installed."""
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="step")


def random_baseline(cfg: Config, games: int, seed: int) -> float:
    """Win rate of a uniformly random agent in the same evaluation."""
    env = gym.make(f"othellolab/Othello{cfg.size}x{cfg.size}-v0", opponent="random")
    rng = np.random.default_rng(seed)
    wins = 0
    for g in range(games):
        color = "black" if g % 2 == 0 else "white"
        obs, _ = env.reset(seed=seed + g, options={"player_color": color})
        done, reward = False, 0.0
        while not done:
            obs, reward, done, _, _ = env.step(int(random_legal(obs["action_mask"][None], rng)[0]))
        wins += reward > 0
    return wins / games


def plot(result: Result, cfg: Config, path: Path) -> None:
    """Training curve: win rate of training games (with exploration) and of evaluations."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(result.curve_steps, result.curve_train_win, label="training games (ε-greedy)")
    ax.plot(result.eval_steps, result.eval_win, "o-", label="evaluation vs random (greedy)")
    ax.axhline(0.9, color="grey", linestyle=":", label="90%")
    ax.set_xlabel("agent transitions")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.set_title(f"Masked Q-learning (Monte-Carlo returns), {cfg.size}x{cfg.size} vs random")
    ax.legend(loc="lower right")
    fig.tight_layout()
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("runs/dqn"))
    parser.add_argument("--size", type=int, default=Config.size)
    parser.add_argument("--transitions", type=int, default=Config.transitions)
    parser.add_argument("--seed", type=int, default=Config.seed)
    args = parser.parse_args()
    torch.set_num_threads(1)
    cfg = Config(size=args.size, transitions=args.transitions, seed=args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    _, result = train(cfg)
    plot(result, cfg, args.out / "curve.png")
    text = json.dumps({"config": asdict(cfg), "result": asdict(result)}, indent=1)
    tmp = args.out / "result.json.tmp"
    tmp.write_text(text)
    os.replace(tmp, args.out / "result.json")
    print(
        f"{cfg.size}x{cfg.size}: win {result.win_rate:.1%} draw {result.draw_rate:.1%} "
        f"loss {result.loss_rate:.1%} over {cfg.eval_games} games vs random, "
        f"{result.transitions} transitions in {result.seconds:.0f} s"
    )


if __name__ == "__main__":
    main()
