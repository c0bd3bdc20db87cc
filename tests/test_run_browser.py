"""The run browser (RunStore.to_html, `agentmetrics report --history`): one page
over every run of a real SQLite history, read back with html.parser; the files
it links to written beside it; hostile labels escaped and secrets masked."""

from __future__ import annotations

import html.parser
import re
import sqlite3
import urllib.parse
from pathlib import Path

import pytest

import agentmetrics
from agentmetrics import AgentTestCase
from agentmetrics.cli import main
from agentmetrics.report._browser import browser_html
from agentmetrics.runs import RunStore
from browser import external_urls, render, requires_chromium

METRICS = ["tool_selection_accuracy", "tool_call_f1", "latency"]
FIVE = [*METRICS, "tool_call_micro_f1", "answer_match"]


def _cases(shift: int) -> list[AgentTestCase]:
    return [AgentTestCase(tool_calls=["GetOrder", "CancelOrder"][: 1 + (i + shift) % 2],
                          expected_tool_calls=["GetOrder", "CancelOrder"], latency=0.5 + i,
                          actual_output="done" if i % 3 else "no", expected_output="done",
                          metadata={"id": f"c{i}"}) for i in range(6)]


def _history(folder: Path, labels: list[str | None], metrics: list[str] = METRICS
             ) -> tuple[RunStore, list[Path]]:
    store = RunStore(folder / "runs.sqlite")
    paths = []
    for number, label in enumerate(labels):
        result = agentmetrics.evaluate(_cases(number), metrics, progress=False)
        paths.append(result.save(folder / f"run{number}.jsonl", history=store, label=label))
    return store, paths


