"""tau2-bench tasks as cases with expectations."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from agentmetrics._model import AgentTestCase, ToolCall
from agentmetrics.datasets._common import entries, fail, load_json
from agentmetrics.errors import InvalidCaseError
from agentmetrics.expectations import AnyOrder, Call, Equals, Expectation, MayOmit

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


def tau2_cases(tasks: str | os.PathLike[str] | Iterable[Any],
               outputs: Mapping[str, Any] | None = None) -> list[AgentTestCase]:
    """One case per tau2-bench task (a ``tasks.json`` path, or its list of
    task objects): ``expectation`` from ``evaluation_criteria.actions`` (see
    :func:`tau2_expectation`), ``expected_tool_calls`` the assistant's
    actions in order, ``input`` the user's ``reason_for_call``, and metadata
    ``id`` (``<domain>-<task id>``), ``task_id``, ``category`` (the domain) and
    ``task`` (the purpose, if given). ``outputs`` maps a task id to the
    agent's calls (anything ``AgentTestCase.tool_calls`` takes); without it,
    ``tool_calls`` is None. To score tau2's own results files, use
    :func:`agentmetrics.formats.cases_from_tau2` and ``with_tau2_expectations``."""
    source: Any = load_json(tasks, _LOADER) if isinstance(tasks, (str, os.PathLike)) else tasks
    cases = []
    for where, task in entries(source, _LOADER):
        if not isinstance(task, Mapping) or "id" not in task:
            raise fail(f"{_LOADER}: {where}", "a task object with an id", task,
                       "pass tau2's tasks.json or its list of tasks.")
        task_id = str(task["id"])
        scenario = task.get("user_scenario")
        instructions = scenario.get("instructions") if isinstance(scenario, Mapping) else None
        domain = instructions.get("domain") if isinstance(instructions, Mapping) else None
        reason = instructions.get("reason_for_call") if isinstance(instructions, Mapping) else None
        criteria = task.get("evaluation_criteria")
        actions = (criteria.get("actions") if isinstance(criteria, Mapping) else None) or []
        if not isinstance(actions, list):
            raise fail(f"{_LOADER}: {where}.evaluation_criteria.actions", "a list", actions,
                       "repair the task file.")
        try:
            expectation = tau2_expectation(actions, f"{where}.evaluation_criteria.actions")
            expected = [ToolCall(a["name"], a["arguments"]) for a in actions
                        if a.get("requestor", "assistant") == "assistant"]
            case_id = f"{domain}-{task_id}" if domain else task_id
            description = task.get("description")
            purpose = description.get("purpose") if isinstance(description, Mapping) else None
            calls = None if outputs is None else outputs.get(task_id)
            cases.append(AgentTestCase(
                input=reason, tool_calls=calls, expected_tool_calls=expected, expectation=expectation,
                metadata={"id": case_id, "task_id": task_id, "category": domain, "task": purpose}))
        except InvalidCaseError as error:
            message = str(error)
            raise InvalidCaseError(message if message.startswith(_LOADER) else
                                   f"{_LOADER}: task {task_id!r}: {message}") from None
    return cases


def with_tau2_expectations(cases: Iterable[AgentTestCase],
                           tasks: str | os.PathLike[str] | Iterable[Any]) -> list[AgentTestCase]:
    """``cases`` (from :func:`agentmetrics.formats.cases_from_tau2`) with each
    one's task expectation attached, found by ``metadata["task_id"]``."""
    by_id = {case.metadata["task_id"]: case.expectation for case in tau2_cases(tasks)}
    out = []
    for k, case in enumerate(cases):
        task_id = case.metadata.get("task_id")
        if task_id not in by_id:
            raise InvalidCaseError(f"with_tau2_expectations: case {k} has task_id {task_id!r}, which "
                                   f"the tasks do not hold. Fix: pass the tasks file of that run.")
        out.append(attrs.evolve(case, expectation=by_id[task_id]))
    return out
