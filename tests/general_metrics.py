"""Four metrics written as a metric author writes them first (issue 51), for the
end-to-end tests of every path: a latency budget in seconds, an answer match on
expected_output, a numpy batch metric, and a weighted blend of them by name."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from agentmetrics import Metric
from agentmetrics.corpus import Maximum, Quantile


class LatencyBudget(Metric):
    """Seconds the agent took; a case passes within 2.5 s."""

    name = "author_latency"
    description = "Seconds the agent took."
    inputs = ("latency",)
    value_range = (0.0, math.inf)
    unit = "s"
    higher_is_better = False
    default_threshold = 2.5
    aggregates: ClassVar = {"p50": Quantile(0.5), "p95": Quantile(0.95), "max": Maximum()}

    def measure(self, case):
        return case.latency, f"took {case.latency:g} s"


class AnswerIs(Metric):
    """The answer equals the reference answer."""

    name = "author_answer"
    description = "The agent's answer equals the reference."
    inputs = ("actual_output", "expected_output")
    default_threshold = 1.0

    def measure(self, case):
        same = case.actual_output == case.expected_output
        return float(same), "the reference" if same else f"not {case.expected_output!r}"


class AnswerLength(Metric):
    """How much of a 40-character budget the answer leaves: numpy over the batch."""

    name = "author_brevity"
    description = "Share of a 40-character budget the answer leaves unused."
    inputs = ("actual_output",)

    def measure(self, case):
        return max(0.0, 1.0 - len(str(case.actual_output)) / 40), "measured"

    def evaluate_batch(self, batch, *, errors="raise"):
        from agentmetrics.model._metric_result import MetricResult, batch_errors, passes

        failed = batch_errors(self, batch, errors)
        lengths = np.fromiter((len(str(text)) for text in batch.field("actual_output")),
                              dtype=np.float64, count=len(batch))
        values = np.maximum(0.0, 1.0 - lengths / 40)
        values[list(failed)] = np.nan
        return MetricResult(self, values, passes(self, values), failed, lambda row: "measured")


BLEND = [("author_answer", 0.6), ("author_latency", 0.2), ("author_brevity", 0.2)]
AUTHORS = (LatencyBudget, AnswerIs, AnswerLength)
NAMES = ["author_latency", "author_answer", "author_brevity"]


def rows(n: int = 40, seed: int = 0) -> list[dict]:
    """Records of answers, references and latencies, one without a latency."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        answer = str(rng.choice(["Paris", "Lyon", "Paris, France", "I do not know"]))
        record = {"id": f"case-{i}", "input": f"capital question {i}", "actual_output": answer,
                  "expected_output": "Paris", "latency": round(float(rng.exponential(2.0)), 3)}
        out.append(record)
    del out[7]["latency"]
    return out
