"""Corpus-level aggregates: declared reducers, exact merging on every split,
intervals against scipy/statsmodels-free references written here, bad declarations."""

from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction
from typing import ClassVar

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics import AgentTestCase, InvalidMetricError, Metric, evaluate
from agentmetrics.corpus import Maximum, Minimum, Quantile, Ratio, Total
from agentmetrics.results._aggregate import Aggregate, merge


class SecondsMetric(Metric):
    """A latency in seconds, with every value reducer."""

    name = "seconds_for_corpus"
    inputs = ("latency",)
    value_range = (0.0, math.inf)
    unit = "s"
    higher_is_better = False
    default_threshold = 2.5
    aggregates: ClassVar = {"p50": Quantile(0.5), "p95": Quantile(0.95), "max": Maximum(),
                  "min": Minimum(), "total": Total()}

    def measure(self, case):
        return case.latency, f"took {case.latency} s"


class PooledF1(Metric):
    """Per-case F1 of names with pooled (micro) aggregates."""

    name = "pooled_f1_for_corpus"
    required_fields = ("tool_calls", "expected_tool_calls")
    statistics = ("matched", "called", "expected")
    aggregates: ClassVar = {"micro_precision": Ratio("matched", "called"),
                  "micro_recall": Ratio("matched", "expected"),
                  "micro_f1": Ratio("matched", ("called", "expected"), scale=2.0)}

    def measure(self, case):
        called, expected = Counter(case.tool_names), Counter(case.expected_tool_names)
        matched = sum((called & expected).values())
        size = len(case.tool_names) + len(case.expected_tool_names)
        f1 = 1.0 if size == 0 else 2 * matched / size
        return f1, f"{matched} matched", {"matched": matched, "called": len(case.tool_names),
                                           "expected": len(case.expected_tool_names)}


def _cases(seed: int, n: int) -> list[AgentTestCase]:
    rng = np.random.default_rng(seed)
    tools = list("abcd")
    return [AgentTestCase(tool_calls=list(rng.choice(tools, rng.integers(0, 4))),
                          expected_tool_calls=list(rng.choice(tools, rng.integers(0, 4))),
                          latency=float(rng.exponential(2.0)))
            for _ in range(n)]


# -- the reference, written independently ---------------------------------------


def _reference(cases: list[AgentTestCase]) -> dict[tuple[str, str], float]:
    latencies = sorted(case.latency for case in cases)

    def quantile(q: float) -> float:  # the definition: linear between order statistics
        position = Fraction(q) * (len(latencies) - 1)
        below = int(position)
        above = min(below + 1, len(latencies) - 1)
        low, high = latencies[below], latencies[above]
        return low + (high - low) * float(position - below) if position != below else low

    matched = called = expected = 0
    for case in cases:
        a, b = Counter(case.tool_names), Counter(case.expected_tool_names)
        matched += sum((a & b).values())
        called += len(case.tool_names)
        expected += len(case.expected_tool_names)
    return {
        ("seconds_for_corpus", "p50"): quantile(0.5),
        ("seconds_for_corpus", "p95"): quantile(0.95),
        ("seconds_for_corpus", "max"): max(latencies),
        ("seconds_for_corpus", "min"): min(latencies),
        ("seconds_for_corpus", "total"): math.fsum(latencies),
        ("pooled_f1_for_corpus", "micro_precision"): matched / called if called else math.nan,
        ("pooled_f1_for_corpus", "micro_recall"): matched / expected if expected else math.nan,
        ("pooled_f1_for_corpus", "micro_f1"):
            2 * matched / (called + expected) if called + expected else math.nan,
    }


def _values(table) -> dict[tuple[str, str], float]:
    return {(row["metric"], row["aggregate"]): row["value"] for row in table}


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def test_the_aggregates_equal_the_reference():
    cases = _cases(1, 500)
    table = evaluate(cases, [SecondsMetric(), PooledF1()]).aggregates()
    assert table.columns == ("metric", "aggregate", "value", "low", "high", "n", "note")
    found, expected = _values(table), _reference(cases)
    assert found.keys() == expected.keys()
    for key, value in expected.items():
        assert _same(found[key], value), key
    # numpy agrees on its own definition of the quantile (to its rounding)
    latencies = [case.latency for case in cases]
    assert found["seconds_for_corpus", "p95"] == pytest.approx(np.quantile(latencies, 0.95),
                                                              rel=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 120), st.lists(st.integers(1, 119), max_size=5))
