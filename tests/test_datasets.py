"""The dataset loaders on real samples vendored under tests/data (each with
its license), and the expectations they build scored against what the
benchmark itself decides."""

from __future__ import annotations

import json

import pytest

from agentmetrics import InvalidCaseError, UnreadableCase, evaluate
from agentmetrics.datasets import (
    bfcl_cases,
    bfcl_category,
    bfcl_expectation,
    tau2_cases,
    tau2_expectation,
    with_tau2_expectations,
)
from agentmetrics.expectations import align
from agentmetrics.formats import cases_from_tau2
from conftest import REPO

DATA = REPO / "tests" / "data"
TAU2_TASKS = DATA / "tau2" / "airline_tasks.json"


# -- tau2 ------------------------------------------------------------------------


def test_tau2_tasks_become_cases_with_their_actions_as_expectations():
    cases = tau2_cases(TAU2_TASKS)
    tasks = json.loads(TAU2_TASKS.read_text(encoding="utf-8"))
    assert len(cases) == len(tasks) == 50
    for case, task in zip(cases, tasks):
        actions = [a for a in task["evaluation_criteria"]["actions"] or []
                   if a.get("requestor", "assistant") == "assistant"]
        assert case.metadata["id"] == f"airline-{task['id']}" and case.metadata["category"] == "airline"
        assert [(c.name, c.arguments) for c in case.expected_tool_calls] == [
            (a["name"], a["arguments"]) for a in actions]
        assert case.input == task["user_scenario"]["instructions"]["reason_for_call"]
        # the actions themselves meet the expectation, in any order
        calls = [(a["name"], a["arguments"]) for a in reversed(actions)]
        assert align(case.expectation, calls).value == 1.0
        assert case.tool_calls is None


def _tau2_matches(action, call):
    """tau2's own rule (Action.compare_with_tool_call), restated here: the
    call's arguments (or compare_args) compared with the action's."""
    if action["name"] != call[0]:
        return False
    keys = call[1].keys() if action.get("compare_args") is None else action["compare_args"]
    if not keys:
        return True
    return ({k: v for k, v in call[1].items() if k in keys}
            == {k: v for k, v in action["arguments"].items() if k in keys})


@pytest.mark.parametrize("mutate", ["drop_argument", "wrong_value", "extra_argument", "other_tool"])
def test_tau2_expectation_agrees_with_tau2s_action_check(mutate):
    tasks = json.loads(TAU2_TASKS.read_text(encoding="utf-8"))
    checked = 0
    for task in tasks:
        actions = [a for a in task["evaluation_criteria"]["actions"] or [] if a["arguments"]]
        if not actions:
            continue
        action = actions[0]
        arguments = dict(action["arguments"])
        key = next(iter(arguments))
        if mutate == "drop_argument":
            del arguments[key]
        elif mutate == "wrong_value":
            arguments[key] = "something else"
        elif mutate == "extra_argument":
            arguments["unexpected"] = 1
        call = ("other_tool" if mutate == "other_tool" else action["name"], arguments)
        single = tau2_expectation([action])
        assert (align(single, [call]).value == 1.0) == _tau2_matches(action, call), (task["id"], call)
        checked += 1
    assert checked > 30


def test_tau2_results_scored_against_their_tasks_expectations():
    runs = cases_from_tau2(DATA / "tau2" / "airline_excerpt.json")
    scored = with_tau2_expectations(runs, TAU2_TASKS)
    assert [c.metadata["task_id"] for c in scored] == [c.metadata["task_id"] for c in runs]
    result = evaluate(scored, ["expectation_match"], progress=False)
    assert len(result) == len(runs) and not result["expectation_match"].errors
    with pytest.raises(InvalidCaseError, match="task_id '999'"):
        with_tau2_expectations([runs[0].__class__(tool_calls=[], metadata={"task_id": "999"})], TAU2_TASKS)


def test_tau2_bad_entries_name_the_task_and_the_path():
    with pytest.raises(InvalidCaseError, match=r"tau2_cases: task '7': .*actions\[0\]\.arguments: expected an object"):
        tau2_cases([{"id": "7", "evaluation_criteria": {"actions": [{"name": "a", "arguments": 3}]}}])
    with pytest.raises(InvalidCaseError, match=r"compare_args.*leave them out"):
        tau2_expectation([{"name": "a", "arguments": {"x": 1}, "compare_args": ["y"]}])
    with pytest.raises(InvalidCaseError, match="a task object with an id"):
        tau2_cases([{"no_id": 1}])


def test_bfcl_category_from_the_id():
    assert bfcl_category("simple_0") == "simple"
    assert bfcl_category("live_multiple_3-1-0") == "live_multiple"
    assert bfcl_category("parallel_multiple_12") == "parallel_multiple"
    with pytest.raises(InvalidCaseError):
        bfcl_category("simple")


def test_bfcl_expectation_rules():
    e = bfcl_expectation([{"f": {"a": [1], "b": ["x y", ""], "c": [2.0]}}], "simple",
                         {"function": [{"name": "f", "parameters": {"properties": {
                             "a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "float"}}}}]})
    assert align(e, [("f", {"a": 1, "c": 2})]).value == 1.0  # b omitted; int for float
    assert align(e, [("f", {"a": 1, "b": "X-Y", "c": 2.0})]).value == 1.0  # text normalised
    assert align(e, [("f", {"a": 1.0, "c": 2.0})]).value < 1.0  # a float for an integer
    assert align(e, [("f", {"a": 1, "c": 2.0, "d": 0})]).value < 1.0  # an unknown parameter
    parallel = bfcl_expectation([{"f": {"a": [1]}}, {"f": {"a": [2]}}], "parallel")
    assert align(parallel, [("f", {"a": 2}), ("f", {"a": 1})]).value == 1.0
    assert align(parallel, [("f", {"a": 2}), ("f", {"a": 1}), ("f", {"a": 1})]).value < 1.0


def test_bfcl_cases_from_entries_outputs_and_unreadable_results():
    questions = [{"id": "simple_0", "question": [[{"role": "user", "content": "area?"}]],
                  "function": [{"name": "area", "parameters": {"properties": {"b": {"type": "integer"}}}}]},
                 {"id": "irrelevance_0", "question": [[{"role": "user", "content": "hi"}]], "function": []},
                 {"id": "simple_1", "question": [[{"role": "user", "content": "x"}]], "function": []}]
    answers = [{"id": "simple_0", "ground_truth": [{"area": {"b": [10]}}]},
               {"id": "simple_1", "ground_truth": [{"g": {}}]}]
    outputs = {"simple_0": [{"area": {"b": 10}}], "irrelevance_0": [], "simple_1": "g()"}
    cases = bfcl_cases(questions, answers, outputs)
    assert [c.metadata["id"] if not isinstance(c, UnreadableCase) else c.id for c in cases] == [
        "simple_0", "irrelevance_0", "simple_1"]
    assert isinstance(cases[2], UnreadableCase) and "decoded calls" in cases[2].message
    result = evaluate(cases, ["expectation_match"], errors="record", progress=False)
    values = result["expectation_match"].values.tolist()
    assert values[:2] == [1.0, 1.0] and 2 in result["expectation_match"].errors
    assert cases[0].input == [{"role": "user", "content": "area?"}]
    with pytest.raises(InvalidCaseError, match="an answer with id 'simple_0'"):
        bfcl_cases(questions[:1], answers[1:])
