"""Test metrics that score each case with its ``metadata["score"]``, over the whole
of [0, 1] or a narrower declared ``value_range``: for the interval-clipping tests
of test_statistics.py and test_compare.py."""

from __future__ import annotations

from typing import ClassVar

import agentmetrics as am


class GivenScore(am.Metric):
    """Scores each case with its ``metadata["score"]``: any values, for the properties."""

    name: ClassVar[str] = "given_score"

    def measure(self, case):
        return case.metadata["score"], "given"


class HalfScore(GivenScore):
    """A metric whose scores cannot exceed one half."""

    name: ClassVar[str] = "half_score"
    value_range: ClassVar[tuple[float, float]] = (0.0, 0.5)


class MiddleScore(GivenScore):
    name: ClassVar[str] = "middle_score"
    value_range: ClassVar[tuple[float, float]] = (0.25, 0.75)
