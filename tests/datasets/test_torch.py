"""The PyTorch loader: shapes, dtypes, determinism, worker processes."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="torch is the optional othellolab[nn] extra")

from othellolab.core.features import FeatureSpec  # noqa: E402
from othellolab.datasets.build import build_dataset  # noqa: E402
from othellolab.datasets.torch import PositionDataset, make_loader  # noqa: E402


@pytest.fixture
def root(small_wtb, tmp_path):
    build_dataset([small_wtb(2004, 200)], tmp_path / "ds", dedup=True, progress=False)
    return tmp_path / "ds"


def test_loader_batches_have_shapes_and_dtypes(root) -> None:
    spec = FeatureSpec(planes=("player", "opponent", "legal"))
    loader = make_loader(root, "train", batch_size=256, spec=spec, seed=1)
    batches = list(loader)
    n = len(PositionDataset(root, "train"))
    assert len(batches) == len(loader) == -(-n // 256)
    b = batches[0]
    assert b["planes"].shape == (256, 3, 8, 8) and b["planes"].dtype == torch.float32
    assert b["move"].shape == (256,) and b["move"].dtype == torch.int64
    assert b["policy"].shape == (256, 65) and b["policy"].dtype == torch.float32
    for key in ("outcome", "score", "weight"):
        assert b[key].shape == (256,) and b[key].dtype == torch.float32
    assert torch.allclose(b["policy"].sum(1), torch.ones(256))
    assert ((b["outcome"] >= -1) & (b["outcome"] <= 1)).all()
    assert sum(len(x["move"]) for x in batches) == n
    again = list(make_loader(root, "train", batch_size=256, spec=spec, seed=1))
    assert all(torch.equal(x["planes"], y["planes"]) for x, y in zip(batches, again, strict=True))


def test_single_items_and_worker_processes(root) -> None:
    ds = PositionDataset(root, "val")
    item = ds[0]
    assert item["planes"].shape == (2, 8, 8) and item["move"].dim() == 0
    with pytest.raises(IndexError):
        ds[len(ds)]
    serial = list(make_loader(root, "val", batch_size=64, seed=3))
    parallel = list(make_loader(root, "val", batch_size=64, seed=3, num_workers=1))
    assert len(serial) == len(parallel)
    assert all(torch.equal(x["policy"], y["policy"]) for x, y in zip(serial, parallel, strict=True))
