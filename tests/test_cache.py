"""Issue 24: a cache never serves another case's score, and a cache failure
never loses a run.

The key is a hash of a canonical, type-tagged encoding (agentmetrics.model._canonical):
checked here against a small independent reference (type-strict structural
equality), with hypothesis; the file is checked for what it is (foreign,
tampered, another format); a write that fails (locked, read-only) is a
warning with a count and the scores stay in the result.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
import sqlite3
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics import AgentTestCase, CacheError, CacheWarning, Metric, ToolCall, evaluate
from agentmetrics.engine._cache import FORMAT, CacheStats, ScoreCache, case_keys, metric_identity
from agentmetrics.model._canonical import Unencodable, encode


class Echo(Metric):
    """Scores a case by what its first call's arguments hold: a cache that
    served another case's score would show the wrong value."""

    name = "echo"
    required_fields = ("tool_calls",)
    concurrency = "async"

    def __init__(self, threshold=None, salt="x"):
        super().__init__(threshold)
        self.salt = salt
        self.scored = 0

    async def ameasure(self, case):
        self.scored += 1
        text = repr(sorted(case.tool_calls[0].arguments.items(), key=repr)) if case.tool_calls else ""
        return (sum(map(ord, text)) % 97) / 96, f"arguments {text[:80]}"


def call_case(arguments, i=0):
    return AgentTestCase(input="q", tool_calls=[ToolCall("f", arguments)], expected_tool_calls=["f"],
                         metadata={"id": f"c{i}"})


def direct(metric, case):
    return asyncio.run(metric.ameasure(case))[0]


# --- the key: a reference of type-strict equality ------------------------------------------------

