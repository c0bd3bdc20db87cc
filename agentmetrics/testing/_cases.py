"""The conformance kit's generated cases: filled from what a metric declares it reads.

Every declared input (:meth:`Metric.declared_inputs`) gets values of its kind:
text (empty, whitespace and case variants, unicode), numbers (0, small,
large), JSON values (text, numbers, flags, lists, objects, nested), tool
calls, turns, expectations and token usage; ``actual_output`` and
``expected_output`` come in equal and unequal pairs. A metric that reads
tool calls, or declares nothing, also gets the tool-call cases the kit has
always made. Everything is drawn from one seeded generator: the same seed
gives the same cases.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import attrs

from agentmetrics.metric._inputs import Input
from agentmetrics.model._model import AgentTestCase, ToolCall

__all__ = ["CALL_FIELDS", "call_cases", "input_cases", "wrong_value", "without"]

#: The case fields that hold tool calls.
CALL_FIELDS = frozenset({"tool_calls", "expected_tool_calls"})

_NAMES = ("GetOrder", "CancelOrder", "IssueRefund", "Search", "検索", "emoji🙂")

_TEXT = ("", " ", "Paris", "paris", "  Paris \n", "PARIS", "Lyon", "東京", "naïve café",
         "emoji 🙂", "line one\nline two", "tab\tseparated", "42", "The answer is 42.")
_NUMBERS = (0, 0.0, 1e-9, 0.001, 0.25, 1, 1.5, 2.5, 3.0, 59.9, 120, 1e6, 1.5e9)
_INTEGERS = (0, 1, 2, 3, 10, 255, 1_000_000)
_FLAGS = (True, False)
_OBJECTS: tuple[dict[str, Any], ...] = (
    {}, {"answer": "Paris"}, {"id": 1, "tags": ["a", "b"]},
    {"nested": {"deep": {"k": [1, {"x": None}]}}}, {"ü": "ö", "n": 2.5})
_LISTS: tuple[list[Any], ...] = ([], [1], ["a", "b"], [1, "two", 3.0, True], [{"k": 1}, [2, [3]]])

#: A value of each kind that a check (never a coercion) must refuse: text for
#: a number, a float for an integer, a number for text, ...
_WRONG: dict[str, Any] = {"text": 1.5, "number": "1.5", "integer": 1.5, "flag": 1,
                          "object": ["not", "an", "object"], "list": "not a list"}

#: The case fields whose value the metric, not AgentTestCase, checks: only
#: these (and metadata values) can hold a value of the wrong kind.
_FREE_FIELDS = frozenset({"input", "actual_output", "expected_output"})


def _calls(rng: random.Random) -> list[ToolCall]:
    return [ToolCall(rng.choice(_NAMES), {"id": rng.randint(1, 3)} if rng.random() < 0.5 else {})
            for _ in range(rng.randint(0, 6))]


def call_cases(seed: int, count: int) -> list[AgentTestCase]:
    """Seeded tool-call cases covering empty lists, repeats, unicode names and arguments."""
    rng = random.Random(seed)
    cases = [
        AgentTestCase(tool_calls=[], expected_tool_calls=[]),
        AgentTestCase(tool_calls=["GetOrder"], expected_tool_calls=[]),
        AgentTestCase(tool_calls=[], expected_tool_calls=["GetOrder"]),
        AgentTestCase(tool_calls=["GetOrder", "GetOrder"], expected_tool_calls=["GetOrder"]),
        AgentTestCase(tool_calls=["B", "A"], expected_tool_calls=["A", "B"]),
    ]
    while len(cases) < count:
        called = _calls(rng)
        expected = called[::-1] if rng.random() < 0.3 else _calls(rng)
        cases.append(AgentTestCase(input=f"request {len(cases)}", actual_output="done",
                                   tool_calls=called, expected_tool_calls=expected,
                                   metadata={"id": f"case-{len(cases)}"}))
    return cases


def _value(kind: str, rng: random.Random, first: bool) -> Any:
    """A value of ``kind``; ``first`` gives each kind's edge (empty text, 0, [] ...)."""
    def pick(pool: Sequence[Any]) -> Any:
        return pool[0] if first else rng.choice(pool)

    if kind == "text":
        return pick(_TEXT)
    if kind == "number":
        return pick(_NUMBERS)
    if kind == "integer":
        return pick(_INTEGERS)
    if kind == "flag":
        return pick(_FLAGS)
    if kind == "object":
        return pick(_OBJECTS)
    if kind == "list":
        return pick(_LISTS)
    if kind == "json":
        return _value(rng.choice(("text", "text", "number", "integer", "flag", "object", "list")),
                      rng, first)
    if kind == "calls":
        return [] if first else _calls(rng)
    if kind == "turns":
        return [{"tool_calls": _calls(rng), "expected_tool_calls": _calls(rng),
                 "input": rng.choice(_TEXT), "actual_output": rng.choice(_TEXT)}
                for _ in range(1 if first else rng.randint(1, 3))]
    if kind == "expectation":
        steps = [{"call": rng.choice(_NAMES)} for _ in range(rng.randint(1, 3))]
        return {"steps": {rng.choice(("in_order", "any_order")): steps}}
    if kind == "usage":
        return ({"input_tokens": 0, "output_tokens": 0} if first else
                {"input_tokens": rng.choice(_INTEGERS), "output_tokens": rng.choice(_INTEGERS)})
    raise AssertionError(f"no generator for the input kind {kind!r}")  # pragma: no cover


