"""The run history: RunStore over SQLite, ``result.save(history=...)``,
``agentmetrics runs list``, ``agentmetrics evaluate --save`` and ``agentmetrics
compare --against``; and that no secret reaches a saved file, the history or
the command's output."""

from __future__ import annotations

import json
import math
import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest

import agentmetrics as am
from agentmetrics import errors
from agentmetrics.cli import main
from agentmetrics.runs import (
    MetricSummary,
    RunRecord,
    RunStore,
    default_store_path,
    load_result,
    load_run,
    open_store,
)


def run(capsys, *argv):
    status = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _result(misses: int = 1, n: int = 6) -> am.EvaluationResult:
    """``n`` cases with ids; the first ``misses`` miss an expected call."""
    cases = [am.AgentTestCase(tool_calls=["A"] if i < misses else ["A", "B"],
                              expected_tool_calls=["A", "B"], metadata={"id": f"c{i}"})
             for i in range(n)]
    return am.evaluate(cases, "tool_selection_accuracy", progress=False)


# -- RunStore ------------------------------------------------------------------------


def test_record_list_get_and_trend(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    assert not store.path.exists() and store.list() == []  # reading makes no file
    assert not store.path.exists()
    first = store.record(_result(misses=3), tmp_path / "a.jsonl", label="baseline")
    second = store.record(_result(misses=1))
    third = store.record(_result(misses=0), label="fixed")
    assert (first.id, second.id, third.id) == (1, 2, 3)
    assert isinstance(first, RunRecord) and first.label == "baseline"
    assert first.path == str(tmp_path / "a.jsonl") and second.path is None
    assert first.cases == 6 and first.fingerprint == _result(misses=3).provenance.fingerprint
    assert first.agentmetrics_version == am.__version__
    (summary,) = first.metrics
    assert isinstance(summary, MetricSummary) and summary.metric == "tool_selection_accuracy"
    row = _result(misses=3).summary()[0]
    assert (summary.n, summary.mean, summary.mean_low, summary.mean_high, summary.pass_rate,
            summary.pass_low, summary.pass_high, summary.errors, summary.threshold) == (
        6, row["mean"], row["mean_low"], row["mean_high"], 0.5, row["pass_low"],
        row["pass_high"], 0, 0.8)
    assert [r.id for r in store.list()] == [3, 2, 1]
    assert [r.id for r in store.list(limit=2)] == [3, 2]
    assert store.get(2) == second and store.get("2") == second
    assert store.get("last") == third and store.get("last~1") == second
    assert store.get("last~2") == first and store.get(" last~0 ") == third
    assert store.list()[2] == first  # read back equal to what record returned
    assert [(r.id, m.pass_rate) for r, m in store.trend("tool_selection_accuracy")] == [
        (1, 0.5), (2, 5 / 6), (3, 1.0)]
    assert [r.id for r, _ in store.trend("tool_selection_accuracy", last=2)] == [2, 3]
    assert store.trend("tool_selection_accuracy", last=0) == []
    assert store.trend("no_such_metric") == []
    assert first.summary("tool_selection_accuracy") == summary and first.summary("x") is None
    assert first.provenance.fingerprint == first.fingerprint and first.provenance.cases == 6


def test_nan_is_stored_as_null_and_read_back_as_nan(tmp_path):
    cases = [am.AgentTestCase(tool_calls=["A"], expected_tool_calls=None)]
    result = am.evaluate(cases, "tool_selection_accuracy", errors="record")
    store = RunStore(tmp_path / "runs.sqlite")
    recorded = store.record(result)
    (summary,) = store.get("last").metrics
    assert math.isnan(summary.mean) and math.isnan(summary.mean_low) and summary.errors == 1
    assert summary.pass_rate == 0.0 and repr(recorded.metrics) == repr((summary,))
    with sqlite3.connect(store.path) as connection:
        assert connection.execute("SELECT mean, pass_rate FROM run_metrics").fetchall() == [
            (None, 0.0)]


def test_save_records_in_the_default_history(tmp_path, monkeypatch):
    history = tmp_path / "elsewhere" / "history.sqlite"
    monkeypatch.setenv("AGENTMETRICS_HISTORY", str(history))
    assert default_store_path() == history and RunStore().path == history
    saved = _result().save(tmp_path / "run.parquet", label="nightly")
    run_ = RunStore().get("last")
    assert run_.path == os.path.abspath(saved) and run_.label == "nightly"
    _result().save(tmp_path / "other.jsonl", history=False)
    assert len(RunStore().list()) == 1
    other = tmp_path / "other.sqlite"
    _result().save(tmp_path / "third.jsonl", history=other)
    _result().save(tmp_path / "fourth.jsonl", history=RunStore(other))
    assert [r.path for r in RunStore(other).list()] == [
        str(tmp_path / "fourth.jsonl"), str(tmp_path / "third.jsonl")]
    assert len(RunStore().list()) == 1  # two stores, apart
    assert open_store(other) == RunStore(other)
    with pytest.raises(errors.InvalidParameterError, match="history: expected a RunStore"):
        _result().save(tmp_path / "fifth.jsonl", history=3)
    assert not (tmp_path / "fifth.jsonl").exists()


def test_without_the_variable_the_history_is_under_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("AGENTMETRICS_HISTORY")
    monkeypatch.chdir(tmp_path)
    assert default_store_path() == tmp_path / ".agentmetrics" / "runs.sqlite"
    assert not (tmp_path / ".agentmetrics").exists()
    _result().save("run.jsonl")
    assert (tmp_path / ".agentmetrics" / "runs.sqlite").is_file()
    assert RunStore().get("last").path == str(tmp_path / "run.jsonl")


def test_load_reads_a_run_back_from_its_file(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    result = _result(misses=2)
    result.save(tmp_path / "a.jsonl", history=store)
    _result(misses=0).save(tmp_path / "b.parquet", history=store)
    loaded = store.load("last~1")
    assert loaded.batch.case_ids == result.batch.case_ids
    assert loaded["tool_selection_accuracy"].values.tolist() == result[
        "tool_selection_accuracy"].values.tolist()
    assert load_run("last", store).provenance == load_result(tmp_path / "b.parquet").provenance
    assert load_run(1, tmp_path / "runs.sqlite").provenance == loaded.provenance


def test_the_errors_of_a_run_that_cannot_be_loaded(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    with pytest.raises(errors.InvalidParameterError, match=rf"run history {tmp_path}/runs.sqlite: "
                       rf"no run 'last'; the history has no runs yet. Fix: `agentmetrics runs "
                       rf"list --history {tmp_path}/runs.sqlite` shows"):
        store.get("last")
    store.record(_result())
    path = _result().save(tmp_path / "a.jsonl", history=store)
    with pytest.raises(errors.InvalidParameterError, match=r"no run 7; the history has 2 runs.*"
                       r"agentmetrics runs list"):
        store.get(7)
    with pytest.raises(errors.InvalidParameterError, match=r"no run 'last~5'; the history has 2"):
        store.get("last~5")
    with pytest.raises(errors.InvalidParameterError, match=r"expected a run's id \(3\), 'last' or "
                       r"'last~N'.*got 'latest'"):
        store.get("latest")
    with pytest.raises(errors.InvalidParameterError, match=r"run 1 was recorded without a saved "
                       r"file"):
        store.load(1)
    os.remove(path)
    with pytest.raises(errors.InvalidParameterError, match=rf"run 2's saved file {path} is gone "
                       rf"\(moved or deleted\)"):
        store.load("last")
    _result(misses=4).save(path, history=False)  # another run saved at that path since
    with pytest.raises(errors.InvalidParameterError, match=r"now holds another run.*saved over"):
        store.load(2)


def test_the_default_store_is_named_in_its_errors_without_a_flag(tmp_path):
    with pytest.raises(errors.InvalidParameterError, match=r"Fix: `agentmetrics runs list` shows"):
        RunStore().get("last")


def test_a_newer_schema_or_another_database_is_refused(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    store.record(_result())
    with sqlite3.connect(store.path) as connection:
        connection.execute("UPDATE schema_version SET version = 99")
    connection.close()
    for action in (store.list, lambda: store.record(_result())):
        with pytest.raises(errors.InvalidParameterError, match=r"a run history of schema 99, "
                           r"written by a newer agentmetrics; this one reads schema 1"):
            action()
    cache = tmp_path / "cache.sqlite"
    with sqlite3.connect(cache) as connection:
        connection.execute("CREATE TABLE scores (key TEXT)")
    connection.close()
    before = cache.read_bytes()
    for action in (RunStore(cache).list, lambda: RunStore(cache).record(_result())):
        with pytest.raises(errors.InvalidParameterError, match=r"an SQLite file that is not a run "
                           r"history \(it has the tables \['scores'\]\)"):
            action()
    assert cache.read_bytes() == before  # left as it was
    text = tmp_path / "notes.sqlite"
    text.write_text("not a database at all, just text that is long enough" * 20)
    with pytest.raises(errors.InvalidParameterError, match=r"not a readable run history"):
        RunStore(text).list()


def test_two_processes_record_into_one_history(tmp_path):
    script = textwrap.dedent(f"""
        import agentmetrics as am
        from agentmetrics.runs import RunStore
        store = RunStore({str(tmp_path / "runs.sqlite")!r})
        result = am.evaluate([am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"])],
                             "tool_selection_accuracy")
        for _ in range(15):
            store.record(result)
    """)
    workers = [subprocess.Popen([sys.executable, "-c", script]) for _ in range(3)]
    assert [worker.wait(timeout=120) for worker in workers] == [0, 0, 0]
    runs = RunStore(tmp_path / "runs.sqlite").list()
    assert sorted(r.id for r in runs) == list(range(1, 46))
    assert all(len(r.metrics) == 1 for r in runs)


# -- secrets ---------------------------------------------------------------------------

SECRET_KEY = "sk-test-SECRET123456"
SECRET_URL = "https://user:pw-SECRET@host/x"


class KeyedMetric(am.Metric):
    name = "keyed_metric"
    description = "A metric with a key (a test's)."
    secret_params = ("api_key",)

    def __init__(self, api_key: str | None = None, endpoint: str = SECRET_URL,
                 threshold: float | None = None) -> None:
        super().__init__(threshold)
        self.api_key = api_key
        self.endpoint = endpoint

    def measure(self, case):
        return 1.0, f"scored at {self.endpoint}"[:9]


def test_no_secret_reaches_a_saved_file_the_history_or_runs_list(tmp_path, capsys):
    result = am.evaluate([am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"])],
                         [KeyedMetric(api_key=SECRET_KEY), "tool_selection_accuracy"])
    history = tmp_path / "runs.sqlite"
    files = [result.save(tmp_path / name, history=history)
             for name in ("run.jsonl", "run.parquet", "run.jsonl.gz")]
    for path in [*files, history]:
        data = path.read_bytes()
        assert b"SECRET" not in data and SECRET_KEY.encode() not in data, path
    assert b"https://***@host/x" in files[0].read_bytes()
    spec = load_result(files[0]).provenance.metrics[0]
    assert spec.params == {"api_key": "***", "endpoint": "https://***@host/x", "threshold": 0.5}
    for form in ("table", "json"):
        status, out, err = run(capsys, "runs", "list", "--history", history, "--format", form)
        assert status == 0 and "SECRET" not in out + err
    assert "SECRET" not in repr(load_result(files[1])["keyed_metric"].metric)


# -- the command line ----------------------------------------------------------------


@pytest.fixture
def cases_file(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text(
        '{"id": "good", "tool_calls": ["A", "B"], "expected_tool_calls": ["A", "B"]}\n'
        '{"id": "bad", "tool_calls": ["B", "A", "C"], "expected_tool_calls": ["A", "B"]}\n'
        '{"id": "none", "tool_calls": [], "expected_tool_calls": ["A"]}\n', encoding="utf-8")
    return path


def test_evaluate_save_writes_and_records_the_run(capsys, tmp_path, cases_file):
    history = tmp_path / "h.sqlite"
    status, out, err = run(capsys, "evaluate", cases_file, "--save", tmp_path / "run.parquet",
                           "--history", history, "--label", "first", "--chunk-size", "2")
    assert status == 0 and err == ""
    assert out.endswith(f"\nSaved the run to {tmp_path / 'run.parquet'} (run 1 in {history})\n")
    _, plain, _ = run(capsys, "evaluate", cases_file)
    assert out.startswith(plain)  # the output is otherwise the same
    loaded = load_result(tmp_path / "run.parquet")
    assert loaded.batch.case_ids == ("good", "bad", "none")
    assert loaded["tool_selection_accuracy"].values.tolist() == [1.0, 2 / 3, 0.0]
    assert RunStore(history).get("last").label == "first"
    status, out, err = run(capsys, "evaluate", cases_file, "--save", tmp_path / "b.jsonl",
                           "--no-history", "--format", "jsonl")
    assert status == 0 and len(out.splitlines()) == 3 and "Saved the run to" in err
    assert len(RunStore(history).list()) == 1 and is_saved(tmp_path / "b.jsonl")


def is_saved(path) -> bool:
    from agentmetrics.runs import is_saved_run

    return is_saved_run(path)


@pytest.mark.parametrize("argv, message", [
    (["--save", "run.csv"], "cannot tell the form of a saved run from the name"),
    (["--history", "h.sqlite"], "--history: it says how --save records the run, and no --save"),
    (["--label", "x"], "--label: it says how --save records the run"),
])
def test_evaluate_save_usage_errors_exit_2_before_scoring(capsys, cases_file, argv, message):
    status, out, err = run(capsys, "evaluate", cases_file, *argv)
    assert status == 2 and out == "" and message in err and "Traceback" not in err


def test_runs_list_prints_each_run_and_metric(capsys, tmp_path, cases_file):
    history = tmp_path / "h.sqlite"
    status, out, _ = run(capsys, "runs", "list", "--history", history)
    assert status == 0 and out.startswith(f"No runs in {history} yet.")
    assert run(capsys, "runs", "list", "--history", history, "--format", "json")[1] == "[]\n"
    run(capsys, "evaluate", cases_file, "--save", tmp_path / "a.jsonl", "--history", history,
        "--label", "base")
    run(capsys, "evaluate", cases_file, "--save", tmp_path / "b.jsonl", "--history", history,
        "--metric", "tool_selection_accuracy", "--metric",
        "tool_selection_accuracy:order_matters=true")
    status, out, err = run(capsys, "runs", "list", "--history", history)
    assert status == 0 and err == ""
    lines = out.splitlines()
    first, second = (RunStore(history).get(i).created.replace("T", " ")[:19] for i in (1, 2))
    assert lines[0].startswith(f"Runs in {history}, newest first")
    assert lines[1].split() == ["run", "created", "(UTC)", "label", "cases", "mean", "passed",
                                "metric"]
    assert lines[2].split() == ["2", *second.split(), "-", "3", "0.556", "33.3%",
                                "tool_selection_accuracy(order_matters=False)"]
    assert lines[3].split() == ["0.444", "33.3%", "tool_selection_accuracy(order_matters=True)"]
    assert lines[4].split() == ["1", *first.split(), "base", "3", "0.556", "33.3%",
                                "tool_selection_accuracy"]
    assert len(lines) == 5 and max(map(len, lines[1:])) <= 100
    status, out, _ = run(capsys, "runs", "list", "--history", history, "--limit", "1",
                         "--format", "json")
    (document,) = json.loads(out)
    assert document["id"] == 2 and document["path"] == str(tmp_path / "b.jsonl")
    assert [m["metric"] for m in document["metrics"]] == [
        "tool_selection_accuracy(order_matters=False)", "tool_selection_accuracy(order_matters=True)"]
    assert document["metrics"][0]["mean"] == pytest.approx(5 / 9) and document["cases"] == 3


def test_compare_against_a_run_of_the_history(capsys, tmp_path, cases_file):
    history = tmp_path / "h.sqlite"
    run(capsys, "evaluate", cases_file, "--save", tmp_path / "base.jsonl", "--history", history,
        "--label", "base")
    better = tmp_path / "better.jsonl"
    better.write_text(cases_file.read_text().replace('"tool_calls": []', '"tool_calls": ["A"]'),
                      encoding="utf-8")
    run(capsys, "evaluate", better, "--save", tmp_path / "better.parquet", "--history", history)
    status, out, err = run(capsys, "compare", "--against", "last~1", better, "--history", history)
    assert status == 0 and err == ""
    assert out.startswith(f"Comparison: {better} (candidate) against run 1 (base) (baseline)")
    assert "mean      0.556 -> 0.889" in out
    # The candidate may be a saved run too, and the baseline the newest run.
    status, out, _ = run(capsys, "compare", "--against", "1", tmp_path / "better.parquet",
                         "--history", history, "--format", "json")
    document = json.loads(out)
    assert status == 0 and document["baseline"] == "run 1 (base)"
    assert document["metrics"][0]["newly_passing"] == 1
    assert document["metrics"][0]["improved"] == 1
    status, out, _ = run(capsys, "compare", "--against", "last", tmp_path / "better.parquet",
                         "--history", history)
    assert status == 0 and "0 improved, 0 regressed, 3 unchanged" in out
    # Two saved runs, as files.
    status, out, _ = run(capsys, "compare", tmp_path / "base.jsonl", tmp_path / "better.parquet")
    assert status == 0 and "1 improved, 0 regressed, 2 unchanged" in out


@pytest.mark.parametrize("argv, message", [
    (["--against", "last"], "the baseline is that run of the history; expected one file"),
    (["--against", "last", "a.jsonl", "b.jsonl"], "expected one file, the CANDIDATE, got 2"),
    (["--against", "9", "CASES"], "no run 9; the history has 1 run."),
    (["--against", "newest", "CASES"], "expected a run's id (3), 'last' or 'last~N'"),
    (["CASES"], "expected two files, BASELINE and CANDIDATE, got 1"),
])
def test_compare_against_usage_errors_exit_2(capsys, tmp_path, cases_file, argv, message):
    history = tmp_path / "h.sqlite"
    run(capsys, "evaluate", cases_file, "--save", tmp_path / "base.jsonl", "--history", history)
    argv = [str(cases_file) if arg == "CASES" else arg for arg in argv]
    status, out, err = run(capsys, "compare", *argv, "--history", history)
    assert status == 2 and out == "" and message in err and "Traceback" not in err


def test_compare_against_a_run_whose_file_is_gone(capsys, tmp_path, cases_file):
    history = tmp_path / "h.sqlite"
    run(capsys, "evaluate", cases_file, "--save", tmp_path / "base.jsonl", "--history", history)
    os.remove(tmp_path / "base.jsonl")
    status, out, err = run(capsys, "compare", "--against", "last", cases_file, "--history",
                           history)
    assert status == 2 and f"run 1's saved file {tmp_path / 'base.jsonl'} is gone" in err