def test_every_split_merges_to_the_same_aggregates_bit_for_bit(seed, n, cuts):
    cases = _cases(seed, n)
    metrics = [SecondsMetric(), PooledF1()]
    whole = evaluate(cases, metrics)
    bounds = sorted({0, n, *(cut for cut in cuts if cut < n)})
    parts = [Aggregate.from_result(evaluate(cases[a:b], metrics))
             for a, b in zip(bounds, bounds[1:])]
    # through the JSON an engine sends, and a merge tree of any shape
    parts = [Aggregate.from_json(part.to_json()) for part in parts]
    merged = merge(parts, split_every=2)
    assert merged.aggregates().rows == whole.aggregates().rows or all(
        all(_same(x, y) if isinstance(x, float) else x == y for x, y in zip(r1, r2))
        for r1, r2 in zip(merged.aggregates().rows, whole.aggregates().rows))
    expected = _reference(cases)
    for key, value in _values(whole.aggregates()).items():
        assert _same(value, expected[key]), key


def test_the_partition_merge_gives_the_table_of_one_batch():
    from agentmetrics import partition

    cases = _cases(7, 300)
    metrics = [SecondsMetric(), PooledF1()]
    pieces = [partition.aggregate(cases[i:i + 64], metrics) for i in range(0, 300, 64)]
    merged = partition.merge(pieces, metrics)
    assert merged.aggregates().rows == evaluate(cases, metrics).aggregates().rows


def test_an_aggregate_over_no_scored_case_is_nan_with_a_reason():
    cases = [AgentTestCase(tool_calls=[])]  # no latency: an error row, never a 0
    result = evaluate(cases, [SecondsMetric()], errors="record")
    rows = list(result.aggregates())
    assert {row["aggregate"] for row in rows} == {"p50", "p95", "max", "min", "total"}
    for row in rows:
        assert math.isnan(row["value"]) and row["n"] == 0
        assert row["note"] == "no case was scored"


def test_a_ratio_over_a_zero_denominator_is_nan_with_a_reason():
    result = evaluate([AgentTestCase(tool_calls=[], expected_tool_calls=["a"])], [PooledF1()])
    row = next(r for r in result.aggregates() if r["aggregate"] == "micro_precision")
    assert math.isnan(row["value"]) and row["note"] == "the sum of called is 0"
    row = next(r for r in result.aggregates() if r["aggregate"] == "micro_recall")
    assert row["value"] == 0.0


def test_error_rows_are_left_out_of_every_aggregate():
    cases = _cases(3, 50)
    broken = cases[:10] + [AgentTestCase(tool_calls=["a"])] * 5 + cases[10:]
    result = evaluate(broken, [SecondsMetric()], errors="record")
    assert _values(result.aggregates()) == _values(evaluate(cases, [SecondsMetric()])
                                                   .aggregates())


def test_the_quantile_interval_is_the_binomial_order_statistics_interval():
    from scipy.stats import binom

    cases = _cases(11, 401)
    table = evaluate(cases, [SecondsMetric()]).aggregates(ci=0.9)
    ordered = sorted(case.latency for case in cases)
    n = len(ordered)
    for row in table:
        if row["aggregate"] not in ("p50", "p95"):
            assert math.isnan(row["low"]) and math.isnan(row["high"])
            continue
        q = {"p50": 0.5, "p95": 0.95}[row["aggregate"]]
        ranks = range(n + 2)
        low_rank = max(k for k in ranks if binom.cdf(k - 1, n, q) <= 0.05)
        high_rank = min(k for k in ranks if binom.cdf(k - 1, n, q) >= 0.95)
        assert row["low"] == ordered[low_rank - 1]
        assert row["high"] == ordered[high_rank - 1]
        # coverage: the interval holds at least 90% of the binomial mass
        assert binom.cdf(high_rank - 1, n, q) - binom.cdf(low_rank - 1, n, q) >= 0.9