class BrowserPage(html.parser.HTMLParser):
    """The rows of the runs table (cell texts, each row's links, checkboxes and
    attributes), every link, the headline and the trend figures."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[dict[str, object]] = []
        self.links: list[str] = []
        self.figures: list[str] = []
        self.heads: list[str] = []
        self.text: list[str] = []
        self._in_runs = False
        self._cell: list[str] | None = None
        self._head: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "a" and attributes.get("href"):
            self.links.append(attributes["href"])
        if tag == "table" and attributes.get("id") == "runs":
            self._in_runs = True
        elif tag == "figure":
            self.figures.append(attributes.get("data-metric", ""))
        elif self._in_runs and tag == "tr" and "data-id" in attributes:
            self.rows.append({"attrs": attributes, "cells": [], "links": [], "pick": None})
        elif self._in_runs and tag == "td" and self.rows:
            self._cell = []
        elif self._in_runs and tag == "th":
            self._head = []
        elif self._in_runs and self.rows and tag == "a":
            self.rows[-1]["links"].append(attributes["href"])
        elif self._in_runs and self.rows and tag == "input":
            self.rows[-1]["pick"] = attributes

    def handle_endtag(self, tag):
        if tag == "table":
            self._in_runs = False
        elif tag == "td" and self._cell is not None:
            self.rows[-1]["cells"].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "th" and self._head is not None:
            self.heads.append(" ".join(self._head))
            self._head = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)
        if self._head is not None:
            self._head.append(data)


def _read(path: Path) -> tuple[str, BrowserPage]:
    text = path.read_text(encoding="utf-8")
    return text, BrowserPage(text)


def _target(page: Path, href: str) -> Path:
    assert not urllib.parse.urlsplit(href).scheme and not href.startswith("/"), href
    return page.parent / urllib.parse.unquote(href)


def test_the_page_lists_every_run_newest_first_with_its_reports(tmp_path):
    labels = ["baseline <b>bold</b>", None, "candidate & co", 'quote "me"']
    store, _ = _history(tmp_path, labels)
    out = store.to_html(tmp_path / "site" / "browser.html", compare=agentmetrics.compare)
    text, page = _read(out)
    assert [row["attrs"]["data-id"] for row in page.rows] == ["4", "3", "2", "1"]
    names = [row["cells"][1] for row in page.rows]
    assert names == ['quote "me"', "candidate & co", "run 2", "baseline <b>bold</b>"]
    assert "<b>bold</b>" not in text and "baseline &lt;b&gt;bold&lt;/b&gt;" in text
    # one link per run to its own report, and per consecutive pair to its comparison
    assert all(len(row["links"]) == 1 for row in page.rows)
    for row in page.rows:
        report = _target(out, row["links"][0])
        assert report.name == f"{row['attrs']['data-id']}.html" and report.is_file()
    comparisons = [row["attrs"].get("data-cmp") for row in page.rows]
    assert comparisons[-1] is None  # the oldest run has none before it
    for href, row in zip(comparisons[:-1], page.rows):
        newer = int(row["attrs"]["data-id"])
        assert href == f"browser_runs/compare-{newer - 1}-{newer}.html"
        assert "Regressions" in _target(out, href).read_text(encoding="utf-8")
    for href in page.links:
        assert _target(out, href).is_file(), href
    # nothing is fetched: the only URLs are the relative links to the files beside it
    assert sorted(external_urls(text)) == sorted(page.links)
    assert "http://" not in text and "https://" not in text
    # the headline: the history's name, how many runs; a trend per metric
    assert "runs.sqlite" in "".join(page.text) and "4 runs" in "".join(page.text)
    assert page.figures == METRICS
    assert "latency mean (s) · pass" in page.heads  # one column a metric: mean, pass rate


def test_a_run_whose_file_is_gone_is_listed_without_a_link_and_says_why(tmp_path):
    store, paths = _history(tmp_path, ["one", "two", "three"])
    paths[1].unlink()
    out = store.to_html(tmp_path / "browser.html", compare=agentmetrics.compare)
    _, page = _read(out)
    by_id = {row["attrs"]["data-id"]: row for row in page.rows}
    gone = by_id["2"]
    assert gone["links"] == [] and "no report: its saved file is gone" in gone["cells"][1]
    assert gone["pick"]["data-path"] == ""  # the command cannot compare it
    assert not (tmp_path / "browser_runs" / "2.html").exists()
    # no comparison across the gap: neither 1-2 nor 2-3 can be made
    assert "data-cmp" not in by_id["3"]["attrs"] and "data-cmp" not in gone["attrs"]
    assert sorted(p.name for p in (tmp_path / "browser_runs").iterdir()) == ["1.html", "3.html"]
    assert by_id["3"]["links"] == ["browser_runs/3.html"]


def test_a_run_saved_over_says_so_and_reports_false_writes_nothing_beside(tmp_path):
    store, paths = _history(tmp_path, ["one", "two"])
    other = agentmetrics.evaluate(_cases(5), METRICS, progress=False)
    other.save(paths[0], history=False)  # run 1's file now holds another run
    out = store.to_html(tmp_path / "browser.html")
    _, page = _read(out)
    first = next(row for row in page.rows if row["attrs"]["data-id"] == "1")
    assert first["links"] == [] and "no longer holds this run" in first["cells"][1]
    assert not any("data-cmp" in row["attrs"] for row in page.rows)  # no compare= given
    quick = store.to_html(tmp_path / "quick.html", reports=False)
    _, page = _read(quick)
    assert len(page.rows) == 2 and page.links == []
    assert not (tmp_path / "quick_runs").exists()
    text = store.to_html()
    assert isinstance(text, str) and BrowserPage(text).rows and "two" in text


def test_the_command_line_writes_the_browser(tmp_path, capsys):
    store, _ = _history(tmp_path, ["alpha", "beta", "gamma"])
    out = tmp_path / "out" / "runs.html"
    assert main(["report", "--history", str(store.path), "-o", str(out)]) == 0
    assert f"run browser written to {out} (3 runs)" in capsys.readouterr().out
    _, page = _read(out)
    assert [row["cells"][1] for row in page.rows] == ["gamma", "beta", "alpha"]
    assert len(page.links) == 3 and all(_target(out, href).is_file() for href in page.links)
    made = [row["attrs"]["data-cmp"] for row in page.rows if "data-cmp" in row["attrs"]]
    assert made == ["runs_runs/compare-2-3.html", "runs_runs/compare-1-2.html"]
    assert all(_target(out, href).is_file() for href in made)
    quick = tmp_path / "out" / "quick.html"
    assert main(["report", "--history", str(store.path), "-o", str(quick), "--no-reports"]) == 0
    assert BrowserPage(quick.read_text(encoding="utf-8")).links == []


def test_an_empty_history_gets_a_page_saying_so_and_exits_1(tmp_path, capsys):
    empty = tmp_path / "empty.sqlite"
    sqlite3.connect(empty).execute("VACUUM")  # an SQLite file with no history in it yet
    assert empty.is_file()
    out = tmp_path / "empty.html"
    assert main(["report", "--history", str(empty), "-o", str(out)]) == 1
    captured = capsys.readouterr()
    assert "expected at least one run, got none" in captured.err
    text, page = _read(out)
    assert page.rows == [] and "No runs: the run history empty.sqlite holds no saved run" in text
    assert main(["report", "--history", str(empty), "-o", str(out), "--allow-empty"]) == 0
    assert "No runs" in RunStore(tmp_path / "never.sqlite").to_html()
    assert main(["report", "--history", str(tmp_path / "missing.sqlite"), "-o", str(out)]) == 2
    assert "there is no such file" in capsys.readouterr().err


def test_the_command_line_still_wants_a_run_or_a_history(tmp_path, capsys):
    assert main(["report"]) == 2
    assert "or --history [FILE] for the run browser" in capsys.readouterr().err
    store, paths = _history(tmp_path, ["x"])
    assert main(["report", str(paths[0])]) == 2
    assert "expected -o PATH" in capsys.readouterr().err
    # a run with --history FILE still gets its trend
    out = tmp_path / "one.html"
    assert main(["report", str(paths[0]), "--history", str(store.path), "-o", str(out)]) == 0
    assert 'id="trend"' in out.read_text(encoding="utf-8")


SECRET = "sk-live0123456789abcdefSECRET"
HOSTILE = ['"><script>alert(1)</script>', "</title><img src=x onerror=alert(2)>",
           f"key {SECRET}", "https://user:hunter2hunter2@example.com/x", "'; rm -rf / #"]


class _Configured:
    """A recorded run with a configuration, as RunRecord.config will hold it."""

    def __init__(self, run, config):
        self._run, self.config = run, config

    def __getattr__(self, name):
        return getattr(self._run, name)


def test_hostile_labels_paths_and_configuration_are_escaped_and_secrets_masked(tmp_path):
    folder = tmp_path / f"api_key={SECRET}"
    folder.mkdir()
    store, _ = _history(folder, HOSTILE)
    out = store.to_html(tmp_path / "browser.html", compare=agentmetrics.compare)
    texts = [out.read_text(encoding="utf-8")]
    texts += [p.read_text(encoding="utf-8") for p in (tmp_path / "browser_runs").iterdir()]
    everything = "\n".join(texts)
    assert SECRET not in everything and "hunter2hunter2" not in everything
    assert "<script>alert" not in everything and "<img src=x" not in everything
    page = BrowserPage(texts[0])
    names = [row["cells"][1] for row in page.rows]
    assert names[4] == HOSTILE[0] and names[0] == HOSTILE[4]  # shown as text, whole
    assert "key ***" in names[2] and "https://***@example.com/x" in names[1]
    # a configuration: key=value pairs, a credential-named key's value masked
    runs = [_Configured(run, {"model": "<gpt>", "api_token": SECRET, "url": HOSTILE[3]})
            for run in store.list()]
    text = browser_html(store, runs)
    assert SECRET not in text and "hunter2hunter2" not in text and "<gpt>" not in text
    config = BrowserPage(text).rows[0]["cells"][-1]
    assert config == "model=<gpt> api_token=*** url=https://***@example.com/x"


def _instrumented(page: Path, script: str) -> Path:
    """A copy of the page with a script after its own, whose findings are
    written into attributes of <html> (read back from the DOM)."""
    copy = page.with_name(f"probe-{page.name}")
    text = page.read_text(encoding="utf-8")
    copy.write_text(text.replace("</body>", f"<script>{script}</script></body>"),
                    encoding="utf-8")
    return copy


@requires_chromium
@pytest.mark.parametrize("every_pair", [True, False])
def test_the_browser_fits_1280_px_and_picks_two_runs_in_a_real_browser(tmp_path, monkeypatch,
                                                                        every_pair):
    # A history of at most EVERY_PAIR runs has every pair's comparison beside
    # it; a longer one (here: the bound lowered) each consecutive pair's, and
    # the command that makes any other.
    from agentmetrics.report import _browser

    if not every_pair:
        monkeypatch.setattr(_browser, "EVERY_PAIR", 3)
    long = "a very long label " * 12
    labels = [long, "short", None, "x" * 300, "nightly"]
    store, _ = _history(tmp_path, labels, FIVE)
    out = store.to_html(tmp_path / "browser.html", compare=agentmetrics.compare)
    written = sorted(path.name for path in (tmp_path / "browser_runs").glob("compare-*"))
    assert len(written) == (10 if every_pair else 4)
    probe = _instrumented(out, """
