"""The Berkeley Function Calling Leaderboard's single-turn data as cases with expectations."""

from __future__ import annotations

import ast
import os
from collections.abc import Mapping
from typing import Any

import attrs

from agentmetrics._base._types import ErrorsMode, check_errors_mode
from agentmetrics.datasets._common import Source, build, entries, entry_id, exact_call, fail
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
from agentmetrics.model._model import AgentTestCase, ToolCall, UnreadableCase

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


def _docs(question: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The entry's function docs by name (the first of a name wins, as BFCL's
    lookup does)."""
    out: dict[str, Mapping[str, Any]] = {}
    functions = question.get("function")
    for function in functions if isinstance(functions, list) else []:
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            out.setdefault(function["name"], function)
    return out


@attrs.frozen(slots=True)
class _Doc:
    """What a function doc says about a call's parameters: each one's type
    (None: the doc does not define it), and the ones it requires."""

    types: dict[str, str]
    required: frozenset[str]


def _doc_rule(function: Mapping[str, Any] | None) -> _Doc | None:
    """The doc's parameter rule, or None when there is no doc to read (then
    only the answer's own rule applies)."""
    parameters = function.get("parameters") if function is not None else None
    properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
    if not isinstance(parameters, Mapping) or not isinstance(properties, Mapping):
        return None
    required = parameters.get("required")
    names = required if isinstance(required, list) else []
    return _Doc({name: str(spec.get("type")) for name, spec in properties.items() if isinstance(spec, Mapping)},
                frozenset(name for name in names if isinstance(name, str)))


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
        return _text(value)
    if kind == "integer":
        return Equals(value, numbers="typed")
    return Equals(value)


def _text(value: str) -> Text:
    return Text(value, ignore_case=True, ignore_punctuation=_BFCL_REMOVES)


def _parameter(values: Any, kind: str | None, where: str, required: bool = False) -> Matcher:
    """A parameter's list of acceptable values as a matcher; ``""`` among them
    means "may be left out", unless the function's doc requires the
    parameter: then it must be given (as empty text, when ``""`` is its only
    value)."""
    if not isinstance(values, list):
        raise fail(where, "a list of acceptable values", values,
                   "repair the answer entry (BFCL's checker cannot read it either).")
    optional = "" in values
    options = [_value(value, kind, where) for value in values if value != ""]
    if not options:
        if required and optional:  # only "", yet required: empty text (BFCL's checker takes " ")
            return _text("")
        if optional:  # only "": the parameter must be left out or be empty text
            return MayOmit(Equals(""))
        raise fail(where, "at least one acceptable value", values,
                   "repair the answer entry (BFCL's checker refuses every output for it).")
    matcher: Matcher = options[0] if len(options) == 1 else OneOf(options)
    return MayOmit(matcher) if optional and not required else matcher


def _call(name: str, parameters: Mapping[str, Any], doc: _Doc | None, where: str) -> Call:
    """One ground-truth call as a Call; with the function's doc, BFCL's doc
    rule too: a parameter the doc requires cannot be left out, a parameter it
    does not define cannot be given."""
    if doc is None:
        return Call(name, {key: _parameter(values, None, f"{where}.{key}") for key, values in parameters.items()})
    matchers: dict[str, Matcher] = {}
    for key, values in parameters.items():
        here = f"{where}.{key}"
        if key not in doc.types:
            if not isinstance(values, list) or "" not in values:
                raise fail(here, f"a parameter that {name}'s doc defines (it defines {sorted(doc.types)})",
                           key, "repair the entry: the answer requires a parameter the function does not "
                           "have, so BFCL's checker refuses every output for it.")
            continue  # omittable and unknown: must be left out, as any other unknown parameter
        matchers[key] = _parameter(values, doc.types[key], here, required=key in doc.required)
    missing = sorted(doc.required - set(parameters))
    if missing:
        raise fail(where, f"a value for each parameter {name}'s doc requires", f"none for {missing}",
                   "repair the entry: BFCL's checker refuses a call without them, and the answer "
                   "accepts none with them.")
    return Call(name, matchers)


