"""The seeded records of calls with arguments that bench_peers.py and
bench_decoder.py both score: 0 to 6 expected calls of 8 names, each with
arguments (many equal as Python values but written differently: 1 and 1.0)
and half with an output, and the calls made near misses of them (shuffled,
one replaced or inserted). Standard library only: bench_peers.py runs in the
peers' environment."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

__all__ = ["ARGUMENTS", "peer_records"]

ARGUMENTS: list[dict[str, Any]] = [
    {}, {"x": 1}, {"x": 1.0}, {"x": 2}, {"x": "1"}, {"x": 1, "y": 2}, {"y": {"u": 1, "v": 2}},
    {"y": {"u": 1, "v": 3}}, {"x": [1, 2]}, {"q": "refund policy"}, {"q": "refund policy", "limit": 5},
]


def peer_records(n: int, seed: int = 17) -> Iterator[dict[str, Any]]:
    """``n`` records ``{"called": [...], "expected": [...]}``, one at a time
    (a file of 10M lines is written without holding them)."""
    rng = random.Random(seed)

    def call() -> dict[str, Any]:
        item = {"name": rng.choice("abcdefgh"), "arguments": rng.choice(ARGUMENTS)}
        if rng.random() < 0.5:
            item["output"] = rng.choice(["ok", 1, {"r": 1}])
        return item

    for _ in range(n):
        expected = [call() for _ in range(rng.randint(0, 6))]
        called = [dict(c) for c in expected]
        if rng.random() < 0.3:
            rng.shuffle(called)
        for _ in range(rng.randint(0, 2)):
            if called and rng.random() < 0.5:
                called[rng.randrange(len(called))] = call()
            else:
                called.insert(rng.randint(0, len(called)), call())
        yield {"called": called, "expected": expected}
