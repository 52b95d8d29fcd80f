"""One process of a distributed supervised run, for ``test_distributed.py``: reads a config
(JSON), trains, and writes how it ended to ``<out>-<rank>.json`` (``python ddp_worker.py
CONFIG OUT [KILL_RANK KILL_STEP]``; the rank with ``KILL_RANK`` dies at step ``KILL_STEP``)."""

from __future__ import annotations

import json
import os
import sys


def main(config: str, out: str, kill_rank: int = -1, kill_step: int = 0) -> int:
    from othellolab.training.config import SupervisedConfig
    from othellolab.training.supervised import train_supervised

    rank = int(os.environ["RANK"])

    def on_step(step: int) -> None:
        if rank == kill_rank and step == kill_step:
            os._exit(3)  # a crash: no cleanup, no goodbye to the process group

    with open(config) as f:
        cfg = SupervisedConfig.from_dict(json.load(f))
    try:
        result = train_supervised(cfg, progress=False, on_step=on_step)
    except Exception as e:  # the test reads what each rank raised
        report = {"error": type(e).__name__, "message": str(e)}
        code = 2
    else:
        report = {"steps": result.steps, "samples": result.samples, "metrics": result.metrics}
        code = 0
    with open(f"{out}-{rank}.json", "w") as f:
        json.dump(report, f)
    return code


if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(main(args[0], args[1], *(int(a) for a in args[2:])))
