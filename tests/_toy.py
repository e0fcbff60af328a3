"""A toy experiment whose compute calls are counted, for the cache and sweep tests
(in-process, jobs=1): each unit returns a number, an array and a string from its seed."""

from __future__ import annotations

import numpy as np

from companion.core.experiment import Experiment


class Counter:
    def __init__(self, fail_after: int | None = None):
        self.calls = 0
        self.fail_after = fail_after

    def __call__(self, x, name, seed):
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise KeyboardInterrupt("simulated interruption")
        self.calls += 1
        rng = np.random.default_rng(seed)
        return {"value": x * 10 + seed + rng.random(), "vec": np.arange(3) * seed,
                "label": name}


def toy(unit, n_points=3, n_seeds=2):
    return Experiment(id="T", title="toy", unit=unit, sizes={"small": {}},
                      grid=lambda z: [({"x": x, "name": f"p{x}"}, s)
                                      for x in range(n_points) for s in range(n_seeds)])


def values(runs):
    return [float(r["value"]) for r in runs]

