"""Training: game records and datasets -> trained models, as stages with files between them.

``rundir`` (a run's directory: frozen config, checkpoints, ``metrics.jsonl``) and ``loop`` (the
trainer loop: steps, validation, checkpoints, early stopping, exports) serve every trainer;
``supervised`` plugs a policy/value network into them, fed by ``data`` (position sources:
WTHOR years in memory, or a built dataset). ``heldout``, ``measure`` and ``report`` measure a
trained model on held-out positions and write the report behind ``othellolab evaluate model``.
``patterns`` fits the pattern evaluation; ``rl`` holds the tabular reinforcement learners.
"""
