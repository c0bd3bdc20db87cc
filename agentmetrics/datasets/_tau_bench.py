"""tau-bench (v1) tasks as cases with expectations. The task files are
Python; they are read with :mod:`ast`, never imported or evaluated."""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from agentmetrics._base._types import check_errors_mode
from agentmetrics.datasets._common import Entry, build, check_depth, exact_call, fail
from agentmetrics.errors import InvalidCaseError
from agentmetrics.expectations import Expectation
from agentmetrics.model._model import AgentTestCase, ToolCall, UnreadableCase

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


def _parse(file: Path) -> ast.Module:
    try:
        return ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
    except OSError as error:
        raise InvalidCaseError(f"{_LOADER}: cannot read {file}: {error.strerror or error}.") from None
    except UnicodeDecodeError as error:
        raise InvalidCaseError(f"{_LOADER}: {file} is not UTF-8 text ({error.reason}). Fix: pass "
                               f"tau-bench's task file as it ships.") from None
    except (SyntaxError, ValueError) as error:  # ValueError: NUL bytes
        line = getattr(error, "lineno", None)
        raise InvalidCaseError(f"{_LOADER}: {file}{'' if line is None else f':{line}'}: not Python "
                               f"({getattr(error, 'msg', error)}). Fix: pass tau-bench's task file as it "
                               f"ships.") from None
    except RecursionError:
        raise InvalidCaseError(f"{_LOADER}: {file}: nested too deeply to parse. Fix: pass tau-bench's "
                               f"task file as it ships.") from None


def _task_nodes(file: Path) -> list[ast.expr]:
    """The items of the one list of tasks a task file assigns to a name."""
    tree = _parse(file)
    lists = [node.value for node in tree.body if isinstance(node, ast.Assign)
             and isinstance(node.value, ast.List)]
    if len(lists) != 1:
        raise InvalidCaseError(f"{_LOADER}: {file}: expected one list of tasks assigned to a name, "
                               f"found {len(lists)}. Fix: pass a tau-bench task file.")
    return lists[0].elts


def tau_bench_tasks(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The tasks of a tau-bench task file (``tasks_test.py``: a list of
    ``Task(...)`` assigned to a name; or the older ``tasks.py``: a list of
    dicts), as dicts, read with ``ast`` (the file is never run)."""
    file = Path(path)
    try:
        return [_literal(item, f"{file}:{item.lineno}") for item in _task_nodes(file)]
    except RecursionError:
        raise InvalidCaseError(f"{_LOADER}: {file}: a task nested too deeply to read. Fix: pass "
                               f"tau-bench's task file as it ships.") from None


def tau_bench_cases(tasks: str | os.PathLike[str] | Iterable[Any], *, name: str | None = None,
                    outputs: Mapping[int, Any] | None = None,
                    errors: str = "raise") -> list[AgentTestCase | UnreadableCase]:
    """One case per tau-bench task, in order: ``tasks`` is a task file's path
    (see :func:`tau_bench_tasks`) or its tasks (dicts, or tau-bench's ``Task``
    objects). Read per task: ``actions[]`` with ``name`` and ``kwargs`` (the
    older dicts: ``arguments``), ``instruction`` (the case's ``input`` and
    ``task``), ``user_id``. Tasks have no id: a case's id is
    ``<name>-<index>``, ``name`` defaulting to the file's folder (``retail``,
    ``airline``). The expectation is the actions in order, arguments equal,
    other calls allowed; tau-bench itself rewards the database state the
    actions lead to, not the calls. ``outputs`` maps a task index to the
    agent's calls. A task that cannot be read is refused with its index
    (and line); with ``errors="record"`` it becomes an
    :class:`~agentmetrics.UnreadableCase` and the other tasks load."""
    mode = check_errors_mode(errors)
    if isinstance(tasks, (str, os.PathLike)):
        prefix = name or Path(tasks).resolve().parent.name
        items: list[Any] = _task_items(tasks)
        label = os.fspath(tasks)
    else:
        if isinstance(tasks, (str, bytes, Mapping)) or not isinstance(tasks, Iterable):
            raise fail(_LOADER, "a task file's path or a list of tasks", tasks,
                       "pass tasks_test.py's path, or its tasks.")
        prefix = name or "task"
        items = list(tasks)
        label = "<tasks>"
    cases: list[AgentTestCase | UnreadableCase] = []
    for index, item in enumerate(items):
        entry = item if isinstance(item, Entry) else Entry(label, index, f"task {index}", value=item)
        cases.append(build(_LOADER, mode, entry, f"{prefix}-{index}",
                           partial(_task_case, index=index, prefix=prefix, outputs=outputs)))
    return cases


def _task_items(path: str | os.PathLike[str]) -> list[Any]:
    """A task file's tasks as entries, each with its line: the tasks that
    cannot be read as literals carry the problem (the file itself must parse)."""
    file = Path(path)
    out = []
    for k, item in enumerate(_task_nodes(file)):
        where = f"{file}:{item.lineno} (task {k})"
        try:
            value = _literal(item, "task")
            check_depth(value, "task")
            out.append(Entry(str(file), item.lineno, where, value=value))
        except (InvalidCaseError, RecursionError) as error:
            problem = str(error) if isinstance(error, InvalidCaseError) else "nested too deeply to read."
            out.append(Entry(str(file), item.lineno, where, problem=problem))
    return out


def _task_case(task: Any, index: int, prefix: str, outputs: Mapping[int, Any] | None) -> AgentTestCase:
    record = task if isinstance(task, Mapping) else getattr(task, "__dict__", None) or (
        task.model_dump() if hasattr(task, "model_dump") else None)
    if not isinstance(record, Mapping) or not isinstance(record.get("actions"), list):
        raise fail("task", "a task with a list of actions", task, "pass tau-bench's tasks.")
    check_depth(record, "task")
    steps, expected = [], []
    for k, action in enumerate(record["actions"]):
        action = action if isinstance(action, Mapping) else getattr(action, "__dict__", action)
        if not isinstance(action, Mapping) or not isinstance(action.get("name"), str):
            raise fail(f"actions[{k}]", "an action with a name", action, "repair the task.")
        arguments = action.get("kwargs", action.get("arguments", {}))
        if not isinstance(arguments, Mapping):
            raise fail(f"actions[{k}].kwargs", "an object", arguments, "repair the task.")
        expected.append(ToolCall(action["name"], dict(arguments)))
        steps.append(exact_call(expected[-1]))
    calls = None if outputs is None else outputs.get(index)
    instruction = record.get("instruction")
    return AgentTestCase(
        input=instruction, tool_calls=calls, expected_tool_calls=expected,
        expectation=Expectation(steps, extra_calls="allow"),
        metadata={"id": f"{prefix}-{index}", "category": prefix, "task": instruction,
                  "user_id": record.get("user_id")})