def bfcl_expectation(ground_truth: Any, category: str,
                     question: Mapping[str, Any] | None = None, where: str = "ground_truth") -> Expectation:
    """The expectation a BFCL answer stands for: each ground-truth call
    (``{function: {parameter: [acceptable values]}}``, ``""`` meaning "may be
    omitted") as a Call whose parameters take one of their values and no
    other parameter; several calls in any order for the parallel
    categories, one after another otherwise; no other call allowed.

    With the ``question``, its function docs add BFCL's rules on them: an
    integer parameter refuses floats; a parameter the doc requires cannot be
    left out, even where the answer marks it ``""``; a parameter the doc
    does not define cannot be given (an answer that requires one, or that
    gives no value for a required parameter, is refused: no output meets
    BFCL's checker there)."""
    if not isinstance(ground_truth, list):
        raise fail(where, "a list of {function: {parameter: [values]}}", ground_truth,
                   "pass the answer's ground_truth.")
    docs = _docs(question) if question is not None else {}
    steps = []
    for k, item in enumerate(ground_truth):  # BFCL's answers hold one call per object
        here = f"{where}[{k}]"
        if not isinstance(item, Mapping) or len(item) != 1:
            raise fail(here, "one {function: {parameter: [values]}} object", item,
                       "repair the answer (BFCL's text-answer categories, memory and web_search, and "
                       "the multi-turn ones are not read by bfcl_cases).")
        (name, parameters), = item.items()
        if not isinstance(parameters, Mapping):
            raise fail(f"{here}.{name}", "an object of parameters", parameters, "repair the answer.")
        steps.append(_call(name, parameters, _doc_rule(docs.get(name)), f"{here}.{name}"))
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


@attrs.frozen(slots=True)
class _Found:
    """Entries of a file keyed by id, and the lines that could not be read
    (``errors="record"``: each question they might belong to says so)."""

    by_id: dict[str, tuple[str, Any]]
    unreadable: list[str]

    def missing(self, what: str, entry_id: str) -> str:
        """Why ``entry_id`` has no entry: named, with the lines that could not be read."""
        shown = "; ".join(self.unreadable[:3]) + (f"; and {len(self.unreadable) - 3} more"
                                                   if len(self.unreadable) > 3 else "")
        return (f"no {what} with id {entry_id!r}: the {what}s file has lines that could not be read, "
                f"one of which may be it ({shown}). Fix: repair those lines.")


def _keyed(source: Any, loader: str, errors: ErrorsMode, value_key: str, expected: str, fix: str) -> _Found:
    """``{id: (where, entry[value_key])}`` from a file or iterable of entries.
    An entry that is not ``{"id": ..., value_key: ...}`` is refused, or with
    ``errors="record"`` listed as unreadable (its id cannot be trusted)."""
    found = _Found({}, [])
    for entry in entries(source, loader):
        value = entry.value
        if entry.problem is None and isinstance(value, Mapping) and "id" in value and value_key in value:
            found.by_id[str(value["id"])] = (entry.where, value[value_key])
            continue
        problem = entry.problem or str(fail("", expected, value, fix)).removeprefix(": ")
        if errors == "raise":
            raise InvalidCaseError(f"{loader}: {entry.where}: {problem}")
        found.unreadable.append(f"{entry.where}: {problem}")
    return found


def _outputs(outputs: Mapping[str, Any] | str | os.PathLike[str] | None, errors: ErrorsMode) -> _Found:
    if outputs is None:
        return _Found({}, [])
    if isinstance(outputs, Mapping):
        return _Found({str(key): (f"outputs[{key!r}]", value) for key, value in outputs.items()}, [])
    return _keyed(outputs, _LOADER, errors, "result", 'an object {"id": ..., "result": ...}',
                  "write one model result a line, as BFCL's result files hold them.")


