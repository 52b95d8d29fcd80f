"""The config of a self-play run (``othellolab train selfplay FILE``): unknown tables
and keys, bad values and sizes that disagree are ``ConfigError``s that name what is wrong;
values in range are taken as given; the shipped config loads as its file says."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import tomllib
from pathlib import Path
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from othellolab.config.options import Option
from othellolab.core import ConfigError
from othellolab.core.games import game_for
from othellolab.nn.config import model_config
from othellolab.nn.io import save_model
from othellolab.nn.models import build_model
from othellolab.training.selfplay.pipeline import SelfPlayRun, train_selfplay
from othellolab.training.selfplay.runconfig import (
    GateConfig,
    GradeConfig,
    LoopConfig,
    RateConfig,
    SelfPlayRunConfig,
    SelfPlayTrainConfig,
    load_run_config,
)

ROOT = Path(__file__).resolve().parents[3]

BASE: dict[str, Any] = {
    "name": "tiny4",
    "size": 4,
    "seed": 1,
    "runs_dir": "runs",
    "model": {"preset": "resnet-b2c16"},
    "selfplay": {"simulations": 16, "parallel": 64, "score_value": 1.0},
    "loop": {"generations": 3, "games": 64, "shards": 2, "workers": 1},
    "train": {"batch_size": 64},
    "grade": {"simulations": [0, 16], "every": 0},
    "runtime": {"threads": 1},
}

TABLES = {
    "loop": LoopConfig,
    "train": SelfPlayTrainConfig,
    "gate": GateConfig,
    "grade": GradeConfig,
    "rate": RateConfig,
}

NUMBERS = sorted(
    (table, name, option)
    for table, klass in TABLES.items()
    for name, option in klass.OPTIONS.items()
    if option.kind in (int, float)
)


def config(**tables: dict[str, Any]) -> dict[str, Any]:
    """``BASE`` with some options of some tables set (a value ``...`` deletes the option)."""
    data = copy.deepcopy(BASE)
    for table, options in tables.items():
        if not isinstance(options, dict):
            data[table] = options
            continue
        for key, value in options.items():
            if value is ...:
                data.setdefault(table, {}).pop(key, None)
            else:
                data.setdefault(table, {})[key] = value
    return data


def refused(data: dict[str, Any]) -> ConfigError:
    with pytest.raises(ConfigError) as e:
        SelfPlayRunConfig.from_dict(data, where="tiny.toml")
    return e.value


def test_the_base_config_is_valid() -> None:
    cfg = SelfPlayRunConfig.from_dict(config())
    assert (cfg.size, cfg.model.size, cfg.loop.games, cfg.grade.simulations) == (4, 4, 64, (0, 16))


# ---- unknown tables and keys -----------------------------------------------------------------


def test_an_unknown_table_is_named() -> None:
    e = refused({**config(), "trian": {"batch_size": 64}})
    assert e.option == "trian" and "trian" in str(e) and "tiny.toml" in str(e)


@pytest.mark.parametrize("table", [*TABLES, "selfplay", "optim", "runtime"])
def test_an_unknown_key_in_a_table_is_named(table: str) -> None:
    e = refused(config(**{table: {"nonsense_key": 1}}))
    assert "nonsense_key" in str(e)
    if table not in ("optim", "runtime"):  # these two are the supervised run's tables
        assert e.option == "nonsense_key"


@settings(max_examples=30, deadline=None)
@given(
    table=st.sampled_from(sorted(TABLES)),
    key=st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12),
)
def test_any_unknown_key_is_named(table: str, key: str) -> None:
    if key in {f for f in TABLES[table].OPTIONS}:
        return
    e = refused(config(**{table: {key: 1}}))
    assert e.option == key and key in str(e) and f"[{table}]" in str(e)


def test_a_table_that_is_not_a_table_is_refused() -> None:
    e = refused(config(loop=3))
    assert "[loop]" in str(e) and "table" in str(e)


# ---- values -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "key", "value"),
    [
        ("loop", "games", 0),
        ("loop", "shards", -1),
        ("loop", "workers", 2.5),
        ("loop", "generations", "3"),
        ("loop", "skip_corrupt", 1),
        ("train", "value_mix", math.nan),
        ("train", "value_mix", 1.5),
        ("train", "batch_size", math.inf),
        ("train", "symmetries", "yes"),
        ("gate", "threshold", -0.1),
        ("rate", "games", 1),
        ("grade", "every", 0.5),
        ("selfplay", "simulations", 0),
        ("selfplay", "score_value", math.nan),
    ],
)
def test_a_bad_value_names_its_option(table: str, key: str, value: Any) -> None:
    e = refused(config(**{table: {key: value}}))
    assert e.option == key and f"option {key}" in str(e)


@pytest.mark.parametrize("sims", [["a"], [], [0, -1], [0.5], "16", [0, 1, 2, 3, 4, 5, 6, 7, 8]])
def test_grade_simulations_must_be_a_short_list_of_whole_numbers(sims: Any) -> None:
    e = refused(config(grade={"simulations": sims}))
    assert e.option == "simulations" and "[grade]" in str(e)


@pytest.mark.parametrize("opponents", ["random", [1], ["random", None]])
def test_rate_opponents_must_be_player_specs(opponents: Any) -> None:
    e = refused(config(rate={"opponents": opponents}))
    assert e.option == "opponents" and "[rate]" in str(e)


def bad_numbers(option: Option) -> st.SearchStrategy[Any]:
    """Values ``option`` must refuse: not finite, not a number, out of its range, and a
    fraction where a whole number is asked. (Not ``true``: ``config.options.Option`` takes a
    bool as the number 0 or 1, for every player option too.)"""
    bad: list[st.SearchStrategy[Any]] = [
        st.sampled_from([math.nan, math.inf, -math.inf, "1", None, [1], {"a": 1}]),
    ]
    if option.low is not None:
        bad.append(st.floats(max_value=option.low, exclude_max=True, allow_nan=False))
    if option.high is not None:
        bad.append(st.floats(min_value=option.high, exclude_min=True, allow_nan=False))
    if option.kind is int:
        low, high = option.low or 0, option.high or 10**6
        bad.append(st.integers(int(low), int(high) - 1).map(lambda n: n + 0.5))
    return st.one_of(bad)


@settings(max_examples=60, deadline=None)
@given(case=st.sampled_from(NUMBERS), data=st.data())
def test_every_number_out_of_range_or_of_the_wrong_type_names_its_option(
    case: tuple[str, str, Option], data: st.DataObject
) -> None:
    table, key, option = case
    value = data.draw(bad_numbers(option), label="value")
    e = refused(config(**{table: {key: value}}))
    assert e.option == key and f"[{table}]" in str(e)


@settings(max_examples=60, deadline=None)
@given(case=st.sampled_from(NUMBERS), data=st.data())
def test_every_number_in_range_is_taken_as_given(
    case: tuple[str, str, Option], data: st.DataObject
) -> None:
    table, key, option = case
    low, high = option.low, option.high
    assert low is not None and high is not None
    if option.kind is int:
        value: Any = data.draw(st.integers(int(low), int(high)), label="value")
    else:
        value = data.draw(st.floats(low, high), label="value")
    section = {key: value}
    if (table, key) == ("loop", "min_window"):  # the window's first size is at most its size
        section["window"] = int(high)
    if (table, key) == ("train", "anchor_share"):  # a share of something: anchor names it
        section["anchor"] = "games.ggf"
    cfg = SelfPlayRunConfig.from_dict(config(**{table: section}))
    got = getattr(getattr(cfg, table), key)
    assert got == value and type(got) is option.kind


def test_min_window_above_window_is_refused() -> None:
    e = refused(config(loop={"window": 2, "min_window": 3}))
    assert e.option == "min_window" and "[loop]" in str(e)


def test_a_boolean_is_not_a_number() -> None:
    e = refused(config(loop={"games": True}))
    assert e.option == "games"


def test_optim_and_runtime_values_are_checked() -> None:
    e = refused(config(optim={"lr": math.nan}))
    assert "lr" in str(e) and "[optim]" in str(e)
    e = refused(config(runtime={"threads": 0}))
    assert "threads" in str(e) and "[runtime]" in str(e)


@pytest.mark.parametrize(
    ("key", "value"),
    [("name", ""), ("name", "../up"), ("size", 5), ("size", True), ("seed", -1), ("runs_dir", 3)],
)
def test_bad_top_level_values_are_named(key: str, value: Any) -> None:
    e = refused({**config(), key: value})
    assert e.option == key


def test_a_model_of_another_size_than_the_run_is_refused() -> None:
    e = refused(config(model={"size": 6}))
    assert e.option == "size" and "[model]" in str(e) and "6" in e.what and "4" in e.what
    # the run's own size is fine, and a run without a [model] table is refused
    assert SelfPlayRunConfig.from_dict(config(model={"size": 4})).model.size == 4
    data = config()
    del data["model"]
    assert "[model]" in str(refused(data))


def test_loop_init_of_another_board_size_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    torch.manual_seed(0)
    six = save_model(build_model(model_config("resnet-b2c16", size=6)), tmp_path / "six")
    monkeypatch.chdir(tmp_path)
    cfg = SelfPlayRunConfig.from_dict(config(loop={"init": str(six)}))
    with pytest.raises(ConfigError) as e:
        train_selfplay(cfg, progress=False)
    assert e.value.option == "loop.init"
    assert "6x6" in str(e.value) and "4x4" in str(e.value) and str(six) in str(e.value)
    assert not (tmp_path / "runs/tiny4/models/gen0000").exists()


def test_loop_init_of_the_right_size_is_generation_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    torch.manual_seed(5)
    net = build_model(model_config("resnet-b2c16", size=4))
    four = save_model(net, tmp_path / "four")
    monkeypatch.chdir(tmp_path)
    cfg = SelfPlayRunConfig.from_dict(config(loop={"init": str(four)}))
    SelfPlayRun(cfg, progress=False).start()
    gen0 = tmp_path / "runs/tiny4/models/gen0000"
    assert (gen0 / "model.safetensors").read_bytes() == (four / "model.safetensors").read_bytes()


# ---- the shipped config ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", sorted(p.name for p in (ROOT / "configs").glob("alphazero-*.toml"))
)
def test_every_shipped_selfplay_config_loads_as_its_file_says(name: str) -> None:
    path = ROOT / "configs" / name
    cfg, text = load_run_config(path)
    raw = tomllib.loads(path.read_text())  # the file itself, read by tomllib, is the reference
    assert text == path.read_text()
    assert (cfg.name, cfg.seed, cfg.runs_dir, cfg.game) == (
        raw["name"],
        raw["seed"],
        raw["runs_dir"],
        raw.get("game", "othello"),
    )
    assert cfg.size == raw.get("size", cfg.size)  # the other games have no size
    if cfg.game == "othello":
        preset = model_config(raw["model"]["preset"], size=raw["size"])
        # the heads the [train] weights train come on top of the named preset
        heads = {k: v for k, v in cfg.train.heads().items() if v}
        assert cfg.model == dataclasses.replace(preset, **heads)
    else:
        assert cfg.model.game == cfg.game
    for table, options in raw.items():
        if not isinstance(options, dict) or table == "model":
            continue
        for key, value in options.items():
            got = getattr(getattr(cfg, table), key)
            assert (list(got) if isinstance(got, tuple) else got) == value, (table, key)


OLD_RUN = ROOT / "tests" / "data" / "selfplay-run-2026-11"
"""A run folder written before issue 60 (az-8x8-sup-anchor, trimmed: tests/data/README.md)."""


def _old_run(tmp_path: Path) -> tuple[SelfPlayRunConfig, Path]:
    """The old run copied into ``tmp_path/runs`` and its own config, pointed there."""
    import shutil

    frozen = json.loads((OLD_RUN / "config.json").read_text())
    shutil.copytree(OLD_RUN, tmp_path / "runs" / frozen["name"])
    cfg, _ = load_run_config(OLD_RUN / "run.toml", overrides={"runs_dir": str(tmp_path / "runs")})
    return cfg, tmp_path / "runs" / frozen["name"]


def test_a_run_folder_from_before_the_config_rework_resumes(tmp_path: Path) -> None:
    """Its README told users to copy it into runs/ and run its config again: the config it
    froze still matches (only what may change on a resume differs), the run finds its last
    generation and rebuilds its metrics from the stage records it kept."""
    from othellolab.training.selfplay.pipeline import read_metrics

    cfg, root = _old_run(tmp_path)
    run = SelfPlayRun(cfg, progress=False)  # freezes: raises if the config differs
    assert run.root == root and run.generations() == [10]
    assert run.best(10) == 10  # no gating: self-play goes on from the newest
    old = read_metrics(root)
    assert [r["kind"] for r in old[:3]] == ["rate", "selfplay", "train"]
    rebuilt = run.write_metrics()
    train = next(r for r in rebuilt if r["kind"] == "train")
    meta = json.loads((root / "models" / "gen0010" / "config.json").read_text())["training"]
    assert train["generation"] == 10 and train["steps"] == meta["steps"]
    assert train["cpu_hours"] == pytest.approx(meta["cpu_seconds"] / 3600)


def test_a_changed_search_option_stops_the_old_runs_resume(tmp_path: Path) -> None:
    from othellolab.training.rundir import RunDir
    from othellolab.training.selfplay.pipeline import MAY_CHANGE

    cfg, root = _old_run(tmp_path)
    given = cfg.to_dict()
    changed = dict(given, selfplay={**given["selfplay"], "c_puct": 9.0})
    with pytest.raises(ConfigError, match="selfplay.c_puct"):
        RunDir(root).freeze(changed, defaults=cfg.defaults(), ignore=MAY_CHANGE)


def test_learning_rate_decays_along_a_cosine_over_the_generations_asked() -> None:
    from othellolab.training.selfplay.runconfig import SelfPlayTrainConfig

    assert SelfPlayTrainConfig().lr_factor(50) == 1.0  # constant by default
    t = SelfPlayTrainConfig(lr_decay_generations=10, min_lr_ratio=0.2)
    assert t.lr_factor(1) == 1.0
    assert t.lr_factor(6) == pytest.approx(0.2 + 0.8 * 0.5)  # half way: the cosine's middle
    assert t.lr_factor(11) == pytest.approx(0.2) and t.lr_factor(500) == pytest.approx(0.2)
    factors = [t.lr_factor(g) for g in range(1, 12)]
    assert factors == sorted(factors, reverse=True)


def test_the_replay_ratio_sets_the_steps_of_a_generation() -> None:
    """``samples_per_position`` is the replay ratio: samples trained per position generated."""
    from othellolab.training.selfplay.runconfig import SelfPlayTrainConfig

    t = SelfPlayTrainConfig(batch_size=256, samples_per_position=4.0)
    assert t.steps(1000) == 16  # ceil(1000 * 4 / 256) = ceil(15.6)
    assert t.steps(1024) == 16 and t.steps(1025) == 17
    # a larger batch at the same ratio: the same samples in fewer, larger steps
    big = SelfPlayTrainConfig(batch_size=1024, samples_per_position=4.0)
    assert big.steps(4096) * 1024 == t.steps(4096) * 256 == 4 * 4096
    assert SelfPlayTrainConfig(samples_per_position=0.5).steps(1000) == 2  # ceil(1.95)
    assert SelfPlayTrainConfig(min_steps=5).steps(10) == 5
    assert SelfPlayTrainConfig(max_steps=3).steps(10_000) == 3
    assert SelfPlayTrainConfig().steps(0) == 1  # min_steps' default


# ---- rating openings ----------------------------------------------------------------------------


def test_rate_random_openings_are_checked_when_the_config_is_read() -> None:
    e = refused(config(rate={"openings": "random:99"}))
    assert e.option == "openings" and "[rate]" in str(e) and "random:N needs N in 0..20" in str(e)


@pytest.mark.parametrize(
    ("text", "said"),
    [(None, "is not a file of openings"), ("f5d6\nf5z9\n", "line 2")],  # z9: no square
)
def test_a_missing_or_malformed_opening_list_stops_the_run_before_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str | None, said: str
) -> None:
    """A list is read when the run starts (a shipped config may name one in ../shared, absent
    where its file is merely read), before generation 0 is built."""
    monkeypatch.chdir(tmp_path)
    listed = tmp_path / "openings.txt"
    if text is not None:
        listed.write_text(text)
    rate = {"every": 1, "opponents": ["random"], "openings": str(listed)}
    cfg = SelfPlayRunConfig.from_dict(config(rate=rate, size=8))
    with pytest.raises(ConfigError) as e:
        train_selfplay(cfg, progress=False)
    assert e.value.option == "openings" and "[rate]" in str(e.value) and said in str(e.value)
    assert not (tmp_path / "runs/tiny4/models/gen0000").exists()


def test_rating_openings_come_from_the_list_and_fresh_ones_change_by_generation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a list, a rating plays openings of that list (games/2 of them, each twice); the same
    ones every generation unless ``fresh_openings``, which draws each generation's anew."""
    monkeypatch.chdir(tmp_path)
    game = game_for("othello", 4)
    start = game.new_position()
    lines = [
        game.action_name(a) + game.action_name(b)
        for a in start.legal_actions()
        for b in start.play(a).legal_actions()
    ]  # every 2-ply opening of 4x4
    listed = tmp_path / "openings4.txt"
    listed.write_text("\n".join(lines) + "\n")
    same = SelfPlayRun(
        SelfPlayRunConfig.from_dict(config(rate={"games": 4, "openings": str(listed)}))
    )
    drawn = same.rating_openings(1)
    assert len(drawn) == 2 and drawn == same.rating_openings(7)
    from othellolab.arena.openings import read_openings

    assert set(drawn) <= set(read_openings(listed, size=4))
    fresh = SelfPlayRun(
        SelfPlayRunConfig.from_dict(
            config(name="fresh", rate={"games": 4, "openings": str(listed), "fresh_openings": True})
        )
    )
    per_gen = [tuple(fresh.rating_openings(g)) for g in range(1, 9)]
    assert len(set(per_gen)) > 1 and per_gen[0] == tuple(fresh.rating_openings(1))
    default = SelfPlayRun(SelfPlayRunConfig.from_dict(config(name="dflt", rate={"games": 4})))
    assert default.rating_openings(1) == default.rating_openings(2)
    assert all(len(o) == 4 for o in default.rating_openings(1))  # opening_plies = 4
