"""``train engine``: two rounds from one config, the second played by the first round's fit;
every stage resumes and a finished one is skipped; bad configs are refused by name."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from othellolab.core import ConfigError
from othellolab.fitting.engine import EngineConfig, load_engine_config, train_engine
from othellolab.fitting.labelled.shards import read_run
from othellolab.players.search.evaluation import weights_evaluation


def _engine_toml(tmp_path: Path, tiny, toml_text, *, extra: str = "") -> Path:
    """A two-round engine config over tiny labelled configs, fitted to their data alone."""
    for k, seed in ((1, 7), (2, 8)):
        (tmp_path / f"data{k}.toml").write_text(toml_text(tiny(seed=seed, shards=3)))
    (tmp_path / "held.toml").write_text(toml_text(tiny(seed=9, shards=1)))
    text = f"""
[[rounds]]
data = "{tmp_path / "data1.toml"}"
shards = 2

[[rounds]]
data = "{tmp_path / "data2.toml"}"
play = "previous"

[fit]
wthor = ""
labelled_weight = 1.0
terms = "all"
iterations = 10

[probcut]
positions = 0

[measure]
exact = "{tmp_path / "held.toml"}"
compare = ""
{extra}"""
    path = tmp_path / "engine.toml"
    path.write_text(text)
    return path


def test_two_rounds_then_a_resume_that_does_nothing(tiny, toml_text, tmp_path: Path) -> None:
    cfg, text = load_engine_config(_engine_toml(tmp_path, tiny, toml_text))
    out = tmp_path / "out"
    said: list[str] = []
    summary = train_engine(cfg, out, text=text, progress=False, log=said.append)
    first, second = summary["rounds"]
    assert first["shards"] == 2 and second["shards"] == 3  # the round's count, then the config's
    assert first["positions"] > 0 and second["positions"] > 0
    # Round 2's games were played and labelled by round 1's fit.
    played = read_run(out / "data" / "round-2")["config"]["search"]["evaluation"]
    assert played == str(out / "round-1")
    # Round 2 is fitted to both rounds' data: the first round's two shards, the second's three.
    info = json.loads((out / "round-2" / "config.json").read_text())
    assert [d.split(" (")[0] for d in info["training_data"]] == ["round-1", "round-2"]
    assert "shards 0-1" in info["training_data"][0] and "shards 0-2" in info["training_data"][1]
    # The fits are real evaluations that differ, measured on the held-out run made first.
    assert (out / "heldout" / "labelled.json").is_file()
    a, b = (weights_evaluation(str(out / f"round-{k}")) for k in (1, 2))
    assert not np.array_equal(a.weights, b.weights)
    for row in summary["rounds"]:
        assert set(row["mae"]) == {row["weights"]}
        assert math.isfinite(row["mae"][row["weights"]])
    # Running again finds every stage done and changes nothing.
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    said.clear()
    again = train_engine(cfg, out, text=text, progress=False, log=said.append)
    assert again["rounds"] == summary["rounds"]
    assert any("fit done before" in line for line in said)
    changed = [
        p
        for p, t in stamps.items()
        if p.stat().st_mtime_ns != t and p.name not in ("summary.json", "measure.json")
    ]
    assert changed == []


def test_another_config_in_the_same_folder_is_refused(tiny, toml_text, tmp_path: Path) -> None:
    cfg, text = load_engine_config(_engine_toml(tmp_path, tiny, toml_text))
    out = tmp_path / "out"
    out.mkdir()
    (out / "engine.json").write_text(json.dumps({"config": {**cfg.to_dict(), "workers": 2}}))
    with pytest.raises(ConfigError, match="changed: workers"):
        train_engine(cfg, out, text=text, progress=False)


BASE: dict[str, Any] = {"rounds": [{"data": "x.toml"}]}


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ({}, "at least one \\[\\[rounds\\]\\]"),
        ({"rounds": []}, "at least one"),
        ({**BASE, "extra": 1}, "unknown key"),
        ({"rounds": [{"data": "x.toml", "play": "previous"}]}, "first round has no previous"),
        ({"rounds": [{"data": "x.toml", "play": "best"}]}, "play"),
        ({"rounds": [{"data": "x.toml", "shards": -1}]}, "shards"),
        ({"rounds": [{"data": "x.toml", "colour": 1}]}, "unknown key"),
        ({"rounds": [{"shards": 1}]}, "data"),
        ({**BASE, "fit": {"labelled_weight": float("nan")}}, "labelled_weight"),
        ({**BASE, "fit": {"labelled_weight": float("inf")}}, "labelled_weight"),
        ({**BASE, "fit": {"terms": "mobility,corners"}}, "unknown term 'corners'"),
        ({**BASE, "fit": {"years": "2020-2023"}}, "held-out year"),
        ({**BASE, "fit": {"years": "twenty"}}, "years"),
        ({**BASE, "fit": {"phase_width": 0}}, "phase_width"),
        ({**BASE, "probcut": {"positions": 5}}, "at least 20"),
        ({**BASE, "probcut": {"max_depth": 99}}, "max_depth"),
        ({**BASE, "workers": 0}, "workers"),
        ({**BASE, "measure": {"exact": 3}}, "exact"),
    ],
)
def test_bad_configs_are_refused_by_name(data: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        EngineConfig.from_dict(data)


def test_a_missing_data_config_is_named_before_any_work(tmp_path: Path) -> None:
    cfg = EngineConfig.from_dict({"rounds": [{"data": str(tmp_path / "none.toml")}]})
    with pytest.raises(ConfigError, match=r"\[\[rounds\]\] 1.*none.toml: no such"):
        train_engine(cfg, tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()


def test_the_shipped_config_reads() -> None:
    cfg, _ = load_engine_config(Path(__file__).parents[3] / "configs" / "engine.toml")
    assert len(cfg.rounds) >= 2 and cfg.rounds[1].play in ("config", "previous")


def test_a_run_played_by_a_weights_folder_refuses_changed_weights(
    tiny, toml_text, tmp_path: Path
) -> None:
    import shutil

    from othellolab.fitting.labelled import LabelledConfig, generate_labelled
    from othellolab.players.search.patterns import pattern_weights_dir

    weights = tmp_path / "fit"
    shutil.copytree(pattern_weights_dir("patterns-r1"), weights)
    cfg = LabelledConfig.from_dict(tiny(shards=1, search__evaluation=str(weights)))
    generate_labelled(cfg, tmp_path / "run", progress=False)
    sources = read_run(tmp_path / "run")["sources"]
    assert str(weights / "weights.safetensors") in sources
    with (weights / "weights.safetensors").open("r+b") as f:
        f.seek(-1, 2)
        last = f.read(1)
        f.seek(-1, 2)
        f.write(bytes([last[0] ^ 1]))
    with pytest.raises(ConfigError, match="weights changed.*weights.safetensors"):
        generate_labelled(
            LabelledConfig.from_dict(tiny(shards=2, search__evaluation=str(weights))),
            tmp_path / "run",
            progress=False,
        )


def test_the_fit_takes_a_shard_count_per_run_and_refuses_a_mismatch() -> None:
    from othellolab.fitting.patterns import PatternTrainOptions

    runs = (Path("a"), Path("b"))
    ok = PatternTrainOptions(labelled=runs, labelled_shards=[3, 0]).checked()
    assert ok.labelled_shards == (3, 0)
    with pytest.raises(ConfigError, match="1 shard counts for 2 labelled runs"):
        PatternTrainOptions(labelled=runs, labelled_shards=(3,)).checked()
    with pytest.raises(ConfigError, match="labelled_shards"):
        PatternTrainOptions(labelled=runs, labelled_shards=(3, -1)).checked()


def test_all_terms_are_the_counts_and_pattern_terms_go_by_name() -> None:
    """``terms = "all"`` keeps meaning the five count terms it meant before the pattern terms
    existed; a pattern term is named, in ``TERMS`` order, and a wrong order is refused."""
    from othellolab.fitting.engine import FitConfig

    counts = ("mobility", "potential_mobility", "parity", "frontier", "discs")
    assert FitConfig(terms="all").term_names() == counts
    rich = FitConfig(terms="mobility, parity, triangle, cross").term_names()
    assert rich == ("mobility", "parity", "triangle", "cross")
    with pytest.raises(ValueError, match="order"):
        FitConfig(terms="cross,triangle").term_names()