def _variant(text: str, rng: random.Random) -> str:
    """``text`` as an answer that is not byte for byte the reference: case, spaces."""
    return rng.choice((text.upper(), text.lower(), f" {text} ", text + "\n", text.strip()))


def _shared_kind(actual: str, expected: str) -> str | None:
    """The kind both sides can hold (a JSON side holds any), or None."""
    if actual == expected or expected == "json":
        return actual
    return expected if actual == "json" else None


def _pair(actual: Input, expected: Input, rng: random.Random, index: int) -> tuple[Any, Any]:
    """(actual_output, expected_output): equal, near (text variants) or unequal;
    the first case equal, the second unequal, then drawn."""
    mode = ("equal", "unequal")[index] if index < 2 else rng.choice(("equal", "near", "unequal"))
    shared = _shared_kind(actual.value_kind, expected.value_kind)
    if shared is not None and mode != "unequal":
        reference = _value(shared, rng, index == 0)
        if mode == "near" and isinstance(reference, str):
            return _variant(reference, rng), reference
        return reference, reference
    reference = _value(expected.value_kind, rng, False)
    answer = _value(actual.value_kind, rng, False)
    for _ in range(8):  # unequal, unless the kinds hold one value
        if answer != reference:
            break
        answer = _value(actual.value_kind, rng, False)
    return answer, reference


def input_cases(inputs: Sequence[Input], seed: int, count: int) -> list[AgentTestCase]:
    """``count`` cases, each giving every one of ``inputs`` a value of its kind
    (the first case each kind's edge: empty text, 0, [], ...); the fields not
    declared are left out, so a metric that reads one it does not declare is found."""
    rng = random.Random(seed)
    by_name = {item.name: item for item in inputs}
    cases = []
    for index in range(count):
        fields: dict[str, Any] = {}
        metadata: dict[str, Any] = {"id": f"generated-{index}"}
        if "actual_output" in by_name and "expected_output" in by_name:
            fields["actual_output"], fields["expected_output"] = _pair(
                by_name["actual_output"], by_name["expected_output"], rng, index)
        for item in inputs:
            if item.name in fields:
                continue
            value = _value(item.value_kind, rng, index == 0)
            if item.key is not None:
                metadata[item.key] = value
            elif item.name == "metadata":
                metadata = {**value, **metadata}
            else:
                fields[item.name] = value
        cases.append(AgentTestCase(**fields, metadata=metadata))
    return cases


def without(case: AgentTestCase, item: Input) -> AgentTestCase:
    """``case`` with ``item`` absent: its field None, or its metadata key gone."""
    if item.key is None:
        return attrs.evolve(case, **{item.name: None})
    return attrs.evolve(case, metadata={k: v for k, v in case.metadata.items() if k != item.key})


def wrong_value(case: AgentTestCase, item: Input) -> tuple[AgentTestCase, Any] | None:
    """``case`` with ``item`` holding a value of another kind than declared, and
    that value; None where no such case can be built (AgentTestCase itself
    refuses text for latency, and a JSON input takes any value)."""
    if item.value_kind not in _WRONG:
        return None
    bad = _WRONG[item.value_kind]
    if item.key is not None:
        return attrs.evolve(case, metadata={**case.metadata, item.key: bad}), bad
    if item.name in _FREE_FIELDS:
        return attrs.evolve(case, **{item.name: bad}), bad
    return None
