"""HTML reports: what the page says, read back from its markup with an
independent parser; that it is self-contained; that secrets stay out; the CLI.
(Rendered in a real browser by tests/test_report_browser.py.)"""

from __future__ import annotations

import html.parser
import json
import math
import os
import re
import stat

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentmetrics
from agentmetrics import AgentTestCase, Metric, ToolSelectionAccuracy
from agentmetrics.results._repeated import default_ks
from agentmetrics.cli import main
from agentmetrics.report._sequences import ALIGNED, MAX_SHOWN, side_by_side
from conftest import empty_result

SECRET = "sk-test-SECRET1234567890"
URL_SECRET = "pw-URLSECRET-42"


class Page(html.parser.HTMLParser):
    """The parts of a report a test reads: every table by id (header and rows
    of cell texts), every element's text by id, and every URL-bearing
    attribute."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[str]]] = {}
        self.sections: list[str] = []
        self.urls: list[str] = []
        self.styles: list[str] = []
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._in_style = False
        self._in_header = False
        self.header: list[str] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for name in ("src", "href", "srcset", "action", "poster", "data", "xlink:href"):
            if attributes.get(name):
                self.urls.append(attributes[name])
        if attributes.get("style"):
            self.styles.append(attributes["style"])
        if tag == "section":
            self.sections.append(attributes.get("id", ""))
        elif tag == "table":
            self._table = attributes.get("id") or f"table{len(self.tables)}"
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "style":
            self._in_style = True
        elif tag == "header":
            self._in_header = True

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        elif tag == "style":
            self._in_style = False
        elif tag == "header":
            self._in_header = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._in_style:
            self.styles.append(data)
        if self._in_header:
            self.header.append(data)
        self.text.append(data)

    @property
    def headline(self) -> str:
        """The text at the top of the page: title, subtitle and any warning."""
        return " ".join(" ".join(self.header).split())

    def column(self, table: str, name: str) -> list[str]:
        head, *rows = self.tables[table]
        index = head.index(name)
        return [row[index] for row in rows]

    @property
    def all_text(self) -> str:
        return " ".join(" ".join(self.text).split())


def external(page: Page) -> list[str]:
    """Every URL the page would fetch: attributes, CSS url() and @import."""
    found = [u for u in page.urls if not u.startswith(("#", "data:"))]
    for style in page.styles:
        found += re.findall(r"url\(\s*['\"]?([^'\")]+)", style)
        found += re.findall(r"@import\s+['\"]?([^'\";\s]+)", style)
    return [u for u in found if not u.startswith(("#", "data:"))]


def _cases(n: int, seed: int = 0) -> list[AgentTestCase]:
    rng = np.random.default_rng(seed)
    tools = ["GetOrder", "CancelOrder", "IssueRefund", "Search", "Lookup"]
    cases = []
    for i in range(n):
        expected = list(rng.choice(tools, size=int(rng.integers(1, 4)), replace=False))
        called = [t for t in expected if rng.random() < 0.7] + (
            ["Search"] if rng.random() < 0.3 else [])
        cases.append(AgentTestCase(tool_calls=called, expected_tool_calls=expected,
                                   metadata={"id": f"case-{i}", "task_id": i // 3}))
    return cases


@pytest.fixture
def result():
    cases = _cases(60)
    cases.append(AgentTestCase(tool_calls=None, expected_tool_calls=["GetOrder"],
                               metadata={"id": "no-calls", "task_id": 99}))
    return agentmetrics.evaluate(cases, [ToolSelectionAccuracy(threshold=0.8),
                                         "tool_call_f1"], errors="record", progress=False)


def _summary_tables(text: str) -> list[str]:
    """The page's summary tables, by their class."""
    return re.findall(r'<table class="sortable summary"[^>]*>', text)


def _mean_cells(summary) -> list[str]:
    return [f"{mean:.3f} [{low:.3f}, {high:.3f}]"
            for mean, low, high in zip(summary["mean"], summary["mean_low"], summary["mean_high"])]


