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


# -- the checks one by one (metric_checks), as a metric author parametrizes them --

from agentmetrics.testing import CHECK_NAMES, MetricCheck, metric_checks  # noqa: E402


@pytest.mark.parametrize("check", metric_checks(ToolSelectionAccuracy, {"order_matters": True}), ids=str)
def test_each_check_of_the_builtin_is_its_own_test(check):
    assert isinstance(check, MetricCheck) and check.name in CHECK_NAMES
    check()


def test_checks_come_in_check_metric_order_with_readable_ids():
    checks = metric_checks(Good)
    assert tuple(check.name for check in checks) == CHECK_NAMES
    assert [str(check) for check in checks][:2] == ["Good-is_a_metric", "Good-metadata"]
    assert all(check.description for check in checks)
    assert [c.name for c in metric_checks(Good, only=("pickle", "repr"))] == ["pickle", "repr"]
    with pytest.raises(Exception, match=r"unknown checks \['pickles'\]"):
        metric_checks(Good, only=("pickles",))


@pytest.mark.parametrize(
    ("overrides", "failing"),
    [
        ({"description": ""}, "metadata"),
        ({"evaluate_batch": wrong_batch}, "batch_equals_scalar"),
        ({"__init__": unpicklable_init, "__reduce__": lambda self: object.__reduce__(self)}, "pickle"),
        ({"__repr__": lambda self: "<Broken>"}, "repr"),
    ],
)
def test_a_broken_metric_fails_exactly_the_check_it_breaks(overrides, failing, monkeypatch):
    import sys

    cls = broken(**overrides)
    cls.__module__ = __name__
    monkeypatch.setattr(sys.modules[__name__], "Broken", cls, raising=False)  # picklable by name
    failed = []
    for check in metric_checks(cls):
        try:
            check()
        except MetricConformanceError:
            failed.append(check.name)
    assert failed == [failing]