var d=document.documentElement;d.setAttribute('data-sw',d.scrollWidth);
d.setAttribute('data-cw',d.clientWidth);
var boxes=document.querySelectorAll('input.pick');
function pick(a,b){boxes.forEach(function(x){x.checked=false});boxes[a].checked=true;
boxes[b].checked=true;document.getElementById('runs').dispatchEvent(new Event('change'))}
pick(0,1);d.setAttribute('data-link',document.getElementById('runs-compare').getAttribute('href'));
pick(0,3);d.setAttribute('data-cmd',document.getElementById('runs-command').textContent);
d.setAttribute('data-far',document.getElementById('runs-compare').getAttribute('href')||'');""")
    shown = render(probe, width=1280)
    assert shown.network_requests == []
    found = dict(pair.split('="', 1) for pair in
                 re.findall(r'(data-(?:sw|cw|link|cmd|far)="[^"]*)"', shown.dom))
    assert int(found["data-sw"]) <= int(found["data-cw"]), found  # no sideways scrolling
    assert found["data-link"] == "browser_runs/compare-4-5.html"
    if every_pair:  # any two runs with files: their page, written beside
        assert found["data-far"] == "browser_runs/compare-2-5.html" and found["data-cmd"] == ""
        assert (tmp_path / "browser_runs" / "compare-2-5.html").is_file()
        return
    assert found["data-far"] == ""
    command = found["data-cmd"]
    assert command.startswith("agentmetrics compare ") and command.endswith(
        " --html browser_runs/compare-2-5.html")
    assert str(tmp_path / "run1.jsonl") in command and str(tmp_path / "run4.jsonl") in command