def test_the_summary_numbers_are_the_summary_tables(result):
    # Cases share tasks: the one summary table has the cluster-robust intervals, and says so.
    text = result.to_html()
    page = Page(text)
    clustered = result.summary(cluster="task_id")
    assert len(_summary_tables(text)) == 1 and "clustered-summary-table" not in page.tables
    assert page.column("summary-table", "metric") == list(clustered["metric"])
    assert page.column("summary-table", "mean [mean_low, mean_high]") == _mean_cells(clustered)
    assert page.column("summary-table", "errors") == [str(e) for e in clustered["errors"]]
    assert f"<caption>{clustered.title}</caption>" in text
    assert (f"The intervals are cluster-robust over {clustered.clusters} tasks (task_id)"
            in page.all_text)
    # Without clustering: the same one table, with the plain intervals, and no such line.
    text = result.to_html(cluster=None)
    page = Page(text)
    plain = result.summary()
    assert len(_summary_tables(text)) == 1
    assert page.column("summary-table", "mean [mean_low, mean_high]") == _mean_cells(plain)
    assert f"<caption>{plain.title}</caption>" in text
    assert "cluster-robust" not in page.all_text


def test_failing_cases_come_worst_first_with_both_sequences(result):
    limit = 7
    page = Page(result.to_html(limit=limit))
    for index, label in enumerate(result.metrics):
        scores = result[label]
        # Reference: every failing scored row, by value then position.
        failing = [(float(scores.values[r]), r) for r in range(len(result))
                   if not scores.passed[r] and not math.isnan(scores.values[r])]
        failing.sort()
        rows = page.tables[f"failures-{index}"][1:]
        assert [row[0].split()[0] for row in rows] == [str(r) for _, r in failing[:limit]]
        assert [row[1] for row in rows] == [f"{v:.3f}" for v, _ in failing[:limit]]
        first = failing[0][1]
        assert rows[0][2] == scores.reason(first)
        called = result.batch.called_names(first) or ()
        expected = result.batch.expected_names(first) or ()
        for name in set(called) | set(expected):
            assert name in rows[0][3]
        assert f"{len(failing) - limit:,} more failing cases not shown" in page.all_text


def test_the_error_rows_and_the_per_tool_table(result):
    page = Page(result.to_html())
    errors = [row for key, rows in page.tables.items() if key.startswith("errors-")
              for row in rows[1:]]
    assert len(errors) == sum(len(result[label].errors) for label in result.metrics)
    assert all(row[0].startswith("60") for row in errors)
    tools = result.per_tool()
    assert page.column("per-tool-table", "tool") == list(tools["tool"])
    assert page.column("per-tool-table", "missed") == [str(m) for m in tools["missed"]]


def test_the_page_is_self_contained_and_carries_its_provenance(result, tmp_path):
    path = result.to_html(tmp_path / "report.html")
    text = path.read_text(encoding="utf-8")
    page = Page(text)
    assert external(page) == []
    assert "<link" not in text and "<img" not in text
    assert not re.search(r"https?://", text.replace("http://www.w3.org", ""))
    provenance = result.provenance
    assert provenance.fingerprint in page.all_text
    assert agentmetrics.__version__ in page.all_text
    assert page.column("provenance-metrics", "label") == list(result.metrics)
    assert {"summary", "histograms", "per-tool", "failures", "errors", "trials",
            "provenance"} <= set(page.sections)


def test_the_external_url_check_can_fail():
    page = Page('<img src="http://x.example/a.png"><style>@import "https://cdn/x.css";'
                'a{background:url(//t.example/p)}</style><a href="#top">top</a>')
    assert sorted(external(page)) == ["//t.example/p", "http://x.example/a.png", "https://cdn/x.css"]


