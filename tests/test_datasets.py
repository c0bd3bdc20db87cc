"""The dataset loaders on real samples vendored under tests/data (each with
its license), and the expectations they build scored against what the
benchmark itself decides."""

from __future__ import annotations

import json
import sys

import pytest

from agentmetrics import InvalidCaseError, UnreadableCase, evaluate, get_metric
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

sys.path.insert(0, str(REPO / "tests" / "peers"))
import bfcl_rows

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
    with pytest.raises(InvalidCaseError, match=r"tau2_cases: entry 0 \(id '7'\): .*actions\[0\]\.arguments: expected an object"):
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


# -- BFCL, on its own data ----------------------------------------------------------

BFCL = DATA / "bfcl"
SINGLE_TURN = ["simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
               "parallel_multiple", "live_simple", "live_multiple", "live_parallel",
               "live_parallel_multiple"]


def _bfcl(category, outputs=None):
    return bfcl_cases(BFCL / f"BFCL_v4_{category}.json",
                      BFCL / "possible_answer" / f"BFCL_v4_{category}.json", outputs)


def _answers(category):
    lines = (BFCL / "possible_answer" / f"BFCL_v4_{category}.json").read_text(encoding="utf-8").splitlines()
    return {entry["id"]: entry["ground_truth"] for entry in map(json.loads, lines)}


def _functions(category):
    lines = (BFCL / f"BFCL_v4_{category}.json").read_text(encoding="utf-8").splitlines()
    return {entry["id"]: entry["function"] for entry in map(json.loads, lines)}


def _each_acceptable(ground_truth, pick, functions=None):
    """A decoded output of acceptable values (the differential test's own
    generator: each parameter's value at ``pick``, cycling; ``""`` left out;
    dict candidates unwrapped), kept within the function docs as BFCL's
    checker keeps it: a parameter the doc does not define left out, one it
    requires given (its next value that is not ``""``; empty text if it has
    none)."""
    made = bfcl_rows._answer(ground_truth, pick)
    docs = {doc["name"]: doc["parameters"] for doc in functions or []}
    for call, truth in zip(made, ground_truth):
        (name, arguments), = call.items()
        if name not in docs:
            continue
        for key in [key for key in arguments if key not in docs[name]["properties"]]:
            del arguments[key]
        for key in docs[name].get("required", []):
            if key not in arguments:
                values = [value for value in truth[name][key] if value != ""]
                arguments[key] = bfcl_rows._answer([{name: {key: values}}], pick)[0][name][key] if values else ""
    return made


@pytest.mark.parametrize("category", SINGLE_TURN)
def test_every_acceptable_answer_meets_the_expectation(category):
    answers, functions = _answers(category), _functions(category)
    metric = get_metric("expectation_match")
    for pick in range(3):
        outputs = {key: _each_acceptable(truth, pick, functions[key]) for key, truth in answers.items()}
        if "parallel" in category:  # any order
            outputs = {key: value[::-1] for key, value in outputs.items()}
        cases = _bfcl(category, outputs)
        assert len(cases) == len(answers) >= 15
        for case in cases:
            assert case.metadata["category"] == category
            score = metric.evaluate(case)
            assert score.value == 1.0, (case.metadata["id"], score.reason)


@pytest.mark.parametrize("category", SINGLE_TURN)
def test_wrong_answers_fall_short(category):
    answers, functions = _answers(category), _functions(category)
    metric = get_metric("expectation_match")
    mutations = {
        "dropped call": lambda out: out[:-1],
        "added call": lambda out: out + [out[0]],
        "unknown argument": lambda out: [{n: {**a, "not_a_parameter": 1}} for item in out for n, a in item.items()],
        "wrong name": lambda out: [{n + "_x": a} for item in out for n, a in item.items()],
    }
    for label, mutate in mutations.items():
        outputs = {key: mutate(_each_acceptable(truth, 0, functions[key])) for key, truth in answers.items()}
        for case in _bfcl(category, outputs):
            assert metric.evaluate(case).value < 1.0, (label, case.metadata["id"])