def _question_input(question: Mapping[str, Any]) -> Any:
    turns = question.get("question")
    if isinstance(turns, list) and len(turns) == 1 and isinstance(turns[0], list):
        return turns[0]  # the single turn's messages
    return turns


def bfcl_cases(questions: Source, answers: Source | None = None,
               outputs: Mapping[str, Any] | str | os.PathLike[str] | None = None,
               *, errors: str = "raise") -> list[AgentTestCase | UnreadableCase]:
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
    :func:`bfcl_expectation` (with the entry's function docs),
    ``expected_tool_calls`` each ground-truth call with its first acceptable
    value per parameter (omittable ones left out), ``tool_calls`` the output
    (None without one), metadata ``id``, ``category`` (:func:`bfcl_category`)
    and ``bfcl`` (the entry's ``function`` docs and ``ground_truth``, which
    the ``bfcl_ast`` metric of agentmetrics-compat reads).

    An entry that cannot be read (its question or its answer) is refused
    with its id, its file and line and the path inside it; with
    ``errors="record"`` it becomes an :class:`~agentmetrics.UnreadableCase`
    in its place instead (an error row when scored) and the other entries
    load."""
    mode = check_errors_mode(errors)
    found = _Found({}, []) if answers is None else _keyed(
        answers, _LOADER, mode, "ground_truth", 'an answer {"id": ..., "ground_truth": [...]}',
        "pass BFCL's possible_answer file.")
    results = _outputs(outputs, mode)
    cases: list[AgentTestCase | UnreadableCase] = []
    for entry in entries(questions, _LOADER):
        question_id = entry_id(entry.value)
        cases.append(build(_LOADER, mode, entry, question_id,
                           lambda question: _single_case(question, found, results)))
    return cases


def _single_case(question: Any, found: _Found, results: _Found) -> AgentTestCase | UnreadableCase:
    if not isinstance(question, Mapping) or not isinstance(question.get("id"), str):
        raise fail("question", 'a question {"id": ..., "question": ..., "function": ...}', question,
                   "pass BFCL's question file.")
    question_id = question["id"]
    category = bfcl_category(question_id)
    if category.startswith("multi_turn"):
        raise fail("id", "a single-turn entry", question_id, "read multi-turn entries with "
                   "bfcl_multi_turn_cases.")
    answer = found.by_id.get(question_id)
    if answer is None:
        if found.unreadable:
            raise InvalidCaseError(found.missing("answer", question_id))
        if "irrelevance" not in category:
            raise fail("answers", f"an answer with id {question_id!r}", None,
                       "pass the possible_answer file of the same category (the "
                       "relevance categories, where any call passes, are not read: an "
                       "expectation names the tools it accepts).")
        expectation, expected = Expectation([]), []
    else:
        origin, truth = answer
        expectation = bfcl_expectation(truth, category, question, f"{origin}: ground_truth")
        docs = _docs(question)
        expected = [_first_values(item, _doc_rule(docs.get(next(iter(item))))) for item in truth]
    metadata = {"id": question_id, "category": category,
                "bfcl": {"function": question.get("function"),
                         "ground_truth": None if answer is None else answer[1]}}
    calls = None
    if question_id in results.by_id:
        origin, result = results.by_id[question_id]
        try:
            calls = bfcl_calls(result, f"{origin}.result")
        except InvalidCaseError as error:  # the model's output, not the data: always an error row
            return UnreadableCase(origin, 0, f"{_LOADER}: {error}", id=question_id)
    elif results.unreadable:
        raise InvalidCaseError(results.missing("output", question_id))
    return AgentTestCase(input=_question_input(question), tool_calls=calls,
                         expected_tool_calls=expected, expectation=expectation, metadata=metadata)


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


def _first_values(item: Mapping[str, Any], doc: _Doc | None) -> ToolCall:
    """The call the expectation's first acceptable values make: a parameter
    the doc does not define left out, a required one marked only ``""`` given
    as empty text."""
    (name, parameters), = item.items()
    arguments = {}
    for key, values in parameters.items():
        if doc is not None and key not in doc.types:
            continue
        value = _first(values)
        if value is _NONE and doc is not None and key in doc.required:
            value = ""
        if value is not _NONE:
            arguments[key] = value
    return ToolCall(name, arguments)


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
        docs = []
        for entry in entries(functions, _MULTI):
            if entry.problem is not None:  # the docs are settings, not entries: never skipped
                raise InvalidCaseError(f"{_MULTI}: functions: {entry.where}: {entry.problem}")
            docs.append(entry.value)
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


_MULTI = "bfcl_multi_turn_cases"


def bfcl_multi_turn_cases(questions: Source, answers: Source,
                          outputs: Mapping[str, Any] | None = None,
                          functions: Any = None, *, errors: str = "raise") -> list[AgentTestCase | UnreadableCase]:
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
    ``per_turn("expectation_match")``. An entry that cannot be read is
    refused with its id and file and line; with ``errors="record"`` it
    becomes an :class:`~agentmetrics.UnreadableCase` and the others load."""
    mode = check_errors_mode(errors)
    names = _parameter_names(functions)
    found = _keyed(answers, _MULTI, mode, "ground_truth", 'an answer {"id": ..., "ground_truth": [[calls], ...]}',
                   "pass BFCL's multi-turn possible_answer file.")
    cases: list[AgentTestCase | UnreadableCase] = []
    for entry in entries(questions, _MULTI):
        cases.append(build(_MULTI, mode, entry, entry_id(entry.value),
                           lambda question: _multi_turn_case(question, found, outputs, names)))
    return cases


def _multi_turn_case(question: Any, found: _Found, outputs: Mapping[str, Any] | None,
                     names: dict[str, list[str]]) -> AgentTestCase | UnreadableCase:
    if not isinstance(question, Mapping) or not isinstance(question.get("id"), str):
        raise fail("question", "a multi-turn question with an id", question,
                   "pass BFCL's multi-turn question file.")
    question_id = question["id"]
    if question_id not in found.by_id:
        if found.unreadable:
            raise InvalidCaseError(found.missing("answer", question_id))
        raise fail("answers", f"an answer with id {question_id!r}", None,
                   "pass the possible_answer file of the same category.")
    origin, truth = found.by_id[question_id]
    if not isinstance(truth, list):
        raise fail(f"{origin}: ground_truth", "one list of call strings per turn", truth,
                   "pass BFCL's multi-turn possible_answer file.")
    turns_in = question.get("question")
    if not isinstance(turns_in, list) or len(turns_in) != len(truth):
        raise fail("question", f"{len(truth)} turns, as the answer has", turns_in,
                   "pass the question and answer of the same entry.")
    made: list[list[ToolCall] | None] = [None] * len(truth)
    if outputs is not None and question_id in outputs:
        result = outputs[question_id]
        try:
            if not isinstance(result, list) or len(result) != len(truth):
                raise fail(f"outputs[{question_id!r}]", f"one list of calls per turn ({len(truth)})",
                           result, "pass the model's decoded calls turn by turn.")
            made = [_turn_calls(turn, f"outputs[{question_id!r}][{k}]") for k, turn in enumerate(result)]
        except InvalidCaseError as error:  # the model's output, not the data: always an error row
            return UnreadableCase(origin, 0, f"{_MULTI}: {error}", id=question_id)
    turns = []
    for k, calls in enumerate(truth):
        here = f"{origin}: ground_truth[{k}]"
        if not isinstance(calls, list):
            raise fail(here, "a list of call strings", calls, "repair the answer.")
        expected = [parse_bfcl_call(text, names, f"{here}[{j}]") for j, text in enumerate(calls)]
        turns.append(AgentTestCase(
            input=turns_in[k], tool_calls=made[k], expected_tool_calls=expected,
            expectation=Expectation(list(map(exact_call, expected)), extra_calls="allow")))
    return AgentTestCase(turns=turns, metadata={
        "id": question_id, "category": bfcl_category(question_id),
        "involved_classes": question.get("involved_classes")})
