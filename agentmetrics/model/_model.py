"""The data a metric reads and writes: tool calls, test cases, scores."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from itertools import chain, repeat
from operator import attrgetter, itemgetter, methodcaller
from typing import TYPE_CHECKING, Any

import attrs

from agentmetrics._base._memo import memo
from agentmetrics.errors import InvalidCaseError

if TYPE_CHECKING:
    from agentmetrics.expectations import Expectation

__all__ = [
    "AgentTestCase", "CASE_FIELDS", "EvalScore", "ToolCall", "ToolCallLike", "UnreadableCase",
    "call_columns", "call_for_name", "calls_from_columns", "calls_from_mappings",
    "cases_from_fields", "describe", "is_not_given", "to_tool_call",
]


def describe(value: object) -> str:
    """A short 'type value' rendering for error messages, never a huge dump."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def is_not_given(value: object) -> bool:
    """``None``, or pandas' missing-value marker ``pd.NA`` (without importing pandas)."""
    return value is None or (
        type(value).__name__ == "NAType" and type(value).__module__.startswith("pandas")
    )


def _plain_str(value: object) -> object:
    """A ``str`` subclass (a str Enum member, ``numpy.str_``) as the plain str it holds."""
    return str.__str__(value) if isinstance(value, str) and type(value) is not str else value


def _check_name(value: object) -> None:
    if not isinstance(value, str):
        raise InvalidCaseError(
            f"ToolCall.name: expected a non-empty str, got {describe(value)}. "
            f"Fix: pass the tool's name as a string, e.g. ToolCall('GetOrder')."
        )
    if not value:
        raise InvalidCaseError(
            "ToolCall.name: expected a non-empty str, got ''. "
            "Fix: give every tool call the name of the tool that was called."
        )


def _to_arguments(value: object) -> dict[str, Any]:
    if type(value) is dict and (not value or set(map(type, value)) == _STR_KEYS):
        return dict(value)
    if is_not_given(value):
        return {}
    if not isinstance(value, Mapping):
        raise InvalidCaseError(
            f"ToolCall.arguments: expected a mapping of argument names to values, "
            f"got {describe(value)}. Fix: pass a dict such as {{'order_id': 42}}; "
            f"decode JSON-string arguments with json.loads first."
        )
    for key in value:
        if not isinstance(key, str):
            raise InvalidCaseError(
                f"ToolCall.arguments: expected str keys, got key {describe(key)}. "
                f"Fix: use argument names (strings) as keys."
            )
    return dict(value)


def _check_optional_str(field: str, value: object) -> None:
    if value is not None and not isinstance(value, str):
        raise InvalidCaseError(
            f"ToolCall.{field}: expected a str or None, got {describe(value)}."
        )


_STR_KEYS = frozenset({str})

#: ``ToolCall``'s default arguments: none passed means given and empty. Never
#: mutated (``_to_arguments`` copies it).
_EMPTY: Mapping[str, Any] = {}