def test_parallel_178_passes_in_either_order():
    """BFCL's own greedy matching fails this correct answer when Apple on
    2022-01-01 comes first (its first ground-truth call accepts Microsoft or
    Apple); the optimal alignment does not depend on the order."""
    (case_ok,) = [c for c in _bfcl("parallel") if c.metadata["id"] == "parallel_178"]
    made = [("get_stock_price", {"company_name": "Apple", "date": "2022-01-01"}),
            ("get_stock_price", {"company_name": "Microsoft", "date": "2022-01-01"}),
            ("get_stock_price", {"company_name": "Microsoft", "date": "2022-02-01"}),
            ("get_stock_price", {"company_name": "Apple", "date": "2022-02-01"})]
    for order in (made, made[::-1], made[1:] + made[:1]):
        assert align(case_ok.expectation, order).value == 1.0


def test_irrelevance_expects_no_call_and_results_files_are_read(tmp_path):
    results = tmp_path / "result.json"
    results.write_text("\n".join(json.dumps({"id": f"irrelevance_{k}", "result": [] if k % 2 else
                                             [{"some_tool": {}}]}) for k in range(15)), encoding="utf-8")
    cases = bfcl_cases(BFCL / "BFCL_v4_irrelevance.json", None, results)
    values = evaluate(cases, ["expectation_match"], progress=False)["expectation_match"].values.tolist()
    assert values == [0.0 if k % 2 == 0 else 1.0 for k in range(15)]
    with pytest.raises(InvalidCaseError, match=r"result\.json:3: .*\{\"id\": \.\.\., \"result\""):
        results.write_text('{"id": "irrelevance_0", "result": []}\n{"id": "irrelevance_1", "result": []}\n{"result": 1}\n')
        bfcl_cases(BFCL / "BFCL_v4_irrelevance.json", None, results)


# -- Google ADK ----------------------------------------------------------------------

ADK = DATA / "adk"


def test_adk_evalsets_and_the_older_turn_lists_become_multi_turn_cases():
    from agentmetrics import AgentTestCase, per_turn
    from agentmetrics.datasets import adk_cases

    (old,) = adk_cases(ADK / "trip_inquiry.test.json")
    assert old.metadata["id"] == "trip_inquiry.test.json" and len(old.turns) == 2
    assert [c.name for c in old.turns[1].expected_tool_calls] == ["transfer_to_agent"]
    (new,) = adk_cases(ADK / "dependent_tool_calls.test.json")
    raw = json.loads((ADK / "dependent_tool_calls.test.json").read_text(encoding="utf-8"))
    conversation = raw["eval_cases"][0]["conversation"]
    assert new.metadata["id"] == raw["eval_cases"][0]["eval_id"] and len(new.turns) == len(conversation)
    for turn, invocation in zip(new.turns, conversation):
        uses = invocation["intermediate_data"]["tool_uses"]
        assert [(c.name, c.arguments) for c in turn.expected_tool_calls] == [(u["name"], u["args"]) for u in uses]
        assert turn.input == invocation["user_content"]["parts"][0]["text"]
    # scored as ADK scores a session: each invocation EXACT, then the mean
    ran = AgentTestCase(turns=[AgentTestCase(input=t.input, tool_calls=list(t.expected_tool_calls),
                                             expectation=t.expectation) for t in new.turns])
    metric = per_turn("expectation_match", aggregate="mean")
    assert metric.evaluate(ran).value == 1.0
    swapped = AgentTestCase(turns=[ran.turns[0], AgentTestCase(
        tool_calls=[{"name": "get_device_info", "arguments": {"device_id": "device_9"}}],
        expectation=new.turns[1].expectation)])
    assert metric.evaluate(swapped).value == 0.5


def test_adk_camel_case_scenarios_and_bad_files():
    from agentmetrics.datasets import adk_cases

    scenario = adk_cases(ADK / "live_non_blocking_tool_agent.evalset.json")
    assert isinstance(scenario[0], UnreadableCase) and "user simulator" in scenario[0].message
    assert len(scenario) == 2 and not isinstance(scenario[1], UnreadableCase)
    camel = {"evalSetId": "s", "evalCases": [{"evalId": "c1", "conversation": [
        {"userContent": {"parts": [{"text": "hi"}]}, "intermediateData": {"toolUses": [{"name": "a", "args": {"x": 1}}]}}]}]}
    (case,) = adk_cases(camel)
    assert case.metadata == {"id": "c1", "category": "s"} and case.turns[0].expected_tool_calls[0].arguments == {"x": 1}
    with pytest.raises(InvalidCaseError, match=r"adk_cases: eval set: eval_cases\[0\]: conversation\[0\]\.intermediate_data\.tool_uses\[0\]"):
        adk_cases({"eval_cases": [{"conversation": [{"intermediate_data": {"tool_uses": [{"args": {}}]}}]}]})
    with pytest.raises(InvalidCaseError, match="an ADK EvalSet"):
        adk_cases({"test_cases": []})


