"""``othellolab rl maze`` and ``othellolab rl othello4``: tabular reinforcement learning on the
tutorial's maze and on 4x4 Othello, with plots (see docs/rl.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from othellolab.cli._common import as_command
from othellolab.cli._config import examples
from othellolab.core.files import replacing, write_json

rl_app = typer.Typer(
    help="Reinforcement learning with tables: the maze, then 4x4 Othello graded by exact play.",
    no_args_is_help=True,
)

AGENT_HELP = "random, policy-gradient, sarsa, q-learning or monte-carlo"


@rl_app.command(
    "maze",
    epilog=examples(
        "othellolab rl maze",
        "othellolab rl maze --agent sarsa --episodes 200 --out runs/maze-sarsa",
    ),
)
def maze(
    agent: Annotated[str, typer.Option(help=AGENT_HELP)] = "q-learning",
    episodes: Annotated[int, typer.Option(help="Episodes per run.")] = 100,
    runs: Annotated[int, typer.Option(help="Seeded runs (seeds SEED, SEED+1, ...).")] = 1,
    seed: Annotated[int, typer.Option(help="Seed of the first run.")] = 0,
    maze_map: Annotated[
        Path | None, typer.Option("--map", help="A text map (default: the tutorial's 3x3 maze).")
    ] = None,
    eta: Annotated[float, typer.Option(help="Learning rate.")] = 0.1,
    gamma: Annotated[
        float | None, typer.Option(help="Discount (default 0.9; 1 for policy-gradient).")
    ] = None,
    epsilon: Annotated[float, typer.Option(help="Exploration rate of the first episode.")] = 0.5,
    epsilon_decay: Annotated[float, typer.Option(help="Factor on epsilon per episode.")] = 0.5,
    epsilon_min: Annotated[float, typer.Option(help="Floor of epsilon.")] = 0.0,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path("runs/rl-maze"),
    gif: Annotated[bool, typer.Option(help="Write the value map's animation.")] = True,
) -> None:
    """Train an agent on the maze: steps to the goal per episode, when it first walks the
    shortest path, and the value map (curve.png, values.png, values.gif, log.json)."""
    # the library's checks of these options name its functions and the agent
    with as_command("rl maze", "train_agent", "epsilon schedule", "rl", agent):
        _maze(
            agent,
            episodes,
            runs,
            seed,
            maze_map,
            eta,
            gamma,
            epsilon,
            epsilon_decay,
            epsilon_min,
            out,
            gif,
        )


def _maze(
    agent: str,
    episodes: int,
    runs: int,
    seed: int,
    maze_map: Path | None,
    eta: float,
    gamma: float | None,
    epsilon: float,
    epsilon_decay: float,
    epsilon_min: float,
    out: Path,
    gif: bool,
) -> None:
    from othellolab.config import check_count
    from othellolab.envs.maze import MazeEnv, parse_maze
    from othellolab.rl import EpsilonSchedule, make_agent, train_agent
    from othellolab.rl.report import maze_curve_figure, save_figure, write_gif

    check_count(runs, "runs", where="rl maze")
    check_count(seed, "seed", where="rl maze", low=0)
    layout = parse_maze(maze_map.read_text()) if maze_map is not None else MazeEnv().layout
    shortest = layout.shortest_path_length()
    options: dict[str, object] = {"eta": eta}
    if gamma is not None:
        options["gamma"] = gamma
    if agent in ("sarsa", "q-learning", "monte-carlo"):
        options["epsilon"] = EpsilonSchedule(epsilon, epsilon_decay, epsilon_min)
    if agent == "random":
        options = {}
    out.mkdir(parents=True, exist_ok=True)
    logs, table = [], []
    cells = list(range(layout.n_cells))
    for r in range(runs):
        run_seed = seed + r
        learner = make_agent(agent, 4, seed=run_seed, **options)
        log = train_agent(
            MazeEnv(layout=layout),
            learner,
            episodes,
            seed=run_seed,
            greedy_env=MazeEnv(layout=layout, max_steps=4 * layout.n_cells),
            value_states=cells,
        )
        logs.append(log)
        found = None if agent == "random" else log.first_episode_at(shortest)
        cpu = log.cpu_seconds[found - 1] if found else None
        table.append({"seed": run_seed, "episode": found, "cpu_seconds": cpu})
        where = f"episode {found} ({cpu:.3f} CPU s)" if found else "not found"
        typer.echo(
            f"seed {run_seed}: shortest path ({shortest} steps) first walked greedily after {where}; "
            f"mean steps per episode {sum(log.steps) / len(log.steps):.1f}"
        )
    save_figure(maze_curve_figure({agent: logs}, shortest), out / "curve.png")
    final = logs[0].values[-1]
    lo, hi = _value_range(logs[0].values)
    frame = _value_frame(layout, final, (lo, hi), f"{agent}, episode {episodes}")
    from PIL import Image

    with replacing(out / "values.png", keep_suffix=True) as tmp:
        Image.fromarray(frame).resize(
            (frame.shape[1] * 2, frame.shape[0] * 2), Image.Resampling.NEAREST
        ).save(tmp)
    if gif:
        shown = sorted(
            {*range(min(episodes, 30)), *range(0, episodes, max(1, episodes // 30)), episodes - 1}
        )
        frames = [
            _value_frame(layout, logs[0].values[e], (lo, hi), f"{agent}, episode {e + 1}")
            for e in shown
        ]
        write_gif(frames, out / "values.gif")
    write_json(
        out / "log.json",
        {
            "agent": agent,
            "options": {k: str(v) for k, v in options.items()},
            "episodes": episodes,
            "shortest": shortest,
            "runs": table,
            "steps": [log.steps for log in logs],
            "greedy_steps": [log.greedy_steps for log in logs],
        },
        indent=1,
    )
    typer.echo(f"wrote {out}/curve.png, values.png{', values.gif' if gif else ''}, log.json")


def _value_range(snapshots: list) -> tuple[float, float]:
    import numpy as np

    stacked = np.array(snapshots, dtype=np.float64)
    finite = stacked[np.isfinite(stacked)]
    if finite.size == 0:
        return 0.0, 1.0
    return min(0.0, float(finite.min())), max(1e-9, float(finite.max()))


def _value_frame(layout, values, value_range, caption: str):  # type: ignore[no-untyped-def]
    """The value map as an RGB frame: cells shaded by value, each labelled with it."""
    import math

    from othellolab.envs.maze import render_maze_rgb
    from othellolab.rl.report import label_frame

    img = render_maze_rgb(layout, values=values, value_range=value_range)
    labels = []
    for cell in range(layout.n_cells):
        r, c = layout.position(cell)
        v = values[cell]
        text = f"S{cell}" if cell == layout.goal or math.isnan(v) else f"{v:.2f}"
        labels.append((r * 48 + 20, c * 48 + 12, text))
    return label_frame(img, caption, values=labels)


@rl_app.command(
    "othello4",
    epilog=examples("othellolab rl othello4", "othellolab rl othello4 --episodes 2000 --quiet"),
)
def othello4(
    agent: Annotated[str, typer.Option(help="q-learning, sarsa or monte-carlo")] = "q-learning",
    opponent: Annotated[
        str, typer.Option(help="self (self-play), random, greedy or perfect")
    ] = "self",
    episodes: Annotated[int, typer.Option(help="Games to play.")] = 1_000_000,
    eta: Annotated[float, typer.Option(help="Learning rate (1 suits self-play Q-learning).")] = 0.1,
    gamma: Annotated[float, typer.Option(help="Discount.")] = 1.0,
    epsilon: Annotated[float, typer.Option(help="Exploration rate of the first game.")] = 1.0,
    epsilon_decay: Annotated[float, typer.Option(help="Factor on epsilon per game.")] = 1.0,
    epsilon_min: Annotated[float, typer.Option(help="Floor of epsilon.")] = 0.0,
    seed: Annotated[int, typer.Option(help="Seed of the kernel's generator.")] = 0,
    grades: Annotated[int, typer.Option(help="Grading points, spaced evenly in log scale.")] = 12,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path(
        "runs/rl-othello4"
    ),
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Learn 4x4 Othello with a table and grade the greedy policy against the exact solution:
    the share of positions where its move is optimal and its score against perfect play
    (curve.png, result.json)."""
    import numpy as np

    from othellolab.config import check_count
    from othellolab.core.progress import StepProgress
    from othellolab.rl import EpsilonSchedule
    from othellolab.rl.report import othello_curve_figure, save_figure
    from othellolab.rl.smallboard import SmallBoardLearner

    check_count(episodes, "episodes", where="rl othello4")
    check_count(grades, "grades", where="rl othello4")
    with as_command("rl othello4", "smallboard learner", "epsilon schedule"):
        learner = SmallBoardLearner(
            agent,
            opponent=opponent,
            eta=eta,
            gamma=gamma,
            epsilon=EpsilonSchedule(epsilon, epsilon_decay, epsilon_min),
            seed=seed,
        )
    learner.solution  # noqa: B018 - build the solution before the clock starts
    marks = sorted({int(x) for x in np.geomspace(min(1000, episodes), episodes, grades)})
    bar = StepProgress(not quiet, total=len(marks), done=0, name=f"{agent} vs {opponent}")
    points, cpu, done = [], 0.0, 0
    try:
        for mark in marks:
            stats = learner.train(mark - done)
            done, cpu = mark, cpu + stats.cpu_seconds
            grade = learner.grade()
            points.append(
                {
                    "episodes": done,
                    "cpu_seconds": round(cpu, 3),
                    "optimal_share": grade.optimal_share,
                    "mean_loss": grade.mean_loss,
                    "score_as_black": grade.score_as_black,
                    "score_as_white": grade.score_as_white,
                    "positions_seen": len(learner),
                }
            )
            bar.advance(f"{done} games: optimal {grade.optimal_share:.2%}")
    finally:
        bar.close()
    out.mkdir(parents=True, exist_ok=True)
    label = f"{agent} vs {opponent}"
    fig = othello_curve_figure(
        {label: [(p["episodes"], p["optimal_share"]) for p in points]},
        title=f"4x4 Othello: {label}, eta {eta:g}, epsilon {epsilon:g}",
    )
    save_figure(fig, out / "curve.png")
    write_json(
        out / "result.json",
        {
            "agent": agent,
            "opponent": opponent,
            "eta": eta,
            "gamma": gamma,
            "epsilon": [epsilon, epsilon_decay, epsilon_min],
            "seed": seed,
            "episodes_per_cpu_second": round(done / cpu) if cpu else None,
            "points": points,
        },
        indent=1,
    )
    last = points[-1]
    typer.echo(
        f"{label}: {done} games in {cpu:.1f} CPU s ({done / max(cpu, 1e-9):,.0f} games/s); "
        f"optimal move in {last['optimal_share']:.2%} of {learner.solution.choice_rows.size} "
        f"positions with a choice; against perfect play {last['score_as_black']:+d} as Black, "
        f"{last['score_as_white']:+d} as White (perfect: -10, +10)"
    )
    typer.echo(f"wrote {out}/curve.png, result.json")