@attrs.frozen(slots=True, repr=False, init=False)
class ToolCall:
    """One call an agent made (or was expected to make) to a tool.

    ``arguments`` is always a dict (copied into a new one). Whether the call
    came **with** arguments is kept apart, in ``arguments_given``:

    - ``ToolCall("search", None)``, a mapping with ``"arguments": null``, a
      null in an Arrow or pandas column: **no arguments given** (``arguments``
      is ``{}``, ``arguments_given`` False). What Gemini sends for a call
      without ``args`` reads so too; it is ADK's ``FunctionCall(args=None)``
      and deepeval's ``ToolCall(input_parameters=None)``.
    - ``ToolCall("search", {})``, ``ToolCall("search")`` (arguments left
      out), a bare name ``"search"`` and a mapping without ``"arguments"``:
      given, and empty (``arguments_given`` True).

    agentmetrics' own metrics read both as "no arguments"; the compatibility
    metrics treat them as their peer does. Equality does not compare
    ``arguments_given`` (``ToolCall("a") == ToolCall("a", {})``): two calls
    are equal when name, arguments, id, output and raw arguments are equal;
    pickles, cache keys, saved captures and batch columns keep it. The hash
    uses only ``name`` and ``id`` so that calls with unhashable argument
    values can still live in sets.

    ``raw_arguments`` keeps argument text that did not parse as a JSON object
    (see :mod:`agentmetrics.formats`): such a call is kept and flagged, never
    dropped (its arguments count as given).
    """

    name: str
    arguments: dict[str, Any] = attrs.field(hash=False)
    id: str | None = attrs.field(default=None, kw_only=True)
    output: Any = attrs.field(default=None, kw_only=True, hash=False)
    raw_arguments: str | None = attrs.field(default=None, kw_only=True, hash=False)
    arguments_given: bool = attrs.field(default=True, kw_only=True, eq=False, hash=False)

    def __init__(self, name: str, arguments: Mapping[str, Any] | None = _EMPTY, *,
                 id: str | None = None, output: Any = None, raw_arguments: str | None = None,
                 arguments_given: bool | None = None) -> None:
        if type(name) is not str:
            name = _plain_str(name)  # type: ignore[assignment]
            _check_name(name)
        elif not name:
            _check_name(name)
        if id is not None and type(id) is not str:
            _check_optional_str("id", id)
        if raw_arguments is not None and type(raw_arguments) is not str:
            _check_optional_str("raw_arguments", raw_arguments)
        if arguments_given is None:
            arguments_given = (type(arguments) is dict or not is_not_given(arguments)
                               or raw_arguments is not None)
        elif type(arguments_given) is not bool:
            raise InvalidCaseError(
                f"ToolCall.arguments_given: expected True or False, got {describe(arguments_given)}.")
        _set = object.__setattr__
        _set(self, "name", name)
        _set(self, "arguments", _to_arguments(arguments))
        _set(self, "id", id)
        _set(self, "output", output)
        _set(self, "raw_arguments", raw_arguments)
        _set(self, "arguments_given", arguments_given)

    def __repr__(self) -> str:
        # Optional fields only when set: lists of calls stay readable. A call
        # given no arguments shows None (``ToolCall('a', None)``), as it is made.
        text = f"ToolCall({self.name!r}"
        text += f", {self.arguments!r}" if self.arguments_given or self.arguments else ", None"
        for field in ("id", "output", "raw_arguments"):
            value = getattr(self, field)
            if value is not None:
                text += f", {field}={value!r}"
        if not self.arguments_given and self.arguments:
            text += ", arguments_given=False"
        return text + ")"

    @property
    def arguments_valid(self) -> bool:
        """False when the arguments arrived as text that is not a JSON object;
        ``arguments`` is then empty and ``raw_arguments`` holds the text."""
        return self.raw_arguments is None


ToolCallLike = ToolCall | str | Mapping[str, Any]
_MAPPING_KEYS = frozenset({"name", "arguments", "id", "output", "raw_arguments"})


#: ToolCall objects for bare names, shared: a ToolCall is immutable, and
#: datasets repeat the same few names millions of times.
_NAME_CALLS, call_for_name = memo(ToolCall, limit=65_536)


_NONE = type(None)
_GET_ARGUMENTS = methodcaller("get", "arguments")
_GET_ID = methodcaller("get", "id")
_GET_OUTPUT = methodcaller("get", "output")
_GET_RAW = methodcaller("get", "raw_arguments")
_GET_NAME = itemgetter("name")
_NAME_OF = attrgetter("name")
_new = object.__new__


def _slot_setters(cls: type) -> dict[str, Any]:
    """Each field's slot descriptor ``__set__``: fills a field of an object made
    with ``object.__new__``, bypassing ``__init__`` (and the frozen ``__setattr__``)."""
    return {field.name: cls.__dict__[field.name].__set__ for field in attrs.fields(cls)}


def _fill(cls: type, columns: Mapping[str, Iterable[Any]], n: int) -> list[Any]:
    """``n`` new ``cls`` objects, field ``f`` of object ``i`` set to ``columns[f][i]``:
    one C-level loop a field, no bytecode per object. The values must be the
    ones the converters and validators would give: the callers check them first."""
    made: list[Any] = list(map(_new, repeat(cls, n)))
    setters = _SETTERS[cls]  # type: ignore[index]
    for field, values in columns.items():
        deque(map(setters[field], made, values), maxlen=0)
    return made


