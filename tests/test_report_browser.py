"""Reports rendered by a real browser (headless Chromium): the DOM after the
page's script ran holds the numbers, the failing cases and the regressions;
the page asks the network for nothing; the screenshot is not blank, in light
and in dark mode. Skipped, with the reason, where Chromium is not installed
(.ci/run installs Debian's `chromium` when it can)."""

from __future__ import annotations

import numpy as np
import pytest

import agentmetrics
from agentmetrics import AgentTestCase, ToolSelectionAccuracy
from browser import external_urls, is_blank, pixel, render, requires_chromium
from test_report import Page
from conftest import empty_result

pytestmark = requires_chromium


def _cases(n, seed=0, drop=0.3):
    rng = np.random.default_rng(seed)
    tools = ["GetOrder", "CancelOrder", "IssueRefund", "Search"]
    return [AgentTestCase(
        tool_calls=[t for t in tools[: 1 + i % 3] if rng.random() > drop],
        expected_tool_calls=tools[: 1 + i % 3],
        metadata={"id": f"case-{i}", "task_id": i // 4}) for i in range(n)]


def _metrics():
    return [ToolSelectionAccuracy(threshold=0.8), "tool_call_f1"]


REPORTS = {
    "no cases": lambda: empty_result([ToolSelectionAccuracy()]),
    "all errors": lambda: agentmetrics.evaluate(
        [AgentTestCase(tool_calls=["a"], expected_tool_calls=None) for _ in range(4)],
        [ToolSelectionAccuracy()], errors="record", progress=False),
    "one metric": lambda: agentmetrics.evaluate(_cases(30), [ToolSelectionAccuracy()],
                                                progress=False),
    "several metrics and trials": lambda: agentmetrics.evaluate(_cases(40), _metrics(),
                                                                progress=False),
}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reports")
    pages = {}
    for name, make in REPORTS.items():
        result = make()
        path = result.to_html(folder / f"{name.replace(' ', '_')}.html")
        pages[name] = (result, path, render(path))
    baseline = agentmetrics.evaluate(_cases(40, drop=0.1), _metrics(), progress=False)
    candidate = agentmetrics.evaluate(_cases(40, seed=1, drop=0.5), _metrics(), progress=False)
    comparison = agentmetrics.compare(baseline, candidate)
    path = comparison.to_html(folder / "comparison.html")
    pages["comparison"] = (comparison, path, render(path))
    return pages


@pytest.mark.parametrize("name", [*REPORTS, "comparison"])
def test_each_report_renders_offline_and_is_not_blank(rendered, name):
    _, path, shown = rendered[name]
    assert shown.network_requests == []
    assert external_urls(path.read_text(encoding="utf-8")) == []
    assert not is_blank(shown.png)
    assert 'data-ready="1"' in shown.dom  # the page's script ran


def test_the_rendered_dom_holds_the_summary_and_the_worst_cases(rendered):
    result, _, shown = rendered["several metrics and trials"]
    page = Page(shown.dom)
    summary = result.summary(cluster="task_id")  # cases share tasks: clustered intervals
    assert page.column("summary-table", "mean [mean_low, mean_high]")[0].startswith(
        f"{summary['mean'][0]:.3f} [")
    scores = result["tool_selection_accuracy"]
    worst = sorted((float(scores.values[r]), r) for r in range(len(result))
                   if not scores.passed[r])
    rows = page.tables["failures-0"][1:]
    assert [row[0].split()[0] for row in rows] == [str(r) for _, r in worst[:100]]
    assert "trials-0" in page.tables and "clustered-summary-table" not in page.tables
    assert "cluster-robust over" in page.all_text


def test_the_rendered_comparison_puts_regressions_first(rendered):
    comparison, _, shown = rendered["comparison"]
    page = Page(shown.dom)
    regressions = comparison.regressions(limit=100)
    assert [r[0] for r in page.tables["regressions-table"][1:]] == [
        str(k) for k in regressions["key"]]
    verdicts = [row[1] for row in page.tables["comparison-table"][1:]]
    assert verdicts == [m.verdict for m in comparison]


def test_the_error_and_empty_reports_say_so(rendered):
    page = Page(rendered["all errors"][2].dom)
    assert len(page.tables["errors-0"]) == 5
    assert "No case could be scored" in page.headline
    assert "No cases were scored" in Page(rendered["no cases"][2].dom).headline


def test_dark_mode_changes_the_page(rendered):
    _, path, light = rendered["one metric"]
    dark = render(path, dark=True)
    assert not is_blank(dark.png)
    assert pixel(light.png, 2, 2) != pixel(dark.png, 2, 2)
    assert sum(pixel(dark.png, 2, 2)) < sum(pixel(light.png, 2, 2))
