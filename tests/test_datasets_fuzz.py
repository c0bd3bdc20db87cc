"""Fuzz tests for the dataset loaders and the expectations' JSON form: any
input gives cases (one per entry) or an InvalidCaseError naming where, never
another exception, never fewer cases."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics import AgentTestCase, InvalidCaseError, UnreadableCase
from agentmetrics.datasets import adk_cases, bfcl_cases, tau2_cases, tau_bench_cases
from agentmetrics.expectations import expectation_from_json
from conftest import REPO

DATA = REPO / "tests" / "data"
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=True) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["id", "call", "steps", "arguments", "name", "$one_of", "$optional", "in_order",
                         "any_order", "repeat", "at_least", "ground_truth", "function", "x", "$any"]),
        inner, max_size=4),
    max_leaves=12)


def _mutations(value, data):
    """The value with one node somewhere replaced by generated JSON."""
    paths = []

    def walk(node, path):
        paths.append(path)
        if isinstance(node, dict):
            for key, item in node.items():
                walk(item, (*path, key))
        elif isinstance(node, list):
            for k, item in enumerate(node):
                walk(item, (*path, k))

    walk(value, ())
    path = data.draw(st.sampled_from(paths))
    replacement = data.draw(_json)
    if not path:
        return replacement
    mutated = copy.deepcopy(value)
    node = mutated
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = replacement
    return mutated


def _only_refused(run):
    try:
        return run()
    except InvalidCaseError as error:
        assert str(error)
        return None


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_expectation_json_fuzz(data):
    base = {"steps": [{"call": "a", "arguments": {"x": {"$one_of": [1, 2]}, "y": {"$optional": "z"}}},
                      {"any_order": [{"call": "b"}, {"repeat": {"call": "c"}, "at_least": 1, "at_most": 2}]}],
            "never": [{"call": "d"}]}
    form = _mutations(base, data)
    found = _only_refused(lambda: expectation_from_json(form))
    if found is not None:  # what reads back is what it writes
        assert expectation_from_json(json.loads(json.dumps(found.to_json()))) == found


def _lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_bfcl_fuzz(data):
    questions = _lines(DATA / "bfcl" / "BFCL_v4_parallel.json")[:3]
    answers = _lines(DATA / "bfcl" / "possible_answer" / "BFCL_v4_parallel.json")[:3]
    which = data.draw(st.sampled_from(["questions", "answers", "outputs"]))
    outputs = {q["id"]: [{"f": {"a": 1}}] for q in questions}
    if which == "questions":
        questions = _mutations(questions, data)
    elif which == "answers":
        answers = _mutations(answers, data)
    else:
        outputs = _mutations(outputs, data)
    cases = _only_refused(lambda: bfcl_cases(questions, answers, outputs))
    if cases is not None:
        assert len(cases) == len(questions)
        assert all(isinstance(c, (AgentTestCase, UnreadableCase)) for c in cases)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_tau2_fuzz(data):
    tasks = json.loads((DATA / "tau2" / "airline_tasks.json").read_text(encoding="utf-8"))[1:4]
    mutated = _mutations(tasks, data)
    cases = _only_refused(lambda: tau2_cases(mutated))
    if cases is not None:
        assert len(cases) == len(mutated)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_adk_fuzz(data):
    evalset = json.loads((DATA / "adk" / "dependent_tool_calls.test.json").read_text(encoding="utf-8"))
    mutated = _mutations(evalset, data)
    cases = _only_refused(lambda: adk_cases(mutated))
    if cases is not None and isinstance(mutated, dict) and isinstance(mutated.get("eval_cases"), list):
        assert len(cases) == len(mutated["eval_cases"])


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_tau_bench_fuzz(data, tmp_path_factory):
    base = [{"user_id": "u", "instruction": "x", "actions": [{"name": "a", "kwargs": {"k": 1}}], "outputs": []}]
    mutated = _mutations(base, data)
    cases = _only_refused(lambda: tau_bench_cases(mutated))
    if cases is not None:
        assert len(cases) == len(mutated)
    folder = tmp_path_factory.mktemp("tau")
    file = folder / "tasks.py"
    text = (DATA / "tau_bench" / "airline_tasks_test_first5.py").read_text(encoding="utf-8")
    cut = data.draw(st.integers(0, len(text)))
    file.write_text(text[:cut] + data.draw(st.text(max_size=5)) + text[cut:], encoding="utf-8")
    _only_refused(lambda: tau_bench_cases(file))


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="cd(folder=')\\\"1,[]{}:.*_ab", max_size=30) | st.sampled_from(
    ["cd(folder='x')", "sort('a')", "a.b(c=[1, {'d': 2}])", "f(*x)", "f(x=y)", "f(1, x=2)"]))
def test_bfcl_call_strings_fuzz(text):
    from agentmetrics.datasets import parse_bfcl_call

    call = _only_refused(lambda: parse_bfcl_call(text, {"sort": ["file_name"], "f": ["x", "y"]}))
    if call is not None:
        assert call.name and text.strip().startswith(call.name.split(".")[0])


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_seal_tools_fuzz(data):
    from agentmetrics.datasets import seal_tools_cases

    entries = [json.loads(line) for line in
               (DATA / "seal_tools" / "test_in_domain_sample.jsonl").read_text(encoding="utf-8").splitlines()][3:6]
    mutated = _mutations(entries, data)
    cases = _only_refused(lambda: seal_tools_cases(mutated))
    if cases is not None:
        assert len(cases) == len(mutated)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_api_bank_fuzz(data):
    from agentmetrics.datasets import api_bank_cases

    turns = [json.loads(line) for line in
             (DATA / "api_bank" / "lv1-lv2-samples" / "level-1-given-desc" / "AddAgenda-level-1-1.jsonl").read_text(encoding="utf-8").splitlines()]
    mutated = _mutations(turns, data)
    for per_call in (False, True):
        cases = _only_refused(lambda: api_bank_cases(mutated, per_call=per_call))
        if cases is not None and not per_call:
            assert len(cases) == 1


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="fg(a=1,b)'\"r .x", max_size=30))
def test_nexusraven_reference_fuzz(text):
    from agentmetrics.datasets import nexusraven_calls

    _only_refused(lambda: nexusraven_calls(text))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_xlam_fuzz(data):
    from agentmetrics.datasets import xlam_cases

    rows = [{"id": 1, "query": "q", "tools": "[]", "answers": '[{"name": "a", "arguments": {"x": 1}}]'}]
    mutated = _mutations(rows, data)
    cases = _only_refused(lambda: xlam_cases(mutated))
    if cases is not None:
        assert len(cases) == len(mutated)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_record_mode_gives_one_case_per_entry_whatever_the_entries(data):
    """Under errors="record" a list of entries gives exactly one case or
    UnreadableCase per entry, in order, whatever an entry holds."""
    from agentmetrics.datasets import nexusraven_cases, seal_tools_cases, xlam_cases

    which = data.draw(st.sampled_from(["bfcl", "tau2", "seal", "xlam", "nexusraven", "tau_bench"]))
    if which == "bfcl":
        questions = _lines(DATA / "bfcl" / "BFCL_v4_parallel.json")[:3]
        answers = _lines(DATA / "bfcl" / "possible_answer" / "BFCL_v4_parallel.json")[:3]
        entries = _mutations(questions, data) if data.draw(st.booleans()) else questions
        answers = answers if entries is not questions else _mutations(answers, data)
        if not isinstance(entries, list):
            return
        cases = bfcl_cases(entries, answers if isinstance(answers, list) else [], errors="record")
    else:
        base = {"tau2": json.loads((DATA / "tau2" / "airline_tasks.json").read_text(encoding="utf-8"))[1:4],
                "seal": [json.loads(line) for line in (DATA / "seal_tools" / "test_in_domain_sample.jsonl")
                         .read_text(encoding="utf-8").splitlines()][3:6],
                "xlam": [{"id": 1, "query": "q", "tools": "[]", "answers": '[{"name": "a", "arguments": {"x": 1}}]'}],
                "nexusraven": [{"query": "q", "reference": "f(a=g(b=1))"}],
                "tau_bench": [{"instruction": "x", "actions": [{"name": "a", "kwargs": {"k": 1}}]}]}[which]
        entries = _mutations(base, data)
        if not isinstance(entries, list):
            return
        loader = {"tau2": tau2_cases, "seal": seal_tools_cases, "xlam": xlam_cases,
                  "nexusraven": nexusraven_cases, "tau_bench": tau_bench_cases}[which]
        cases = loader(entries, errors="record")
    assert len(cases) == len(entries)
    name = {"bfcl": "bfcl_cases", "seal": "seal_tools_cases", "xlam": "xlam_cases"}.get(which, f"{which}_cases")
    for k, case in enumerate(cases):
        assert isinstance(case, (AgentTestCase, UnreadableCase))
        if isinstance(case, UnreadableCase):  # where it was, and why
            where = f"task {k}" if which == "tau_bench" else f"entry {k}"
            assert case.line == k and case.message.startswith(f"{name}: {where}"), case.message
            assert "expected" in case.message or "nested" in case.message, case.message


def test_a_path_holding_a_nul_is_refused_as_a_case_error():
    # Found by test_xlam_fuzz: open() raises ValueError, not OSError, for such a path.
    from agentmetrics.datasets import nexusraven_cases, seal_tools_cases, xlam_cases

    for loader in (xlam_cases, seal_tools_cases, nexusraven_cases):
        with pytest.raises(InvalidCaseError, match="NUL"):
            loader("\x00")
