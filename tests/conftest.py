"""Shared fixtures: a guard that fails any test which logs an ERROR (the python-chess trick)."""

from __future__ import annotations

import logging

import pytest


@pytest.fixture(autouse=True)
def _fail_on_error_logs(caplog: pytest.LogCaptureFixture):
    yield
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    if errors:
        pytest.fail("test logged an ERROR: " + "; ".join(r.getMessage() for r in errors))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a test marked ``cuda`` where torch sees no GPU, saying why."""
    if item.get_closest_marker("cuda") is None:
        return
    try:
        import torch
    except ImportError:
        pytest.skip("cuda: torch is not installed")
    if not torch.cuda.is_available():
        pytest.skip(f"cuda: torch {torch.__version__} sees no CUDA device")