# -- tau-bench (v1) ------------------------------------------------------------------

TAU_BENCH = DATA / "tau_bench"


@pytest.mark.parametrize("file, count", [("retail_tasks_test_first5.py", 5), ("airline_tasks_test_first5.py", 5),
                                         ("airline_tasks_legacy_dict_first3.py", 3)])
def test_tau_bench_task_files_are_read_without_running_them(file, count):
    import ast as python_ast

    from agentmetrics.datasets import tau_bench_cases

    cases = tau_bench_cases(TAU_BENCH / file, name="retail")
    assert len(cases) == count and cases[0].metadata["id"] == "retail-0"
    # an independent reading: every Action(...) / action dict in the file, in order
    tree = python_ast.parse((TAU_BENCH / file).read_text(encoding="utf-8"))
    names = [node.value.value for node in python_ast.walk(tree) if isinstance(node, python_ast.keyword)
             and node.arg == "name" and isinstance(node.value, python_ast.Constant)]
    names += [value.value for node in python_ast.walk(tree) if isinstance(node, python_ast.Dict)
              for key, value in zip(node.keys, node.values)
              if isinstance(key, python_ast.Constant) and key.value == "name" and isinstance(value, python_ast.Constant)]
    assert sorted(c.name for case in cases for c in case.expected_tool_calls) == sorted(names)
    for case in cases:
        calls = [(c.name, c.arguments) for c in case.expected_tool_calls]
        assert align(case.expectation, calls).value == 1.0
        if len(calls) > 1 and calls[0] != calls[-1]:
            assert align(case.expectation, calls[::-1]).value < 1.0  # in order


def test_tau_bench_refuses_code_it_would_have_to_run(tmp_path):
    from agentmetrics.datasets import tau_bench_cases

    bad = tmp_path / "tasks.py"
    bad.write_text("tasks = [Task(user_id=__import__('os').getcwd(), actions=[])]\n", encoding="utf-8")
    with pytest.raises(InvalidCaseError, match="a literal"):
        tau_bench_cases(bad)
    assert tau_bench_cases([{"actions": [{"name": "a", "kwargs": {}}], "instruction": "x"}])[0].metadata["id"] == "task-0"


# -- BFCL multi-turn -----------------------------------------------------------------

SORT_DOC = [{"name": "sort", "parameters": {"type": "dict", "properties": {"file_name": {"type": "string"}}}}]


def test_bfcl_multi_turn_ground_truth_is_parsed_not_run():
    from agentmetrics import AgentTestCase, per_turn
    from agentmetrics.datasets import bfcl_multi_turn_cases, parse_bfcl_call

    cases = bfcl_multi_turn_cases(BFCL / "BFCL_v4_multi_turn_base.json",
                                  BFCL / "possible_answer" / "BFCL_v4_multi_turn_base.json", functions=SORT_DOC)
    answers = _lines_of(BFCL / "possible_answer" / "BFCL_v4_multi_turn_base.json")
    assert [c.metadata["id"] for c in cases] == [a["id"] for a in answers]
    for case, answer in zip(cases, answers):
        assert len(case.turns) == len(answer["ground_truth"])
        for turn, texts in zip(case.turns, answer["ground_truth"]):
            # an independent reading: the name before "(", each key=value pair
            assert [c.name for c in turn.expected_tool_calls] == [t.split("(", 1)[0] for t in texts]
    first = cases[0].turns[0].expected_tool_calls
    assert [(c.name, c.arguments) for c in first] == [
        ("cd", {"folder": "document"}), ("mkdir", {"dir_name": "temp"}),
        ("mv", {"source": "final_report.pdf", "destination": "temp"})]
    assert cases[0].turns[2].expected_tool_calls[0].arguments == {"file_name": "final_report.pdf"}
    # the ground truth itself meets every turn, extra calls allowed, order kept
    ran = AgentTestCase(turns=[AgentTestCase(tool_calls=[{"name": "ls", "arguments": {}}, *t.expected_tool_calls],
                                             expectation=t.expectation) for t in cases[0].turns])
    assert per_turn("expectation_match").evaluate(ran).value == 1.0
    for bad, match in [("__import__('os').system('x')", "a call of a named function|literal"),
                       ("cd(folder=open('x'))", "literal arguments"), ("cd(**{'a': 1})", "named arguments"),
                       ("cd(", "a Python call expression"), ("1 + 2", "a call expression")]:
        with pytest.raises(InvalidCaseError, match=match):
            parse_bfcl_call(bad)
    with pytest.raises(InvalidCaseError, match="positional arguments"):
        bfcl_multi_turn_cases(BFCL / "BFCL_v4_multi_turn_base.json",
                              BFCL / "possible_answer" / "BFCL_v4_multi_turn_base.json")


