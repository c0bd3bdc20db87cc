"""A saved run's header is read field by field, never converted (issue 48,
item 8), and a saved run nested too deeply is refused with its place.

A header field of the wrong JSON type (``"higher_is_better": "false"``, a
threshold ``"0.8"``, a count ``true``) was once read through ``bool()``,
``float()`` and ``str()``: a lower-is-better metric came back higher-is-better.
Here every field of the header is given values of every other type, in every
form, and must be refused naming the file, the field's path, what was
expected, what was found, and the fix; a property mutates any field's type
and demands a refusal or an exact round trip. A header or a row nested 600
(or 5,000) levels deep is refused with its file and line, never a
RecursionError.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agentmetrics as am
from agentmetrics import errors
from agentmetrics.runs import MetricSpec, Provenance, RunStore, load_result

pyarrow = pytest.importorskip("pyarrow")

TEXT_FORMS = ["run.jsonl", "run.json", "run.jsonl.gz"]


def _result() -> am.EvaluationResult:
    cases = [am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A", "B"],
                              metadata={"id": "x", "task": "t"}),
             am.AgentTestCase(tool_calls=["A", "B"], expected_tool_calls=["A", "B"],
                              metadata={"id": "y", "task": "t"})]
    return am.evaluate(cases, [am.ToolSelectionAccuracy(threshold=0.8),
                               am.get_metric("redundant_calls")], progress=False)


def _split(path) -> tuple[dict, list[str]]:
    """A JSON lines run's header and its other lines."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    return json.loads(lines[0]), lines[1:]


class Huge(float):
    """A number too large for a float, written as 1e400 (which JSON readers
    take as infinity)."""


HUGE = Huge(math.inf)


def _dumps(header: dict) -> str:
    return json.dumps(header, default=str).replace("Infinity", "1e400")


def _write(path, header: dict, rest: list[str], form: str) -> None:
    """``header`` and the cases ``rest`` (JSON lines) written in ``form``."""
    if form.endswith(".parquet"):
        table = pyarrow.parquet.read_table(path)
        pyarrow.parquet.write_table(table.replace_schema_metadata(
            {"agentmetrics_run": _dumps(header)}), path)
        return
    if form.endswith(".json"):
        rows = ",\n".join(line.rstrip("\n") for line in rest)
        text = _dumps(header)[:-1] + ', "rows": [\n' + rows + "\n]}\n"
    else:
        text = _dumps(header) + "\n" + "".join(rest)
    data = text.encode("utf-8")
    if form.endswith(".gz"):
        import gzip

        data = gzip.compress(data)
    path.write_bytes(data)


def _saved_header(path, form: str) -> dict:
    if form.endswith(".parquet"):
        return json.loads(pyarrow.parquet.read_schema(path).metadata[b"agentmetrics_run"])
    data = path.read_bytes()
    if form.endswith(".gz"):
        import gzip

        data = gzip.decompress(data)
    if form.endswith((".json", ".json.gz")):
        document = json.loads(data)
        del document["rows"]
        return document
    return json.loads(data.decode("utf-8").splitlines()[0])


def _set(header: dict, path: tuple, value) -> None:
    target = header
    for step in path[:-1]:
        target = target[step]
    if value is _MISSING:
        del target[path[-1]]
    else:
        target[path[-1]] = value


def _shown(path: tuple) -> str:
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text


_MISSING = object()
M0 = ("provenance", "metrics", 0)

