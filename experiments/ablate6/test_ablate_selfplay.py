"""The 6x6 ablation tool (``ablate_selfplay.py`` beside this file; ``make test-experiments``
runs it): its variant configs load as run configs, and ``collect`` keeps only the finished
runs, which ``table`` then reads."""

from __future__ import annotations

import argparse
import importlib.util
import json
import tomllib
from pathlib import Path

import pytest

from othellolab.training.selfplay.runconfig import load_run_config

_PATH = Path(__file__).resolve().with_name("ablate_selfplay.py")
_spec = importlib.util.spec_from_file_location("ablate_selfplay", _PATH)
assert _spec is not None and _spec.loader is not None
ablate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ablate)


@pytest.mark.parametrize("name", list(ablate.VARIANTS))
def test_every_variant_is_a_valid_run_config(name: str, tmp_path: Path) -> None:
    base = tomllib.loads(ablate.BASE.read_text())
    cfg = ablate.variant_config(base, name, 0.5, seed=2)
    assert cfg["loop"]["cpu_hours"] == 0.5 and cfg["seed"] == 2
    # the decay spans the shorter run as it spans the base config's CPU-hours
    assert cfg["train"]["lr_decay_generations"] == round(
        base["train"]["lr_decay_generations"] * 0.5 / base["loop"]["cpu_hours"]
    )
    path = tmp_path / "run.toml"
    path.write_text(ablate.to_toml(cfg))
    loaded, _ = load_run_config(path)
    for key, value in ablate.VARIANTS[name].items():
        table, _, field = key.partition(".")
        assert tomllib.loads(path.read_text())[table][field] == value
    assert loaded.name == f"ablate-{name}-s2"


def test_decay_and_grading_can_follow_the_machine() -> None:
    """The decay can span the generations a slower machine reaches in the time (more of them
    than the base's scaled count), and the loop runs long enough to finish it."""
    base = tomllib.loads(ablate.BASE.read_text())
    cfg = ablate.variant_config(base, "winners", 2.0, seed=1, decay_generations=110, grade_every=10)
    assert cfg["train"]["lr_decay_generations"] == 110
    assert cfg["loop"]["generations"] >= 220
    assert cfg["grade"]["every"] == 10
    assert cfg["train"]["ownership_weight"] == 1.0
    assert cfg["selfplay"]["prune_policy_target"] is True
    plain = ablate.variant_config(base, "winners", 2.0, seed=1)
    assert plain["grade"]["every"] == base["grade"]["every"]
    assert plain["train"]["lr_decay_generations"] == base["train"]["lr_decay_generations"]


_KEPT = Path(__file__).resolve().parent


@pytest.mark.parametrize(
    ("kept", "name", "hours", "decay", "grade_every"),
    [("avx2/ablate-base-s0", "base", 0.5, 0, 0), ("avx2/ablate-forced-s0", "forced", 0.5, 0, 0),
     ("winners-avx2/ablate-winners-s0", "winners", 2.0, 110, 10)],
)  # fmt: skip
def test_variants_are_the_runs_the_kept_tables_measured(
    kept: str, name: str, hours: float, decay: int, grade_every: int, tmp_path: Path
) -> None:
    """Against the frozen configs of the runs behind docs/selfplay.md's tables: the base config's
    defaults moved on (the winners), yet every variant is still the run that was measured."""
    base = tomllib.loads(ablate.BASE.read_text())
    cfg = ablate.variant_config(base, name, hours, 0, decay, grade_every)
    cfg["runs_dir"] = "runs"
    (tmp_path / "new.toml").write_text(ablate.to_toml(cfg))
    frozen = tomllib.loads((_KEPT / kept / "run.toml").read_text())
    frozen["runs_dir"] = "runs"
    (tmp_path / "kept.toml").write_text(ablate.to_toml(frozen))
    new, _ = load_run_config(tmp_path / "new.toml")
    old, _ = load_run_config(tmp_path / "kept.toml")
    assert new.to_dict() == old.to_dict()


def _fake_run(root: Path, name: str, hours: float, limit: float) -> Path:
    run = root / "runs" / name
    run.mkdir(parents=True)
    (run / "run.toml").write_text(f'name = "{name}"\n\n[loop]\ncpu_hours = {limit}\n')
    grade = {"kind": "grade", "generation": 5, "cpu_hours": hours, "simulations": {
        "0": {"optimal_share": 0.5, "outcome_share": 0.9},
        "100": {"optimal_share": 0.7, "outcome_share": 0.95}}}  # fmt: skip
    (run / "metrics.jsonl").write_text(json.dumps(grade) + "\n")
    return run


def test_collect_keeps_finished_runs_and_table_reads_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _fake_run(tmp_path / "out", "ablate-base-s0", hours=0.51, limit=0.5)
    _fake_run(tmp_path / "out", "ablate-pool-s0", hours=0.2, limit=0.5)
    dest = tmp_path / "kept"
    ablate.collect(argparse.Namespace(out=str(tmp_path / "out"), dest=str(dest)))
    assert sorted(p.name for p in dest.iterdir()) == ["ablate-base-s0"]
    assert "ablate-pool-s0: not finished" in capsys.readouterr().out
    ablate.table(argparse.Namespace(out=str(dest)))
    out = capsys.readouterr().out
    assert "| ablate-base-s0 | 50.0% (90.0%) at 0.51 h | 70.0% (95.0%) at 0.51 h |" in out
