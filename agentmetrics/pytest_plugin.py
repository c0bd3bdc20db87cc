"""pytest integration: the ``agent_metric`` marker, the ``agent_eval`` fixture,
captured runs, a terminal summary, junitxml properties and a JSON report.

Loaded automatically through the ``pytest11`` entry point. Loading it imports
neither numpy nor any metric plugin and scans no entry points: metrics are
resolved when a marked test runs.

    @pytest.mark.agent_metric("tool_selection_accuracy", threshold=0.9)
    def test_refund(agent_eval):
        agent_eval.record_run(tool_calls=run_agent("refund order 7"),
                              expected_tool_calls=["GetOrder", "IssueRefund"])

    @pytest.mark.agent_metric("tool_selection_accuracy", capture=True)
    def test_cancel(agent_eval):
        agent("Cancel order 12345")           # a live agent: its calls are captured
        agent_eval.expect(["GetOrder", "CancelOrder"])
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Generator, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import pytest

from agentmetrics._secrets import scrub, shown_items, shown_value
from agentmetrics.errors import AgentMetricsError, CaptureError, InvalidCaseError
from agentmetrics.metric._metric import metric_labels
from agentmetrics.model._model import AgentTestCase, describe
from agentmetrics.registry import get_metric_class, resolve_metric

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.capture import Capture, Run
    from agentmetrics.metric._metric import Metric
    from agentmetrics.model._model import AgentTestCase

__all__ = ["AgentEval", "agent_eval"]

MARKER = "agent_metric"
REPORT_OPTION = "--agentmetrics-report"
BASELINE_OPTION = "--agentmetrics-baseline"
GATE_OPTION = "--agentmetrics-fail-on-regression"
HTML_OPTION = "--agentmetrics-html"
_REPORT_VERSION = 1
#: Marker keywords that configure the capture, not the metric.
_CAPTURE_KEYS = frozenset({"capture", "expected_tool_calls"})


class AgentEval:
    """The cases a test recorded; every ``agent_metric`` marker scores each one."""

    __slots__ = ("_expected", "_input", "cases", "run")

    def __init__(self) -> None:
        self.cases: list[AgentTestCase] = []
        #: The run a ``capture=True`` marker is capturing (None without one).
        self.run: Run | None = None
        self._expected: list[Any] | None = None
        self._input: Any = None

    def record(self, case: AgentTestCase) -> AgentTestCase:
        """Record one AgentTestCase and return it."""

        if not isinstance(case, AgentTestCase):
            raise InvalidCaseError(
                f"agent_eval.record expects an AgentTestCase, got {describe(case)}. Fix: "
                f"use agent_eval.record_run(tool_calls=[...], expected_tool_calls=[...])."
            )
        self.cases.append(case)
        return case

    def record_run(
        self,
        tool_calls: Iterable[Any] | None = None,
        expected_tool_calls: Iterable[Any] | None = None,
        *,
        input: Any = None,
        actual_output: Any = None,
        expected_output: Any = None,
        latency: float | None = None,
        cost: float | None = None,
        usage: Mapping[str, int] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> AgentTestCase:
        """Build an AgentTestCase from an agent run, record it and return it.

        Every field is optional: a run without tool calls
        (``record_run(input=..., actual_output=..., expected_output=...)``) is
        scored by metrics that read those fields; one that reads a field the
        run lacks reports the case as an error naming that field."""

        return self.record(
            AgentTestCase(
                input=input,
                actual_output=actual_output,
                tool_calls=tool_calls,
                expected_tool_calls=expected_tool_calls,
                metadata=metadata or {},
                expected_output=expected_output,
                latency=latency,
                cost=cost,
                usage=usage,
            )
        )

    def capture(self, expected_tool_calls: Iterable[Any] | None = None, *, input: Any = None,
                **options: Any) -> _RecordedCapture:
        """A :func:`agentmetrics.capture` whose run is recorded as a case when the
        ``with`` block ends without an error::

            with agent_eval.capture(expected_tool_calls=["GetOrder"]) as run:
                agent("Where is order 7?")

        Expected calls may also be stated after the block, with :meth:`expect`."""
        from agentmetrics.capture import capture

        return _RecordedCapture(self, capture(**options), expected_tool_calls, input)

    def expect(self, expected_tool_calls: Iterable[Any], *, input: Any = None) -> None:
        """State the calls expected of the captured runs: of the run a
        ``capture=True`` marker captures, and of every recorded case that has
        none yet."""
        import attrs

        self._expected = list(expected_tool_calls)
        if input is not None:
            self._input = input
        self.cases = [attrs.evolve(case, expected_tool_calls=self._expected)
                      if case.expected_tool_calls is None else case for case in self.cases]

    def __len__(self) -> int:
        return len(self.cases)


class _RecordedCapture:
    """``agent_eval.capture()``: a capture that records its run as a case on exit."""

    __slots__ = ("_capture", "_eval", "_expected", "_input")

    def __init__(self, recorder: AgentEval, capture: Capture, expected: Iterable[Any] | None,
                 input: Any) -> None:
        self._eval = recorder
        self._capture = capture
        self._expected = None if expected is None else list(expected)
        self._input = input

    def __enter__(self) -> Run:
        return self._capture.__enter__()

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        self._capture.__exit__(kind, error, traceback)
        if kind is None:
            self._record()

    async def __aenter__(self) -> Run:
        return self._capture.__enter__()

    async def __aexit__(self, kind: Any, error: Any, traceback: Any) -> None:
        self.__exit__(kind, error, traceback)

    def _record(self) -> None:

        case = self._capture.run.case(self._input, self._expected)
        assert isinstance(case, AgentTestCase)
        self._eval.record(case)


_RECORDER = pytest.StashKey[AgentEval]()
_EVALUATIONS = pytest.StashKey[list[dict[str, Any]]]()
_COLLECTOR = "agentmetrics-collector"


def _recorder(item: pytest.Item) -> AgentEval:
    recorder = item.stash.get(_RECORDER, None)
    if recorder is None:
        recorder = item.stash[_RECORDER] = AgentEval()
    return recorder


@pytest.fixture
def agent_eval(request: pytest.FixtureRequest) -> AgentEval:
    """Records the agent runs of this test for its ``agent_metric`` markers."""
    return _recorder(request.node)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentmetrics", "agentmetrics: scores of agent tool use")
    group.addoption(
        REPORT_OPTION,
        metavar="PATH",
        default=None,
        help="write every agent_metric evaluation (and a summary) to PATH as JSON",
    )
    group.addoption(
        BASELINE_OPTION,
        metavar="PATH",
        default=None,
        help=f"compare this session's evaluations with a report saved by {REPORT_OPTION}, "
        f"case by case (pairing on test, metric and case)",
    )
    group.addoption(
        HTML_OPTION,
        metavar="PATH",
        default=None,
        help="write one self-contained HTML report of every agent_metric evaluation to PATH",
    )
    group.addoption(
        GATE_OPTION,
        action="store_true",
        default=False,
        help=f"with {BASELINE_OPTION}: fail the session when it is significantly worse than "
        f"the baseline on a metric",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(metric, threshold=None, capture=False, expected_tool_calls=None, "
        f"**params): score every case the test records with the agent_eval fixture using "
        f"metric (a Metric class, instance or registry name); the test fails when a case "
        f"does not pass. capture=True captures the model calls the test body makes "
        f"(agentmetrics.capture) and scores them against expected_tool_calls or "
        f"agent_eval.expect([...]). Stackable.",
    )
    baseline = config.getoption(BASELINE_OPTION)
    if config.getoption(GATE_OPTION) and not baseline:
        raise pytest.UsageError(f"{GATE_OPTION} compares with a baseline; expected "
                                f"{BASELINE_OPTION} PATH as well.")
    if baseline and not os.path.isfile(baseline):
        raise pytest.UsageError(f"{BASELINE_OPTION} {baseline}: expected a report saved by "
                                f"{REPORT_OPTION}, but there is no such file.")
    if not hasattr(config, "workerinput"):  # xdist workers send their reports up
        config.pluginmanager.register(_Collector(config), _COLLECTOR)


# -- scoring a test -----------------------------------------------------------------


def _metric_of(marker: pytest.Mark) -> tuple[Metric, str]:

    kwargs = {key: value for key, value in marker.kwargs.items() if key not in _CAPTURE_KEYS}
    args = list(marker.args)
    if "metric" in kwargs:
        args.insert(0, kwargs.pop("metric"))

    keywords, hidden = shown_items(kwargs.items(), _declared_secrets(args))
    written = ", ".join([*(repr(shown_value(arg)) for arg in args), *keywords])
    usage = f"@pytest.mark.{MARKER}({written})"
    if len(args) != 1:
        pytest.fail(
            f"{usage}: expected one metric (a Metric class, instance or registry name), "
            f"e.g. @pytest.mark.{MARKER}('tool_selection_accuracy', threshold=0.9).",
            pytrace=False,
        )
    threshold = kwargs.pop("threshold", None)
    try:
        return resolve_metric(args[0], threshold, **kwargs), usage
    except AgentMetricsError as error:
        problem = scrub(str(error), hidden)
    pytest.fail(f"{usage}: {problem}", pytrace=False)  # outside except: no chained noise


def _declared_secrets(args: list[Any]) -> tuple[str, ...]:
    """The ``secret_params`` of the metric a marker names (a class, an instance
    or a registry name), if it can be told."""

    if len(args) != 1:
        return ()
    metric = args[0]
    try:
        cls = get_metric_class(metric) if isinstance(metric, str) else (
            metric if isinstance(metric, type) else type(metric))
        return tuple(getattr(cls, "secret_params", ()))
    except Exception:
        return ()


def _plain(value: Any) -> Any:
    """A JSON-safe copy of a case id."""
    return value if value is None or isinstance(value, (str, int, float, bool)) else repr(value)


def _names(calls: Any) -> list[str] | None:
    """A case's calls as the report shows them: their names (None: not given)."""
    return None if calls is None else [str(getattr(call, "name", call)) for call in calls]