def call_columns(items: list[Any]) -> dict[str, list[Any]] | None:
    """The fields of a list of plain dicts (``{"name": ..., "arguments": {...}, ...}``)
    as columns, every value checked at once as ``ToolCall`` checks it (arguments
    not yet copied); or None when any item is not exactly such a dict or holds
    a value ``ToolCall`` refuses or would convert (a str subclass), so that the
    caller takes the call-by-call path, which says what and where."""
    if not items:
        return {"name": [], "arguments": [], "id": [], "raw_arguments": [], "output": [],
                "arguments_given": []}
    if set(map(type, items)) != {dict}:
        return None
    keys = set().union(*items)
    if not keys <= _MAPPING_KEYS:
        return None
    try:
        names = list(map(_GET_NAME, items))
    except KeyError:
        return None
    if set(map(type, names)) != {str} or "" in names:
        return None
    n = len(items)
    columns: dict[str, list[Any]] = {"name": names}
    if "arguments" in keys:
        arguments = list(map(_GET_ARGUMENTS, items))
        kinds = set(map(type, arguments))
        if not kinds <= {dict, _NONE}:
            return None
        if _NONE in kinds:
            # null: none given; left out: given, empty (raw text counts as given)
            columns["arguments_given"] = [
                value is not None or "arguments" not in item or item.get("raw_arguments") is not None
                for value, item in zip(arguments, items)]
            arguments = [{} if value is None else value for value in arguments]
        else:
            columns["arguments_given"] = [True] * n
        if not set(map(type, chain.from_iterable(arguments))) <= {str}:
            return None
        columns["arguments"] = arguments
    else:  # left out: given, empty
        columns["arguments"] = [{}] * n  # copied when the calls are built
        columns["arguments_given"] = [True] * n
    for field, getter in (("id", _GET_ID), ("raw_arguments", _GET_RAW), ("output", _GET_OUTPUT)):
        if field not in keys:
            columns[field] = [None] * n
            continue
        values = list(map(getter, items))
        if field != "output" and not set(map(type, values)) <= {str, _NONE}:
            return None
        columns[field] = values
    return columns


def calls_from_columns(columns: Mapping[str, list[Any]]) -> list[ToolCall]:
    """ToolCalls from :func:`call_columns`' checked columns, each arguments dict
    copied, built without a Python ``__init__`` call each."""
    filled = {**columns, "arguments": map(dict, columns["arguments"])}
    return _fill(ToolCall, filled, len(columns["name"]))


def calls_from_mappings(items: list[Any]) -> list[ToolCall] | None:
    """``[ToolCall(**item) for item in items]`` for plain dicts, checked at once;
    None when the call-by-call path must say what is wrong (see :func:`call_columns`)."""
    columns = call_columns(items)
    return None if columns is None else calls_from_columns(columns)


def _provider_shape(item: Mapping[Any, Any]) -> str | None:
    """Which provider's call ``item`` is written as, when it is one."""
    kind = item.get("type")
    if isinstance(item.get("function"), Mapping) or isinstance(item.get("custom"), Mapping):
        return "an OpenAI-style tool call (what message.tool_calls holds)"
    if kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
        return "an Anthropic tool_use block"
    if isinstance(kind, str) and kind.endswith("_call"):
        return f"an OpenAI Responses {kind} item"
    if "functionCall" in item or "function_call" in item:
        return "a Gemini part"
    if "toolUse" in item:
        return "a Bedrock toolUse block"
    if "args" in item and "name" in item:
        return "a LangChain or Gemini call (with 'args')"
    return None


def _shape_fix(item: Mapping[Any, Any], field: str) -> str:
    """What to do with a call written in a shape a case does not take."""
    if set(item) - _MAPPING_KEYS == {"args"}:  # LangChain's and Gemini's spelling
        return "rename 'args' to 'arguments'."
    shape = _provider_shape(item)
    if shape is None:
        return "write each call as {'name': ..., 'arguments': {...}}."
    if field == "tool_calls":
        return (f"this is {shape}. Give what the provider returned as \"response\" instead of "
                f"\"tool_calls\" (in a case file, \"response\": [...the same list...]; in Python, "
                f"tool_calls=agentmetrics.formats.tool_calls_from(...)): its calls are read "
                f"exactly, arguments and ids included.")
    return (f"this is {shape}; write each expected call as {{'name': ..., 'arguments': "
            f"{{...}}}} (agentmetrics.formats.tool_calls_from(...) reads a provider's calls so).")


