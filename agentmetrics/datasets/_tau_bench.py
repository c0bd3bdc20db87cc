"""tau-bench (v1) tasks as cases with expectations. The task files are
Python; they are read with :mod:`ast`, never imported or evaluated."""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from agentmetrics._model import AgentTestCase, ToolCall
from agentmetrics.datasets._common import exact_call, fail
from agentmetrics.errors import InvalidCaseError
from agentmetrics.expectations import Expectation

__all__ = ["tau_bench_cases", "tau_bench_tasks"]

_LOADER = "tau_bench_cases"


def _literal(node: ast.expr, where: str) -> Any:
    """A literal, with ``Task(...)`` and ``Action(...)`` calls (keywords only)
    read as dicts of their keywords."""
    if isinstance(node, ast.Call):
        if node.args or not isinstance(node.func, ast.Name) or node.func.id not in ("Task", "Action"):
            raise fail(where, "a literal, or Task(...) / Action(...) with keyword arguments",
                       ast.unparse(node)[:60], "pass tau-bench's own task file.")
        return {k.arg: _literal(k.value, f"{where}.{k.arg}") for k in node.keywords if k.arg}
    if isinstance(node, ast.List):
        return [_literal(item, f"{where}[{k}]") for k, item in enumerate(node.elts)]
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise fail(where, "a dict literal", ast.unparse(node)[:60], "pass tau-bench's task file.")
        return {_literal(key, where): _literal(value, f"{where}.{ast.unparse(key)}")  # type: ignore[arg-type]
                for key, value in zip(node.keys, node.values)}
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise fail(where, "a literal value", ast.unparse(node)[:60], "pass tau-bench's task file.") from None


def tau_bench_tasks(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The tasks of a tau-bench task file (``tasks_test.py``: a list of
    ``Task(...)`` assigned to a name; or the older ``tasks.py``: a list of
    dicts), as dicts, read with ``ast`` (the file is never run)."""
    file = Path(path)
    try:
        tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
    except OSError as error:
        raise InvalidCaseError(f"{_LOADER}: cannot read {file}: {error.strerror or error}.") from None
    except SyntaxError as error:
        raise InvalidCaseError(f"{_LOADER}: {file}:{error.lineno}: not Python ({error.msg}). Fix: pass "
                               f"tau-bench's task file as it ships.") from None
    lists = [node.value for node in tree.body if isinstance(node, ast.Assign)
             and isinstance(node.value, ast.List)]
    if len(lists) != 1:
        raise InvalidCaseError(f"{_LOADER}: {file}: expected one list of tasks assigned to a name, "
                               f"found {len(lists)}. Fix: pass a tau-bench task file.")
    return [_literal(item, f"{file}:{item.lineno}") for item in lists[0].elts]


def tau_bench_cases(tasks: str | os.PathLike[str] | Iterable[Any], *, name: str | None = None,
                    outputs: Mapping[int, Any] | None = None) -> list[AgentTestCase]:
    """One case per tau-bench task, in order: ``tasks`` is a task file's path
    (see :func:`tau_bench_tasks`) or its tasks (dicts, or tau-bench's ``Task``
    objects). Read per task: ``actions[]`` with ``name`` and ``kwargs`` (the
    older dicts: ``arguments``), ``instruction`` (the case's ``input`` and
    ``task``), ``user_id``. Tasks have no id: a case's id is
    ``<name>-<index>``, ``name`` defaulting to the file's folder (``retail``,
    ``airline``). The expectation is the actions in order, arguments equal,
    other calls allowed; tau-bench itself rewards the database state the
    actions lead to, not the calls. ``outputs`` maps a task index to the
    agent's calls."""
    if isinstance(tasks, (str, os.PathLike)):
        prefix = name or Path(tasks).resolve().parent.name
        items: list[Any] = tau_bench_tasks(tasks)
    else:
        if isinstance(tasks, (str, bytes, Mapping)) or not isinstance(tasks, Iterable):
            raise fail(_LOADER, "a task file's path or a list of tasks", tasks,
                       "pass tasks_test.py's path, or its tasks.")
        prefix = name or "task"
        items = list(tasks)
    cases = []
    for index, task in enumerate(items):
        where = f"{_LOADER}: task {index}"
        record = task if isinstance(task, Mapping) else getattr(task, "__dict__", None) or (
            task.model_dump() if hasattr(task, "model_dump") else None)
        if not isinstance(record, Mapping) or not isinstance(record.get("actions"), list):
            raise fail(where, "a task with a list of actions", task, "pass tau-bench's tasks.")
        steps, expected = [], []
        for k, action in enumerate(record["actions"]):
            action = action if isinstance(action, Mapping) else getattr(action, "__dict__", action)
            if not isinstance(action, Mapping) or not isinstance(action.get("name"), str):
                raise fail(f"{where}.actions[{k}]", "an action with a name", action, "repair the task.")
            arguments = action.get("kwargs", action.get("arguments", {}))
            if not isinstance(arguments, Mapping):
                raise fail(f"{where}.actions[{k}].kwargs", "an object", arguments, "repair the task.")
            expected.append(ToolCall(action["name"], dict(arguments)))
            steps.append(exact_call(expected[-1]))
        calls = None if outputs is None else outputs.get(index)
        instruction = record.get("instruction")
        cases.append(AgentTestCase(
            input=instruction, tool_calls=calls, expected_tool_calls=expected,
            expectation=Expectation(steps, extra_calls="allow"),
            metadata={"id": f"{prefix}-{index}", "category": prefix, "task": instruction,
                      "user_id": record.get("user_id")}))
    return cases