def _score_item(item: pytest.Item, markers: list[pytest.Mark]) -> None:

    cases = _recorder(item).cases
    resolved = [_metric_of(marker) for marker in markers]
    if not cases:
        pytest.fail(
            f"{resolved[0][1]} is set, but the test recorded no agent run to score.\n"
            f"Record each run with the agent_eval fixture:\n"
            f"    def {item.name}(agent_eval):\n"
            f"        agent_eval.record_run(tool_calls=[...], expected_tool_calls=[...])\n"
            f"or, for a run without tool calls, agent_eval.record_run(actual_output=..., "
            f"expected_output=...), or agent_eval.record(AgentTestCase(...)).",
            pytrace=False,
        )
    metrics = [metric for metric, _ in resolved]
    labels = metric_labels(metrics)
    evaluations = []
    failed = []
    for metric, label in zip(metrics, labels):
        for index, case in enumerate(cases):
            record: dict[str, Any] = {
                "test": item.nodeid,
                "metric": label,
                "name": metric.name,
                "params": {key: _plain(value) for key, value in metric.shown_params().items()},
                "config": repr(metric),
                "case": index,
                "case_id": _plain(case.metadata.get("id")),
                "threshold": metric.threshold,
                "higher_is_better": bool(metric.higher_is_better),
                # An infinite end as null: JSON has no infinity.
                "value_range": [None if math.isinf(v) else float(v)
                                for v in type(metric).value_range],
                "unit": type(metric).unit,
                "version": str(type(metric).version),
                "tool_calls": _names(case.tool_calls),
                "expected_tool_calls": _names(case.expected_tool_calls),
            }
            try:
                score = metric.evaluate(case)
            except AgentMetricsError as error:
                record.update(value=None, passed=False, reason=None, error=str(error))
            else:
                record.update(value=score.value, passed=score.passed, reason=score.reason, error=None)
            evaluations.append(record)
            prefix = f"agentmetrics.{label}[{index}]"
            item.user_properties.append((f"{prefix}.value", _format(record["value"], 4)))
            item.user_properties.append((f"{prefix}.passed", str(record["passed"]).lower()))
            if not record["passed"]:
                failed.append(record)
    item.stash[_EVALUATIONS] = evaluations
    if failed:
        pytest.fail(_failure_report(failed, len(evaluations)), pytrace=False)


