"""A saved run keeps the case fields a run needs to be audited and scored
again (issue 51): input, actual_output, expected_output, latency, cost and
usage, in every form, scrubbed of the metrics' secrets as reasons are; the
loaded cases give them back, so ``evaluate(loaded cases, ...)`` scores them
again; a run of format 1 (before the fields were kept) still loads."""

from __future__ import annotations

import gzip
import json

import pytest

import agentmetrics as am
from agentmetrics import errors
from agentmetrics.runs import load_result

FORMS = ["run.jsonl", "run.jsonl.gz", "run.json", "run.json.gz", "run.parquet"]
METRIC = "tool_selection_accuracy"

SECRET_KEY = "sk-test-KEPTOUT123456789"


class KeyedMetric(am.Metric):
    name = "keyed_judge"
    description = "A metric holding an API key (a test's)."
    secret_params = ("api_key",)

    def __init__(self, api_key: str | None = None, threshold: float | None = None) -> None:
        super().__init__(threshold)
        self.api_key = api_key

    def measure(self, case):
        return 1.0, "judged"


def _cases() -> list[am.AgentTestCase]:
    return [
        am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A", "B"],
                         input={"question": "refund?", "turns": [1, 2.5, None, (3, "x")]},
                         actual_output="refunded", expected_output="refunded",
                         latency=1.5, cost=0.25, usage={"input": 3, "output": 7},
                         metadata={"id": "c1", "task": "t"}),
        am.AgentTestCase(tool_calls=["B"], expected_tool_calls=["B"], input="q",
                         actual_output=["a", 2], latency=0.0, metadata={"id": "c2"}),
        am.AgentTestCase(tool_calls=[], expected_tool_calls=[], metadata={"id": "c3"}),
    ]


def _reading(path):
    if path.name.endswith(".parquet"):
        return None
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


@pytest.mark.parametrize("form", FORMS)
def test_the_case_fields_are_kept_and_score_again(tmp_path, form):
    if form.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    cases = _cases()
    result = am.evaluate(cases, METRIC, progress=False)
    loaded = load_result(result.save(tmp_path / form, history=False))
    back = list(loaded.batch.cases)
    assert back == cases  # every field, with its type (the tuple a tuple, 0.0 a float)
    assert type(back[0].input["turns"][3]) is tuple and back[1].latency == 0.0
    again = am.evaluate(back, METRIC, progress=False)
    assert again[METRIC].values.tolist() == result[METRIC].values.tolist()
    assert again.provenance.fingerprint == result.provenance.fingerprint
    assert loaded.provenance.fingerprint == result.provenance.fingerprint


def test_the_header_names_the_fields_kept_and_each_row_holds_them(tmp_path):
    cases = [am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"], latency=2.0),
             am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"], cost=0.5)]
    path = am.evaluate(cases, METRIC, progress=False).save(tmp_path / "run.jsonl",
                                                           history=False)
    header, *rows = map(json.loads, path.read_text(encoding="utf-8").splitlines())
    assert header["agentmetrics_run"] == 2 and header["case_fields"] == ["latency", "cost"]
    assert [(row["latency"], row["cost"]) for row in rows] == [(2.0, None), (None, 0.5)]
    assert "input" not in rows[0] and "usage" not in rows[0]  # no case has them


def test_a_table_s_field_columns_are_kept(tmp_path):
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"tool_calls": [["A"], ["B"]], "expected_tool_calls": [["A"], ["A"]],
                              "latency": [1.5, 0.25], "actual_output": ["x", "y"]})
    result = am.evaluate(frame, METRIC, progress=False)
    loaded = load_result(result.save(tmp_path / "run.jsonl", history=False))
    assert [(case.latency, case.actual_output) for case in loaded.batch.cases] == [
        (1.5, "x"), (0.25, "y")]
    assert am.evaluate(list(loaded.batch.cases), METRIC,
                       progress=False).provenance.fingerprint == result.provenance.fingerprint


@pytest.mark.parametrize("form", FORMS)
def test_an_api_key_in_a_case_field_never_reaches_the_saved_file(tmp_path, form):
    if form.endswith(".parquet"):
        pyarrow = pytest.importorskip("pyarrow")
    cases = [am.AgentTestCase(
        tool_calls=["A"], expected_tool_calls=["A"], input=f"my key is {SECRET_KEY}",
        actual_output={"said": [f"Bearer {SECRET_KEY}"]},
        expected_output=f"https://user:{SECRET_KEY}@host/x", metadata={"id": "c1"})]
    result = am.evaluate(cases, [KeyedMetric(api_key=SECRET_KEY), METRIC], progress=False)
    path = result.save(tmp_path / form, history=False)
    data = _reading(path)
    if data is None:  # Parquet compresses its pages: read every cell and the schema back
        table = pyarrow.parquet.read_table(path)
        data = (json.dumps(table.to_pylist()) + str(table.schema.metadata)).encode()
    assert SECRET_KEY.encode() not in data and b"KEPTOUT" not in data
    (case,) = load_result(path).batch.cases
    assert case.input == "my key is ***" and case.actual_output == {"said": ["Bearer ***"]}
    assert SECRET_KEY not in case.expected_output and "host/x" in case.expected_output


def test_a_field_that_cannot_be_kept_is_refused_naming_the_case(tmp_path):
    cases = [am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"]),
             am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"], input=object())]
    result = am.evaluate(cases, METRIC, progress=False)
    with pytest.raises(errors.InvalidParameterError, match=r"case 1: its input: a value of type "
                       r"object .*cannot be saved"):
        result.save(tmp_path / "run.jsonl", history=False)
    assert not (tmp_path / "run.jsonl").exists()


def test_an_unreadable_row_keeps_no_fields(tmp_path):
    records = [{"tool_calls": ["A"], "expected_tool_calls": ["A"], "actual_output": "ok",
                "metadata": {"id": "c1"}},
               {"tool_calls": "not a list", "actual_output": "lost", "metadata": {"id": "c2"}}]
    result = am.evaluate(records, METRIC, errors="record", progress=False)
    loaded = load_result(result.save(tmp_path / "run.jsonl", history=False))
    first, second = loaded.batch.cases
    assert first.actual_output == "ok" and isinstance(second, am.UnreadableCase)
    assert loaded.provenance.fingerprint == result.provenance.fingerprint


def test_a_run_of_format_1_still_loads(tmp_path):
    # Written as format 1 was: no case_fields in the header, none in the rows.
    result = am.evaluate([am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A", "B"],
                                           metadata={"id": "c1", "task": "t"})],
                         METRIC, progress=False)
    path = result.save(tmp_path / "run.jsonl", history=False)
    header, *rows = path.read_text(encoding="utf-8").splitlines()
    old = json.loads(header)
    assert old.pop("case_fields") == []
    old["agentmetrics_run"] = 1
    path.write_text("\n".join([json.dumps(old), *rows]) + "\n", encoding="utf-8")
    loaded = load_result(path)
    assert loaded[METRIC].values.tolist() == [0.5]
    assert list(loaded.batch.cases) == list(result.batch.cases)


def test_a_row_without_a_kept_field_is_refused(tmp_path):
    cases = [am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"], latency=1.0)]
    path = am.evaluate(cases, METRIC, progress=False).save(tmp_path / "run.jsonl",
                                                           history=False)
    header, row = path.read_text(encoding="utf-8").splitlines()
    record = json.loads(row)
    del record["latency"]
    path.write_text(header + "\n" + json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(errors.InvalidCaseError, match=r"run\.jsonl:2: expected a case with the "
                       r"keys .*'latency'.*damaged"):
        load_result(path)
