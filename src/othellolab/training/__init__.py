"""Training networks: game records and datasets -> trained models, as stages with files
between them.

``rundir`` (a run's directory: frozen config, checkpoints, ``metrics.jsonl``) and ``loop`` (the
trainer loop: steps, validation, checkpoints, early stopping, exports) serve every trainer;
``supervised`` plugs a policy/value network into them, fed by ``datasets.feeds`` (position
sources: WTHOR years in memory, or a built dataset); ``selfplay`` is the AlphaZero loop. The
engine's fitting, the measurement of a model and tabular RL are packages of their own
(``fitting``, ``measure``, ``rl``).
"""