def test_bfcl_multi_turn_outputs_by_turn_and_step():
    from agentmetrics import per_turn
    from agentmetrics.datasets import bfcl_multi_turn_cases

    questions = _lines_of(BFCL / "BFCL_v4_multi_turn_base.json")[1:2]
    answers = _lines_of(BFCL / "possible_answer" / "BFCL_v4_multi_turn_base.json")[1:2]
    steps = [[[{"ls": {"a": True}}]], [[{"cd": {"folder": "workspace"}}], [{"mv": {"source": "log.txt", "destination": "archive"}}]],
             [{"cd": {"folder": "archive"}}], [{"tail": {"file_name": "log.txt", "lines": 10}}]]
    (case,) = bfcl_multi_turn_cases(questions, answers, {"multi_turn_base_1": steps})
    scores = per_turn("expectation_match").evaluate(case)
    assert scores.value == 0.625  # turns 1 and 2 met, turn 3 half (grep missing), turn 4 not (lines 10)
    (bad,) = bfcl_multi_turn_cases(questions, answers, {"multi_turn_base_1": steps[:2]})
    assert isinstance(bad, UnreadableCase) and "one list of calls per turn" in bad.message


def _lines_of(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# -- Seal-Tools ----------------------------------------------------------------------

SEAL = DATA / "seal_tools" / "test_in_domain_sample.jsonl"


def test_seal_tools_entries_become_cases_with_their_calls_in_any_order():
    from agentmetrics.datasets import seal_tools_cases

    cases = seal_tools_cases(SEAL)
    entries = _lines_of(SEAL)
    assert [c.metadata["id"] for c in cases] == [e["id"] for e in entries]
    for case, entry in zip(cases, entries):
        assert [(c.name, c.arguments) for c in case.expected_tool_calls] == [
            (c["api"], c["parameters"]) for c in entry["calling"]]
        calls = [(c["api"], c["parameters"]) for c in entry["calling"]]
        assert align(case.expectation, calls[::-1]).value == 1.0
    (dependent,) = [c for c in cases if c.metadata["id"] == "test_in_domain-difficult-225"]
    assert align(dependent.expectation, [("getWildlifeSpecies", {"habitat": "forest", "location": "Africa"}),
                                         ("getConservationProjectDetails", {"project_id": "P-17"})]).value == 1.0


def _seal_rule(gold, made):
    """Seal-Tools' own parameter rule, restated: str() of the values equal."""
    return gold.keys() == made.keys() and all(
        str(made[k]) == str(v) or str(v).startswith("API_call_") for k, v in gold.items())


@pytest.mark.parametrize("probe", [40.7, "40.7", 40, "40", "forty", None, True, 0.2907590418481535])
def test_seal_tools_values_compare_as_the_scorer_compares_them(probe):
    from agentmetrics.datasets import seal_tools_cases

    for entry in _lines_of(SEAL):
        for call in entry["calling"]:
            for key in call["parameters"]:
                made = dict(call["parameters"], **{key: probe})
                single = seal_tools_cases([{"id": "x-1", "calling": [call]}])[0].expectation
                reference = str(call["parameters"][key]).startswith("API_call_")
                # one choice of ours: a bool is not the number 1 or the text "True"
                want = _seal_rule(call["parameters"], made) and (reference or not isinstance(probe, bool))
                assert (align(single, [(call["api"], made)]).value == 1.0) == want, (entry["id"], key, probe)


# -- API-Bank ------------------------------------------------------------------------

API_BANK = DATA / "api_bank"


@pytest.mark.parametrize("file", sorted(str(p.relative_to(API_BANK)) for p in API_BANK.rglob("*.jsonl")))
def test_api_bank_dialogues_as_one_case_and_as_one_case_per_call(file):
    from agentmetrics.datasets import api_bank_cases

    turns = _lines_of(API_BANK / file)
    api = [t for t in turns if t["role"] == "API"]
    (case,) = api_bank_cases(API_BANK / file)
    name = file.rsplit("/", 1)[-1]
    assert case.metadata["id"] == name.removesuffix(".jsonl")
    # the level is the folder's (API-Bank's evaluator reads it so), never the file name's
    assert case.metadata["category"] == {"level-1-given-desc": "level-1",
                                         "level-2-toolsearcher": "level-2"}[file.split("/")[1]]
    assert [(c.name, c.arguments, c.output) for c in case.expected_tool_calls] == [
        (t["api_name"], t["param_dict"], t["result"]["output"]) for t in api]
    calls = [(t["api_name"], t["param_dict"]) for t in api]
    assert align(case.expectation, calls).value == 1.0
    if len(calls) > 1 and calls[0][0] != calls[-1][0]:
        assert align(case.expectation, calls[::-1]).value < 1.0
    per_call = api_bank_cases(API_BANK / file, per_call=True)
    assert len(per_call) == len(api)
    for k, (one, turn) in enumerate(zip(per_call, api)):
        assert one.metadata["id"] == f"{case.metadata['id']}#{k}" and one.metadata["category"] == case.metadata["category"]
        assert len(one.input) == turns.index(turn)  # the dialogue before the call
        assert align(one.expectation, [(turn["api_name"], turn["param_dict"])]).value == 1.0


# -- xLAM / APIGen and NexusRaven: no sample can be vendored (xLAM's rows live on
# Hugging Face only; NexusRaven's GitHub data is CC BY-NC): rows written here in
# their documented shapes.

def test_xlam_rows_with_json_text_fields():
    from agentmetrics.datasets import xlam_cases

    rows = [{"id": 7, "query": "Weather in Paris and Rome?",
             "tools": json.dumps([{"name": "weather", "parameters": {"city": {"type": "str"}}}]),
             "answers": json.dumps([{"name": "weather", "arguments": {"city": "Paris"}},
                                    {"name": "weather", "arguments": {"city": "Rome"}}])},
            {"query": "Nothing", "tools": [], "answers": []}]
    cases = xlam_cases(rows, {7: [{"name": "weather", "arguments": {"city": "Rome"}},
                                  {"name": "weather", "arguments": {"city": "Paris"}}]})
    assert [c.metadata["id"] for c in cases] == [7, 1] and cases[0].metadata["tools"][0]["name"] == "weather"
    assert get_metric("expectation_match").evaluate(cases[0]).value == 1.0
    with pytest.raises(InvalidCaseError, match=r"entry 0 \(id 0\): answers: expected a list of calls as JSON text"):
        xlam_cases([{"answers": "[{"}])


def test_nexusraven_references_with_prefixes_assignments_and_nested_calls():
    from agentmetrics.datasets import nexusraven_calls, nexusraven_cases

    entries = [{"query": "Find two CPEs for Exchange 2010",
                "reference": "r = nvdlib.searchCPE(keywordSearch = 'Microsoft Exchange 2010', limit = 2)"},
               {"query": "Report on the IP of example.com",
                "reference": 'vt_get_ip_report(ip=vt_get_dns_resolution(domain="example.com"), x_apikey="k")'}]
    first, nested = nexusraven_cases(entries, name="demo")
    assert [(c.name, c.arguments) for c in first.expected_tool_calls] == [
        ("searchCPE", {"keywordSearch": "Microsoft Exchange 2010", "limit": 2})]
    assert [c.name for c in nested.expected_tool_calls] == ["vt_get_dns_resolution", "vt_get_ip_report"]
    ran = [("vt_get_dns_resolution", {"domain": "example.com"}), ("vt_get_ip_report", {"ip": "1.2.3.4", "x_apikey": "k"})]
    assert align(nested.expectation, ran).value == 1.0 and align(nested.expectation, ran[::-1]).value < 1.0
    for bad in ["f(1)", "f(**a)", "import os", "f(a=x)", "x + 1", "f(a=1); g(b=2)", "(lambda: 1)(a=2)"]:
        with pytest.raises(InvalidCaseError):
            nexusraven_calls(bad)
