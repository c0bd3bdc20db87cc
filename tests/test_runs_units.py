"""A run of a metric in seconds (value_range [0, inf), unit "s", threshold
2.5) is saved and read back with its range, unit and threshold: through
``EvaluationResult.save`` and ``load_result``, the run history and
``agentmetrics report`` on the saved file (issue 51)."""

from __future__ import annotations

import math
from typing import ClassVar

import agentmetrics as am
from agentmetrics import AgentTestCase, Metric
from agentmetrics.cli import main
from agentmetrics.runs import RunStore


class Seconds(Metric):
    """Seconds the agent took, from ``latency``: lower is better."""

    name: ClassVar[str] = "seconds_taken"
    value_range: ClassVar[tuple[float, float]] = (0.0, math.inf)
    default_threshold: ClassVar[float] = 2.5
    higher_is_better: ClassVar[bool] = False
    unit: ClassVar[str | None] = "s"

    def measure(self, case):
        return case.metadata["seconds"], f"took {case.metadata['seconds']:g} s"


def _result() -> am.EvaluationResult:
    cases = [AgentTestCase(tool_calls=["A"], metadata={"id": f"c{i}", "seconds": s})
             for i, s in enumerate([0.5, 2.5, 40.0])]
    return am.evaluate(cases, Seconds(), progress=False)


def _kept(metric) -> tuple:
    return type(metric).value_range, type(metric).unit, metric.threshold


def test_a_run_in_seconds_reads_back_from_its_file_and_the_history(tmp_path):
    result = _result()
    store = RunStore(tmp_path / "runs.sqlite")
    path = result.save(tmp_path / "run.jsonl", history=store)
    for back in (am.load_result(path), store.load("last")):
        assert _kept(back["seconds_taken"].metric) == ((0.0, math.inf), "s", 2.5)
        assert back["seconds_taken"].values.tolist() == [0.5, 2.5, 40.0]
        assert back["seconds_taken"].passed.tolist() == [True, True, False]
    (spec,) = store.get("last").provenance.metrics
    assert (spec.value_range, spec.unit, spec.threshold) == ((0.0, math.inf), "s", 2.5)


def test_the_report_of_a_saved_run_in_seconds_shows_its_unit(tmp_path, capsys):
    path = _result().save(tmp_path / "run.jsonl", history=False)
    page = tmp_path / "run.html"
    assert main(["report", str(path), "-o", str(page), "--no-history"]) == 0
    html = page.read_text(encoding="utf-8")
    assert "seconds_taken (s)" in html
    capsys.readouterr()