#: Every field of the header, with wrong values of other JSON types (and a
#: missing value), and a word of what the message must say is expected.
WRONG = [
    (("cases",), ["2", 2.0, True, None, -1, [2]], "a whole number"),
    (("ids",), ["true", 1, 0, None, [], _MISSING], "true or false"),
    (("metadata",), ["false", 0, None, {}], "true or false"),
    (("fields",), ["value", ["value", "passed"], None, ["value", "passed", "reason", 1],
                   _MISSING], "the list"),
    (("case_fields",), ["input", None, {}, [1], ["nope"], ["cost", "latency"],
                        ["input", "input"]], "a list of case fields"),
    (("provenance",), [[], "x", None, 1, _MISSING], "an object"),
    (("provenance", "agentmetrics_version"), [1, None, ["0.1.0"], _MISSING], "a string"),
    (("provenance", "created"), [0, 1.5, None, True, {}], "a string"),
    (("provenance", "host"), [1, [], None, False], "a string"),
    (("provenance", "platform"), [1, {}, None], "a string"),
    (("provenance", "python"), [3.11, None, _MISSING], "a string"),
    (("provenance", "cases"), ["2", 2.0, True, None, -2], "a whole number"),
    (("provenance", "fingerprint"), [1, None, [], _MISSING], "a string"),
    (("provenance", "uid"), [1, None, "not-hex", "ABCDEF" * 6, True, ""], "32 hexadecimal"),
    (("provenance", "metrics"), [{}, "x", None, 3, _MISSING], "a list of metrics"),
    (M0, [[], "x", None, 1], "an object"),
    ((*M0, "label"), [1, None, [], _MISSING], "a string"),
    ((*M0, "name"), [1, None, {}, _MISSING], "a string"),
    ((*M0, "version"), [1, 1.0, None, _MISSING], "a string"),
    ((*M0, "source"), [1, None, _MISSING], "a string"),
    ((*M0, "params"), [[], "x", None, 1, _MISSING], "an object"),
    ((*M0, "threshold"), ["0.8", True, False, None, [0.8], {"float": "0.8"}, HUGE, -0.5,
                          1.5, _MISSING], "a number from 0 to 1"),
    ((*M0, "unit"), [5, True, [], {}, "", " s", "x" * 13], "the values' unit"),
    ((*M0, "higher_is_better"), ["false", "true", 0, 1, None, [], _MISSING], "true or false"),
    ((*M0, "value_range"), ["0,1", [0], [0, "1"], [True, 1], [0, HUGE], [0, 1, 2], {},
                            None, [1, 0], [0.5, 0.5], _MISSING], "number"),
    (("provenance", "extra"), [1], "no such field"),
    ((*M0, "extra"), ["x"], "no such field"),
    (("extra",), [True], "no such field"),
]
CASES = [(path, value, expected) for path, values, expected in WRONG for value in values]


def _describe(value) -> str:
    if value is _MISSING:
        return "nothing (the field is missing)"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, str):
        return f"the string {json.dumps(value)}"
    if isinstance(value, (int, float)):
        return f"the number {float(value)!r}" if value is HUGE else f"the number {value!r}"
    if isinstance(value, list):
        return f"the list {_dumps(value)}"
    return "an object"


@pytest.mark.parametrize("form", ["run.jsonl", "run.json", "run.parquet"])
@pytest.mark.parametrize("path, value, expected", CASES,
                         ids=[f"{_shown(p)}={'missing' if v is _MISSING else _dumps(v)}"
                              for p, v, _ in CASES])
def test_a_header_field_of_the_wrong_type_is_refused(tmp_path, form, path, value, expected):
    saved = _result().save(tmp_path / "plain.jsonl", history=False)
    header, rest = _split(saved)
    target = _result().save(tmp_path / form, history=False)
    _set(header, path, value)
    _write(target, header, rest, form)
    shown = _shown(path)
    where = {"run.jsonl": rf"{re.escape(str(target))}:1",
             "run.json": rf"{re.escape(str(target))} \(the document's header\)",
             "run.parquet": rf"{re.escape(str(target))} \(Parquet schema metadata\)"}[form]
    with pytest.raises(errors.InvalidCaseError) as caught:
        load_result(target)
    message = str(caught.value)
    assert re.match(where, message), message
    assert f"the header field {shown} is " in message or (
        shown in message), message  # a missing provenance names it in the same words
    assert expected in message and "Fix:" in message, message
    if f"the header field {shown} is " in message:  # else an item inside it is named
        assert _describe(value) in message, message
    else:
        assert f"the header field {shown}[" in message, message


def test_the_string_false_never_flips_a_lower_is_better_metric(tmp_path):
    # The report of issue 48: "higher_is_better": "false" loaded as True.
    result = _result()
    path = result.save(tmp_path / "run.jsonl", history=False)
    header, rest = _split(path)
    spec = header["provenance"]["metrics"][1]
    assert spec["name"] == "redundant_calls" and spec["higher_is_better"] is False
    spec["higher_is_better"] = "false"
    _write(path, header, rest, "run.jsonl")
    with pytest.raises(errors.InvalidCaseError, match=(
            r"run\.jsonl:1: the header field provenance\.metrics\[1\]\.higher_is_better is the "
            r"string \"false\"; expected true or false \(a JSON boolean, not a string or a "
            r"number\).*never converted.*Fix: the file was edited or damaged: write "
            r"provenance\.metrics\[1\]\.higher_is_better as expected, or save the run again")):
        load_result(path)
    spec["higher_is_better"] = False
    _write(path, header, rest, "run.jsonl")
    assert type(load_result(path)["redundant_calls"].metric).higher_is_better is False