def to_tool_call(item: object, field: str, index: int) -> ToolCall:
    kind = type(item)  # exact types first: ABC isinstance checks are slow
    if kind is ToolCall:
        return item  # type: ignore[return-value]
    if kind is str or isinstance(item, str):
        try:
            return call_for_name(_plain_str(item))  # type: ignore[arg-type]
        except InvalidCaseError as error:
            raise InvalidCaseError(f"{field}[{index}]: {error}") from None
    if isinstance(item, ToolCall):
        return item
    if isinstance(item, Mapping):
        unknown = sorted(str(key) for key in item if key not in _MAPPING_KEYS)
        if "name" not in item or unknown:
            problem = (
                f"unknown keys {unknown}" if unknown else "no 'name' key"
            )
            raise InvalidCaseError(
                f"{field}[{index}]: expected a mapping with 'name' and optionally "
                f"'arguments', 'id', 'output'; got {problem} in {describe(item)}. "
                f"Fix: {_shape_fix(item, field)}"
            )
        try:
            return ToolCall(
                item["name"],
                item["arguments"] if "arguments" in item else _EMPTY,
                id=item.get("id"),
                output=item.get("output"),
                raw_arguments=item.get("raw_arguments"),
            )
        except InvalidCaseError as error:
            raise InvalidCaseError(f"{field}[{index}]: {error}") from None
    raise InvalidCaseError(
        f"{field}[{index}]: expected a ToolCall, a tool name (str) or a mapping "
        f"with 'name'; got {describe(item)}."
    )


