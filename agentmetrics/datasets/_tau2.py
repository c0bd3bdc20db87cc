"""tau2-bench tasks as cases with expectations."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import attrs

from agentmetrics._base._types import check_errors_mode
from agentmetrics.datasets._common import Entry, build, entries, entry_id, fail, load_json
from agentmetrics.errors import InvalidCaseError
from agentmetrics.expectations import AnyOrder, Call, Equals, Expectation, MayOmit
from agentmetrics.formats import cases_from_tau2
from agentmetrics.formats._tau2 import load_tau2
from agentmetrics.model._model import AgentTestCase, ToolCall, UnreadableCase

__all__ = ["tau2_cases", "tau2_expectation", "with_tau2_expectations"]

_LOADER = "tau2_cases"


def tau2_expectation(actions: Iterable[Any], where: str = "actions") -> Expectation:
    """The expectation tau2's action check stands for: each of the
    assistant's expected actions matched by some call, in any order, other
    calls allowed. An action's arguments compare as tau2 compares them:
    with ``compare_args`` absent, every argument the call gives must equal
    the action's (an argument of the action the call leaves out is not
    checked); with ``compare_args``, exactly those arguments must be equal.
    Identical actions are kept once (one call meets them all in tau2)."""
    steps: list[Call] = []
    for k, action in enumerate(actions):
        here = f"{where}[{k}]"
        if not isinstance(action, Mapping):
            raise fail(here, "an action object", action, "pass the task's evaluation_criteria.actions.")
        if action.get("requestor", "assistant") != "assistant":
            continue  # the user simulator's own calls
        name, arguments = action.get("name"), action.get("arguments")
        if not isinstance(name, str) or not name:
            raise fail(f"{here}.name", "a tool name", name, "repair the task file.")
        if not isinstance(arguments, Mapping):
            raise fail(f"{here}.arguments", "an object", arguments, "repair the task file.")
        compare = action.get("compare_args")
        if compare is None:
            pattern = Call(name, {key: MayOmit(Equals(value)) for key, value in arguments.items()})
        else:
            if not isinstance(compare, list) or not all(isinstance(key, str) for key in compare):
                raise fail(f"{here}.compare_args", "a list of argument names", compare,
                           "repair the task file.")
            absent = [key for key in compare if key not in arguments]
            if absent:
                raise fail(f"{here}.compare_args", "names of the action's arguments", absent,
                           "tau2 then requires the call to leave them out, which an expectation "
                           "cannot say: drop them from compare_args.")
            pattern = Call(name, {key: Equals(arguments[key]) for key in compare},
                           extra_arguments="allow")
        if pattern not in steps:
            steps.append(pattern)
    return Expectation(AnyOrder(steps), extra_calls="allow")


def _task_entries(tasks: Any) -> Iterator[Entry]:
    """The tasks, entry by entry: of a tasks file (with their lines), of a
    results file or object (its ``tasks``: those it was run with), or of the
    iterable given."""
    if isinstance(tasks, (str, os.PathLike)):
        document = load_json(tasks, _LOADER)
        if isinstance(document, list):
            yield from entries(tasks, _LOADER)
            return
        if isinstance(document, Mapping) and isinstance(document.get("tasks"), list):
            for entry in entries(document["tasks"], _LOADER):
                yield attrs.evolve(entry, source=os.fspath(tasks), where=f"{os.fspath(tasks)}: tasks[{entry.line}]")
            return
        raise fail(f"{_LOADER}: {os.fspath(tasks)}", "a list of tasks, or a results file with 'tasks'",
                   document, "pass tau2's tasks.json, or a results file.")
    if isinstance(tasks, Mapping):
        if not isinstance(tasks.get("tasks"), list):
            raise fail(_LOADER, "a results object with a list of 'tasks'", tasks,
                       "pass tau2's tasks, or its results object.")
        for entry in entries(tasks["tasks"], _LOADER):
            yield attrs.evolve(entry, where=f"tasks[{entry.line}]")
        return
    yield from entries(tasks, _LOADER)


def _assistant_actions(actions: list[Any]) -> list[Any]:
    return [a for a in actions if not isinstance(a, Mapping) or a.get("requestor", "assistant") == "assistant"]


def _actions(task: Mapping[str, Any]) -> list[Any]:
    criteria = task.get("evaluation_criteria")
    actions = (criteria.get("actions") if isinstance(criteria, Mapping) else None) or []
    if not isinstance(actions, list):
        raise fail("evaluation_criteria.actions", "a list", actions, "repair the task file.")
    return actions


def _task_case(task: Any, outputs: Mapping[str, Any] | None) -> AgentTestCase:
    if not isinstance(task, Mapping) or "id" not in task:
        raise fail("task", "a task object with an id", task, "pass tau2's tasks.json or its list of tasks.")
    task_id = str(task["id"])
    scenario = task.get("user_scenario")
    instructions = scenario.get("instructions") if isinstance(scenario, Mapping) else None
    domain = instructions.get("domain") if isinstance(instructions, Mapping) else None
    reason = instructions.get("reason_for_call") if isinstance(instructions, Mapping) else None
    actions = _actions(task)
    expectation = tau2_expectation(actions, "evaluation_criteria.actions")
    expected = [ToolCall(a["name"], a["arguments"]) for a in _assistant_actions(actions)]
    description = task.get("description")
    purpose = description.get("purpose") if isinstance(description, Mapping) else None
    return AgentTestCase(
        input=reason, tool_calls=None if outputs is None else outputs.get(task_id),
        expected_tool_calls=expected, expectation=expectation,
        metadata={"id": f"{domain}-{task_id}" if domain else task_id, "task_id": task_id,
                  "category": domain, "task": purpose})


def tau2_cases(tasks: str | os.PathLike[str] | Iterable[Any] | Mapping[str, Any],
               outputs: Mapping[str, Any] | None = None, *, errors: str = "raise",
               ) -> list[AgentTestCase | UnreadableCase]:
    """One case per tau2-bench task (a ``tasks.json`` path, or its list of
    task objects; a results file or object gives the tasks it holds, those
    it was run with): ``expectation`` from ``evaluation_criteria.actions`` (see
    :func:`tau2_expectation`), ``expected_tool_calls`` the assistant's
    actions in order, ``input`` the user's ``reason_for_call``, and metadata
    ``id`` (``<domain>-<task id>``), ``task_id``, ``category`` (the domain) and
    ``task`` (the purpose, if given). ``outputs`` maps a task id to the
    agent's calls (anything ``AgentTestCase.tool_calls`` takes); without it,
    ``tool_calls`` is None. To score tau2's own results files, use
    :func:`agentmetrics.formats.cases_from_tau2` and ``with_tau2_expectations``.
    A task that cannot be read is refused with its id and where it is; with
    ``errors="record"`` it becomes an :class:`~agentmetrics.UnreadableCase`
    and the other tasks load."""
    mode = check_errors_mode(errors)
    cases: list[AgentTestCase | UnreadableCase] = []
    for entry in _task_entries(tasks):
        task_id = entry_id(entry.value)
        cases.append(build(_LOADER, mode, entry, None if task_id is None else str(task_id),
                           lambda task: _task_case(task, outputs)))
    return cases


def _as_action(action: Any) -> dict[str, Any]:
    """What of an expected action the expectation and the expected calls are
    built from: name, arguments and ``compare_args`` (absent and null alike;
    None for a ToolCall, which does not carry it)."""
    if isinstance(action, ToolCall):
        return {"name": action.name, "arguments": action.arguments}
    if isinstance(action, Mapping):
        return {"name": action.get("name"), "arguments": action.get("arguments"),
                "compare_args": action.get("compare_args")}
    return {"action": action}


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)


def _short(value: Any) -> str:
    text = _canonical(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _first_difference(ours: Any, theirs: Any, path: str) -> tuple[str, Any, Any]:
    """The first path at which two JSON values differ, with both values there."""
    if isinstance(ours, Mapping) and isinstance(theirs, Mapping):
        for key in [*ours, *(k for k in theirs if k not in ours)]:
            if key not in ours or key not in theirs or _canonical(ours[key]) != _canonical(theirs[key]):
                if key in ours and key in theirs:
                    return _first_difference(ours[key], theirs[key], f"{path}.{key}")
                return f"{path}.{key}", ours.get(key, "(absent)"), theirs.get(key, "(absent)")
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for k, (mine, other) in enumerate(zip(ours, theirs)):
            if _canonical(mine) != _canonical(other):
                return _first_difference(mine, other, f"{path}[{k}]")
    return path, ours, theirs


def task_difference(results: list[Any], tasks: list[Any]) -> str | None:
    """How the assistant's expected actions a run used (``results``: the
    results file's actions, or a case's expected calls) differ from a tasks
    file's (``tasks``): None when they are the same in the same order (name,
    arguments and, where both sides carry it, ``compare_args``); else the
    first difference, in words."""
    ours = [_as_action(action) for action in results]
    theirs = [_as_action(action) for action in tasks]
    if any(isinstance(action, ToolCall) for action in results):  # calls do not carry compare_args
        theirs = [{key: value for key, value in action.items() if key != "compare_args"} for action in theirs]
    if _canonical(ours) == _canonical(theirs):
        return None
    for k, (mine, other) in enumerate(zip(ours, theirs)):
        if _canonical(mine) != _canonical(other):
            path, a, b = _first_difference(mine, other, "")
            return (f"expected action {k} ({mine.get('name')}): {path.lstrip('.')} is {_short(a)} in the "
                    f"results, {_short(b)} in the tasks file")
    k = min(len(ours), len(theirs))
    extra = (f"{_short(ours[k].get('name'))} is only in the results" if len(ours) > len(theirs)
             else f"{_short(theirs[k].get('name'))} is only in the tasks file")
    return (f"the results have {len(ours)} expected actions of the assistant, the tasks file "
            f"{len(theirs)}: action {k}, {extra}")


def with_tau2_expectations(cases: Iterable[AgentTestCase] | str | os.PathLike[str] | Mapping[str, Any],
                           tasks: str | os.PathLike[str] | Iterable[Any] | Mapping[str, Any], *,
                           errors: str = "raise") -> list[AgentTestCase | UnreadableCase]:
    """Cases of a tau2 run with each one's task expectation attached from
    ``tasks``, found by ``metadata["task_id"]``.

    ``cases`` is a results file (a path, or the results object), read with
    :func:`agentmetrics.formats.cases_from_tau2`, or the cases that function
    gave. ``tasks`` is a tasks file (or its tasks), or a results file (then
    the tasks it holds are used).

    A results file carries the tasks it was run with. When a task of
    ``tasks`` expects other actions of the assistant than the run's task did,
    scoring against it scores the run against a task it did not run: those
    cases are refused, naming each task id and its first difference; with
    ``errors="record"`` each becomes an :class:`~agentmetrics.UnreadableCase`
    (an error row) and the others are scored. Compared: the assistant's
    expected actions, in order, each one's ``name`` and ``arguments`` (as
    JSON) and, when ``cases`` is the results file, ``compare_args`` (absent
    and null alike). Cases given as cases carry only the names and
    arguments (their ``expected_tool_calls``); cases without
    ``expected_tool_calls`` are not checked."""
    mode = check_errors_mode(errors)
    embedded: dict[str, list[Any]] | None = None
    if isinstance(cases, (str, os.PathLike, Mapping)):
        results = load_tau2(cases) if isinstance(cases, (str, os.PathLike)) else cases
        embedded = {}
        for task in results.get("tasks") or [] if isinstance(results, Mapping) else []:
            if isinstance(task, Mapping) and "id" in task:
                try:
                    embedded.setdefault(str(task["id"]), _assistant_actions(_actions(task)))
                except InvalidCaseError:
                    embedded.setdefault(str(task["id"]), [])
        cases = cases_from_tau2(results)
    if not isinstance(tasks, (str, os.PathLike, Mapping)):
        tasks = list(tasks)  # read twice below
    by_id: dict[str, AgentTestCase | UnreadableCase] = {}
    actions: dict[str, list[Any]] = {}
    for entry in _task_entries(tasks):
        if isinstance(entry.value, Mapping) and "id" in entry.value:
            try:
                actions.setdefault(str(entry.value["id"]), _assistant_actions(_actions(entry.value)))
            except InvalidCaseError:
                pass  # the task's own case says why
    for case in tau2_cases(tasks, errors="record"):
        key = case.id if isinstance(case, UnreadableCase) else case.metadata["task_id"]
        by_id.setdefault(str(key), case)
    label = os.fspath(tasks) if isinstance(tasks, (str, os.PathLike)) else "tasks"
    out: list[AgentTestCase | UnreadableCase] = []
    refused: list[str] = []
    for k, case in enumerate(cases):
        if not isinstance(case, AgentTestCase):
            out.append(case)  # an error row already: kept as it is
            continue
        task_id = case.metadata.get("task_id")
        found = by_id.get(str(task_id)) if task_id is not None else None
        if found is None:
            problem = (f"case {k} has task_id {task_id!r}, which the tasks do not hold. Fix: pass the "
                       f"tasks file of that run, or the results file itself.")
        elif isinstance(found, UnreadableCase):
            problem = f"case {k} (task {task_id!r}): its task cannot be read: {found.message}"
        else:
            run_with = (embedded.get(str(task_id)) if embedded is not None else
                        None if case.expected_tool_calls is None else list(case.expected_tool_calls))
            difference = None if run_with is None else task_difference(run_with, actions.get(str(task_id), []))
            if difference is None:
                out.append(attrs.evolve(case, expectation=found.expectation))
                continue
            problem = (f"case {k} (task {task_id!r}) was run with another version of the task: {difference}. "
                       f"Fix: pass the results file itself as tasks (its tasks are those the run used), or "
                       f"the tasks file of the tau2 version that wrote the results.")
        message = f"with_tau2_expectations: {label}: {problem}"
        refused.append(message)
        out.append(UnreadableCase(label, 0, message, id=case.metadata.get("id")))
    if refused and mode == "raise":
        shown = "\n".join(refused[:10]) + (f"\n... and {len(refused) - 10} more" if len(refused) > 10 else "")
        raise InvalidCaseError(f"{len(refused)} of the cases cannot take their task's expectation:\n{shown}\n"
                               f'Or pass errors="record": these cases become error rows and the others are scored.')
    return out
