"""The Berkeley Function Calling Leaderboard's single-turn data as cases with expectations."""

from __future__ import annotations

import ast
import os
from collections.abc import Mapping
from typing import Any

from agentmetrics._model import AgentTestCase, ToolCall, UnreadableCase
from agentmetrics.datasets._common import Source, entries, exact_call, fail
from agentmetrics.errors import InvalidCaseError
from agentmetrics.expectations import (
    AnyOrder,
    Call,
    Equals,
    Expectation,
    Items,
    Matcher,
    MayOmit,
    Object,
    OneOf,
    Text,
)

__all__ = ["bfcl_calls", "bfcl_category", "bfcl_cases", "bfcl_expectation", "bfcl_multi_turn_cases",
           "parse_bfcl_call"]

_LOADER = "bfcl_cases"


def bfcl_category(entry_id: str) -> str:
    """The category BFCL derives from an entry's id: the part before a ``:``
    (if any), then everything before its last ``_`` (``"simple_python_0"`` is
    ``simple_python``, ``"live_multiple_3-1-0"`` is ``live_multiple``)."""
    if not isinstance(entry_id, str) or "_" not in entry_id.split(":", 1)[0]:
        raise fail("bfcl_category", "a BFCL id such as 'simple_python_0'", entry_id,
                   "pass the entry's id.")
    return entry_id.split(":", 1)[0].rsplit("_", 1)[0]