def _as_list(value: object, field: str, expected: str, fix: str) -> Iterable[Any]:
    """``value`` where a list is expected, refusing a bare string or mapping
    (or a non-iterable): a string or mapping is iterable, and iterating it
    would read its characters or keys as items."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise InvalidCaseError(
            f"AgentTestCase.{field}: expected {expected} or None, got {describe(value)}. Fix: {fix}"
        )
    return value


def _to_call_tuple(value: object, field: str) -> tuple[ToolCall, ...] | None:
    if is_not_given(value):
        return None
    value = _as_list(value, field, "a list of tool calls (ToolCall, names or mappings)",
                     f"wrap a single call in a list, e.g. {field}=['GetOrder'].")
    if isinstance(value, AbstractSet):
        # A set has no order, so order-aware scores would change from run to run.
        raise InvalidCaseError(
            f"AgentTestCase.{field}: expected a list of tool calls in the order they were "
            f"made, got a {type(value).__name__}, which has no order. Fix: pass a list."
        )
    if type(value) is list or type(value) is tuple:
        kinds = set(map(type, value))
        if kinds <= {str}:  # names: the common case
            try:
                return tuple(map(call_for_name, value))
            except InvalidCaseError:
                pass  # an empty name: the loop below says which position
        elif kinds == {ToolCall}:  # calls a reader made: checked when they were made
            return tuple(value)
        elif kinds == {dict}:  # {"name": ..., "arguments": ...} objects, checked at once
            calls = calls_from_mappings(value if type(value) is list else list(value))
            if calls is not None:
                return tuple(calls)
    return tuple(to_tool_call(item, field, index) for index, item in enumerate(value))


def _to_tool_calls(value: object) -> tuple[ToolCall, ...] | None:
    return _to_call_tuple(value, "tool_calls")


def _to_expected_tool_calls(value: object) -> tuple[ToolCall, ...] | None:
    return _to_call_tuple(value, "expected_tool_calls")


def _to_turns(value: object) -> tuple[AgentTestCase, ...] | None:
    if is_not_given(value):
        return None
    value = _as_list(value, "turns", "a list of turns (AgentTestCase or mappings of its fields)",
                     "wrap a single turn in a list.")
    turns = []
    for index, item in enumerate(value):
        if isinstance(item, Mapping):
            unknown = sorted(set(map(str, item)) - _TURN_KEYS)
            if unknown:
                raise InvalidCaseError(
                    f"AgentTestCase.turns[{index}]: unknown keys {unknown}; expected some of "
                    f"{sorted(_TURN_KEYS)}.")
            try:
                item = AgentTestCase(**item)
            except InvalidCaseError as error:
                raise InvalidCaseError(f"turns[{index}].{str(error).removeprefix('AgentTestCase.')}") from None
        if not isinstance(item, AgentTestCase):
            raise InvalidCaseError(
                f"AgentTestCase.turns[{index}]: expected an AgentTestCase or a mapping of its "
                f"fields, got {describe(item)}.")
        if item.turns is not None:
            raise InvalidCaseError(
                f"AgentTestCase.turns[{index}]: a turn has turns of its own; expected one level. "
                f"Fix: list every turn of the run in the case's turns.")
        turns.append(item)
    return tuple(turns)


def _to_expectation(value: object) -> Expectation | None:
    """None, an Expectation, or its JSON form (read with the path named)."""
    if value is None:
        return None
    from agentmetrics.expectations import Expectation, expectation_from_json

    if isinstance(value, Expectation):
        return value
    return expectation_from_json(value, "AgentTestCase.expectation")


def _to_metadata(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidCaseError(
            f"AgentTestCase.metadata: expected a mapping, got {describe(value)}."
        )
    return dict(value)


def _amount(value: object, field: str, unit: str) -> float | None:
    """A non-negative, finite real number (``unit`` says what it counts), as a float; None
    means "not given". Text, booleans, NaN and infinities are refused, never coerced."""
    if value is None:
        return None
    if isinstance(value, bool) or (not isinstance(value, (int, float)) and not (
            hasattr(value, "dtype") and getattr(value, "shape", None) == ()
            and getattr(value.dtype, "kind", "") in "iuf")):
        raise InvalidCaseError(
            f"AgentTestCase.{field}: expected {unit} as a number (int or float), got "
            f"{describe(value)}. Fix: pass the number itself, e.g. {field}=1.25, not text; "
            f"None when it is not known.")
    number = float(value)  # type: ignore[arg-type]
    if not math.isfinite(number) or number < 0:
        raise InvalidCaseError(
            f"AgentTestCase.{field}: expected {unit}, a finite number at or above 0, got "
            f"{number!r}. Fix: pass the measured value, or None when it is not known.")
    return number


def _to_latency(value: object) -> float | None:
    return _amount(value, "latency", "seconds")


def _to_cost(value: object) -> float | None:
    return _amount(value, "cost", "a cost")


def _to_usage(value: object) -> dict[str, int] | None:
    """Token counts by kind (``{"input_tokens": 120, "output_tokens": 30}``)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InvalidCaseError(
            f"AgentTestCase.usage: expected a mapping of token counts, e.g. "
            f"{{'input_tokens': 120, 'output_tokens': 30}}, got {describe(value)}.")
    usage: dict[str, int] = {}
    for key, count in value.items():
        if not isinstance(key, str) or isinstance(count, bool) or not isinstance(count, int) \
                or count < 0:
            raise InvalidCaseError(
                f"AgentTestCase.usage[{key!r}]: expected a count of tokens (an int at or above "
                f"0) under a str key, got {describe(count)}. Fix: pass whole token counts.")
        usage[key] = count
    return usage