def _format(value: float | None, digits: int, unit: str | None = None) -> str:
    if value is None:
        return "error"
    return f"{value:.{digits}f}" if unit is None else f"{value:.{digits}f} {unit}"


def _failure_report(failed: list[dict[str, Any]], total: int) -> str:
    lines = [f"agent_metric: {len(failed)} of {total} evaluations did not pass"]
    rows = [("case", "metric", "value", "threshold", "reason")]
    for record in failed:
        case = str(record["case"])
        if record["case_id"] is not None:
            case += f" (id {record['case_id']!r})"
        rows.append((
            case,
            record["metric"],
            _format(record["value"], 2, record.get("unit")),
            f"{record['threshold']:g}" + (f" {record['unit']}" if record.get("unit") else ""),
            record["reason"] if record["error"] is None else f"error: {record['error']}",
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(row[:4], widths)) + "  " + row[4])
    return "\n".join(lines)


def _captured_case(item: pytest.Item, markers: list[pytest.Mark], run: Run) -> None:
    """Record the run a ``capture=True`` marker captured, with its expected calls."""

    recorder = _recorder(item)
    stated = [marker.kwargs["expected_tool_calls"] for marker in markers
              if marker.kwargs.get("expected_tool_calls") is not None]
    expected = recorder._expected if recorder._expected is not None else (
        list(stated[0]) if stated else None)
    if expected is None:
        pytest.fail(
            f"@pytest.mark.{MARKER}(..., capture=True) captured the test's agent run, but "
            f"no expected calls were stated. Fix: call agent_eval.expect([...]) in the test "
            f"(the agent_eval fixture), or pass expected_tool_calls=[...] to the marker.",
            pytrace=False)
    try:
        case = run.case(recorder._input, expected)
    except CaptureError as error:
        problem = str(error)
    else:
        recorder.record(case)  # type: ignore[arg-type]
        return
    pytest.fail(f"@pytest.mark.{MARKER}(..., capture=True): {problem}", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    # iter_markers gives the decorator nearest the function first; report in
    # the order they are written, top to bottom.
    markers = list(item.iter_markers(MARKER))[::-1]
    captured = [marker for marker in markers if marker.kwargs.get("capture")]
    if not captured:
        outcome = yield  # the test body; its own failure propagates unscored
    else:
        from agentmetrics.capture import capture

        recorder = _recorder(item)
        with capture() as run:
            recorder.run = run
            outcome = yield
        _captured_case(item, captured, run)
    if markers:
        _score_item(item, markers)
    return outcome


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    evaluations = item.stash.get(_EVALUATIONS, None)
    if call.when == "call" and evaluations:
        # A plain attribute: pytest-xdist carries it from worker to controller.
        report.agentmetrics = evaluations  # type: ignore[attr-defined]
    return report


# -- the session's view: summary and report ------------------------------------------


def _session_label(record: dict[str, Any], configs: list[dict[str, Any]]) -> str:
    """The registry name, plus the parameters in which the session's
    configurations of that metric differ."""
    twins = [other["params"] for other in configs if other["name"] == record["name"]]
    params = record["params"]
    differing = [k for k in params if any(twin.get(k) != params[k] for twin in twins)]
    if not differing:
        return str(record["name"])
    return f"{record['name']}({', '.join(f'{k}={params[k]!r}' for k in differing)})"


class _Collector:
    """Gathers evaluations from every report (its own, or xdist workers')."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.evaluations: list[dict[str, Any]] = []
        self.comparison: Any = None  # a Comparison, or the message saying why there is none

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        evaluations = getattr(report, "agentmetrics", None)
        if report.when == "call" and evaluations:
            self.evaluations.extend(evaluations)

    def summary(self) -> list[dict[str, Any]]:
        groups: dict[str, list[dict[str, Any]]] = {}
        for record in self.evaluations:
            groups.setdefault(record["config"], []).append(record)
        configs = [group[0] for group in groups.values()]
        rows = []
        for config, group in groups.items():
            scored = [r["value"] for r in group if r["value"] is not None]
            passed = sum(r["passed"] for r in group)
            failing = sorted({r["test"] for r in group if not r["passed"]})
            rows.append({
                "metric": _session_label(group[0], configs),
                "config": config,
                "cases": len(group),
                "mean": sum(scored) / len(scored) if scored else None,
                "pass_rate": passed / len(group),
                "errors": sum(r["error"] is not None for r in group),
                "failing_tests": failing,
            })
        return rows

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.evaluations and self.comparison is None:
            return
        terminalreporter.section("agentmetrics")
        lines = [("metric", "cases", "mean", "pass rate", "failing tests")]
        for row in self.summary():
            failing = row["failing_tests"]
            shown = ", ".join(failing[:3]) + (f" (+{len(failing) - 3} more)" if len(failing) > 3 else "")
            lines.append((
                row["metric"],
                str(row["cases"]),
                "-" if row["mean"] is None else f"{row['mean']:.2f}",
                f"{row['pass_rate']:.1%}",
                shown or "-",
            ))
        widths = [max(len(line[i]) for line in lines) for i in range(4)]
        for line in lines:
            cells = [line[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(line[1:4], widths[1:])]
            terminalreporter.write_line("  ".join(cells) + "  " + line[4])
        path = self.config.getoption(REPORT_OPTION)
        if path:
            terminalreporter.write_line(f"evaluations written to {path}")
        if isinstance(self.comparison, str):
            terminalreporter.write_line(f"agentmetrics: cannot compare with the baseline: "
                                        f"{self.comparison}", red=True)
        elif self.comparison is not None:
            terminalreporter.write_line("")
            for line in self.comparison.report().splitlines():
                terminalreporter.write_line(line)
            worse = self.comparison.significantly_worse
            if worse and self.config.getoption(GATE_OPTION):
                terminalreporter.write_line(
                    f"FAILED: significantly worse than the baseline on {', '.join(worse)} "
                    f"({GATE_OPTION})", red=True)

    def _compare(self, session: pytest.Session) -> None:
        from agentmetrics.io._compare import compare
        from agentmetrics.io._sides import read_side, side_from_evaluations

        path = self.config.getoption(BASELINE_OPTION)
        gate = self.config.getoption(GATE_OPTION)
        try:
            baseline = read_side(path, None)
            current = side_from_evaluations(self.evaluations, "this session")
            if not current.metrics:
                raise AgentMetricsError("this session recorded no agent_metric evaluation.")
            self.comparison = compare(baseline, current, on=None)
        except AgentMetricsError as error:
            self.comparison = str(error)
            if gate and session.exitstatus == 0:  # a gate that cannot judge does not pass
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
            return
        if gate and self.comparison.significantly_worse and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _write_html(self, path: str) -> None:
        from agentmetrics.report._page import write_page
        from agentmetrics.report._result import parts_html, session_headline

        parts = session_results(self.evaluations)
        outcomes: dict[str, bool] = {}
        for record in self.evaluations:  # a test passes when every evaluation of it passed
            outcomes[record["test"]] = outcomes.get(record["test"], True) and bool(
                record["passed"])
        tests = len(outcomes)
        subtitle = (f"{len(self.evaluations):,} evaluations in {tests:,} test"
                    f"{'s' if tests != 1 else ''}")
        write_page(path, parts_html(parts, title="agentmetrics: pytest session",
                                    subtitle=subtitle,
                                    headline=session_headline(sorted(outcomes.items()))))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.config.getoption(BASELINE_OPTION):
            self._compare(session)
        html_path = self.config.getoption(HTML_OPTION)
        if html_path:
            self._write_html(html_path)
        path = self.config.getoption(REPORT_OPTION)
        if not path:
            return
        document = {
            "agentmetrics_report": _REPORT_VERSION,
            "summary": self.summary(),
            "evaluations": sorted(self.evaluations, key=lambda r: (r["test"], r["metric"], r["case"])),
        }
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=2)
            handle.write("\n")


def _range_in(value_range: Any) -> tuple[float, float]:
    """A record's ``value_range``, a null end infinite."""
    low, high = value_range
    return (-math.inf if low is None else float(low), math.inf if high is None else float(high))


def session_results(evaluations: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """A session's evaluations as EvaluationResults, one per metric
    configuration, its cases the tests' recorded runs (keyed ``(test, case)``),
    in test order. Their metrics are the saved form of each configuration."""
    import numpy as np

    from agentmetrics.cases._tool_call_batch import ToolCallBatch
    from agentmetrics.model._metric_result import MetricResult
    from agentmetrics.results._results import EvaluationResult
    from agentmetrics.runs._provenance import MetricSpec
    from agentmetrics.runs._saved_metric import saved_metric

    groups: dict[str, list[dict[str, Any]]] = {}
    for record in sorted(evaluations, key=lambda r: (r["test"], r["case"])):
        groups.setdefault(record["config"], []).append(record)
    configs = [group[0] for group in groups.values()]
    parts = []
    for group in groups.values():
        first = group[0]
        label = _session_label(first, configs)
        spec = MetricSpec(label=label, name=first["name"], version=first.get("version", "1"),
                          source="", params=first["params"], threshold=first["threshold"],
                          higher_is_better=first["higher_is_better"],
                          value_range=_range_in(first.get("value_range", (0.0, 1.0))))
        batch = ToolCallBatch.from_columns(
            tool_calls=[r.get("tool_calls") for r in group],
            expected_tool_calls=[r.get("expected_tool_calls") for r in group],
            ids=[(r["test"], r["case"]) for r in group], errors="record")
        values = np.array([np.nan if r["value"] is None else r["value"] for r in group],
                          dtype=np.float64)
        passed = np.array([bool(r["passed"]) for r in group], dtype=bool)
        errors = {row: r["error"] for row, r in enumerate(group) if r["error"] is not None}
        reasons = [r["reason"] or "" for r in group]
        scores = MetricResult(saved_metric(spec), values, passed, errors, reasons.__getitem__)
        parts.append((label, EvaluationResult(batch, {label: scores}, {label: spec.source})))
    return parts