def test_the_ratio_interval_is_the_delta_method_interval():
    from scipy.stats import norm

    cases = _cases(5, 800)
    table = evaluate(cases, [PooledF1()]).aggregates(ci=0.95)
    matched = np.array([sum((Counter(c.tool_names) & Counter(c.expected_tool_names)).values())
                        for c in cases], dtype=float)
    called = np.array([len(c.tool_names) for c in cases], dtype=float)
    ratio = matched.sum() / called.sum()
    residual = matched - ratio * called
    se = math.sqrt(residual.var(ddof=1) / len(cases)) / called.mean()
    row = next(r for r in table if r["aggregate"] == "micro_precision")
    half = norm.ppf(0.975) * se
    assert row["low"] == pytest.approx(ratio - half, rel=1e-9)
    assert row["high"] == pytest.approx(ratio + half, rel=1e-9)


def test_ci_none_leaves_the_intervals_out():
    table = evaluate(_cases(2, 30), [SecondsMetric()]).aggregates(ci=None)
    assert all(math.isnan(row["low"]) and math.isnan(row["high"]) for row in table)
    assert table.title == "Corpus aggregates"


def test_a_metric_without_aggregates_has_no_rows():
    from agentmetrics import ToolSelectionAccuracy

    result = evaluate(_cases(2, 10), [ToolSelectionAccuracy()])
    assert len(result.aggregates()) == 0


def test_dask_gives_the_same_aggregates(tmp_path):
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("pyarrow")
    from agentmetrics import dask as am_dask

    cases = _cases(9, 240)
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps({
        "tool_calls": list(c.tool_names), "expected_tool_calls": list(c.expected_tool_names),
        "latency": c.latency}) + "\n" for c in cases), encoding="utf-8")
    metrics = [SecondsMetric(), PooledF1()]
    run = am_dask.evaluate(str(path), metrics, partition_rows=50)
    assert run.aggregates().rows == evaluate(cases, metrics).aggregates().rows


# -- the statistics contract ------------------------------------------------------


class _Counting(Metric):
    name = "counting_for_corpus"
    statistics = ("hits",)
    aggregates: ClassVar = {"rate": Ratio("hits", "hits")}

    def __init__(self, give=None, threshold=None):
        super().__init__(threshold)
        self.give = give

    def measure(self, case):
        return 1.0, "ok", self.give


@pytest.mark.parametrize("give", [None, {}, {"hits": 1.0, "other": 2.0}, {"hits": math.nan},
                                  {"hits": "1"}, {"hits": True}])
def test_statistics_that_break_the_declaration_are_the_metrics_bug(give):
    with pytest.raises(InvalidMetricError, match="statistic"):
        _Counting(give).evaluate(AgentTestCase(tool_calls=[]))


def test_a_measure_without_its_statistics_is_the_metrics_bug():
    class Pair(_Counting):
        name = "pair_for_corpus"

        def measure(self, case):
            return 1.0, "ok"

    with pytest.raises(InvalidMetricError, match=r"\(value, reason, statistics\) triple"):
        Pair().evaluate(AgentTestCase(tool_calls=[]))


def test_a_batch_without_its_statistics_is_the_metrics_bug():
    from agentmetrics.model._metric_result import MetricResult

    class Batched(_Counting):
        name = "batched_for_corpus"

        def evaluate_batch(self, batch, *, errors="raise"):
            n = len(batch)
            return MetricResult(self, np.ones(n), np.ones(n, dtype=bool), {},
                                lambda row: "ok", statistics={"hits": np.ones(n, dtype=int)})

    with pytest.raises(InvalidMetricError, match="statistic 'hits' as"):
        evaluate([AgentTestCase(tool_calls=[])], [Batched({"hits": 1.0})])