@attrs.frozen(slots=True)
class AgentTestCase:
    """One agent run to score: what it was asked, what it did, what was expected.

    ``tool_calls`` and ``expected_tool_calls`` accept ToolCall objects, tool
    names or mappings with ``name`` (and optionally ``arguments``, ``id``,
    ``output``) and are stored as tuples of ToolCall. ``None`` means "not
    given", which differs from ``[]`` ("no calls").

    ``expectation``: what the calls should be when one list is not enough (a
    partial order, acceptable values, forbidden calls): an
    :class:`agentmetrics.expectations.Expectation` or its JSON form, scored by
    ``expectation_match``; the other metrics read ``expected_tool_calls``.

    ``turns``, for a multi-turn run: one AgentTestCase per turn (or a mapping
    of its fields), each with its own calls and expected calls, scored turn by
    turn through :func:`agentmetrics.per_turn`. A turn has no turns of its own.

    What agent teams measure besides calls: ``expected_output``, the reference
    answer (any JSON value); ``latency``, the run's wall time in seconds;
    ``cost``, what it cost (in the unit you price in); ``usage``, its token
    counts by kind. Each is ``None`` when not known; numbers are checked, never
    coerced from text.
    """

    input: Any = None
    actual_output: Any = None
    tool_calls: tuple[ToolCall, ...] | None = attrs.field(
        default=None, converter=_to_tool_calls
    )
    expected_tool_calls: tuple[ToolCall, ...] | None = attrs.field(
        default=None, converter=_to_expected_tool_calls
    )
    metadata: dict[str, Any] = attrs.field(
        factory=dict, kw_only=True, converter=_to_metadata, hash=False
    )
    turns: tuple[AgentTestCase, ...] | None = attrs.field(
        default=None, kw_only=True, converter=_to_turns
    )
    expectation: Expectation | None = attrs.field(
        default=None, kw_only=True, converter=_to_expectation
    )
    expected_output: Any = attrs.field(default=None, kw_only=True)
    latency: float | None = attrs.field(default=None, kw_only=True, converter=_to_latency)
    cost: float | None = attrs.field(default=None, kw_only=True, converter=_to_cost)
    usage: dict[str, int] | None = attrs.field(default=None, kw_only=True, converter=_to_usage,
                                               hash=False)

    @property
    def tool_names(self) -> tuple[str, ...] | None:
        """Names of the tools called, in call order (``None`` if not given)."""
        return None if self.tool_calls is None else tuple(map(_NAME_OF, self.tool_calls))

    @property
    def expected_tool_names(self) -> tuple[str, ...] | None:
        """Names of the tools expected, in order (``None`` if not given)."""
        if self.expected_tool_calls is None:
            return None
        return tuple(map(_NAME_OF, self.expected_tool_calls))


def _short_float(value: float) -> str:
    return "nan" if math.isnan(value) else f"{value:.2f}"


#: The fields of an AgentTestCase, by name; a turn has all but ``turns``.
CASE_FIELDS = frozenset(field.name for field in attrs.fields(AgentTestCase))
_TURN_KEYS = CASE_FIELDS - {"turns"}


@attrs.frozen(slots=True, repr=False)
class EvalScore:
    """The result of one metric on one test case.

    ``value`` is in the metric's ``value_range`` ([0, 1] unless it declares
    another); ``passed`` compares it with ``threshold`` (at or above for
    higher-is-better metrics); ``reason`` says why, in words.
    """

    value: float
    passed: bool
    reason: str
    metric: str
    threshold: float
    #: The case's statistics for corpus-level aggregates (``{"matched": 2.0}``),
    #: for a metric that declares ``statistics``; None otherwise.
    statistics: Mapping[str, float] | None = attrs.field(default=None, kw_only=True)

    def __repr__(self) -> str:
        extra = "" if self.statistics is None else f", statistics={dict(self.statistics)!r}"
        return (
            f"EvalScore(value={_short_float(self.value)}, passed={self.passed}, "
            f"reason={self.reason!r}, metric={self.metric!r}, "
            f"threshold={self.threshold!r}{extra})"
        )


@attrs.frozen(slots=True)
class UnreadableCase:
    """A dataset line that could not be read (``errors="record"``).

    Evaluating it gives a row with NaN and this message; it is never dropped.
    ``id`` is the line's ``id`` when the line was a JSON object that had one.
    """

    source: str
    line: int
    message: str
    id: Any = attrs.field(default=None, kw_only=True)


_SETTERS = {cls: _slot_setters(cls) for cls in (ToolCall, AgentTestCase)}


#: Every field of a case but ``metadata`` (which each case must get a dict of its own), as None.
_NONE_COLUMNS = {field.name: repeat(None) for field in attrs.fields(AgentTestCase) if field.name != "metadata"}


def cases_from_fields(columns: Mapping[str, Iterable[Any]], n: int) -> list[AgentTestCase]:
    """``n`` AgentTestCases from one column of values per field, built without
    an ``__init__`` call each. Every value must already be what the field's
    converter gives (tuples of ToolCall or None, a fresh metadata dict, turns
    None): the columnar readers check their input before they come here."""
    filled = {**_NONE_COLUMNS, **columns}
    return _fill(AgentTestCase, filled, n)


# Pickles and reprs name the public path, not this private module.
for _public in (ToolCall, AgentTestCase, EvalScore, UnreadableCase):
    _public.__module__ = "agentmetrics"
del _public
