"""Issue 11: no wrong score, no lost row, no traceback under bad input, threads and
hostile plugins. Each test is a regression for something a fuzzing pass found."""

from __future__ import annotations

import enum
import pickle
import threading

import numpy as np
import pytest

import agentmetrics
from agentmetrics import (
    AgentTestCase,
    EvalScore,
    InvalidCaseError,
    InvalidMetricError,
    InvalidParameterError,
    Metric,
    MetricResult,
    ToolCallBatch,
    ToolSelectionAccuracy,
    evaluate,
)
from agentmetrics.testing import MetricConformanceError, check_metric

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")


def cases(n=6):
    return [AgentTestCase(tool_calls=["A", "B"][: i % 3], expected_tool_calls=["A"],
                          metadata={"id": f"c{i}"}) for i in range(n)]


# --- wrong results with no warning ------------------------------------------------------------

def test_none_stays_not_given_when_another_row_holds_call_objects():
    # Once scored as 1.0: None became [] because row 1 left the fast path.
    for row in ([{"name": "A"}], [agentmetrics.ToolCall("A")], [""]):
        batch = ToolCallBatch.from_columns(tool_calls=[None, row], expected_tool_calls=[[], ["A"]],
                                           errors="record")
        assert not batch.called_given[0]
        result = evaluate(batch, "tool_selection_accuracy", errors="record")["tool_selection_accuracy"]
        assert np.isnan(result.values[0]) and "requires the test case field 'tool_calls'" in result.errors[0]


class Liar(Metric):
    """A plugin whose vectorized path returns whatever it likes."""

    name = "liar"
    description = "Lies in batch."
    required_fields = ("tool_calls",)

    def __init__(self, threshold=None, value=7.0, passed=True):
        super().__init__(threshold)
        self.value, self.passed = value, passed

    def measure(self, case):
        return 1.0, "fine"

    def evaluate_batch(self, batch, *, errors="raise"):
        n = len(batch)
        return MetricResult(self, np.full(n, self.value), np.full(n, self.passed), {},
                            lambda row: "fine")


@pytest.mark.parametrize(("value", "passed", "complaint"), [
    (7.0, True, r"gave row 0 the value 7\.0; expected a value in \[0, 1\]"),
    (np.nan, True, "gave row 0 the value NaN without an error"),
    (0.2, True, r"gave row 0 passed=True for value 0\.2, threshold 0\.5"),
])
def test_batch_results_pass_through_the_same_validator_as_scalar_ones(value, passed, complaint):
    liar = Liar(value=value, passed=passed)
    with pytest.raises(InvalidMetricError, match="^metric bug in Liar: evaluate_batch " + complaint):
        evaluate(cases(), [liar, "tool_selection_accuracy"])
    # Recorded: the liar's rows are error rows; the other metric's rows are untouched.
    result = evaluate(cases(), [liar, "tool_selection_accuracy"], errors="record")
    assert len(result["liar"].errors) == 6 and not result["liar"].passed.any()
    assert result["liar"].errors[0].startswith("metric bug in Liar: evaluate_batch")
    assert np.array_equal(result["tool_selection_accuracy"].values,
                          evaluate(cases(), "tool_selection_accuracy")["tool_selection_accuracy"].values)
    # Called directly, outside evaluate(), the same check runs.
    with pytest.raises(InvalidMetricError, match=complaint):
        liar.evaluate_batch(ToolCallBatch.from_cases(cases()))


def test_a_batch_that_scores_an_unreadable_row_is_a_metric_bug():
    class Blind(Liar):
        name = "blind"

        def evaluate_batch(self, batch, *, errors="raise"):
            n = len(batch)
            return MetricResult(self, np.ones(n), np.ones(n, bool), {}, lambda row: "fine")

    batch = ToolCallBatch.from_columns(tool_calls=[["A"], ["A", 3]], expected_tool_calls=[["A"], ["A"]],
                                       errors="record")
    with pytest.raises(InvalidMetricError, match=r"scored row 1, which could not be read"):
        Blind().evaluate_batch(batch, errors="record")