def _schema_types(question: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """Each function's parameter types, by function and parameter name."""
    out: dict[str, dict[str, str]] = {}
    functions = question.get("function")
    for function in functions if isinstance(functions, list) else []:
        if not isinstance(function, Mapping):
            continue
        parameters = function.get("parameters")
        properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
        if isinstance(function.get("name"), str) and isinstance(properties, Mapping):
            out[function["name"]] = {name: str(spec.get("type")) for name, spec in properties.items()
                                     if isinstance(spec, Mapping)}
    return out


#: The characters BFCL's string normalisation removes (spaces included).
_BFCL_REMOVES = " ,./-_*^"


def _value(value: Any, kind: str | None, where: str = "value") -> Matcher:
    """One acceptable value as a matcher: text compared with case ignored and
    the characters BFCL's normalisation removes removed, an integer parameter's
    value typed (BFCL refuses a float for an int), an object of acceptable
    values per key (BFCL's form for a dict parameter) as an object of
    matchers, a list of such objects item by item, other values equal."""
    if isinstance(value, dict):
        return Object({key: _parameter(values, None, f"{where}.{key}") for key, values in value.items()})
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return Items([_value(item, None, f"{where}[{k}]") for k, item in enumerate(value)])
    if isinstance(value, str):
        return Text(value, ignore_case=True, ignore_punctuation=_BFCL_REMOVES)
    if kind == "integer":
        return Equals(value, numbers="typed")
    return Equals(value)


def _parameter(values: Any, kind: str | None, where: str) -> Matcher:
    if not isinstance(values, list):
        raise fail(where, "a list of acceptable values", values, "pass BFCL's possible_answer file.")
    optional = "" in values
    options = [_value(value, kind, where) for value in values if value != ""]
    if not options:
        if optional:  # only "": the parameter must be left out or be empty text
            return MayOmit(Equals(""))
        raise fail(where, "at least one acceptable value", values, "repair the answer entry.")
    matcher: Matcher = options[0] if len(options) == 1 else OneOf(options)
    return MayOmit(matcher) if optional else matcher


def bfcl_expectation(ground_truth: Any, category: str,
                     question: Mapping[str, Any] | None = None, where: str = "ground_truth") -> Expectation:
    """The expectation a BFCL answer stands for: each ground-truth call
    (``{function: {parameter: [acceptable values]}}``, ``""`` meaning "may be
    omitted") as a Call whose parameters take one of their values and no
    other parameter; several calls in any order for the parallel
    categories, one after another otherwise; no other call allowed. With the
    ``question``, integer parameters refuse floats, as BFCL does."""
    if not isinstance(ground_truth, list):
        raise fail(where, "a list of {function: {parameter: [values]}}", ground_truth,
                   "pass the answer's ground_truth.")
    types = _schema_types(question) if question is not None else {}
    steps = []
    for k, item in enumerate(ground_truth):  # BFCL's answers hold one call per object
        here = f"{where}[{k}]"
        if not isinstance(item, Mapping) or len(item) != 1:
            raise fail(here, "one {function: {parameter: [values]}} object", item, "repair the answer.")
        (name, parameters), = item.items()
        if not isinstance(parameters, Mapping):
            raise fail(f"{here}.{name}", "an object of parameters", parameters, "repair the answer.")
        kinds = types.get(name, {})
        steps.append(Call(name, {key: _parameter(values, kinds.get(key), f"{here}.{name}.{key}")
                                 for key, values in parameters.items()}))
    if "parallel" in category:  # as BFCL dispatches: the calls in any order
        return Expectation(AnyOrder(steps))
    return Expectation(steps)


def bfcl_calls(result: Any, where: str = "result") -> list[ToolCall]:
    """A model's output in BFCL's decoded form, ``[{function: {parameter:
    value}}, ...]``, as calls (in order)."""
    if not isinstance(result, list):
        raise fail(where, "the decoded calls [{function: {parameter: value}}, ...]", result,
                   "decode the model's output as BFCL does before scoring (a raw string cannot "
                   "be read as calls).")
    calls = []
    for k, item in enumerate(result):
        if not isinstance(item, Mapping) or len(item) != 1:
            raise fail(f"{where}[{k}]", "one {function: {parameter: value}} object", item,
                       "decode the output as BFCL does.")
        (name, arguments), = item.items()
        if not isinstance(arguments, Mapping):
            raise fail(f"{where}[{k}].{name}", "an object of parameters", arguments,
                       "decode the output as BFCL does.")
        calls.append(ToolCall(name, dict(arguments)))
    return calls


def _outputs(outputs: Mapping[str, Any] | str | os.PathLike[str] | None) -> dict[str, tuple[str, Any]]:
    if outputs is None:
        return {}
    if isinstance(outputs, Mapping):
        return {str(key): (f"outputs[{key!r}]", value) for key, value in outputs.items()}
    found: dict[str, tuple[str, Any]] = {}
    for where, entry in entries(outputs, _LOADER):
        if not isinstance(entry, Mapping) or "id" not in entry or "result" not in entry:
            raise fail(f"{_LOADER}: {where}", 'an object {"id": ..., "result": ...}', entry,
                       "write one model result a line, as BFCL's result files hold them.")
        found[str(entry["id"])] = (where, entry["result"])
    return found


def _question_input(question: Mapping[str, Any]) -> Any:
    turns = question.get("question")
    if isinstance(turns, list) and len(turns) == 1 and isinstance(turns[0], list):
        return turns[0]  # the single turn's messages
    return turns


def bfcl_cases(questions: Source, answers: Source | None = None,
               outputs: Mapping[str, Any] | str | os.PathLike[str] | None = None,
               ) -> list[AgentTestCase | UnreadableCase]:
    """One case per BFCL single-turn entry, in the questions' order.

    ``questions`` and ``answers`` are BFCL files (a JSON object a line) or
    iterables of their entries, matched by ``id``; a question without an
    answer is refused, except in the irrelevance categories, where it expects no
    call at all. ``outputs``
    maps an id to the model's decoded calls ``[{function: {parameter:
    value}}]``, or is the path of a JSONL file of ``{"id", "result"}`` in that
    form; a result that is not decoded calls (BFCL's raw text) gives an
    :class:`~agentmetrics.UnreadableCase`, an error row when scored.

    Each case: ``input`` the question's messages, ``expectation`` from
    :func:`bfcl_expectation`, ``expected_tool_calls`` each ground-truth
    call with its first acceptable value per parameter (omittable ones left
    out), ``tool_calls`` the output (None without one), metadata ``id``,
    ``category`` (:func:`bfcl_category`) and ``bfcl`` (the entry's
    ``function`` docs and ``ground_truth``, which the ``bfcl_ast`` metric of
    agentmetrics-compat reads)."""
    found_answers: dict[str, tuple[str, Any]] = {}
    if answers is not None:
        for where, entry in entries(answers, _LOADER):
            if not isinstance(entry, Mapping) or "id" not in entry or "ground_truth" not in entry:
                raise fail(f"{_LOADER}: {where}", 'an answer {"id": ..., "ground_truth": [...]}', entry,
                           "pass BFCL's possible_answer file.")
            found_answers[str(entry["id"])] = (where, entry["ground_truth"])
    results = _outputs(outputs)
    cases: list[AgentTestCase | UnreadableCase] = []
    for where, question in entries(questions, _LOADER):
        if not isinstance(question, Mapping) or not isinstance(question.get("id"), str):
            raise fail(f"{_LOADER}: {where}", 'a question {"id": ..., "question": ..., "function": ...}',
                       question, "pass BFCL's question file.")
        entry_id = question["id"]
        category = bfcl_category(entry_id)
        answer = found_answers.get(entry_id)
        try:
            if answer is None:
                if "irrelevance" not in category:
                    raise fail(f"{_LOADER}: {where}", f"an answer with id {entry_id!r}", None,
                               "pass the possible_answer file of the same category (the "
                               "relevance categories, where any call passes, are not read: an "
                               "expectation names the tools it accepts).")
                expectation, expected = Expectation([]), []
            else:
                expectation = bfcl_expectation(answer[1], category, question, f"{answer[0]}.ground_truth")
                expected = [_first_values(item) for item in answer[1]]
        except InvalidCaseError as error:
            message = str(error)
            raise InvalidCaseError(message if message.startswith(_LOADER) else f"{_LOADER}: {message}") from None
        metadata = {"id": entry_id, "category": category,
                    "bfcl": {"function": question.get("function"),
                             "ground_truth": None if answer is None else answer[1]}}
        calls = None
        if entry_id in results:
            origin, result = results[entry_id]
            try:
                calls = bfcl_calls(result, f"{origin}.result")
            except InvalidCaseError as error:
                cases.append(UnreadableCase(origin, 0, f"{_LOADER}: {error}", id=entry_id))
                continue
        cases.append(AgentTestCase(input=_question_input(question), tool_calls=calls,
                                   expected_tool_calls=expected, expectation=expectation,
                                   metadata=metadata))
    return cases


def _first(values: list[Any]) -> Any:
    """The first acceptable value (``_NONE`` if only ``""``), a dict candidate
    unwrapped to its own first values."""
    given = [value for value in values if value != ""]
    if not given:
        return _NONE
    value = given[0]
    if isinstance(value, dict):
        return {key: item for key, item in ((k, _first(v)) for k, v in value.items()) if item is not _NONE}
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return [_first([item]) for item in value]
    return value


_NONE = object()


def _first_values(item: Mapping[str, Any]) -> ToolCall:
    (name, parameters), = item.items()
    arguments = {key: _first(values) for key, values in parameters.items()}
    return ToolCall(name, {key: value for key, value in arguments.items() if value is not _NONE})


def parse_bfcl_call(text: str, parameters: Mapping[str, list[str]] | None = None,
                    where: str = "call") -> ToolCall:
    """One of BFCL's multi-turn ground-truth call strings (``"cd(folder='x')"``)
    as a ToolCall, read with :mod:`ast` (never evaluated): literal arguments
    only. Positional arguments take their names from ``parameters`` (the
    function's parameter names in order, from its doc)."""
    if not isinstance(text, str):
        raise fail(where, "a call string such as \"cd(folder='document')\"", text, "repair the answer.")
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as error:
        raise fail(where, f"a Python call expression ({error.msg})", text, "repair the answer.") from None
    if not isinstance(node, ast.Call):
        raise fail(where, "a call expression", text, "repair the answer.")
    name = ast.unparse(node.func)
    if not all(part.isidentifier() for part in name.split(".")):
        raise fail(where, "a call of a named function", text, "repair the answer.")
    try:
        arguments = {keyword.arg: ast.literal_eval(keyword.value) for keyword in node.keywords
                     if keyword.arg is not None}
        positional = [ast.literal_eval(arg) for arg in node.args]
    except ValueError:
        raise fail(where, "literal arguments (strings, numbers, lists, dicts, True/False/None)", text,
                   "repair the answer; nothing in it is run.") from None
    if len(arguments) != len(node.keywords):
        raise fail(where, "named arguments (no **kwargs)", text, "repair the answer.")
    if positional:
        names = (parameters or {}).get(name)
        if names is None or len(names) < len(positional):
            raise fail(where, f"the parameter names of {name} for its positional arguments", text,
                       "pass functions= (BFCL's function docs for the entry's classes).")
        for key, value in zip(names, positional):
            if key in arguments:
                raise fail(where, f"{key} given once", text, "repair the answer.")
            arguments[key] = value
    return ToolCall(name, arguments)


def _parameter_names(functions: Any) -> dict[str, list[str]]:
    """Each documented function's parameter names in order."""
    out: dict[str, list[str]] = {}
    if functions is None:
        return out
    docs: Any = functions
    if isinstance(functions, (str, os.PathLike)):
        docs = [entry for _, entry in entries(functions, "bfcl_multi_turn_cases")]
    for doc in docs if isinstance(docs, list) else []:
        if isinstance(doc, Mapping) and isinstance(doc.get("name"), str):
            parameters = doc.get("parameters")
            properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
            if isinstance(properties, Mapping):
                out[doc["name"]] = list(properties)
    return out


def _turn_calls(turn: Any, where: str) -> list[ToolCall]:
    """A model's calls for one turn: decoded calls, or a list of steps each
    holding decoded calls (flattened in order)."""
    if isinstance(turn, list) and turn and all(isinstance(step, list) for step in turn):
        return [call for k, step in enumerate(turn) for call in bfcl_calls(step, f"{where}[{k}]")]
    return bfcl_calls(turn, where)


def bfcl_multi_turn_cases(questions: Source, answers: Source,
                          outputs: Mapping[str, Any] | None = None,
                          functions: Any = None) -> list[AgentTestCase | UnreadableCase]:
    """One multi-turn case per BFCL multi-turn entry, one turn per user turn.

    Read: a question's ``id`` and ``question`` (a list of turns, each a list
    of messages: the turn's ``input``); an answer's ``ground_truth`` (one list
    of call strings per turn, parsed by :func:`parse_bfcl_call`, never run).
    ``functions`` (BFCL's function docs, a list or a JSONL path) names the
    positional arguments. Each turn's expectation: its calls in order, other
    calls allowed (BFCL itself compares the state the calls leave and their
    results, not the calls). ``outputs`` maps an id to the model's calls per
    turn (decoded calls, or lists of steps of decoded calls); a result that
    cannot be read gives an :class:`~agentmetrics.UnreadableCase`. Metadata:
    ``id``, ``category``, ``involved_classes``. Score with
    ``per_turn("expectation_match")``."""
    loader = "bfcl_multi_turn_cases"
    names = _parameter_names(functions)
    found: dict[str, tuple[str, Any]] = {}
    for where, entry in entries(answers, loader):
        if not isinstance(entry, Mapping) or "id" not in entry or not isinstance(entry.get("ground_truth"), list):
            raise fail(f"{loader}: {where}", 'an answer {"id": ..., "ground_truth": [[calls], ...]}', entry,
                       "pass BFCL's multi-turn possible_answer file.")
        found[str(entry["id"])] = (where, entry["ground_truth"])
    cases: list[AgentTestCase | UnreadableCase] = []
    for where, question in entries(questions, loader):
        if not isinstance(question, Mapping) or not isinstance(question.get("id"), str):
            raise fail(f"{loader}: {where}", "a multi-turn question with an id", question,
                       "pass BFCL's multi-turn question file.")
        entry_id = question["id"]
        if entry_id not in found:
            raise fail(f"{loader}: {where}", f"an answer with id {entry_id!r}", None,
                       "pass the possible_answer file of the same category.")
        origin, truth = found[entry_id]
        turns_in = question.get("question")
        if not isinstance(turns_in, list) or len(turns_in) != len(truth):
            raise fail(f"{loader}: {where}.question", f"{len(truth)} turns, as the answer has", turns_in,
                       "pass the question and answer of the same entry.")
        made: list[list[ToolCall] | None] = [None] * len(truth)
        if outputs is not None and entry_id in outputs:
            result = outputs[entry_id]
            try:
                if not isinstance(result, list) or len(result) != len(truth):
                    raise fail(f"outputs[{entry_id!r}]", f"one list of calls per turn ({len(truth)})",
                               result, "pass the model's decoded calls turn by turn.")
                made = [_turn_calls(turn, f"outputs[{entry_id!r}][{k}]") for k, turn in enumerate(result)]
            except InvalidCaseError as error:
                cases.append(UnreadableCase(origin, 0, f"{loader}: {error}", id=entry_id))
                continue
        turns = []
        for k, calls in enumerate(truth):
            here = f"{loader}: {origin}.ground_truth[{k}]"
            if not isinstance(calls, list):
                raise fail(here, "a list of call strings", calls, "repair the answer.")
            expected = [parse_bfcl_call(text, names, f"{here}[{j}]") for j, text in enumerate(calls)]
            turns.append(AgentTestCase(
                input=turns_in[k], tool_calls=made[k], expected_tool_calls=expected,
                expectation=Expectation(list(map(exact_call, expected)), extra_calls="allow")))
        cases.append(AgentTestCase(turns=turns, metadata={
            "id": entry_id, "category": bfcl_category(entry_id),
            "involved_classes": question.get("involved_classes")}))
    return cases
