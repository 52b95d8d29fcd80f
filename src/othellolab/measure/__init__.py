"""Measuring a trained network on positions it never saw: ``model`` (``measure_model``:
move prediction by game phase, value calibration, behaviour around passes) and ``report``
(the write-up with plots behind ``othellolab evaluate model``). The held-out positions come
from ``datasets.heldout``.
"""