def test_reasons_are_checked_when_asked_for():
    class Mute(Liar):
        name = "mute"

        def evaluate_batch(self, batch, *, errors="raise"):
            n = len(batch)
            return MetricResult(self, np.ones(n), np.ones(n, bool), {}, lambda row: "" if row else "ok")

    with pytest.raises(InvalidMetricError, match=r"gave case 5 the reason ''"):
        evaluate(cases(), Mute())


def test_a_set_of_calls_is_refused_everywhere():
    with pytest.raises(InvalidCaseError, match="got a set, which has no order"):
        AgentTestCase(tool_calls={"A", "B"}, expected_tool_calls=["A"])
    with pytest.raises(InvalidCaseError, match="got a frozenset, which has no order"):
        ToolCallBatch.from_columns(tool_calls=[frozenset({"A"})], expected_tool_calls=[["A"]])


def test_an_exception_without_a_message_is_an_error_row_not_a_fail():
    class Asserting(Metric):
        name = "asserting"
        description = "Asserts."

        def measure(self, case):
            if not case.tool_calls:
                raise AssertionError  # a bare assert, as in a plugin pytest does not rewrite
            return 1.0, "ok"

    result = evaluate([AgentTestCase(tool_calls=[], expected_tool_calls=[])], Asserting(),
                      errors="record")["asserting"]
    assert result.errors == {0: "metric bug in Asserting: AssertionError. Report it to the metric's author."}
    assert result.reason(0) == result.errors[0]


# --- crashes -------------------------------------------------------------------------------------

class Color(str, enum.Enum):
    GET = "GetOrder"


def test_str_subclasses_are_read_as_their_value():
    case = AgentTestCase(tool_calls=[Color.GET, np.str_("Refund")], expected_tool_calls=["GetOrder"])
    assert case.tool_names == ("GetOrder", "Refund") and type(case.tool_names[0]) is str
    batch = ToolCallBatch.from_columns(tool_calls=[[Color.GET, np.str_("Refund")]],
                                       expected_tool_calls=[["GetOrder"]])
    assert batch.vocabulary == ("GetOrder", "Refund")
    assert evaluate([case], "tool_selection_accuracy")["tool_selection_accuracy"].values[0] == 0.5


def test_results_pickle_with_their_reasons():
    result = evaluate(cases(), ["tool_selection_accuracy", ("tool_selection_accuracy", {"order_matters": True})])
    clone = pickle.loads(pickle.dumps(result))
    for label in result.metrics:
        assert np.array_equal(clone[label].values, result[label].values)
        assert list(clone[label].reasons) == list(result[label].reasons)
    assert clone.sources == result.sources


def test_evaluate_from_eight_threads_with_eight_kernel_threads(monkeypatch):
    # Once: "cannot schedule new futures after shutdown" as the shared pool was rebuilt.
    monkeypatch.setenv("AGENTMETRICS_NUM_THREADS", "8")
    monkeypatch.setattr(agentmetrics._kernels._tuning, "BLOCK_ROWS", 3)
    expected = evaluate(cases(40), "tool_selection_accuracy")["tool_selection_accuracy"].values
    failures: list[BaseException] = []

    def work(size):
        try:
            for _ in range(20):
                got = evaluate(cases(size), "tool_selection_accuracy")["tool_selection_accuracy"].values
                assert np.array_equal(got, expected[:size])
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=work, args=(size,)) for size in (7, 13, 40, 29, 3, 40, 17, 31)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures


@pytest.mark.parametrize("value", ["0", "-1", "abc", "2.5"])
def test_a_bad_thread_count_is_an_error(monkeypatch, value):
    monkeypatch.setenv("AGENTMETRICS_NUM_THREADS", value)
    monkeypatch.setattr(agentmetrics._kernels._tuning, "BLOCK_ROWS", 2)
    with pytest.raises(InvalidParameterError, match="AGENTMETRICS_NUM_THREADS: expected a whole number"):
        evaluate(cases(), "tool_selection_accuracy")