def same(a, b):
    """Independent reference: the same value of the same type, all the way down."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a.hex() == b.hex()
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        if len(a) != len(b):
            return False
        unmatched = list(b.items())
        for key, value in a.items():
            for index, (other_key, other_value) in enumerate(unmatched):
                if same(key, other_key) and same(value, other_value):
                    del unmatched[index]
                    break
            else:
                return False
        return True
    return a == b


scalars = (st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=True, width=64)
           | st.sampled_from([0.0, -0.0, 1.0, 1, "1", True]) | st.text(max_size=3)
           | st.binary(max_size=2))
keys = st.integers(-2, 2) | st.text(max_size=2) | st.sampled_from(["1", 1, True, 1.0])
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.lists(inner, max_size=3).map(tuple)
                      | st.dictionaries(keys, inner, max_size=3), max_leaves=8)


@settings(max_examples=400, deadline=None)
@given(values, values)
def test_two_values_share_an_encoding_only_if_they_are_the_same_value(a, b):
    assert (encode(a) == encode(b)) == same(a, b)


@settings(max_examples=200, deadline=None)
@given(values)
def test_an_encoding_is_the_same_whatever_the_insertion_order(a):
    def shuffled(value):
        if isinstance(value, dict):
            return {key: shuffled(item) for key, item in reversed(list(value.items()))}
        if isinstance(value, list):
            return [shuffled(item) for item in value]
        return value

    assert encode(shuffled(a)) == encode(a)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=3), values, max_size=3),
       st.dictionaries(st.text(max_size=3), values, max_size=3))
def test_two_cases_with_different_arguments_never_share_a_key(a, b):
    first, second = case_keys(Echo(), [call_case(a), call_case(b)])
    assert first is not None and second is not None
    assert (first == second) == same(a, b)


def test_int_and_str_keys_are_different_keys_and_a_mix_of_them_is_keyed(tmp_path):
    metric = Echo()
    int_key, str_key = call_case({"q": {1: "a"}}), call_case({"q": {"1": "a"}})
    assert len(set(case_keys(metric, [int_key, str_key]))) == 2
    mixed = call_case({"q": {1: "a", "1": "b"}})  # json.dumps(sort_keys=True) raises TypeError here
    result = evaluate([int_key, str_key, mixed], metric, errors="record", cache=tmp_path / "c.sqlite")
    assert result["echo"].errors == {}
    again = Echo()
    rerun = evaluate([str_key, int_key, mixed], again, cache=tmp_path / "c.sqlite")
    assert again.scored == 0 and rerun.cache_stats["echo"] == CacheStats(hits=3, misses=0)
    assert rerun["echo"].values.tolist() == [direct(again, c) for c in (str_key, int_key, mixed)]


def test_numpy_and_pandas_values_are_keyed_by_content_not_by_repr(tmp_path):
    pandas = pytest.importorskip("pandas")
    a = np.arange(5000.0)
    b = a.copy()
    b[2500] = -1.0
    assert repr(a) == repr(b)  # shortened with ...: the old key could not tell them apart
    series_a, series_b = pandas.Series(a), pandas.Series(b)
    assert repr(series_a) == repr(series_b)
    metric = Echo()
    cases = [call_case({"v": a}, 0), call_case({"v": b}, 1), call_case({"v": series_a}, 2),
             call_case({"v": series_b}, 3), call_case({"v": a.astype(np.float32)}, 4),
             call_case({"v": pandas.DataFrame({"x": a})}, 5),
             call_case({"v": pandas.DataFrame({"x": b})}, 6)]
    found = case_keys(metric, cases)
    assert None not in found and len(set(found)) == len(cases)
    assert case_keys(metric, [call_case({"v": a.copy()})]) == found[:1]


def test_floats_are_keyed_exactly():
    assert encode(0.1 + 0.2) != encode(0.3)
    assert encode(0.0) != encode(-0.0) and encode(1) != encode(1.0) != encode(True)
    assert encode(math.nan) == encode(float("nan"))
    assert encode(np.float64(1.0)) != encode(np.float32(1.0)) != encode(1.0)


def test_a_value_with_no_faithful_encoding_is_scored_and_counted_never_keyed(tmp_path):
    class Opaque:
        def __repr__(self):
            return "Opaque()"  # every instance prints alike

    path = tmp_path / "c.sqlite"
    cases = [call_case({"v": Opaque()}, 0), call_case({"v": Opaque()}, 1), call_case({"v": 1}, 2)]
    assert case_keys(Echo(), cases)[:2] == [None, None]
    with pytest.raises(Unencodable, match=r"\['v'\]: a .*Opaque has no faithful encoding"):
        encode({"v": Opaque()})
    metric = Echo()
    result = evaluate(cases, metric, cache=path)
    assert result.cache_stats["echo"] == CacheStats(hits=0, misses=1, uncacheable=2)
    again = Echo()
    rerun = evaluate(cases, again, cache=path)
    assert again.scored == 2 and rerun.cache_stats["echo"] == CacheStats(hits=1, misses=0, uncacheable=2)
    assert repr(rerun.cache_stats["echo"]) == "CacheStats(hits=1, misses=0, uncacheable=2)"


def test_a_parameter_with_no_faithful_encoding_caches_nothing_and_says_why(tmp_path):
    metric = Echo(salt=lambda text: text)
    assert metric_identity(metric) is None
    with pytest.warns(CacheWarning, match=r"echo's scores are not cached: its parameter 'salt' is "
                                          r"a builtins.function"):
        result = evaluate([call_case({"a": 1})], metric, cache=tmp_path / "c.sqlite")
    assert result.cache_stats["echo"] == CacheStats(hits=0, misses=0, uncacheable=1)
    with ScoreCache(tmp_path / "c.sqlite") as cache:
        assert len(cache) == 0


def test_secrets_and_excluded_parameters_are_not_in_the_identity():
    class Keyed(Echo):
        name = "keyed"
        secret_params = ("salt",)

    assert metric_identity(Keyed(salt="sk-one-aaaaaaaa")) == metric_identity(Keyed(salt="sk-two-bbbbbbbb"))
    assert metric_identity(Echo(salt="a")) != metric_identity(Echo(salt="b"))


# --- the file: what it is ------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["", "   ", ":memory:", "file:x?mode=memory"])
def test_a_path_that_is_no_file_is_refused(path):
    with pytest.raises(CacheError, match=r"expected the path of a cache file.*Fix"):
        evaluate([call_case({})], Echo(), cache=path)


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(CacheError, match="is a directory"):
        ScoreCache(tmp_path)


def test_another_programs_database_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE users (id INTEGER, name TEXT)")
    before = path.read_bytes()
    with pytest.raises(CacheError, match=r"holds tables of another program \(users\).*new file"):
        evaluate([call_case({})], Echo(), cache=path)
    assert path.read_bytes() == before


def test_a_scores_table_of_another_shape_is_refused(tmp_path):
    path = tmp_path / "scores.sqlite"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE scores (key TEXT, score TEXT)")
    with pytest.raises(CacheError, match=r"columns \['key', 'score'\].*Fix"):
        ScoreCache(path)


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    path = tmp_path / "scores.sqlite"
    path.write_bytes(b"this is not sqlite\n" * 100)
    with pytest.raises(CacheError, match=r"is not an SQLite database.*delete"):
        ScoreCache(path)


def test_a_cache_of_another_format_is_refused(tmp_path):
    path = tmp_path / "scores.sqlite"
    ScoreCache(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE meta SET value = 'agentmetrics-score-cache/99'")
    with pytest.raises(CacheError, match=r"format 'agentmetrics-score-cache/99'; expected"):
        ScoreCache(path)


def test_a_cache_of_the_first_format_is_read_and_its_old_keys_never_match(tmp_path):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as connection:  # what agentmetrics before issue 24 wrote
        connection.execute("CREATE TABLE scores (key TEXT PRIMARY KEY, metric TEXT NOT NULL, version "
                           "TEXT NOT NULL, value REAL NOT NULL, reason TEXT NOT NULL, created REAL NOT NULL)")
        connection.execute("INSERT INTO scores VALUES (?, 'm', '1', 0.5, 'old', 0)", ("0" * 64,))
    result = evaluate([call_case({"a": 1})], Echo(), cache=path)
    assert result.cache_stats["echo"] == CacheStats(hits=0, misses=1)
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT value FROM meta").fetchone()[0] == FORMAT


@pytest.mark.parametrize("change", ["value = 5.0", "value = -0.5", "reason = ''", "value = 'high'",
                                    "key = 'not-a-key'"])
def test_a_tampered_row_is_a_cache_error_not_a_metric_bug(tmp_path, change):
    path = tmp_path / "scores.sqlite"
    case = call_case({"a": 1})
    evaluate([case], Echo(), cache=path)
    with sqlite3.connect(path) as connection:
        if change.startswith("key"):
            connection.execute("INSERT INTO scores SELECT 'not-a-key', metric, version, value, reason, "
                               "created FROM scores")
            connection.execute("UPDATE scores SET value = 0.5 WHERE key = 'not-a-key'")
        else:
            connection.execute(f"UPDATE scores SET {change}")
    with ScoreCache(path) as cache:
        keys = case_keys(Echo(), [case]) + (["not-a-key"] if change.startswith("key") else [])
        with pytest.raises(CacheError, match=r"holds a row agentmetrics did not write.*delete") as info:
            cache.get_many(keys)
    assert "metric bug" not in str(info.value) and str(path) in str(info.value)
    if not change.startswith("key"):
        with pytest.raises(CacheError, match="did not write"):
            evaluate([case], Echo(), errors="record", cache=path)


# --- failures while running: never a lost run ------------------------------------------------------

def test_a_write_to_a_locked_cache_is_a_warning_and_the_scores_stay(tmp_path):
    path = tmp_path / "scores.sqlite"
    cases = [call_case({"a": i}, i) for i in range(30)]
    ScoreCache(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process holds the write lock past the timeout
    try:
        metric = Echo()
        with ScoreCache(path, timeout=0.05) as cache, pytest.warns(
                CacheWarning, match=r"could not write to .*locked.*30 of echo's scores were not saved"):
            result = evaluate(cases, metric, errors="record", cache=cache)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result["echo"].errors == {} and metric.scored == 30
    assert result["echo"].values.tolist() == [direct(metric, case) for case in cases]
    assert result.cache_stats["echo"] == CacheStats(hits=0, misses=30, unwritten=30)
    again = evaluate(cases, Echo(), cache=path)  # nothing was written: scored again, and kept now
    assert again.cache_stats["echo"] == CacheStats(hits=0, misses=30)
    assert evaluate(cases, Echo(), cache=path).cache_stats["echo"].hits == 30


def _immutable(path):
    """Make ``path`` read-only for this process, root included; returns the undo."""
    if os.geteuid() != 0:
        os.chmod(path, 0o444)
        return lambda: os.chmod(path, 0o644)
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot make a file read-only as root here: {done.stderr.decode().strip()}")
    return lambda: subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_read_only_cache_serves_its_scores_and_warns_for_the_new_ones(tmp_path):
    path = tmp_path / "scores.sqlite"
    old = [call_case({"a": i}, i) for i in range(10)]
    evaluate(old, Echo(), cache=path)
    undo = _immutable(path)
    try:
        new = [call_case({"b": i}, 10 + i) for i in range(4)]
        metric = Echo()
        with pytest.warns(CacheWarning, match=r"readonly.*4 of echo's scores were not saved"):
            result = evaluate(old + new, metric, errors="record", cache=path)
    finally:
        undo()
    assert result.cache_stats["echo"] == CacheStats(hits=10, misses=4, unwritten=4)
    assert metric.scored == 4 and result["echo"].errors == {}
    assert result["echo"].values.tolist() == [direct(metric, case) for case in old + new]


def _write_many(path, offset):
    cases = [call_case({"a": i}, i) for i in range(offset, offset + 300)]
    result = evaluate(cases, Echo(), cache=ScoreCache(path, timeout=60), concurrency=4)
    assert result["echo"].errors == {}


def test_two_processes_writing_at_once_lose_nothing_and_mix_nothing(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    ScoreCache(path).close()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_write_many, args=(path, offset)) for offset in (0, 150)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
        assert worker.exitcode == 0
    cases = [call_case({"a": i}, i) for i in range(450)]
    metric = Echo()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = evaluate(cases, metric, cache=path)
    assert metric.scored == 0 and result.cache_stats["echo"].hits == 450
    assert result["echo"].values.tolist() == [direct(metric, case) for case in cases]


def test_the_cache_file_holds_no_case_text_and_no_parameter(tmp_path):
    path = tmp_path / "c.sqlite"
    evaluate([call_case({"token": "visible-argument-123"})], Echo(salt="visible-salt-456"), cache=path)
    for name in os.listdir(tmp_path):
        data = (tmp_path / name).read_bytes()
        assert b"visible-argument-123" not in data.replace(b"arguments [('token', 'visible-argument-123')]", b"")
        assert b"visible-salt-456" not in data


def test_the_cli_refuses_an_empty_cache_path(tmp_path, capsys):
    from agentmetrics.cli import main

    data = tmp_path / "cases.jsonl"
    data.write_text('{"tool_calls": ["a"], "expected_tool_calls": ["a"]}\n')
    assert main(["evaluate", str(data), "--cache", ""]) == 2
    err = capsys.readouterr().err
    assert "expected the path of a cache file" in err and "Traceback" not in err
    assert sys.exc_info() == (None, None, None)


# --- the review of issue 24 (C1-C6) --------------------------------------------------------------

class Present(Metric):
    """The share of a tool output's readings that are present (not masked)."""

    name = "present"
    concurrency = "async"

    async def ameasure(self, case):
        output = case.tool_calls[0].output
        return float(np.ma.count(output)) / output.size, f"{np.ma.count(output)} present"


