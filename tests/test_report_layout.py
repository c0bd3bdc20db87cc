"""Every page at 1,280 and 1,920 px in headless Chromium: the run page, the
comparison page, the pytest page and the run browser show their headline,
their names and their verdicts without scrolling sideways (five metrics, long
labels); a tool of the per-tool table drills down to its failing cases with
the page's own script. Skipped where Chromium is not installed."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import agentmetrics
from agentmetrics import AgentTestCase, ToolSelectionAccuracy
from agentmetrics.report._page import write_page
from agentmetrics.report._result import parts_html, session_headline
from agentmetrics.runs import RunStore
from browser import render, requires_chromium

pytestmark = requires_chromium

TOOLS = ["GetOrderDetails", "CancelPendingOrder", "IssueRefundToCard", "SearchCatalog",
         "TransferToHumanAgent"]
#: Five metrics, some with long labels (their parameters shown).
METRICS = [ToolSelectionAccuracy(threshold=0.8), "tool_call_f1",
           ("trajectory_match", {"mode": "in_order"}), "trajectory_lcs",
           ("tool_call_micro_f1", {"threshold": 0.9})]
#: What each page's probe reads back: the page's widths, and the right edge of
#: its headline and verdicts, written into attributes of <html>.
PROBE = """
var d=document.documentElement;d.setAttribute('data-sw',d.scrollWidth);
d.setAttribute('data-cw',d.clientWidth);var right=0;
document.querySelectorAll('header, .lead div, .verdicts, .verdict').forEach(function(e){
var r=e.getBoundingClientRect();if(r.width>0)right=Math.max(right,r.right)});
d.setAttribute('data-right',Math.ceil(right));
"""


def _cases(n, seed, drop):
    rng = np.random.default_rng(seed)
    return [AgentTestCase(
        input=f"Request {i}", actual_output=f"Answer {i}",
        tool_calls=[t for t in TOOLS[: 1 + i % 5] if rng.random() > drop],
        expected_tool_calls=TOOLS[: 1 + i % 5],
        metadata={"id": f"case-{i}"}) for i in range(n)]


def _probed(page: Path, script: str = "") -> Path:
    copy = page.with_name(f"probe-{page.name}")
    copy.write_text(page.read_text(encoding="utf-8").replace(
        "</body>", f"<script>{PROBE}{script}</script></body>"), encoding="utf-8")
    return copy


def _read(dom: str) -> dict[str, str]:
    return dict(pair.split('="', 1) for pair in re.findall(r'(data-[a-z]+="[^"]*)"',
                                                            dom.split(">", 2)[1]))


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("layout")
    baseline = agentmetrics.evaluate(_cases(60, 0, 0.1), METRICS, progress=False)
    candidate = agentmetrics.evaluate(_cases(60, 1, 0.4), METRICS, progress=False)
    store = RunStore(folder / "runs.sqlite")
    for k, result in enumerate((baseline, candidate)):
        result.save(folder / f"run{k}.jsonl", history=store, label=f"support-agent v{12 + k}")
    made = {
        "run": baseline.to_html(folder / "run.html", name="support-agent v12 (gpt-4.1)",
                                history=store),
        "comparison": agentmetrics.compare(
            baseline, candidate, names=("support-agent v12", "support-agent v13")).to_html(
            folder / "comparison.html"),
        "pytest": write_page(folder / "pytest.html", parts_html(
            [("tool_selection_accuracy", candidate)], title="agentmetrics: pytest session",
            subtitle="60 evaluations in 3 tests", headline=session_headline(
                [("tests/test_agent.py::test_refunds", False),
                 ("tests/test_agent.py::test_orders", True),
                 ("tests/test_agent.py::test_search", True)]))),
    }
    made["browser"] = store.to_html(folder / "browser.html", compare=agentmetrics.compare)
    return made


@pytest.mark.parametrize("width", [1280, 1920])
@pytest.mark.parametrize("name", ["run", "comparison", "pytest", "browser"])
def test_no_page_scrolls_sideways_and_its_headline_is_in_sight(pages, name, width):
    shown = render(_probed(pages[name]), width=width, height=900)
    found = _read(shown.dom)
    assert int(found["data-sw"]) <= int(found["data-cw"]), (name, width, found)
    assert int(found["data-right"]) <= int(found["data-cw"]), (name, width, found)
    assert shown.network_requests == []
    if name == "comparison":
        assert "support-agent v13</b> against <b>support-agent v12" in shown.dom
    if name == "run":
        assert 'id="lead"' in shown.dom and "support-agent v12 (gpt-4.1)" in shown.dom
        assert 'class="trend-grid"' in shown.dom and "support-agent v13" in shown.dom


def test_a_tool_drills_down_to_its_failing_cases(pages):
    result = agentmetrics.evaluate(_cases(60, 0, 0.1), METRICS, progress=False)
    tool = "IssueRefundToCard"
    scores = result.results["tool_selection_accuracy"]
    failing = np.flatnonzero(~scores.passed & ~np.isnan(scores.values)).tolist()
    holding = [row for row in failing
               if tool in (result.batch.called_names(row) or ()) + (
                   result.batch.expected_names(row) or ())]
    assert 0 < len(holding) < len(failing)  # the drill-down leaves some out
    shown = render(_probed(pages["run"], f"""
var a=document.querySelector('#per-tool-table a.drill[data-tool="{tool}"]');a.click();
var rows=document.querySelectorAll('#failures-0 tbody tr'),seen=0;
rows.forEach(function(r){{if(r.style.display!=='none')seen++}});
d.setAttribute('data-seen',seen);d.setAttribute('data-note',
document.getElementById('drill-note').textContent.replace(/"/g,''));
document.querySelector('#drill-note a.drill').click();seen=0;
rows.forEach(function(r){{if(r.style.display!=='none')seen++}});d.setAttribute('data-all',seen);
"""), width=1280, height=900)
    found = _read(shown.dom)
    assert int(found["data-seen"]) == len(holding)
    assert f"call or expect {tool}" in found["data-note"]
    assert int(found["data-all"]) == len(failing)