class Exploding(Metric):
    name = "exploding"
    description = "Its vectorized path raises."

    def measure(self, case):
        return 1.0, "ok"

    def evaluate_batch(self, batch, *, errors="raise"):
        raise ZeroDivisionError("plugin bug")


def test_one_metric_failing_keeps_the_others_rows():
    result = evaluate(cases(), [Exploding(), "tool_selection_accuracy"], errors="record")
    assert set(result["exploding"].errors) == set(range(6))
    assert result["exploding"].errors[0] == ("metric bug in Exploding: ZeroDivisionError: plugin bug. "
                                             "Report it to the metric's author.")
    assert not result["tool_selection_accuracy"].errors
    with pytest.raises(ZeroDivisionError, match="plugin bug"):
        evaluate(cases(), [Exploding(), "tool_selection_accuracy"])


def test_dataframe_and_arrow_oddities():
    frame = pd.DataFrame({"tool_calls": [np.array(["A"]), np.array(None, dtype=object), pd.NA],
                          "expected_tool_calls": [["A"], ["A"], ["A"]]})
    result = evaluate(frame, "tool_selection_accuracy", errors="record")["tool_selection_accuracy"]
    assert result.values[0] == 1.0 and "0-d array" in result.errors[1]
    assert "requires the test case field 'tool_calls'" in result.errors[2]  # pd.NA: not given
    # A dictionary column whose dictionary holds a null: once read as another name.
    names = pa.DictionaryArray.from_arrays(pa.array([0, 1, 0], pa.int32()), pa.array(["A", None]))
    column = pa.ListArray.from_arrays(pa.array([0, 2, 3], pa.int32()), names)
    batch = ToolCallBatch.from_arrow(tool_calls=column, expected_tool_calls=pa.array([["A", "A"], ["A"]]),
                                     errors="record")
    assert batch.invalid == {0: "tool_calls[1]: expected a ToolCall, a tool name (str) or a "
                                "mapping with 'name'; got NoneType None."}
    with pytest.raises(InvalidCaseError, match="the Arrow table has no column 'expected_tool_calls'"):
        evaluate(pa.table({"tool_calls": [["A"]]}), "tool_selection_accuracy")


# --- the Metric contract: measure or evaluate ------------------------------------------------------

class EvaluateOnly(Metric):
    name = "evaluate_only"
    description = "Implements evaluate, not measure."
    required_fields = ("tool_calls",)

    def evaluate(self, case):
        self.check_required_fields(case)
        value = 1.0 if case.tool_calls else 0.0
        return EvalScore(value, self.passes(value), "calls" if value else "none", self.name, self.threshold)


def test_a_metric_may_implement_evaluate_alone():
    check_metric(EvaluateOnly)
    result = evaluate(cases(), EvaluateOnly())["evaluate_only"]
    assert result.values.tolist() == [0.0, 1.0, 1.0, 0.0, 1.0, 1.0]


def test_an_evaluate_only_metric_is_validated_too():
    class Sloppy(EvaluateOnly):
        name = "sloppy"

        def evaluate(self, case):
            return EvalScore(0.9, False, "fine", self.name, self.threshold)

    with pytest.raises(InvalidMetricError, match=r"metric bug in .*Sloppy: evaluate returned passed=False "
                                                 r"for value 0\.9 and threshold 0\.5"):
        Sloppy().evaluate(cases()[0])
    with pytest.raises(MetricConformanceError, match=r"score: case 0: metric bug"):
        check_metric(Sloppy)
    recorded = evaluate(cases(), Sloppy(), errors="record")["sloppy"]
    assert len(recorded.errors) == 6


def test_a_metric_with_neither_measure_nor_evaluate_is_refused():
    class Empty(Metric):
        name = "empty"

    with pytest.raises(InvalidMetricError, match="implements none of measure"):
        Empty()


def test_check_metric_still_passes_the_builtin():
    check_metric(ToolSelectionAccuracy)


# --- the command line: one row per line, no traceback ----------------------------------------------