def test_empty_all_errors_one_metric_and_trials():
    empty = empty_result([ToolSelectionAccuracy()])
    page = Page(empty.to_html())
    assert "No cases were scored: this run has 0 cases" in page.headline
    assert page.column("summary-table", "n") == ["0"]

    broken = [AgentTestCase(tool_calls=["a"], expected_tool_calls=None) for _ in range(3)]
    errors = agentmetrics.evaluate(broken, [ToolSelectionAccuracy()], errors="record",
                                   progress=False)
    page = Page(errors.to_html())
    assert page.column("summary-table", "errors") == ["3"]
    assert len(page.tables["errors-0"]) == 4
    assert "No case could be scored" in page.headline
    assert "No case was scored, so none passed or failed." in page.all_text
    assert "Every scored case passed." not in page.all_text

    trials = [AgentTestCase(tool_calls=["a"] if (i % 3) else ["b"], expected_tool_calls=["a"],
                            metadata={"task_id": i // 3}) for i in range(12)]
    result = agentmetrics.evaluate(trials, [ToolSelectionAccuracy()], progress=False)
    page = Page(result.to_html())
    summary = result.trials("task_id").summary()
    assert page.column("trials-0", "pass@k [interval]")[1].startswith(
        f"{summary['pass@k'][1]:.3f}")
    assert page.column("trials-0", "pass^k [interval]")[2].startswith(
        f"{summary['pass^k'][2]:.3f}")
    none = Page(result.to_html(trials=None, cluster=None))
    assert "trials" not in none.sections and "clustered-summary-table" not in none.tables


def test_a_comparison_lists_regressions_first_with_both_reasons():
    base_cases = _cases(40, seed=1)
    worse = [AgentTestCase(tool_calls=(c.tool_calls or [])[:1], expected_tool_calls=c.expected_tool_calls,
                           metadata=c.metadata) for c in base_cases]
    metric = ToolSelectionAccuracy(threshold=0.8)
    baseline = agentmetrics.evaluate(base_cases, [metric], progress=False)
    candidate = agentmetrics.evaluate(worse, [metric], progress=False)
    comparison = agentmetrics.compare(baseline, candidate)
    page = Page(comparison.to_html(limit=5))
    m = comparison["tool_selection_accuracy"]
    row = page.tables["comparison-table"][1]
    head = page.tables["comparison-table"][0]
    assert row[head.index("difference [interval]")] == (
        f"{m.difference.mean:+.3f} [{m.difference.low:+.3f}, {m.difference.high:+.3f}]")
    assert row[head.index("flips + / \u2212")] == (
        f"+{m.newly_passing} / \u2212{m.newly_failing}")
    assert row[head.index("verdict")] == m.verdict
    assert head.index("verdict") == 1  # the verdict first, in sight at any width
    assert row[head.index("mean")] == f"{m.baseline_mean:.3f} \u2192 {m.candidate_mean:.3f}"
    assert row[head.index("cases \u2191 \u2193 =")] == (
        f"{m.improved}\u2191 {m.regressed}\u2193 {m.unchanged}=")
    regressions = comparison.regressions(limit=5)
    shown = page.tables["regressions-table"][1:]
    assert [r[0] for r in shown] == [str(k) for k in regressions["key"]]
    assert [r[6] for r in shown] == list(regressions["baseline_reason"])
    assert [r[7] for r in shown] == list(regressions["candidate_reason"])
    assert page.sections.index("regressions") < page.sections.index("improvements")
    assert "provenance-baseline" in page.sections and external(page) == []


class Keyed(Metric):
    name = "keyed_report"
    required_fields = ("tool_calls",)
    secret_params = ("api_key",)

    def __init__(self, threshold=None, api_key=None,
                 base_url=f"https://user:{URL_SECRET}@judge.example/v1?key={URL_SECRET}"):
        super().__init__(threshold)
        self.api_key = api_key
        self.base_url = base_url

    def measure(self, case):
        if case.metadata.get("fail"):
            raise ValueError(f"could not reach {self.base_url} with key {self.api_key}")
        return 0.0, "no"


def test_secrets_appear_nowhere_in_a_report():
    # The metric's secrets in its errors, and in the cases' input and outputs,
    # which the failing and error cases show under their reasons.
    cases = [AgentTestCase(tool_calls=["a"], expected_tool_calls=["a"], metadata={"fail": i == 0},
                           input=f"use key {SECRET}", actual_output={"echo": URL_SECRET},
                           expected_output=[f"https://u:{URL_SECRET}@x.example"])
             for i in range(3)]
    result = agentmetrics.evaluate(cases, [Keyed(api_key=SECRET)], errors="record",
                                   progress=False)
    text = result.to_html()
    comparison = agentmetrics.compare(result, result, on=None).to_html()
    for page in (text, comparison):
        assert SECRET not in page and URL_SECRET not in page
    assert "***" in text and "judge.example" in text  # the masked forms are there
    assert "use key ***" in text and "case-detail" in text  # the inputs shown, scrubbed


def test_a_limit_must_be_a_count(result):
    with pytest.raises(agentmetrics.InvalidParameterError, match="limit"):
        result.to_html(limit=-1)


def test_a_large_run_stays_small(tmp_path):
    n = 100_000
    rng = np.random.default_rng(3)
    names = [f"tool_{i}" for i in range(40)]
    called = [list(rng.choice(names, size=3)) for _ in range(n)]
    expected = [list(rng.choice(names, size=3)) for _ in range(n)]
    batch = agentmetrics.ToolCallBatch.from_columns(tool_calls=called, expected_tool_calls=expected,
                                                    ids=[f"id-{i}" for i in range(n)])
    result = agentmetrics.evaluate(batch, [ToolSelectionAccuracy(), "tool_call_f1"],
                                   progress=False)
    path = result.to_html(tmp_path / "big.html")
    size = path.stat().st_size
    assert size < 5_000_000, size
    page = Page(path.read_text(encoding="utf-8"))
    assert len(page.tables["failures-0"]) == 101
    assert page.column("summary-table", "n") == ["100,000", "100,000"]


# -- the command ----------------------------------------------------------------------


def _write_cases(path, cases):
    with open(path, "w", encoding="utf-8") as out:
        for case in cases:
            out.write(json.dumps({"tool_calls": case.tool_calls and [c.name for c in case.tool_calls],
                                  "expected_tool_calls": [c.name for c in case.expected_tool_calls],
                                  "metadata": case.metadata}) + "\n")


def test_the_command_writes_a_report_of_a_cases_file(tmp_path, capsys):
    cases_path = tmp_path / "cases.jsonl"
    _write_cases(cases_path, _cases(20))
    out = tmp_path / "out.html"
    assert main(["report", str(cases_path), "-o", str(out), "--metric",
                 "tool_selection_accuracy:threshold=0.9", "--no-history"]) == 0
    assert f"report written to {out}" in capsys.readouterr().out
    page = Page(out.read_text(encoding="utf-8"))
    assert page.column("summary-table", "metric") == ["tool_selection_accuracy"]
    assert page.column("summary-table", "threshold") == ["0.900"]


def test_the_command_compares_two_cases_files(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write_cases(a, _cases(20, seed=1))
    _write_cases(b, _cases(20, seed=2))
    out = tmp_path / "cmp.html"
    assert main(["report", "--compare", str(a), str(b), "-o", str(out)]) == 0
    page = Page(out.read_text(encoding="utf-8"))
    assert page.tables["comparison-table"][1][0] == "tool_selection_accuracy"


def test_the_command_refuses_bad_input_without_a_traceback(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    assert main(["report", str(bad), "-o", str(tmp_path / "x.html"), "--errors", "raise"]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:1" in err and "Traceback" not in err
    assert main(["report", "--compare", str(bad), "-o", str(tmp_path / "x.html")]) == 2
    assert "expected two runs" in capsys.readouterr().err


def test_reasons_of_a_result_with_error_rows_come_in_bulk(result):
    # tool_call_f1 explains its cases in bulk; the unscored row's reason is its error.
    scores = result["tool_call_f1"]
    assert scores.reason_list() == [scores.reason(row) for row in range(len(result))]


def test_pytest_writes_one_page_for_the_session(pytester):
    pytester.makepyfile(test_agent="""
        import pytest

        @pytest.mark.agent_metric("tool_selection_accuracy", threshold=0.9)
        def test_refund(agent_eval):
            agent_eval.record_run(tool_calls=["GetOrder", "IssueRefund"],
                                  expected_tool_calls=["GetOrder", "IssueRefund"])
            agent_eval.record_run(tool_calls=["GetOrder"],
                                  expected_tool_calls=["GetOrder", "IssueRefund"])

        @pytest.mark.agent_metric("tool_call_f1")
        def test_cancel(agent_eval):
            agent_eval.record_run(tool_calls=["Search"], expected_tool_calls=["CancelOrder"])
    """)
    outcome = pytester.runpytest("--agentmetrics-html=session.html", "-p", "no:randomly")
    outcome.assert_outcomes(failed=2)
    page = Page((pytester.path / "session.html").read_text(encoding="utf-8"))
    assert external(page) == []
    # One part per metric, each over the tests that used it, in test order.
    assert page.column("part1-summary-table", "metric") == ["tool_selection_accuracy"]
    assert page.column("part1-summary-table", "n") == ["2"]
    assert page.column("part0-summary-table", "metric") == ["tool_call_f1"]
    failing = page.tables["part1-failures-0"][1:]
    assert len(failing) == 1 and "test_agent.py::test_refund" in failing[0][0]
    assert "IssueRefund" in failing[0][3]


# -- reports of nothing -------------------------------------------------------------


def test_a_report_of_no_cases_says_so_in_its_headline(result):
    empty = empty_result([ToolSelectionAccuracy()])
    page = Page(empty.to_html())
    assert "No cases were scored: this run has 0 cases, so it measures nothing" in page.headline
    assert "Likely cause: the input held no cases" in page.headline
    assert 'role="alert"' not in result.to_html()  # a run with cases has no such warning
    assert "No cases were scored" not in Page(result.to_html()).all_text


def test_a_comparison_of_nothing_says_so_in_its_headline(result):
    metric = [ToolSelectionAccuracy()]
    empty = empty_result(metric)
    page = Page(agentmetrics.compare(empty, empty).to_html())
    assert "No cases were compared" in page.headline
    assert "the baseline and the candidate have 0 cases" in page.headline
    apart = [agentmetrics.evaluate([AgentTestCase(tool_calls=["a"], expected_tool_calls=["a"],
                                                  metadata={"id": ident})], metric,
                                   progress=False) for ident in ("x", "y")]
    page = Page(agentmetrics.compare(*apart).to_html())
    assert ("no case of the candidate (1 case) has a twin in the baseline (1 case)"
            in page.headline)
    assert 'role="alert"' not in agentmetrics.compare(result, result).to_html()


def test_the_command_fails_on_a_run_of_no_cases_unless_allowed(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    out = tmp_path / "empty.html"
    assert main(["report", str(empty), "-o", str(out), "--no-history"]) == 1
    captured = capsys.readouterr()
    assert f"report written to {out} (0 cases" in captured.out
    assert f"{empty}: expected at least one case, got 0" in captured.err
    assert "--allow-empty" in captured.err and "Traceback" not in captured.err
    assert "No cases were scored" in Page(out.read_text(encoding="utf-8")).headline
    assert main(["report", str(empty), "-o", str(out), "--no-history", "--allow-empty"]) == 0
    assert capsys.readouterr().err == ""
    saved = empty_result([ToolSelectionAccuracy()]).save(
        tmp_path / "empty-run.jsonl")
    assert main(["report", str(saved), "-o", str(out), "--no-history"]) == 1
    assert "expected at least one case, got 0" in capsys.readouterr().err


def test_the_command_fails_on_a_comparison_of_nothing_unless_allowed(tmp_path, capsys):
    empty, full = tmp_path / "empty.jsonl", tmp_path / "full.jsonl"
    empty.write_text("", encoding="utf-8")
    _write_cases(full, _cases(6))
    out = tmp_path / "cmp.html"
    assert main(["report", "--compare", str(empty), str(full), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "expected cases paired on at least one metric, got none" in err
    assert "the baseline has 0 cases" in err and "Traceback" not in err
    assert "No cases were compared" in Page(out.read_text(encoding="utf-8")).headline
    assert main(["report", "--compare", str(empty), str(full), "-o", str(out),
                 "--allow-empty"]) == 0
    assert main(["report", "--compare", str(full), str(full), "-o", str(out)]) == 0


# -- permissions --------------------------------------------------------------------


@pytest.fixture(params=[(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)],
                ids=["022", "077", "002"])
def umask(request):
    """A known umask for the test, and the mode a new file gets under it."""
    mask, mode = request.param
    before = os.umask(mask)
    try:
        yield mode
    finally:
        os.umask(before)


def _writers(tmp_path):
    """Every way a report page is written: (name, write it to a path)."""
    cases_path = tmp_path / "cases.jsonl"
    _write_cases(cases_path, _cases(9))
    run = agentmetrics.evaluate(_cases(9), [ToolSelectionAccuracy()], progress=False)
    comparison = agentmetrics.compare(run, run)
    return {
        "result.to_html": lambda path: run.to_html(path),
        "comparison.to_html": lambda path: comparison.to_html(path),
        "agentmetrics report": lambda path: main(
            ["report", str(cases_path), "-o", str(path), "--no-history"]),
        "agentmetrics report --compare": lambda path: main(
            ["report", "--compare", str(cases_path), str(cases_path), "-o", str(path)]),
        "agentmetrics compare --html": lambda path: main(
            ["compare", str(cases_path), str(cases_path), "--html", str(path)]),
    }


def test_every_report_writer_follows_the_umask(tmp_path, umask, capsys):
    for name, write in _writers(tmp_path).items():
        path = tmp_path / f"{name.replace(' ', '_')}.html"
        write(path)
        assert stat.S_IMODE(path.stat().st_mode) == umask, name
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left behind


def test_a_report_written_over_another_keeps_its_permissions(tmp_path, umask, capsys):
    for name, write in _writers(tmp_path).items():
        path = tmp_path / f"{name.replace(' ', '_')}.html"
        path.write_text("old", encoding="utf-8")
        path.chmod(0o640)
        write(path)
        assert stat.S_IMODE(path.stat().st_mode) == 0o640, name
        assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("umask", [(0o002, 0o664)], indirect=True, ids=["002"])
def test_pytest_writes_its_page_with_the_umask(pytester, umask):
    pytester.makepyfile(test_agent="""
        import pytest

        @pytest.mark.agent_metric("tool_selection_accuracy")
        def test_one(agent_eval):
            agent_eval.record_run(tool_calls=["A"], expected_tool_calls=["A"])
    """)
    pytester.runpytest("--agentmetrics-html=session.html", "-p", "no:randomly")
    assert stat.S_IMODE((pytester.path / "session.html").stat().st_mode) == umask


# -- one big group ------------------------------------------------------------------


def test_one_task_of_thousands_of_trials_gives_a_bounded_trials_table():
    cases = [AgentTestCase(tool_calls=["a"] if i % 5 else ["b"], expected_tool_calls=["a"],
                           metadata={"task_id": "only"}) for i in range(2500)]
    result = agentmetrics.evaluate(cases, [ToolSelectionAccuracy()], progress=False)
    page = Page(result.to_html())
    assert page.column("trials-0", "k") == [f"{k:,}" for k in default_ks(2500)]
    summary = result.trials("task_id").summary()
    assert page.column("trials-0", "pass^k [interval]")[-1].startswith(
        f"{summary['pass^k'][-1]:.3f}")
    assert "every k up to 10, then 20, 50, 100" in page.all_text


class Counted(str):
    """A call name that counts how often it is hashed or compared."""

    touched = 0

    def __hash__(self):
        Counted.touched += 1
        return str.__hash__(self)

    def __eq__(self, other):
        Counted.touched += 1
        return str.__eq__(self, other)


def _cells(grid: str) -> list[tuple[str, str, str]]:
    """(class, title, text) of each cell of a side-by-side grid, heads left out."""
    cells = re.findall(r'<span class="([^"]*)"(?: title="([^"]*)")?>([^<]*)</span>', grid)
    return [cell for cell in cells if cell[0] != "head"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from("ABCD"), max_size=300),
       st.lists(st.sampled_from("ABCE"), max_size=300))
def test_the_calls_side_by_side_are_both_lists_in_order_then_what_is_left(called, expected):
    cells = _cells(side_by_side(called, expected))
    rows = list(zip(cells[::2], cells[1::2]))
    more = rows[-1] if rows and "more" in rows[-1][0][2] + rows[-1][1][2] else None
    if more:
        rows = rows[:-1]
    assert len(rows) <= MAX_SHOWN
    if not called and not expected:
        assert rows == [(("gap", "", "no calls"), ("gap", "", "no calls"))]
        return
    left = [text for css, _, text in (row[0] for row in rows) if css != "gap"]
    right = [text for css, _, text in (row[1] for row in rows) if css != "gap"]
    assert left == called[:len(left)] and right == expected[:len(right)]
    for (css, _, name), (other_css, _, other) in rows:
        if css == "" and other_css == "":
            assert name == other  # a matched row matches
    hidden = (len(called) - len(left), len(expected) - len(right))
    shown = tuple(int(side[2].split()[1].replace(",", "")) if side[2] else 0
                  for side in more) if more else (0, 0)
    assert shown == hidden


def test_long_call_lists_are_aligned_over_a_bounded_window():
    # difflib's time grows with the product of the lengths; only MAX_SHOWN rows
    # are shown, so only a window is aligned: the names are touched a bounded
    # number of times however long the lists are.
    rng = np.random.default_rng(0)
    names = [f"tool_{i}" for i in range(50)]
    touched = []
    for n in (2_000, 8_000):
        called = [Counted(names[i]) for i in rng.integers(0, 30, n)]
        expected = [Counted(names[i]) for i in rng.integers(20, 50, n)]
        Counted.touched = 0
        grid = side_by_side(called, expected)
        touched.append(Counted.touched)
        assert "more calls" in grid and "more expected calls" in grid
    assert max(touched) < 10 * ALIGNED * 2, touched