def output_case(output, i=0):
    return AgentTestCase(input="q", tool_calls=[ToolCall("Read", {}, output=output)],
                         metadata={"id": f"c{i}"})


def test_masked_arrays_are_keyed_with_their_mask_and_fill_value(tmp_path):
    # C1: the mask was left out: the second case was served the first one's 1.0 (fresh: 0.5).
    full = np.ma.array([1.0, 2.0, 3.0, 4.0])
    holes = np.ma.array([1.0, 2.0, 3.0, 4.0], mask=[0, 1, 1, 0])
    filled = np.ma.array([1.0, 2.0, 3.0, 4.0], mask=[0, 1, 1, 0], fill_value=-1.0)
    hard = np.ma.array([1.0, 2.0, 3.0, 4.0], mask=[0, 1, 1, 0], hard_mask=True)
    values = [full, holes, filled, hard, np.array([1.0, 2.0, 3.0, 4.0])]
    keys = case_keys(Present(), [output_case(value) for value in values])
    assert None not in keys and len(set(keys)) == len(values)
    assert encode(np.ma.masked) != encode(np.ma.array(0.0, mask=True))
    assert case_keys(Present(), [output_case(holes.copy())]) == keys[1:2]
    path = tmp_path / "c.sqlite"
    evaluate([output_case(full)], Present(), cache=path)
    again = evaluate([output_case(holes)], Present(), cache=path)
    assert again["present"].values.tolist() == [0.5] and again.cache_stats["present"].hits == 0