import gzip  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from agentmetrics import registry  # noqa: E402
from agentmetrics._base._discovery import EntryPointSpec  # noqa: E402
from agentmetrics.cli import BROKEN_PIPE, main  # noqa: E402

GOOD = '{"id": "ok", "tool_calls": ["A"], "expected_tool_calls": ["A"]}'


def run_cli(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def jsonl_rows(out):
    return [json.loads(line, parse_constant=lambda name: pytest.fail(f"{name} in the output"))
            for line in out.splitlines()]


BAD_LINES = {
    "latin-1": "é".encode("latin-1").join([b'{"id": "x", "tool_calls": ["caf', b'"], "expected_tool_calls": []}']),
    "huge-int": b'{"tool_calls": [], "expected_tool_calls": [], "metadata": {"n": ' + b"9" * 5000 + b"}}",
    "deep": b'{"metadata": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
    "format-list": b'{"response": {}, "format": ["openai_chat"], "expected_tool_calls": []}',
    "index-x": json.dumps({"response": [{"object": "chat.completion.chunk", "choices": [
        {"index": 0, "delta": {"tool_calls": [{"index": "x", "function": {"name": 5}}]}}]}],
        "expected_tool_calls": []}).encode(),
    "otel-time": json.dumps({"response": {"resourceSpans": [{"scopeSpans": [{"spans": [
        {"name": "execute_tool f", "startTimeUnixNano": "abc", "attributes": [
            {"key": "gen_ai.tool.name", "value": {"intValue": "x"}}]}]}]}]},
        "expected_tool_calls": []}).encode(),
    "kvlist-without-key": json.dumps({"response": {"name": "s", "attributes": [
        {"key": "gen_ai.output.messages", "value": {"kvlistValue": {"values": [{"value": {}}]}}}]},
        "expected_tool_calls": []}).encode(),
    "type-object": b'{"response": [{"type": {"a": 1}}], "expected_tool_calls": []}',
    "nan": b'{"tool_calls": [], "expected_tool_calls": [], "metadata": {"x": NaN}}',
}


@pytest.mark.parametrize("name", list(BAD_LINES))
def test_a_bad_line_is_one_error_row_between_good_ones(capsys, tmp_path, name):
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b"\n".join([GOOD.encode(), BAD_LINES[name], GOOD.encode()]) + b"\n")
    status, out, err = run_cli(capsys, "evaluate", str(path), "--errors", "record", "--format", "jsonl")
    rows = jsonl_rows(out)
    assert status == 0 and [row["value"] for row in rows] == [1.0, None, 1.0], out
    assert rows[1]["error"].startswith(f"{path}:2: ") and "bug in agentmetrics" not in rows[1]["error"]
    status, _, err = run_cli(capsys, "evaluate", str(path))
    assert status == 2 and err.startswith(f"agentmetrics: error: {path}:2: ") and "Traceback" not in err


@pytest.mark.parametrize("encode", [
    lambda text: text.encode("utf-16"),  # PowerShell `>`: a BOM, then UTF-16 LE
    lambda text: "\ufeff".encode() + text.encode(),  # a UTF-8 BOM is skipped
    lambda text: gzip.compress(text.encode()),
], ids=["utf-16", "utf-8-bom", "gzip"])
def test_files_in_other_encodings_are_read(capsys, tmp_path, encode):
    path = tmp_path / "cases.jsonl"
    path.write_bytes(encode(GOOD + "\n" + GOOD + "\n"))
    status, out, _ = run_cli(capsys, "evaluate", str(path), "--format", "jsonl")
    assert status == 0 and [row["value"] for row in jsonl_rows(out)] == [1.0, 1.0]


def test_a_binary_handle_is_read(tmp_path):
    import io

    rows = list(agentmetrics.read_cases(io.BytesIO((GOOD + "\n").encode())))
    assert rows[0].tool_names == ("A",)


def shell(command, tmp_path):
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd=tmp_path,
                          env={**__import__("os").environ, "PYTHONWARNINGS": "ignore"})


