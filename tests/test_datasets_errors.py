"""Benchmark files as published (issue 48): a bad entry is one error row, the
rest load (``errors="record"``); with ``errors="raise"`` it is refused with
its id, file and line and the fix. Deep nesting is refused with its path,
never a RecursionError. tau2 results scored against other tasks than they
ran are refused by task id. API-Bank levels come from the data's folders."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

from agentmetrics import AgentTestCase, InvalidCaseError, InvalidParameterError, UnreadableCase, evaluate
from agentmetrics.datasets import (
    adk_cases,
    api_bank_cases,
    bfcl_cases,
    bfcl_multi_turn_cases,
    nexusraven_cases,
    seal_tools_cases,
    tau2_cases,
    tau_bench_cases,
    with_tau2_expectations,
    xlam_cases,
)
from agentmetrics.formats import cases_from_tau2
from conftest import REPO, SHARED

DATA = REPO / "tests" / "data"
BFCL = DATA / "bfcl"
FULL_BFCL = next(iter(sorted((REPO / ".venv-bfcl" / "lib").glob("python3*/site-packages/bfcl_eval/data"))),
                 REPO / ".venv-bfcl" / "bfcl_eval" / "data")  # BFCL's full data, where pip put it

#: The single-turn entries no output can meet (tests/data/bfcl/README.md): BFCL's
#: own checker fails its gold answers on each.
REFUSED = {"live_simple": {"live_simple_106-63-0": "expected at least one acceptable value, got []",
                           "live_simple_112-68-0": "expected at least one acceptable value, got []"},
           "live_multiple": {"live_multiple_121-46-0": "expected a list of acceptable values, got 10.5",
                             "live_multiple_862-181-3": "journey_start_time: expected a parameter",
                             "live_multiple_964-207-0": "question: expected a parameter"},
           "simple_java": {"simple_java_64": "expected a list of acceptable values, got 'epoch_millis'"}}


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _ids(cases):
    return [case.id if isinstance(case, UnreadableCase) else case.metadata["id"] for case in cases]


# -- item 10: one bad BFCL entry no longer refuses its whole file ---------------------


@pytest.mark.parametrize("category", sorted(REFUSED))
def test_bfcl_bad_entries_become_error_rows_and_the_rest_load(category, tmp_path):
    """The vendored bad lines between good ones (all byte-for-byte copies of
    BFCL's files): each bad entry is one error row naming its id, file and
    line; every other entry loads, in order."""
    good = BFCL / f"BFCL_v4_{category}.json"
    bad = BFCL / "refused" / f"BFCL_v4_{category}.json"
    questions, answers = tmp_path / "questions.json", tmp_path / "answers.json"
    mixed = _lines(good)[:5] + _lines(bad) + _lines(good)[5:]
    questions.write_text("\n".join(mixed) + "\n", encoding="utf-8")
    answers.write_text("\n".join(_lines(good.parent / "possible_answer" / good.name)
                                 + _lines(bad.parent / "possible_answer" / bad.name)) + "\n", encoding="utf-8")
    outputs = {json.loads(line)["id"]: [] for line in mixed}  # the model made no call
    cases = bfcl_cases(questions, answers, outputs, errors="record")
    assert _ids(cases) == [json.loads(line)["id"] for line in mixed]
    errors = {case.id: case for case in cases if isinstance(case, UnreadableCase)}
    assert set(errors) == set(REFUSED[category])
    for entry_id, case in errors.items():
        line = 6 + list(REFUSED[category]).index(entry_id)
        assert case.source == str(questions) and case.line == line
        assert f"{questions}:{line} (id {entry_id!r})" in case.message and REFUSED[category][entry_id] in case.message
        assert f"{answers}:" in case.message  # where the bad ground truth is
    # scored: one row per entry, the bad ones NaN with their message, never dropped
    result = evaluate(cases, ["expectation_match"], errors="record", progress=False)["expectation_match"]
    assert len(result.values) == len(mixed)
    for row, case in enumerate(cases):
        if isinstance(case, UnreadableCase):
            assert math.isnan(result.values[row]) and REFUSED[category][case.id] in result.errors[row]
        else:
            assert row not in result.errors
    with pytest.raises(InvalidCaseError, match=r"^case 5: bfcl_cases: "):  # evaluate's own raise mode names it
        evaluate(cases, ["expectation_match"], progress=False)
    with pytest.raises(InvalidCaseError) as refused:
        bfcl_cases(questions, answers)
    first = next(iter(REFUSED[category]))
    message = str(refused.value)
    assert f"{questions}:6 (id {first!r})" in message and "Fix: repair the answer entry" in message
    assert 'errors="record"' in message


def test_the_refused_entries_are_refused_alone_in_their_vendored_files():
    for category, expected in REFUSED.items():
        folder = BFCL / "refused"
        cases = bfcl_cases(folder / f"BFCL_v4_{category}.json",
                           folder / "possible_answer" / f"BFCL_v4_{category}.json", errors="record")
        assert [case.id for case in cases if isinstance(case, UnreadableCase)] == list(expected)


def test_loader_errors_flow_through_partition_scoring():
    pytest.importorskip("pyarrow")
    from agentmetrics.partition import score

    folder = BFCL / "refused"
    cases = bfcl_cases(folder / "BFCL_v4_live_multiple.json",
                       folder / "possible_answer" / "BFCL_v4_live_multiple.json", errors="record")
    cases += bfcl_cases(BFCL / "BFCL_v4_live_multiple.json", BFCL / "possible_answer" / "BFCL_v4_live_multiple.json",
                        {"live_multiple_0-0-0": []})
    rows, aggregate = score(cases, ["expectation_match"], errors="record")
    table = rows.to_pydict()
    assert table["id"][:3] == list(REFUSED["live_multiple"]) and len(table["id"]) == 18
    assert all(message and "bfcl_cases" in message for message in table["expectation_match_error"][:3])
    assert table["expectation_match_error"][3] is None


def test_an_unreadable_answer_line_names_itself_on_the_questions_it_may_belong_to(tmp_path):
    answers = _lines(BFCL / "possible_answer" / "BFCL_v4_simple_python.json")
    answers[2] = answers[2][:40]  # cut: not JSON any more, its id unknown
    broken = tmp_path / "answers.json"
    broken.write_text("\n".join(answers) + "\n", encoding="utf-8")
    cases = bfcl_cases(BFCL / "BFCL_v4_simple_python.json", broken, errors="record")
    assert len(cases) == 15 and [k for k, case in enumerate(cases) if isinstance(case, UnreadableCase)] == [2]
    assert f"{broken}:3: not a JSON line" in cases[2].message and "simple_python_2" in cases[2].message
    with pytest.raises(InvalidCaseError, match=rf"bfcl_cases: {broken}:3: not a JSON line"):
        bfcl_cases(BFCL / "BFCL_v4_simple_python.json", broken)


def test_the_errors_mode_is_checked():
    with pytest.raises(InvalidParameterError, match="'raise' or 'record'"):
        bfcl_cases(BFCL / "BFCL_v4_simple_python.json", BFCL / "possible_answer" / "BFCL_v4_simple_python.json",
                   errors="skip")


SINGLE_TURN = ["simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple",
               "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"]


@pytest.mark.skipif(not FULL_BFCL.is_dir(), reason="BFCL's full data (.venv-bfcl, built by `make test`) is absent")
def test_every_full_bfcl_file_loads_with_exactly_the_bad_entries_as_error_rows():
    for category in SINGLE_TURN + ["irrelevance", "live_irrelevance"]:
        questions = FULL_BFCL / f"BFCL_v4_{category}.json"
        answers = FULL_BFCL / "possible_answer" / questions.name
        cases = bfcl_cases(questions, answers if answers.exists() else None, errors="record")
        assert _ids(cases) == [json.loads(line)["id"] for line in _lines(questions)], category
        errors = [case.id for case in cases if isinstance(case, UnreadableCase)]
        assert errors == list(REFUSED.get(category, {})), category
        if category in REFUSED:
            with pytest.raises(InvalidCaseError, match=rf"\(id {errors[0]!r}\).*errors=\"record\""):
                bfcl_cases(questions, answers)
        else:
            assert len(bfcl_cases(questions, answers if answers.exists() else None)) == len(cases)
    # live_relevance (any call passes) is not read: every entry says so, none is dropped
    relevance = bfcl_cases(FULL_BFCL / "BFCL_v4_live_relevance.json", errors="record")
    assert len(relevance) == len(_lines(FULL_BFCL / "BFCL_v4_live_relevance.json"))
    assert all(isinstance(case, UnreadableCase) and "relevance categories" in case.message for case in relevance)
    # the multi-turn files, with their function docs
    docs = [json.loads(line) for file in sorted((FULL_BFCL / "multi_turn_func_doc").glob("*.json"))
            for line in _lines(file)]
    for kind in ("base", "miss_func", "miss_param", "long_context"):
        name = f"BFCL_v4_multi_turn_{kind}.json"
        cases = bfcl_multi_turn_cases(FULL_BFCL / name, FULL_BFCL / "possible_answer" / name, functions=docs,
                                      errors="record")
        assert len(cases) == len(_lines(FULL_BFCL / name)) and all(isinstance(c, AgentTestCase) for c in cases)


# -- every loader takes errors="record" ---------------------------------------------


def _tau2_tasks():
    return json.loads((DATA / "tau2" / "airline_tasks.json").read_text(encoding="utf-8"))[:3]


API_BANK_1 = DATA / "api_bank" / "lv1-lv2-samples" / "level-1-given-desc"

#: (loader, good entries, a bad entry, the bad entry's id): the bad entry goes second.
LOADERS = {
    "xlam_cases": (xlam_cases, [{"id": 1, "answers": []}, {"id": 3, "answers": []}],
                   {"id": 2, "answers": "[{"}, 2),
    "seal_tools_cases": (seal_tools_cases, [{"id": "t-1", "calling": []}, {"id": "t-3", "calling": []}],
                         {"id": "t-2", "calling": [{"api": 3}]}, "t-2"),
    "nexusraven_cases": (nexusraven_cases, [{"query": "a", "reference": "f(a=1)"}, {"query": "c", "reference": "g()"}],
                         {"query": "b", "reference": "f(1)"}, "nexusraven-1"),
    "tau2_cases": (tau2_cases, _tau2_tasks()[:2], {"id": "x", "evaluation_criteria": {"actions": [{"name": 1}]}}, "x"),
    "tau_bench_cases": (tau_bench_cases, [{"actions": []}, {"actions": []}], {"actions": "none"}, "task-1"),
    "bfcl_cases": (lambda items, **kw: bfcl_cases(items, [{"id": "simple_0", "ground_truth": []},
                                                          {"id": "simple_2", "ground_truth": []}], **kw),
                   [{"id": "simple_0", "question": []}, {"id": "simple_2", "question": []}],
                   {"id": "simple_1", "question": []}, "simple_1"),
}


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_every_loader_keeps_the_rest_under_record(name):
    loader, good, bad, bad_id = LOADERS[name]
    items = [good[0], bad, good[1]]
    cases = loader(copy.deepcopy(items), errors="record")
    assert len(cases) == 3 and [isinstance(case, UnreadableCase) for case in cases] == [False, True, False]
    where = "task 1" if name == "tau_bench_cases" else "entry 1"  # tau-bench's tasks have no id of their own
    assert cases[1].id == bad_id and cases[1].message.startswith(f"{name}: {where} (id {bad_id!r}): ")
    assert cases[1].source in ("<entries>", "<tasks>") and cases[1].line == 1
    with pytest.raises(InvalidCaseError, match=rf"^{name}: {where} \(id {bad_id!r}\): .*errors=\"record\""):
        loader(copy.deepcopy(items))
    with pytest.raises(InvalidParameterError):
        loader(copy.deepcopy(items), errors="ignore")


def test_adk_and_api_bank_and_multi_turn_take_errors_too():
    evalset = {"eval_set_id": "s", "eval_cases": [
        {"eval_id": "a", "conversation": []}, {"eval_id": "b", "conversation": 3}, {"eval_id": "c", "conversation": []}]}
    cases = adk_cases(evalset, errors="record")
    assert [type(case).__name__ for case in cases] == ["AgentTestCase", "UnreadableCase", "AgentTestCase"]
    assert cases[1].id == "b" and "eval_cases[1]" in cases[1].message and "conversation" in cases[1].message
    with pytest.raises(InvalidCaseError, match=r"eval_cases\[1\] \(id 'b'\): conversation: expected"):
        adk_cases(evalset)
    turns = [json.loads(line) for line in _lines(API_BANK_1 / "AddAgenda-level-1-1.jsonl")]
    turns[3] = {"role": "Robot"}
    (dialogue,) = api_bank_cases(turns, name="d", errors="record", per_call=True)
    assert isinstance(dialogue, UnreadableCase) and dialogue.id == "d" and "entry 3" in dialogue.message
    with pytest.raises(InvalidCaseError, match=r"entry 3 \(id 'd'\)"):
        api_bank_cases(turns, name="d")
    questions = [json.loads(line) for line in _lines(BFCL / "BFCL_v4_multi_turn_base.json")]
    answers = [json.loads(line) for line in _lines(BFCL / "possible_answer" / "BFCL_v4_multi_turn_base.json")]
    answers[1]["ground_truth"][0] = ["cd(folder=open('x'))"]
    docs = [{"name": "sort", "parameters": {"properties": {"file_name": {}}}}]
    cases = bfcl_multi_turn_cases(questions, answers, functions=docs, errors="record")
    assert [isinstance(case, UnreadableCase) for case in cases] == [False, True, False]
    assert cases[1].id == "multi_turn_base_1" and "literal arguments" in cases[1].message


# -- deep nesting: a clear error with the path, never a RecursionError ----------------


def _deep(levels: int) -> object:
    value: object = 1
    for _ in range(levels):
        value = {"x": [value]}
    return value


DEEP = _deep(300)  # 600 levels of lists and objects


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_a_deeply_nested_entry_is_refused_with_its_path(name):
    loader, good, bad, bad_id = LOADERS[name]
    deep = copy.deepcopy(good[1])
    deep["deep"] = DEEP
    with pytest.raises(InvalidCaseError, match=r"(entry|task) 1 .*deep\.x\[0\]\.x.*: nested more than 100 levels deep"):
        loader([good[0], deep])
    cases = loader([good[0], deep], errors="record")
    assert isinstance(cases[1], UnreadableCase) and "nested more than 100 levels" in cases[1].message


def test_deep_nesting_in_files_and_inside_entries(tmp_path):
    deep_line = tmp_path / "deep.json"
    lines = _lines(BFCL / "BFCL_v4_simple_python.json")[:2]
    deep_line.write_text(lines[0] + "\n" + "[" * 100_000 + "]" * 100_000 + "\n" + lines[1] + "\n", encoding="utf-8")
    answers = BFCL / "possible_answer" / "BFCL_v4_simple_python.json"
    cases = bfcl_cases(deep_line, answers, errors="record")
    assert [isinstance(case, UnreadableCase) for case in cases] == [False, True, False]
    assert f"{deep_line}:2" in cases[1].message and "nested too deeply" in cases[1].message
    with pytest.raises(InvalidCaseError, match=rf"{deep_line}:2: not a JSON line: .*nested too deeply"):
        bfcl_cases(deep_line, answers)
    # in a ground truth, a tau2 action, an ADK conversation, a tau-bench task file
    question = json.loads(lines[0])
    with pytest.raises(InvalidCaseError, match=r"ground_truth.*nested more than 100 levels"):
        bfcl_cases([question], [{"id": question["id"], "ground_truth": [{"f": {"a": [DEEP]}}]}])
    task = {"id": "1", "evaluation_criteria": {"actions": [{"name": "a", "arguments": {"v": DEEP}}]}}
    with pytest.raises(InvalidCaseError, match=r"entry 0 \(id '1'\): evaluation_criteria\.actions\[0\]\.argument"):
        tau2_cases([task])
    with pytest.raises(InvalidCaseError, match=r"eval_cases\[0\].*nested more than 100"):
        adk_cases({"eval_cases": [{"eval_id": "e", "conversation": [DEEP]}]})
    file = tmp_path / "tasks.py"
    file.write_text("tasks = [{'actions': []}, {'actions': [], 'x': " + "[" * 150 + "]" * 150 + "}]\n",
                    encoding="utf-8")
    cases = tau_bench_cases(file, errors="record")
    assert isinstance(cases[1], UnreadableCase) and f"{file}:1 (task 1)" in cases[1].message
    cyclic: dict = {"id": "t-1", "calling": []}
    cyclic["self"] = cyclic
    with pytest.raises(InvalidCaseError, match=r"self\.self.*nested more than 100"):
        seal_tools_cases([cyclic])


# -- item 11: tau2 task drift ------------------------------------------------------------

TAU2 = DATA / "tau2"


def _edited_tasks(tmp_path: Path) -> Path:
    """airline_tasks.json as tau2 ships it, with three tasks edited as a newer
    tau2 might: task 12's expected argument changed, task 39's last action
    dropped, task 0 given an expected action (it had none)."""
    tasks = json.loads((TAU2 / "airline_tasks.json").read_text(encoding="utf-8"))
    by_id = {task["id"]: task for task in tasks}
    actions = by_id["12"]["evaluation_criteria"]["actions"]
    actions[0]["arguments"]["reservation_id"] = "ZZZZZZ"
    by_id["39"]["evaluation_criteria"]["actions"].pop()
    by_id["0"]["evaluation_criteria"]["actions"] = [{"action_id": "0_0", "name": "get_user_details",
                                                     "arguments": {"user_id": "emma_kim_9957"}, "info": None}]
    edited = tmp_path / "airline_tasks.json"
    edited.write_text(json.dumps(tasks, indent=4), encoding="utf-8")
    return edited


def test_tau2_results_scored_against_edited_tasks_are_refused_by_task_id(tmp_path):
    edited = _edited_tasks(tmp_path)
    runs = cases_from_tau2(TAU2 / "airline_excerpt.json")
    assert [case.metadata["task_id"] for case in runs] == ["12", "0", "39"]
    with pytest.raises(InvalidCaseError) as refused:
        with_tau2_expectations(runs, edited)
    message = str(refused.value)
    assert message.startswith("3 of the cases cannot take their task's expectation")
    assert "(task '0') was run with another version of the task: the results have 0 expected actions" in message
    assert ("(task '12') was run with another version of the task: expected action 0 (get_reservation_details): "
            "arguments.reservation_id is \"YAX4DR\" in the results, \"ZZZZZZ\" in the tasks file") in message
    assert "(task '39')" in message and "is only in the results" in message
    assert "Fix: pass the results file itself as tasks" in message and 'errors="record"' in message
    scored = with_tau2_expectations(runs, edited, errors="record")
    assert [isinstance(case, UnreadableCase) for case in scored] == [True, True, True]
    assert [case.id for case in scored] == ["airline-12", "airline-0", "airline-39"]
    result = evaluate(scored, ["expectation_match"], errors="record", progress=False)["expectation_match"]
    assert len(result.values) == 3 and all(math.isnan(value) for value in result.values)
    # the fixes: the tasks the run used (the results file itself), or the matching tasks file
    assert all(isinstance(case, AgentTestCase) for case in with_tau2_expectations(runs, TAU2 / "airline_excerpt.json"))
    assert all(isinstance(case, AgentTestCase) for case in with_tau2_expectations(runs, TAU2 / "airline_tasks.json"))


def test_tau2_drift_in_compare_args_is_seen_from_the_results_file(tmp_path):
    tasks = json.loads((TAU2 / "airline_tasks.json").read_text(encoding="utf-8"))
    for task in tasks:
        if task["id"] == "12":
            task["evaluation_criteria"]["actions"][0]["compare_args"] = []
    edited = tmp_path / "tasks.json"
    edited.write_text(json.dumps(tasks), encoding="utf-8")
    scored = with_tau2_expectations(TAU2 / "airline_excerpt.json", edited, errors="record")
    assert [isinstance(case, UnreadableCase) for case in scored] == [True, False, False]
    assert "(task '12')" in scored[0].message
    assert "compare_args is null in the results, [] in the tasks file" in scored[0].message
    # cases alone do not carry compare_args: the documented limit
    runs = cases_from_tau2(TAU2 / "airline_excerpt.json")
    assert all(isinstance(case, AgentTestCase) for case in with_tau2_expectations(runs, edited))


REAL_RUN = next((folder / "data" / "tau2" / "airline_claude-sonnet-4-5_trajectories.json"
                 for folder in (SHARED, REPO.parents[1] / "shared")
                 if (folder / "data" / "tau2" / "airline_claude-sonnet-4-5_trajectories.json").exists()), None)


@pytest.mark.skipif(REAL_RUN is None, reason="shared/data/tau2 is absent")
def test_the_real_run_differs_from_the_shipped_tasks_on_12_tasks():
    scored = with_tau2_expectations(REAL_RUN, TAU2 / "airline_tasks.json", errors="record")
    refused = sorted(int(case.id.split("-")[1]) for case in scored if isinstance(case, UnreadableCase))
    assert refused == [2, 7, 9, 13, 23, 27, 29, 33, 35, 37, 38, 44]
    assert all(isinstance(case, AgentTestCase) for case in with_tau2_expectations(REAL_RUN, REAL_RUN))


# -- item 12: API-Bank levels from the data ---------------------------------------------

API_BANK = DATA / "api_bank" / "lv1-lv2-samples"


def test_api_bank_levels_come_from_the_folder_not_the_file_name(tmp_path):
    (searcher,) = api_bank_cases(API_BANK / "level-2-toolsearcher" / "AddAlarm-level-3-1.jsonl")
    assert searcher.metadata["category"] == "level-2"  # the file name says level-3
    (given,) = api_bank_cases(API_BANK / "level-1-given-desc" / "AddAgenda-AddAlarm-GetUserToken-level-2-1.jsonl")
    assert given.metadata["category"] == "level-1"  # the file name says level-2
    # elsewhere the data does not say: None, unless the caller says it
    moved = tmp_path / "AddAlarm-level-3-1.jsonl"
    moved.write_bytes((API_BANK / "level-2-toolsearcher" / "AddAlarm-level-3-1.jsonl").read_bytes())
    assert api_bank_cases(moved)[0].metadata["category"] is None
    assert api_bank_cases(moved, level="level-2")[0].metadata["category"] == "level-2"
    turns = [json.loads(line) for line in _lines(moved)]
    assert {case.metadata["category"] for case in api_bank_cases(turns, per_call=True)} == {None}
    with pytest.raises(InvalidParameterError, match="'level-1' or 'level-2'"):
        api_bank_cases(moved, level="level-3")


# -- item 13: the function doc's rule, as BFCL's checker applies it ----------------------


def test_bfcl_expectations_follow_the_function_docs_required_and_known_parameters():
    """The vendored doc_rule entries, where the answer and the doc disagree:
    BFCL's checker refuses a call without a parameter the doc requires (even
    one the answer marks omittable) and a call with one the doc does not
    define (even one the answer lists)."""
    from agentmetrics.expectations import align

    folder = BFCL / "doc_rule"
    cases = {}
    for category in ("simple_python", "live_multiple", "parallel_multiple"):
        for case in bfcl_cases(folder / f"BFCL_v4_{category}.json",
                               folder / "possible_answer" / f"BFCL_v4_{category}.json"):
            cases[case.metadata["id"]] = case

    def met(entry_id, calls):
        return align(cases[entry_id].expectation, calls).value == 1.0

    # simple_python_17: formatted is [True, ""] in the answer, required by the doc
    assert met("simple_python_17", [("get_prime_factors", {"number": 450, "formatted": True})])
    assert not met("simple_python_17", [("get_prime_factors", {"number": 450})])
    # live_multiple_507-149-4: origin_airport's only value is "", and the doc requires it
    call = dict(cases["live_multiple_507-149-4"].expected_tool_calls[0].arguments)
    assert call["origin_airport"] == ""
    name = cases["live_multiple_507-149-4"].expected_tool_calls[0].name
    assert met("live_multiple_507-149-4", [(name, call)]) and met("live_multiple_507-149-4", [(name, {**call, "origin_airport": " "})])
    assert not met("live_multiple_507-149-4", [(name, {k: v for k, v in call.items() if k != "origin_airport"})])
    # parallel_multiple_26: the answer lists type ["credit", ""], the doc does not define it
    expected = [(c.name, dict(c.arguments)) for c in cases["parallel_multiple_26"].expected_tool_calls]
    assert all("type" not in arguments for _, arguments in expected) and met("parallel_multiple_26", expected)
    with_type = [(name, {**arguments, "type": "credit"}) if k == 1 else (name, arguments)
                 for k, (name, arguments) in enumerate(expected)]
    assert not met("parallel_multiple_26", with_type)
