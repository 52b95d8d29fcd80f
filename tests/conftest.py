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