def test_closed_streams_and_broken_pipes_exit_cleanly(tmp_path):
    (tmp_path / "cases.jsonl").write_text((GOOD + "\n") * 5000, encoding="utf-8")
    cli = f"{sys.executable} -m agentmetrics evaluate"
    closed_in = shell(f"{cli} - <&-", tmp_path)
    assert closed_in.returncode == 2 and "the input is closed" in closed_in.stderr
    assert "Traceback" not in closed_in.stderr
    closed_out = shell(f"{cli} cases.jsonl >&-", tmp_path)
    assert closed_out.returncode == 2 and "standard output is closed" in closed_out.stderr
    piped = shell(f"set -o pipefail; {cli} cases.jsonl --format jsonl | head -1", tmp_path)
    assert piped.stdout.count("\n") == 1 and piped.stderr == "" and piped.returncode == BROKEN_PIPE


def test_table_cells_are_escaped_and_columns_stay_aligned_across_chunks(capsys, tmp_path):
    lines = [{"id": "line\nbreak\x1b[31m", "tool_calls": ["A"], "expected_tool_calls": ["A"]},
             {"id": "x", "tool_calls": [], "expected_tool_calls": ["A"]},
             {"id": "a-much-longer-id", "tool_calls": ["A"], "expected_tool_calls": ["A"]}]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    _, out, _ = run_cli(capsys, "evaluate", str(path), "--chunk-size", "1")
    table = out.split("\n\n")[0].splitlines()
    assert table[1].startswith("line\\nbreak\\x1b[31m  tool_selection_accuracy")
    assert len({line.index("tool_selection_accuracy") for line in table[1:3]}) == 1
    assert "\x1b" not in out


def test_the_summary_mean_does_not_depend_on_the_chunk_size(capsys, tmp_path):
    rng = np.random.default_rng(0)
    names = [f"t{i}" for i in range(7)]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({"tool_calls": list(rng.choice(names, rng.integers(0, 6))),
                                        "expected_tool_calls": list(rng.choice(names, rng.integers(1, 6)))})
                            + "\n" for _ in range(500)), encoding="utf-8")
    means = set()
    for size in ("1", "7", "64", "50000"):
        _, out, _ = run_cli(capsys, "evaluate", str(path), "--format", "json", "--chunk-size", size)
        means.add(json.loads(out)["summary"][0]["mean"])
    assert len(means) == 1


def test_the_default_metric_is_the_builtin_even_when_another_claims_its_name(capsys, tmp_path):
    specs = registry._registry.specs()
    impostor = EntryPointSpec("tool_selection_accuracy", "agentmetrics_trajectory:ToolCallF1",
                              "impostor-metrics", "1.0")
    registry._registry._specs = [*specs, impostor]
    path = tmp_path / "c.jsonl"
    path.write_text(GOOD + "\n", encoding="utf-8")
    status, out, err = run_cli(capsys, "evaluate", str(path))
    assert status == 0 and "1.00  PASS" in out, err
    status, _, err = run_cli(capsys, "evaluate", str(path), "--metric", "tool_selection_accuracy")
    assert status == 2 and "provided by more than one distribution" in err


class BadInit(Metric):
    name = "bad_init"
    description = "Its constructor fails."

    def __init__(self, threshold=None):
        raise TypeError("needs a config file")

    def measure(self, case):  # pragma: no cover - never built
        return 1.0, "ok"


def test_plugin_failures_never_print_a_traceback(capsys, tmp_path):
    agentmetrics.register_metric(BadInit)
    agentmetrics.register_metric(Exploding)
    path = tmp_path / "c.jsonl"
    path.write_text(GOOD + "\n" + GOOD + "\n", encoding="utf-8")
    status, _, err = run_cli(capsys, "evaluate", str(path), "--metric", "bad_init")
    assert status == 2 and err.startswith("agentmetrics: error: --metric 'bad_init': the metric could "
                                          "not be built: TypeError: needs a config file.")
    status, _, err = run_cli(capsys, "evaluate", str(path), "--metric", "exploding")
    assert status == 2 and err.startswith("agentmetrics: error: metric bug: ZeroDivisionError: plugin bug")
    status, out, _ = run_cli(capsys, "evaluate", str(path), "--metric", "exploding", "--metric",
                             "tool_selection_accuracy", "--errors", "record", "--format", "jsonl")
    rows = jsonl_rows(out)
    assert [(row["metric"], row["value"]) for row in rows] == [
        ("exploding", None), ("tool_selection_accuracy", 1.0)] * 2
    assert rows[0]["error"].startswith("metric bug in Exploding: ZeroDivisionError: plugin bug")