def test_whole_numbers_are_numbers_where_a_number_is_expected(tmp_path):
    # JSON has one kind of number: a threshold of 1 is the threshold 1.0.
    path = _result().save(tmp_path / "run.jsonl", history=False)
    header, rest = _split(path)
    header["provenance"]["metrics"][0]["threshold"] = 1
    header["provenance"]["metrics"][0]["value_range"] = [0, 1]
    _write(path, header, rest, "run.jsonl")
    loaded = load_result(path)
    metric = loaded["tool_selection_accuracy"].metric
    assert metric.threshold == 1.0 and type(metric.threshold) is float
    assert type(metric).value_range == (0.0, 1.0)


@pytest.mark.parametrize("threshold", [-1.0, "2.5", _MISSING])
def test_a_threshold_is_checked_against_the_saved_metric_s_own_range(tmp_path, threshold):
    # A metric in seconds: its threshold is said against [0, inf), not [0, 1].
    path = _result().save(tmp_path / "run.jsonl", history=False)
    header, rest = _split(path)
    header["provenance"]["metrics"][0].update(value_range=[0, None], unit="s")
    _set(header, (*M0, "threshold"), threshold)
    _write(path, header, rest, "run.jsonl")
    with pytest.raises(errors.InvalidCaseError, match=(
            r"provenance\.metrics\[0\]\.threshold is .*; expected a finite number in the "
            r"metric's value_range \[0, inf\)")):
        load_result(path)
    _set(header, (*M0, "threshold"), 2.5)
    _write(path, header, rest, "run.jsonl")
    metric = load_result(path)["tool_selection_accuracy"].metric
    assert (metric.threshold, type(metric).value_range, type(metric).unit) == (
        2.5, (0.0, math.inf), "s")


def test_rows_with_ids_under_a_header_without_ids_are_refused(tmp_path):
    for form in ("run.jsonl", "run.json", "run.parquet"):
        saved = _result().save(tmp_path / "plain.jsonl", history=False)
        header, rest = _split(saved)
        target = _result().save(tmp_path / form, history=False)
        header["ids"] = False
        _write(target, header, rest, form)
        with pytest.raises(errors.InvalidCaseError, match=r"the header says the run has no ids "
                           r"\(\"ids\": false\), the row has the id \"x\""):
            load_result(target)


def test_a_case_number_that_is_a_boolean_or_a_float_is_refused(tmp_path):
    path = _result().save(tmp_path / "run.jsonl", history=False)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for wrong in (True, 1.0):
        record = json.loads(lines[2])
        record["case"] = wrong
        path.write_text(lines[0] + lines[1] + json.dumps(record) + "\n", encoding="utf-8")
        with pytest.raises(errors.InvalidCaseError, match=rf"run\.jsonl:3: expected case 1, got "
                           rf"case {json.dumps(wrong)}"):
            load_result(path)


def test_the_history_refuses_a_provenance_field_of_the_wrong_type(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    _result().save(tmp_path / "run.jsonl", history=store)
    with sqlite3.connect(store.path) as connection:
        (text,) = connection.execute("SELECT provenance FROM runs").fetchone()
        provenance = json.loads(text)
        provenance["metrics"][1]["higher_is_better"] = "false"
        connection.execute("UPDATE runs SET provenance = ?", (json.dumps(provenance),))
    connection.close()
    with pytest.raises(errors.InvalidParameterError, match=(
            rf"run history {re.escape(str(store.path))}: run 1: provenance\.metrics\[1\]\."
            rf"higher_is_better is the string \"false\"; expected true or false.*The history "
            rf"is damaged")):
        store.list()


def test_from_json_checks_each_field_too():
    spec = {"label": "m", "name": "m", "version": "1", "source": "", "params": {},
            "threshold": 0.5, "higher_is_better": "no", "value_range": [0.0, 1.0]}
    with pytest.raises(errors.InvalidCaseError, match=r"metric: metric\.higher_is_better is the "
                       r"string \"no\"; expected true or false"):
        MetricSpec.from_json(spec)
    spec["higher_is_better"] = False
    assert MetricSpec.from_json(spec).higher_is_better is False
    with pytest.raises(errors.InvalidCaseError, match=r"provenance: provenance\.cases is the "
                       r"string \"3\""):
        Provenance.from_json({"agentmetrics_version": "0", "created": "", "host": "",
                              "platform": "", "python": "", "cases": "3", "fingerprint": "",
                              "metrics": []})


def test_a_provenance_built_by_hand_is_checked_before_anything_is_written(tmp_path):
    import attrs

    result = _result()
    spec = attrs.evolve(result.provenance.metrics[0], higher_is_better="false")
    wrong = attrs.evolve(result.provenance, metrics=(spec, *result.provenance.metrics[1:]))
    built = am.EvaluationResult(result.batch, result.results, result.sources, provenance=wrong)
    with pytest.raises(errors.InvalidParameterError, match=r"save: the header field provenance\."
                       r"metrics\[0\]\.higher_is_better is the string \"false\".*Fix: build "
                       r"the EvaluationResult without provenance="):
        built.save(tmp_path / "run.jsonl", history=False)
    assert list(tmp_path.iterdir()) == []


# -- any field, any type -------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**20), 10**20),
              st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=5)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=3), inner, max_size=3)),
    max_leaves=5)


