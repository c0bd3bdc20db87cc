"""The script, tools and checks the agent-framework tests share (see README.md here).

Every test drives a real agent with real tool functions against the loopback
:class:`ProviderServer`: the scripted model first asks for two parallel calls
(``get_weather`` for Paris and Tokyo), then for one (``get_time`` for Paris),
then answers in text. Each response carries its own usage numbers, so the sum a
capture reports can be checked against the sum the server sent.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[2]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from provider_replies import Call  # noqa: E402
from provider_server import ProviderServer  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"

#: Weather each city has; what get_weather returns.
WEATHER = {"Paris": "sunny, 21 C", "Tokyo": "rain, 17 C"}
#: What get_time returns.
TIME = {"Paris": "14:05"}
ANSWER = "Paris is sunny (21 C) at 14:05; Tokyo has rain (17 C)."
PROMPT = "What is the weather in Paris and Tokyo, and what time is it in Paris?"

#: The calls of the scripted model, one list per response (the last answers in text).
STEPS: tuple[tuple[Call, ...], ...] = (
    (Call("get_weather", {"city": "Paris"}, "call_w_paris"), Call("get_weather", {"city": "Tokyo"}, "call_w_tokyo")),
    (Call("get_time", {"city": "Paris"}, "call_t_paris"),),
    (),
)
#: (input tokens, output tokens) of each response (the n-th reply of a script uses the n-th): distinct, so sums
#: are checkable.
USAGE = ((101, 11), (202, 22), (303, 33), (404, 44))


def get_weather(city: str) -> str:
    """Get the current weather in a city.

    Args:
        city: The city's name.
    """
    return WEATHER[city]


def get_time(city: str) -> str:
    """Get the local time in a city.

    Args:
        city: The city's name.
    """
    return TIME[city]


def tool_output(name: str, arguments: dict[str, Any]) -> str | None:
    """What the tool named returns for these arguments (None for a framework's final-answer tool, whose
    result ends the run and is never sent back)."""
    tools = {"get_weather": get_weather, "get_time": get_time}
    return tools[name](**arguments) if name in tools else None


def scripted_calls() -> list[tuple[str, dict[str, Any], str]]:
    return [(call.name, call.arguments, call.id) for step in STEPS for call in step]


def triples(calls: Any) -> list[tuple[str, dict[str, Any], str | None]]:
    return [(call.name, call.arguments, call.id) for call in calls]


def turn_rows(run: Any) -> list[dict[str, Any]]:
    """The turns as plain rows (what a failing assertion shows)."""
    return [{"source": turn.source, "format": turn.format, "agent": turn.agent, "error": turn.error,
             "streamed": turn.streamed, "usage": (turn.usage.input_tokens, turn.usage.output_tokens),
             "calls": [[c.name, c.arguments, c.id, c.output] for c in turn.tool_calls]} for turn in run.turns]


def check_run(run: Any, server: ProviderServer, *, steps: tuple[tuple[Call, ...], ...] = STEPS,
              ids: bool = True, outputs: bool | list[Any] = True) -> None:
    """The capture's calls, turns, usage and outputs against what the server sent.

    ``steps`` are the calls of each scripted response (default :data:`STEPS`); ``ids=False`` for a
    protocol whose calls carry no id on the wire (text protocols); ``outputs`` is True to expect each
    call's output to be what its tool returned, a list to give the expected outputs, False not to check
    them (a framework that never sends tool results back)."""
    assert not server.errors, server.errors
    assert not server.pending, f"{len(server.pending)} scripted replies were never asked for"
    assert len(server.exchanges) == len(steps), f"{len(server.exchanges)} requests for {len(steps)} replies"
    rows = json.dumps(turn_rows(run), default=repr)  # what a failure shows: every turn
    assert [turn.error for turn in run.turns] == [None] * len(run.turns), rows
    assert len(run.turns) == len(steps), rows
    want = [(c.name, c.arguments, c.id if ids else None) for step in steps for c in step]
    got = [(c.name, c.arguments, c.id if ids else None) for c in run.tool_calls]
    assert got == want, rows
    assert [len(turn.tool_calls) for turn in run.turns] == [len(step) for step in steps], rows
    usage = run.usage
    assert (usage.input_tokens, usage.output_tokens, usage.turns, usage.unreported) == (
        sum(u[0] for u in USAGE[:len(steps)]), sum(u[1] for u in USAGE[:len(steps)]), len(steps), 0), (usage, rows)
    if outputs is True:
        outputs = [tool_output(c.name, c.arguments) for step in steps for c in step]
    if outputs is not False:
        assert [c.output for c in run.tool_calls] == outputs, rows


def request_bodies(server: ProviderServer) -> list[Any]:
    return [json.loads(exchange.body) for exchange in server.exchanges]


def save_fixture(name: str, value: Any) -> None:
    """Keep what a framework sent and received as a JSON fixture under data/ (only when asked to:
    AGENTMETRICS_SAVE_FIXTURES=1), for the text-protocol unit tests and the report."""
    if os.environ.get("AGENTMETRICS_SAVE_FIXTURES") == "1":
        DATA.mkdir(exist_ok=True)
        (DATA / f"{name}.json").write_text(json.dumps(value, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


