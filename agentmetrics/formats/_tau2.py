"""tau2-bench results: one AgentTestCase per simulation.

Three layouts are read: the classic results file (``tasks`` and
``simulations`` with ``messages``), full-duplex (voice) simulations
(``messages`` null, the agent's calls under ``ticks[].agent_tool_calls``),
and the directory format (``results.json`` without simulations, one
``simulations/<id>.json`` per simulation). The user simulator's own tool
calls (``requestor: "user"``, as in the telecom domain) are not the agent's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path as FilePath
from typing import Any

from agentmetrics.errors import InvalidCaseError
from agentmetrics.formats._census import check, scan
from agentmetrics.formats._ledger import Ledger, as_list, refuse
from agentmetrics.formats._payload import Path
from agentmetrics.model._model import AgentTestCase, describe

__all__ = ["cases_from_tau2", "load_tau2"]

NAME = "tau2"


def _load_json(path: FilePath) -> Any:
    try:
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as error:
        raise InvalidCaseError(
            f"{NAME}: cannot read {str(path)!r}: {error.strerror or error}. Fix: pass the path of "
            f"a tau2 results file or run directory, or the results object."
        ) from None
    except ValueError as error:
        raise InvalidCaseError(
            f"{NAME}: {path}: expected a JSON results file, got text that does not parse "
            f"({error}). Fix: pass the file tau2 wrote."
        ) from None


def load_tau2(source: str | os.PathLike[str]) -> dict[str, Any]:
    """A results file, or a run directory in the directory format, as one results object."""
    path = FilePath(source)
    folder = path if path.is_dir() else path.parent
    results = _load_json(folder / "results.json" if path.is_dir() else path)
    if not isinstance(results, dict):
        raise InvalidCaseError(f"{NAME}: {path}: expected a results object, got "
                               f"{type(results).__name__}.")
    if results.get("simulations") is None:
        files = sorted((folder / "simulations").glob("*.json"))
        if not files:
            raise InvalidCaseError(
                f"{NAME}: {path}: expected 'simulations' in the file, or a 'simulations' "
                f"folder beside it (tau2's directory format), got neither. Fix: pass the run "
                f"directory or a complete results.json."
            )
        results = {**results, "simulations": [_load_json(file) for file in files]}
    return results


def _text(content: object) -> bool:
    return isinstance(content, str) and bool(content.strip())


def _calls(items: object, path: Path, ledger: Ledger, agent: bool) -> None:
    if items is None:
        return
    if not isinstance(items, list):
        raise refuse(NAME, path, "a list of tool calls", type(items).__name__,
                     "pass the results file as tau2 wrote it.")
    for index, call in enumerate(items):
        here = path + (index,)
        if not isinstance(call, dict):
            raise refuse(NAME, here, "a tool call object", type(call).__name__,
                         "pass the results file as tau2 wrote it.")
        if agent and call.get("requestor", "assistant") == "assistant":
            ledger.add(here, call.get("name"), call.get("arguments"), call.get("id"))
        else:  # the user simulator's own tools (telecom): not the agent's calls
            ledger.skip(here, call.get("id"))


def _trajectory(simulation: dict[str, Any], ledger: Ledger) -> Any:
    """Read the agent's calls; return the first user text as the case's input."""
    messages, ticks = simulation.get("messages"), simulation.get("ticks")
    first_user = None
    if isinstance(messages, list):
        for index, message in enumerate(messages):
            if not isinstance(message, dict):
                raise refuse(NAME, ("messages", index), "a message object",
                             type(message).__name__, "pass the results file as tau2 wrote it.")
            role = message.get("role")
            if role in ("assistant", "user"):
                _calls(message.get("tool_calls"), ("messages", index, "tool_calls"), ledger,
                       agent=role == "assistant")
            if role == "user" and first_user is None and _text(message.get("content")):
                first_user = message["content"]
    elif isinstance(ticks, list):
        speech: list[str] = []  # the user's first utterance, streamed in chunks
        for index, tick in enumerate(ticks):
            if not isinstance(tick, dict):
                raise refuse(NAME, ("ticks", index), "a tick object", type(tick).__name__,
                             "pass the results file as tau2 wrote it.")
            _calls(tick.get("agent_tool_calls"), ("ticks", index, "agent_tool_calls"), ledger,
                   agent=True)
            _calls(tick.get("user_tool_calls"), ("ticks", index, "user_tool_calls"), ledger,
                   agent=False)
            chunk = tick.get("user_chunk")
            text = chunk.get("content") if isinstance(chunk, dict) else None
            if first_user is None:
                if _text(text):
                    speech.append(text)  # type: ignore[arg-type]
                elif speech:
                    first_user = "".join(speech)
        if first_user is None and speech:
            first_user = "".join(speech)
    else:
        raise refuse(NAME, ("messages",), "the simulation's messages (or ticks, for a "
                     "full-duplex run)", "neither", "pass the results file as tau2 wrote it.")
    return first_user


def cases_from_tau2(results: Mapping[str, Any] | str | os.PathLike[str]) -> list[AgentTestCase]:
    """tau2-bench results: one case per simulation, pairing the agent's tool
    calls with its task's expected actions (``evaluation_criteria.actions``
    requested by the assistant).

    ``results`` is a results object, or the path of a results file or of a run
    directory (the directory format). ``input`` is the first user message with
    text; ``metadata`` holds ``id`` (``<domain>-<task_id>`` when the domain is
    known, else the task id), ``task_id``, ``trial`` and ``reward``.
    """
    if isinstance(results, (str, os.PathLike)):
        results = load_tau2(results)
    if not isinstance(results, Mapping) or "simulations" not in results:
        raise InvalidCaseError(
            f"cases_from_tau2: expected a tau2 results object with 'tasks' and "
            f"'simulations' (or the path of a results file or run directory), got "
            f"{describe(results)}."
        )
    tasks = {str(task["id"]): task for task in as_list(results.get("tasks"))
             if isinstance(task, Mapping) and "id" in task}
    info = results.get("info")
    environment = info.get("environment_info") if isinstance(info, Mapping) else None
    domain = environment.get("domain_name") if isinstance(environment, Mapping) else None
    cases = []
    simulations = results["simulations"]
    if not isinstance(simulations, list):
        raise InvalidCaseError(
            f"cases_from_tau2: 'simulations': expected a list of simulations, got "
            f"{describe(simulations)}. Fix: pass the results file as tau2 wrote it."
        )
    for number, simulation in enumerate(simulations):
        if not isinstance(simulation, dict):
            raise InvalidCaseError(f"cases_from_tau2: simulations[{number}]: expected a "
                                   f"simulation object, got {type(simulation).__name__}.")
        task_id = str(simulation.get("task_id"))
        task = tasks.get(task_id)
        if task is None:
            raise InvalidCaseError(
                f"cases_from_tau2: simulation {simulation.get('id')!r} refers to task "
                f"{task_id!r}, which the results file does not contain."
            )
        ledger = Ledger(NAME)
        try:
            first_user = _trajectory(simulation, ledger)
            found = scan(simulation)
            for site in found.sites:  # the provider's raw copy of a call read above
                if site.id is not None and site.id in ledger.ids:
                    ledger.mark(site.path, site.id)
            check(found, ledger)
        except InvalidCaseError as error:
            raise InvalidCaseError(
                f"cases_from_tau2: simulation {simulation.get('id')!r} (simulations[{number}]): "
                f"{error}") from None
        criteria = task.get("evaluation_criteria")
        actions = criteria.get("actions") if isinstance(criteria, Mapping) else None
        expected = Ledger(NAME)
        for action in as_list(actions):
            if isinstance(action, Mapping) and action.get("requestor", "assistant") == "assistant":
                expected.add((), action.get("name"), action.get("arguments"))
        reward = simulation.get("reward_info")
        cases.append(AgentTestCase(
            input=first_user,
            tool_calls=ledger.calls,
            expected_tool_calls=expected.calls,
            metadata={
                "id": f"{domain}-{task_id}" if domain else task_id,
                "task_id": task_id,
                "trial": simulation.get("trial"),
                "reward": reward.get("reward") if isinstance(reward, Mapping) else None,
            },
        ))
    return cases