def _kind(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__


def _leaves(value, path=()):
    """Every path of a JSON value: its containers and its leaves."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))


def _exactly(a, b) -> bool:
    """Equal JSON values, each of the same JSON kind (a number is a number,
    whole or not; true is not 1)."""
    if _kind(a) != _kind(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_exactly(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_exactly, a, b))
    return a == b


HEADER = None


def _header_paths() -> list[tuple]:
    global HEADER
    if HEADER is None:
        import tempfile
        from pathlib import Path

        with tempfile.TemporaryDirectory() as folder:
            HEADER = _split(_result().save(Path(folder) / "run.jsonl", history=False))
    return [path for path in _leaves(HEADER[0]) if path]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), form=st.sampled_from(["run.jsonl", "run.json", "run.parquet"]))
def test_a_field_of_another_type_is_refused_or_round_trips_exactly(tmp_path, data, form):
    paths = _header_paths()
    header, rest = json.loads(json.dumps(HEADER[0])), HEADER[1]
    path = data.draw(st.sampled_from(paths))
    old = header
    for step in path:
        old = old[step]
    value = data.draw(JSON_VALUES.filter(lambda v: _kind(v) != _kind(old)))
    _set(header, path, value)
    target = tmp_path / form
    _result().save(target, history=False)
    _write(target, header, rest, form)
    try:
        loaded = load_result(target)
    except errors.InvalidCaseError as error:
        assert "Traceback" not in str(error) and str(target) in str(error)
        return
    again = loaded.save(tmp_path / f"again.{form}", history=False)
    assert _exactly(_saved_header(again, form), header), (path, value)


# -- nested too deeply ---------------------------------------------------------------------


def _deep(levels: int, kind: str):
    value = 1
    for _ in range(levels):
        value = [value] if kind == "list" else {"a": value}
    return value


def _deep_text(levels: int) -> str:
    """A JSON value nested ``levels`` deep, as text (too deep for json.dumps)."""
    return "[" * levels + "1" + "]" * levels


@pytest.mark.parametrize("levels", [600, 5000])
@pytest.mark.parametrize("field", ["metadata", "id", "tool_calls", "scores", "header params",
                                   "header host"])
def test_a_run_nested_too_deeply_is_refused_with_its_file_and_line(tmp_path, field, levels):
    path = _result().save(tmp_path / "run.jsonl", history=False)
    lines = path.read_text(encoding="utf-8").splitlines()
    deep = _deep_text(levels)
    if field.startswith("header"):
        line = 1
        key = '"params": {' if field == "header params" else '"host": '
        at = lines[0].index(key) + len(key)
        if field == "header params":
            lines[0] = lines[0][:at] + '"x": ' + deep + ", " + lines[0][at:]
        else:
            end = lines[0].index('"', at + 1) + 1
            lines[0] = lines[0][:at] + deep + lines[0][end:]
    else:
        line = 3
        record = json.loads(lines[2])
        if field == "metadata":
            record["metadata"]["task"] = "DEEP"
        elif field == "id":
            record["id"] = "DEEP"
        elif field == "tool_calls":
            record["tool_calls"] = "DEEP"
        else:
            record["scores"][0][2] = "DEEP"
        lines[2] = json.dumps(record).replace('"DEEP"', deep)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(errors.InvalidCaseError) as caught:
        load_result(path)
    assert str(caught.value).startswith(f"{path}:{line}:"), str(caught.value)[:300]
    assert len(str(caught.value)) < 1000


@pytest.mark.parametrize("levels", [600, 5000])
def test_a_json_document_nested_too_deeply_is_refused_with_its_line(tmp_path, levels):
    path = _result().save(tmp_path / "run.json", history=False)
    lines = path.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[1].rstrip(","))  # the first row, line 2
    record["metadata"]["task"] = "DEEP"
    lines[1] = json.dumps(record).replace('"DEEP"', _deep_text(levels)) + ","
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(errors.InvalidCaseError) as caught:
        load_result(path)
    message = str(caught.value)
    # Read whole, the document's row is named by its index; too deep to read, by its line.
    assert message.startswith((f"{path}: rows[0]:", f"{path}:2:") if levels < 1000
                              else f"{path}:2:"), message[:300]


def test_parquet_metadata_nested_too_deeply_is_refused_with_its_row(tmp_path):
    path = _result().save(tmp_path / "run.parquet", history=False)
    table = pyarrow.parquet.read_table(path)
    texts = table.column("metadata").to_pylist()
    texts[1] = json.dumps({"task": "DEEP"}).replace('"DEEP"', _deep_text(5000))
    table = table.set_column(table.column_names.index("metadata"), "metadata",
                             pyarrow.array(texts, pyarrow.string()))
    pyarrow.parquet.write_table(table, path)
    with pytest.raises(errors.InvalidCaseError, match=rf"{re.escape(str(path))}: row 1: "
                       rf"metadata: nested too deeply to read"):
        load_result(path)


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_metadata_nested_up_to_the_limit_round_trips_and_deeper_is_refused_on_save(tmp_path,
                                                                                    kind):
    from agentmetrics.runs._provenance import MAX_DEPTH

    def case(levels):
        return am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"],
                                metadata={"id": "x", "deep": _deep(levels, kind)})

    # The metadata object is one level; its value MAX_DEPTH - 1 more.
    result = am.evaluate([case(MAX_DEPTH - 1)], "tool_selection_accuracy", progress=False)
    for form in ("run.jsonl", "run.json", "run.parquet"):
        loaded = load_result(result.save(tmp_path / form, history=False))
        assert loaded.batch.cases[0].metadata == result.batch.cases[0].metadata
    deeper = am.evaluate([case(MAX_DEPTH)], "tool_selection_accuracy", progress=False)
    with pytest.raises(errors.InvalidParameterError, match=rf"case 0: metadata\['deep'\]: a "
                       rf"value nested deeper than {MAX_DEPTH} levels.*Fix: flatten it"):
        deeper.save(tmp_path / "deeper.jsonl", history=False)
    assert not (tmp_path / "deeper.jsonl").exists()


def test_ids_nested_up_to_the_limit_round_trip_and_deeper_are_refused_on_save(tmp_path):
    from agentmetrics.runs._provenance import MAX_DEPTH

    def nested(levels):  # a tuple is two levels of JSON: {"tuple": [...]}
        value = ("x",)
        for _ in range(levels // 2 - 1):
            value = (value,)
        return value

    def result(levels):
        batch = am.ToolCallBatch.from_columns(tool_calls=[["A"]], expected_tool_calls=[["A"]],
                                              ids=[nested(levels)])
        return am.evaluate(batch, "tool_selection_accuracy", progress=False)

    ok = result(MAX_DEPTH)
    assert load_result(ok.save(tmp_path / "run.jsonl", history=False)).batch.case_ids == (
        ok.batch.case_ids)
    with pytest.raises(errors.InvalidParameterError, match=r"case 0: its id: a value nested "
                       r"deeper than"):
        result(MAX_DEPTH + 2).save(tmp_path / "deeper.jsonl", history=False)


def test_a_metric_whose_parameters_nest_too_deeply_is_shown_cut(tmp_path):
    from agentmetrics.runs._provenance import MAX_DEPTH

    class Deep(am.Metric):
        name = "deep_params"
        description = "A metric with deeply nested parameters (a test's)."

        def __init__(self, tree=None, threshold=None):
            super().__init__(threshold)
            self.tree = tree

        def measure(self, case):
            return 1.0, "ok"

    result = am.evaluate([am.AgentTestCase(tool_calls=["A"], expected_tool_calls=["A"])],
                         [Deep(tree=_deep(150, "dict"))], progress=False)
    loaded = load_result(result.save(tmp_path / "run.jsonl", history=False))
    assert math.isclose(loaded["deep_params"].values[0], 1.0)
    assert loaded.provenance == result.provenance
    shown = loaded.provenance.metrics[0].params["tree"]
    for _ in range(MAX_DEPTH - 1):  # the parameters are a level, "tree" the next
        shown = shown["a"]
    assert shown == "<dict nested deeper than 100 levels, not shown>"