def test_numpy_subclasses_are_told_apart_or_not_cached():
    # C1: np.matrix and ndarray shared a key; a subclass of unknown state is never keyed.
    class Tagged(np.ndarray):
        pass

    data = np.array([[1, 2], [3, 4]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)  # np.matrix is discouraged
        matrix = np.matrix(data)
    keys = case_keys(Present(), [output_case(matrix), output_case(data),
                                 output_case(data.view(np.recarray)), output_case(data.view(Tagged))])
    assert keys[3] is None and None not in keys[:3] and len(set(keys[:3])) == 3
    with pytest.raises(Unencodable, match=r"Tagged has no faithful encoding"):
        encode(data.view(Tagged))


def test_pandas_categoricals_are_keyed_with_their_categories_and_order():
    # C2: keyed by "category" and the values: [a, b] of [a, b] and of [a, b, c, d] shared a key.
    pandas = pytest.importorskip("pandas")
    kinds = [pandas.CategoricalDtype(["a", "b"]), pandas.CategoricalDtype(["a", "b", "c", "d"]),
             pandas.CategoricalDtype(["b", "a"]), pandas.CategoricalDtype(["a", "b"], ordered=True)]
    outputs = [pandas.Series(["a", "b"], dtype=kind) for kind in kinds]
    outputs += [pandas.CategoricalIndex(["a", "b"], dtype=kind) for kind in kinds]
    outputs += [pandas.DataFrame({"x": pandas.Series(["a", "b"], dtype=kind)}) for kind in kinds]
    keys = case_keys(Present(), [output_case(output) for output in outputs])
    assert None not in keys and len(set(keys)) == len(outputs)
    same = pandas.Series(["a", "b"], dtype=pandas.CategoricalDtype(["a", "b", "c", "d"]))
    assert case_keys(Present(), [output_case(same)]) == keys[1:2]


@pytest.mark.parametrize("planted", [
    "CREATE TRIGGER flip AFTER INSERT ON scores BEGIN UPDATE scores SET value = 1.0 - NEW.value "
    "WHERE key = NEW.key; END",
    "CREATE VIEW recent AS SELECT * FROM scores",
    "CREATE INDEX by_metric ON scores (metric)",
    "CREATE TABLE extra (x)",
])
def test_a_cache_file_with_a_schema_object_agentmetrics_never_creates_is_refused(tmp_path, planted):
    # C3: a trigger planted in the file rewrote every score written; the next run served it.
    path = tmp_path / "scores.sqlite"
    evaluate([call_case({"a": 1})], Echo(), cache=path)
    with sqlite3.connect(path) as connection:
        connection.execute(planted)
    with pytest.raises(CacheError, match=rf"{path}.*(never creates|another program).*Fix"):
        evaluate([call_case({"a": 2})], Echo(), cache=path)


@pytest.mark.parametrize("change", ["metric = 'somebody_else:Other'", "version = '999'"])
def test_a_row_filed_under_another_metric_or_version_is_never_served(tmp_path, change):
    # C3: the docstring promised it; the rows were served.
    path = tmp_path / "scores.sqlite"
    cases = [call_case({"a": 1}, 0), call_case({"a": 2}, 1)]
    evaluate(cases, Echo(), cache=path)
    with sqlite3.connect(path) as connection:
        connection.execute(f"UPDATE scores SET {change}")
    with pytest.raises(CacheError, match=r"holds a row agentmetrics did not write: key .* is filed "
                                         r"under .*; expected '.*:Echo' version '1'.*Fix"):
        evaluate(cases, Echo(), cache=path)


class Reached(Echo):
    """Reaches a service by URL: its credentials must not change the key."""

    name = "reached"

    def __init__(self, threshold=None, salt="x", base_url="https://judge.example/v1"):
        super().__init__(threshold, salt)
        self.base_url = base_url


def test_url_credentials_are_left_out_of_the_cache_key():
    # C4: the password of base_url was hashed into the key: a 4-digit one was recovered
    # offline from the key and the case in under 10,000 guesses.
    case = [call_case({"id": 7})]
    bare = case_keys(Reached(), case)
    for url in ("https://svc:4711@judge.example/v1", "https://svc:9999@judge.example/v1",
                "https://other-user:9999@judge.example/v1", "https://judge.example/v1?api_key=4711"):
        assert case_keys(Reached(base_url=url), case) == bare, url
    with_query = "https://judge.example/v1?api_key=4711&model=a"
    assert case_keys(Reached(base_url=with_query), case) == case_keys(
        Reached(base_url="https://judge.example/v1?api_key=0000&model=a"), case)
    # What may change a score stays in the key: the host, the path, other query values.
    for url in ("https://other.example/v1", "https://judge.example/v2",
                "https://judge.example/v1?api_key=4711&model=b"):
        assert case_keys(Reached(base_url=url), case) != bare, url
    assert case_keys(Reached(base_url=with_query), case) != case_keys(
        Reached(base_url="https://judge.example/v1?api_key=4711&model=b"), case)
    # Inside other parameters too, as the URL without its credentials.
    listed = Reached(salt=["https://svc:4711@judge.example/v1?token=1&model=a"])
    assert metric_identity(listed) == metric_identity(
        Reached(salt=["https://judge.example/v1?model=a"]))


class TurnJudge(Metric):
    """Reads the turns (required), with cache_fields that leave them out."""

    name = "turn_judge"
    required_fields = ("turns",)
    cache_fields = ("input", "tool_calls")
    concurrency = "async"

    async def ameasure(self, case):
        called = sum(1 for turn in case.turns if turn.tool_calls)
        return called / len(case.turns), f"{called} of {len(case.turns)} turns called a tool"


def test_a_field_the_metric_requires_is_keyed_even_if_cache_fields_leaves_it_out(tmp_path):
    # C5: a metric needing turns, with cache_fields leaving them out, was served another case's 1.0.
    good = AgentTestCase(input="task", turns=[AgentTestCase(tool_calls=["A"]),
                                              AgentTestCase(tool_calls=["B"])])
    bad = AgentTestCase(input="task", turns=[AgentTestCase(tool_calls=[]),
                                             AgentTestCase(tool_calls=[])])
    assert "turns" not in TurnJudge.cache_fields
    assert len(set(case_keys(TurnJudge(), [good, bad]))) == 2
    path = tmp_path / "c.sqlite"
    evaluate([good], TurnJudge(), cache=path)
    again = evaluate([bad], TurnJudge(), cache=path)
    assert again["turn_judge"].values.tolist() == [0.0]
    # The built-in per_turn reads turns too.
    keys = case_keys(agentmetrics_per_turn(), [good, bad])
    assert None not in keys and len(set(keys)) == 2


def agentmetrics_per_turn():
    from agentmetrics import get_metric

    return get_metric("per_turn", metric="tool_selection_accuracy")


def make_word_judge(word):
    class Judge(Metric):
        name = "word_judge"
        concurrency = "async"

        async def ameasure(self, case):
            return (1.0, f"says {word}") if word in case.input else (0.0, f"no {word}")

    return Judge


def test_metric_classes_made_inside_a_function_are_not_cached(tmp_path):
    # C5: a factory's classes share make.<locals>.Judge, version and parameters: the
    # "thanks" judge was served the "please" judge's 1.0.
    path = tmp_path / "c.sqlite"
    case = [AgentTestCase(input="please wait")]
    with pytest.warns(CacheWarning, match=r"its class make_word_judge.<locals>.Judge is defined "
                                          r"inside a function.*Fix: define the class at module "
                                          r"level"):
        evaluate(case, make_word_judge("please")(), cache=path)
    with pytest.warns(CacheWarning):
        result = evaluate(case, make_word_judge("thanks")(), cache=path)
    assert result["word_judge"].values.tolist() == [0.0]
    assert result.cache_stats["word_judge"] == CacheStats(hits=0, misses=0, uncacheable=1)
    assert metric_identity(make_word_judge("please")()) is None


def test_a_path_with_a_nul_character_is_a_cache_error():
    # C6: a bare ValueError ("embedded null byte").
    with pytest.raises(CacheError, match=r"got '\\x00', which holds a NUL character.*Fix"):
        evaluate([call_case({})], Echo(), cache="\0")
    with pytest.raises(CacheError, match="NUL character"):
        ScoreCache("scores\0.sqlite")


class ReferenceAnswer(Metric):
    """Compares the output with a reference kept in metadata, with the default cache_fields."""

    name = "reference_answer"
    concurrency = "async"

    async def ameasure(self, case):
        same = case.actual_output == case.metadata.get("expected_output")
        return float(same), "the same answer" if same else "another answer"


def test_a_reference_in_metadata_is_keyed_by_default(tmp_path):
    # Issue 51 (6): the default key left metadata out, and the cached 1.0 of the old
    # reference was served after the reference changed (0.0 without the cache).
    before = AgentTestCase(actual_output="Paris", metadata={"expected_output": "Paris"})
    after = AgentTestCase(actual_output="Paris", metadata={"expected_output": "Lyon"})
    assert "metadata" in ReferenceAnswer.cache_fields
    assert len(set(case_keys(ReferenceAnswer(), [before, after]))) == 2
    path = tmp_path / "c.sqlite"
    assert evaluate([before], ReferenceAnswer(), cache=path)["reference_answer"].values.tolist() == [1.0]
    again = evaluate([after], ReferenceAnswer(), cache=path)
    assert again["reference_answer"].values.tolist() == [0.0]
    assert evaluate([after], ReferenceAnswer())["reference_answer"].values.tolist() == [0.0]