@pytest.mark.parametrize(("attributes", "match"), [
    ({"aggregates": [Total()]}, "aggregates must be a mapping"),
    ({"aggregates": {"P95": Quantile(0.95)}}, "aggregates names 'P95'"),
    ({"aggregates": {"p95": 0.95}}, r"aggregates\['p95'\] is float"),
    ({"aggregates": {"p": Quantile(1.5)}}, "Quantile's q must be"),
    ({"aggregates": {"r": Ratio("hits", "misses")}}, "does not declare"),
    ({"aggregates": {"r": Ratio("value", "value", scale=0.0)}}, "scale must be"),
    ({"statistics": ("value",)}, "statistics must be a tuple"),
    ({"statistics": ["hits"]}, "statistics must be a tuple"),
])
def test_a_bad_declaration_is_the_class_error(attributes, match):
    namespace = {"name": "bad_for_corpus", "measure": lambda self, case: (1.0, "ok"),
                 **attributes}
    cls = type("BadDeclaration", (Metric,), namespace)
    with pytest.raises(InvalidMetricError, match=f"BadDeclaration\\..*{match}"):
        cls()


def test_aggregates_are_declared_without_numpy():
    import subprocess
    import sys

    code = ("import sys, agentmetrics.corpus as c; c.Quantile(0.5); "
            "print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


# -- the surfaces: the CLI (table and JSON, chunk by chunk) and the report ----------


@pytest.fixture
def registered():
    from agentmetrics.registry import register_metric, unregister_metric

    register_metric(SecondsMetric)
    register_metric(PooledF1)
    yield
    unregister_metric("seconds_for_corpus")
    unregister_metric("pooled_f1_for_corpus")


def _write(path, cases):
    path.write_text("".join(json.dumps({
        "tool_calls": list(c.tool_names), "expected_tool_calls": list(c.expected_tool_names),
        "latency": c.latency}) + "\n" for c in cases), encoding="utf-8")


def test_the_cli_prints_and_writes_the_table_of_one_batch(tmp_path, capsys, registered):
    from agentmetrics.cli import main

    cases = _cases(4, 230)
    path = tmp_path / "cases.jsonl"
    _write(path, cases)
    metrics = ["--metric", "seconds_for_corpus", "--metric", "pooled_f1_for_corpus",
               "--chunk-size", "40"]  # several chunks, merged
    assert main(["evaluate", str(path), *metrics, "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    expected = evaluate(cases, [SecondsMetric(), PooledF1()]).aggregates()
    found = {(row["metric"], row["aggregate"]): row["value"] for row in record["aggregates"]}
    assert found == _values(expected)
    assert [row["unit"] for row in record["summary"]] == ["s", None]
    assert main(["evaluate", str(path), *metrics, "--format", "summary"]) == 0
    out = capsys.readouterr().out
    assert "Corpus aggregates (95% intervals where defined)" in out
    assert "micro_f1" in out and "p95" in out


def test_the_report_shows_the_aggregates_with_their_unit():
    result = evaluate(_cases(6, 80), [SecondsMetric(), PooledF1()])
    page = result.to_html()
    start = page.index('id="aggregates-table"')
    shown = page[start:page.index("</table>", start)]
    for name in ("p50", "p95", "max", "total", "micro_precision", "micro_recall", "micro_f1"):
        assert f"<td>{name}</td>" in shown
    assert "<td>s</td>" in shown


def test_the_cli_reads_case_fields_from_parquet(tmp_path, capsys, registered):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from agentmetrics.cli import main

    cases = _cases(8, 90)
    path = tmp_path / "cases.parquet"
    pq.write_table(pa.table({
        "tool_calls": [list(c.tool_names) for c in cases],
        "expected_tool_calls": [list(c.expected_tool_names) for c in cases],
        "latency": [c.latency for c in cases]}), path, row_group_size=25)
    assert main(["evaluate", str(path), "--metric", "seconds_for_corpus", "--metric",
                 "pooled_f1_for_corpus", "--format", "json", "--chunk-size", "30"]) == 0
    record = json.loads(capsys.readouterr().out)
    expected = evaluate(cases, [SecondsMetric(), PooledF1()]).aggregates()
    assert {(r["metric"], r["aggregate"]): r["value"] for r in record["aggregates"]} == \
        _values(expected)
    # A file of latencies alone, without call columns, is read too.
    pq.write_table(pa.table({"latency": [c.latency for c in cases]}), path)
    assert main(["evaluate", str(path), "--metric", "seconds_for_corpus", "--format",
                 "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert [r["value"] for r in record["results"]] == [c.latency for c in cases]
