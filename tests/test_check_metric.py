"""check_metric, the conformance kit: passes good metrics, names what breaks bad ones."""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrics import Metric, ToolSelectionAccuracy
from agentmetrics.testing import MetricConformanceError, check_metric


class Good(Metric):
    name = "good_metric"
    required_fields = ("tool_calls",)
    description = "Share of at most four calls."

    def measure(self, case):
        return min(len(case.tool_calls), 4) / 4, f"{len(case.tool_calls)} calls"


def test_builtin_passes_in_both_modes():
    check_metric(ToolSelectionAccuracy)
    check_metric(ToolSelectionAccuracy, {"order_matters": True, "threshold": 0.5})


def test_a_plain_metric_passes_with_the_default_batch_loop():
    check_metric(Good)


def broken(**overrides):
    return type("Broken", (Good,), overrides)


def wrong_batch(self, batch, *, errors="raise"):
    result = Good.evaluate_batch(self, batch, errors=errors)
    values = result.values.copy()
    values[3] = np.nextafter(values[3], 2.0)  # one ulp off: still wrong
    return type(result)(self, values, result.passed, result.errors, result.explain)


def unpicklable_init(self, threshold=None):
    super(type(self), self).__init__(threshold)
    self.hook = lambda: None


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"name": "Bad Name"}, "name: expected a str matching"),
        ({"description": ""}, "description: expected one non-empty line"),
        ({"required_fields": ("tools",)}, "required_fields: expected a tuple of AgentTestCase fields"),
        ({"higher_is_better": 1}, "higher_is_better: expected a bool"),
        ({"evaluate_batch": wrong_batch}, "evaluate_batch: case 3: batch gave"),
        ({"measure": lambda self, case: (0.5, "")},
         "score: case 0: metric bug in Broken: evaluate returned reason ''; expected a non-empty str"),
    ],
)
def test_each_broken_contract_is_named(overrides, message):
    with pytest.raises(MetricConformanceError, match=rf"^check_metric\(Broken\): {message}"):
        check_metric(broken(**overrides))


def test_not_a_metric():
    with pytest.raises(MetricConformanceError, match="is a Metric: expected a subclass"):
        check_metric(dict)  # type: ignore[arg-type]


def test_unpicklable_metric_is_named():
    class Hooked(Good):
        name = "hooked"

        def __init__(self, threshold=None):
            super().__init__(threshold)
            self._hook = lambda: None

        def __reduce__(self):
            return object.__reduce__(self)

    with pytest.raises(MetricConformanceError, match="pickle: .* does not survive pickling"):
        check_metric(Hooked)


def test_construction_errors_are_named():
    with pytest.raises(MetricConformanceError, match=r"construction: Good\(\*\*\{'cap': 3\}\) raised"):
        check_metric(Good, {"cap": 3})


class BadRepr(Good):
    name = "bad_repr"

    def __repr__(self):
        return "<BadRepr>"


def test_unreadable_repr_is_named():
    with pytest.raises(MetricConformanceError, match=r"repr: expected a readable BadRepr\(\.\.\.\), got '<BadRepr>'"):
        check_metric(BadRepr)