def test_a_metric_that_lies_in_batch_cannot_pass_the_gate(capsys, tmp_path):
    agentmetrics.register_metric(Liar)
    path = tmp_path / "c.jsonl"
    path.write_text(GOOD + "\n", encoding="utf-8")
    status, _, err = run_cli(capsys, "evaluate", str(path), "--metric", "liar", "--fail-under", "1")
    assert status == 2 and "metric bug in Liar" in err
    status, out, _ = run_cli(capsys, "evaluate", str(path), "--metric", "liar", "--fail-under", "1",
                             "--errors", "record")
    assert status == 1 and "ERROR" in out


LINE = st.one_of(
    st.binary(max_size=40).map(lambda raw: raw.replace(b"\n", b" ")),
    st.sampled_from(list(BAD_LINES.values()) + [GOOD.encode(), b"", b"   ", b"{}", b"[]", b"null"]),
    st.text(max_size=30).map(lambda text: text.replace("\n", " ").encode("utf-8", "surrogatepass")),
)


@settings(max_examples=int(__import__("os").environ.get("AGENTMETRICS_FUZZ_EXAMPLES", "400")) // 4,
          suppress_health_check=[HealthCheck.too_slow,
                                                  HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINE, min_size=1, max_size=8), form=st.sampled_from(["jsonl", "csv", "table"]))
def test_fuzzed_files_give_one_row_per_line_and_no_traceback(capsys, tmp_path, lines, form):
    data = b"\n".join(lines) + b"\n"
    # A file that starts like gzip or a UTF-16/32 BOM is read as that: its lines are others.
    assume(not data.startswith((b"\x1f\x8b", b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")))
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(data)
    status, out, err = run_cli(capsys, "evaluate", str(path), "--errors", "record", "--format", form)
    assert status == 0, err
    expected = sum(1 for line in b"\n".join(lines).split(b"\n") if line.strip(b" \t\r"))
    if form == "jsonl":
        assert len(jsonl_rows(out)) == expected
    elif form == "csv":
        import csv
        import io

        assert len(list(csv.reader(io.StringIO(out)))) - 1 == expected


# --- messages --------------------------------------------------------------------------------------

def test_describe_and_list_say_when_a_metric_cannot_be_built(capsys):
    agentmetrics.register_metric(BadInit)
    status, out, _ = run_cli(capsys, "describe", "bad_init")
    assert status == 1
    assert out.splitlines()[-1] == ("status:             broken: it cannot be built with its defaults: "
                                    "BadInit() raised TypeError: needs a config file")
    _, out, _ = run_cli(capsys, "list")
    at = out.index("  bad_init ")
    assert " ".join(out[at:].split()).startswith("bad_init BROKEN: it cannot be built with its defaults")


def test_a_huge_unknown_key_is_cut_in_the_message():
    from agentmetrics.io._dataset import case_from_record

    with pytest.raises(InvalidCaseError) as info:
        case_from_record({"k" * 1_000_000: 1, "tool_calls": []})
    assert len(str(info.value)) < 400 and "kkk..." in str(info.value)


def test_metric_parameters_keep_the_commas_of_their_json_values():
    from agentmetrics.cli import parse_metric_spec

    assert parse_metric_spec('x:args=["a","b"],rule={"a": 1, "b": [2, 3]},label="p, q",t=0.5') == (
        "x", {"args": ["a", "b"], "rule": {"a": 1, "b": [2, 3]}, "label": "p, q", "t": 0.5})
