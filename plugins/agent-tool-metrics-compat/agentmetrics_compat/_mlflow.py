"""mlflow_tool_call_correctness: MLflow's ToolCallCorrectness (exact mode), reproduced."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from agentmetrics import AgentTestCase, InvalidCaseError, InvalidParameterError, Metric, ToolCall

from agentmetrics_compat._common import check_flag, listed

if TYPE_CHECKING:
    from agentmetrics import MetricResult, ToolCallBatch

__all__ = ["MlflowToolCallCorrectness", "called_as_mlflow_reads_it", "mlflow_expected_calls",
           "mlflow_tool_call"]

_NAME = "mlflow_tool_call_correctness"
_AUTO = "auto"


class _Nameless:
    """The name of a call whose ``call.tool_name`` is null, compared by name
    only: equal to no expected name (MLflow's ``None``)."""

    def __repr__(self) -> str:
        return "None"


_NAMELESS = _Nameless()


def _stored(value: Any) -> Any:
    """What MLflow's trace store gives back for span inputs given as text: the
    JSON it holds, one level, when that is text, an object or a list
    (``'[]'`` reads back as ``[]``, ``'"x"'`` as ``"x"``); other text as is."""
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    return parsed if isinstance(parsed, (str, dict, list)) else value


def called_as_mlflow_reads_it(call: ToolCall, k: int) -> tuple[Any, Any]:
    """``(name, arguments)`` of a call made, as MLflow reads it back from the
    TOOL span a trace records for it (its inputs are the call's arguments):

    - the name is the span's, unless the inputs hold ``{"call": {"tool_name":
      X, ...}}`` (the spans of MLflow's pydantic-ai autolog): then it is X;
    - arguments are ``inputs or None``: empty or absent arguments are None,
      which compares as ``{}``; text that is not an object (kept in
      ``raw_arguments``) is what the store gives back for it.

    Refused, as MLflow refuses it: a non-empty list or a ``tool_name`` that
    is not text (its FunctionCall takes neither), and text MLflow cannot store
    (a lone surrogate)."""
    inputs: Any = call.arguments if call.arguments_given else None
    if not call.arguments_valid:
        inputs = _stored(call.raw_arguments)
    name: Any = call.name
    if isinstance(inputs, dict) and isinstance(inputs.get("call"), dict) and \
            "tool_name" in inputs["call"]:
        name = inputs["call"]["tool_name"]
        if name is None:
            name = _NAMELESS
        elif not isinstance(name, str):
            raise InvalidCaseError(
                f"{_NAME}: called call #{k + 1} ({call.name}) names its tool in "
                f"arguments['call']['tool_name'] as {name!r}; MLflow takes the tool name from "
                f"there and refuses one that is not text (its FunctionCall.name is a str). "
                f"Fix: make tool_name a string, or leave the 'call' argument out.")
    if isinstance(inputs, list) and inputs:
        raise InvalidCaseError(
            f"{_NAME}: called call #{k + 1} ({call.name}) has a list as its arguments "
            f"({call.raw_arguments!r:.40}); MLflow refuses it (its FunctionCall takes an object "
            f"or text). Fix: give the arguments as an object.")
    return name, inputs or None


def mlflow_tool_call(name: str, inputs: Any = None, *, output: Any = None) -> ToolCall:
    """A call made, from what MLflow's trace records for it: the name of its
    TOOL span and the span's inputs, as they are. ``ToolCall`` takes only an
    object (or None) as arguments; this keeps the other inputs MLflow scores,
    so that ``mlflow_tool_call_correctness`` reads the call as MLflow reads
    the span back:

    - an object is the call's arguments; ``None`` is no arguments given;
    - text, and a list (as its JSON text), are kept in ``raw_arguments``:
      the metric reads ``""`` and ``[]`` as no arguments (MLflow's
      ``inputs or None``), other text by name only (refused where arguments
      are compared: "Arguments must be a dict"), and refuses a non-empty list
      (MLflow's ``FunctionCall`` takes an object or text);
    - a number or a boolean is refused: MLflow reads ``0``, ``0.0`` and
      ``false`` as no arguments and refuses the others; here a number is not
      read as "no arguments".

    ``raw_arguments`` is where agentmetrics keeps any arguments that arrived
    as something other than an object: the call stays flagged for every other
    metric (the other peers' metrics refuse it; agentmetrics' own metrics
    treat it as malformed arguments), not read as a call without arguments.

    >>> mlflow_tool_call("search", [])
    ToolCall('search', {}, raw_arguments='[]')
    """
    if inputs is None or isinstance(inputs, Mapping):
        return ToolCall(name, inputs, output=output)
    if isinstance(inputs, str):
        return ToolCall(name, raw_arguments=str.__str__(inputs), output=output)
    if isinstance(inputs, (list, tuple)):
        # MLflow stores a list as its JSON; the metric refuses a non-empty one whatever it holds
        return ToolCall(name, raw_arguments=json.dumps(list(inputs), default=repr), output=output)
    shown = repr(inputs)
    raise InvalidCaseError(
        f"mlflow_tool_call: the inputs of the call of {name!r} are {type(inputs).__name__} "
        f"{shown if len(shown) <= 40 else shown[:37] + '...'}; expected an object, None, text or a "
        f"list (MLflow reads 0, 0.0 and false as no arguments and refuses other numbers; "
        f"agentmetrics reads neither). Fix: pass None for a call made without arguments, or its "
        f"arguments as an object.")


def mlflow_expected_calls(expected_tool_calls: Iterable[Mapping[str, Any]]) -> list[ToolCall]:
    """The expected calls of MLflow's expectations
    (``expectations["expected_tool_calls"]``: mappings with ``"name"`` and,
    optionally, ``"arguments"``), read as MLflow reads them: arguments **left
    out** or null are no arguments given (``ToolCall(name, None)``), which
    makes the metric compare the case by name, as MLflow does. (A mapping
    without ``"arguments"`` given straight to ``AgentTestCase`` is a call
    with empty arguments, which are compared.) Arguments that are not an
    object are refused, as MLflow refuses them; other keys are ignored, as
    MLflow ignores them.

    >>> mlflow_expected_calls([{"name": "search"}, {"name": "log", "arguments": {}}])
    [ToolCall('search', None), ToolCall('log', {})]
    """
    if isinstance(expected_tool_calls, (str, bytes, Mapping)) or \
            not isinstance(expected_tool_calls, Iterable):
        raise InvalidCaseError(
            f"mlflow_expected_calls: expected a list of expected calls, got "
            f"{type(expected_tool_calls).__name__}. Fix: pass expectations['expected_tool_calls'].")
    calls = []
    for k, item in enumerate(expected_tool_calls):
        if not isinstance(item, Mapping):
            raise InvalidCaseError(
                f"mlflow_expected_calls: expected_tool_calls[{k}] is {type(item).__name__}; expected "
                f"a mapping with 'name' and optionally 'arguments'. Fix: pass MLflow's "
                f"FunctionCall as call.model_dump().")
        arguments = item.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            raise InvalidCaseError(
                f"mlflow_expected_calls: expected_tool_calls[{k}] ({item.get('name')!r}) has "
                f"arguments of type {type(arguments).__name__}; MLflow refuses them (\"Arguments "
                f"must be a dict\"). Fix: give the arguments as an object, or leave them out to "
                f"check the name only.")
        try:
            calls.append(ToolCall(item.get("name"), arguments))  # type: ignore[arg-type]
        except InvalidCaseError as error:
            raise InvalidCaseError(f"mlflow_expected_calls: expected_tool_calls[{k}]: {error}") from None
    return calls


def _storable(call: ToolCall, k: int) -> None:
    """Refuse a call MLflow cannot write to its trace store (text holding a
    lone surrogate): MLflow has no trace to score then."""
    for what, value in (("name", call.name), ("arguments", call.arguments),
                        ("raw arguments", call.raw_arguments), ("output", call.output)):
        try:
            json.dumps(value, ensure_ascii=False, default=str).encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidCaseError(
                f"{_NAME}: called call #{k + 1} has {what} holding text that is not valid "
                f"Unicode (a lone surrogate); MLflow cannot store such a trace, so it gives no "
                f"score. Fix: repair the text.") from None


def _read_called(call: ToolCall, k: int) -> tuple[Any, Any]:
    """A call made as MLflow reads it back (raises where MLflow refuses it)."""
    _storable(call, k)
    return called_as_mlflow_reads_it(call, k)


def _expected_read(call: ToolCall) -> tuple[Any, Any]:
    return call.name, call.arguments if call.arguments_given else None


class _Memo:
    """Each call's reading and signature, kept for the calls of one batch by
    the call object's identity (the batch's call lists keep every call alive
    meanwhile). A call that raises is read again, by the case, for its error."""

    __slots__ = ("reads", "signatures")

    def __init__(self) -> None:
        self.reads: dict[int, tuple[Any, Any]] = {}
        self.signatures: dict[tuple[int, bool, str], Any] = {}

    def read(self, call: ToolCall, k: int) -> tuple[Any, Any]:
        found = self.reads.get(id(call))
        if found is None:
            found = self.reads[id(call)] = _read_called(call, k)
        return found

    def signature(self, call: ToolCall, read: tuple[Any, Any], compare: bool, side: str,
                  k: int) -> Any:
        key = (id(call), compare, side)
        if key not in self.signatures:
            self.signatures[key] = MlflowToolCallCorrectness._signature(*read, compare, side, k)
        return self.signatures[key]


class MlflowToolCallCorrectness(Metric):
    """MLflow's ``ToolCallCorrectness`` scorer (MLflow 3.x) in its
    deterministic mode, ``should_exact_match=True``: 1.0 for "yes", 0.0 for
    "no". (Its other mode asks an LLM judge and is not reproduced.)

    - The calls made and expected must be as many; then, with
      ``should_consider_ordering``, equal position by position, otherwise
      equal **as sets**.
    - A call is its name and its arguments as JSON with sorted keys, so
      ``1`` and ``1.0`` differ, and so do ``"1"`` and ``1``.
    - ``compare_arguments="auto"`` (MLflow's rule): arguments are compared
      unless an expected call has **no arguments given**
      (``ToolCall(name, None)``); then the whole case is compared by names.
      ``True`` or ``False`` decide for every case; MLflow has no such switch:
      ``True`` is what MLflow says when every expected call is given its
      arguments (``{}`` for none), ``False`` what it says when none is. The
      reason says when MLflow's own rule would have compared otherwise.
    - The calls made are read as MLflow reads them back from a trace: empty
      and absent arguments alike; the tool name taken from
      ``arguments["call"]["tool_name"]`` where that is given (the spans of
      MLflow's pydantic-ai autolog); arguments that are not an object as
      MLflow stores them (``"[]"`` is empty; other text is refused where
      arguments are compared). :func:`mlflow_tool_call` and
      :func:`mlflow_expected_calls` build the calls from MLflow's own inputs
      (a TOOL span's inputs; the expectations' calls).

    Quirks kept: **no expected calls is refused** (MLflow reads an empty
    expected list as no expectations, and its exact mode then raises), and
    unordered, the sets hide repeats: ``[a, a, b]`` against ``[a, b, b]`` is
    1.0.
    """

    name: ClassVar[str] = _NAME
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "expected_tool_calls")
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = "MLflow's ToolCallCorrectness, exact mode: same length, then in order or as sets."
    default_threshold: ClassVar[float] = 1.0

    def __init__(self, threshold: float | None = None, should_consider_ordering: bool = False,
                 compare_arguments: bool | str = _AUTO) -> None:
        self.should_consider_ordering = check_flag(_NAME, "should_consider_ordering",
                                                   should_consider_ordering)
        if compare_arguments != _AUTO and not isinstance(compare_arguments, bool):
            raise InvalidParameterError(
                f"{_NAME}: compare_arguments must be 'auto' (MLflow's rule), True or False, got "
                f"{compare_arguments!r}.")
        self.compare_arguments = compare_arguments
        super().__init__(threshold)

    def _read(self, called: Sequence[ToolCall], wanted: Sequence[ToolCall],
              memo: _Memo | None = None) -> tuple[list[tuple[Any, Any]], list[ToolCall], bool]:
        """The calls made as MLflow reads them, the expected calls, and whether
        arguments are compared; raises where MLflow refuses the case, in
        MLflow's order (the trace, then the expectations)."""
        made = []
        for k, call in enumerate(called):
            made.append(_read_called(call, k) if memo is None else memo.read(call, k))
        expected = list(wanted)
        for k, call in enumerate(expected):
            if not call.arguments_valid:
                raise InvalidCaseError(
                    f"{_NAME}: expected call #{k + 1} ({call.name}) has arguments that are not "
                    f"a JSON object ({call.raw_arguments!r:.40}); MLflow refuses them (\"Arguments "
                    f"must be a dict\"). Fix: give the expected arguments as an object.")
        if not expected:
            raise InvalidCaseError(
                f"{_NAME}: no expected calls. MLflow reads an empty expected list as no "
                f"expectations and refuses to score it in exact mode. Fix: give the expected "
                f"calls, or score this case with trajectory_match, which scores an empty list.")
        if self.compare_arguments == _AUTO:
            compare = all(call.arguments_given for call in expected)
        else:
            compare = bool(self.compare_arguments)
        return made, expected, compare

    @staticmethod
    def _signature(name: Any, arguments: Any, compare: bool, side: str, k: int) -> Any:
        if not compare:
            return name
        if isinstance(arguments, str):
            raise InvalidCaseError(
                f"{_NAME}: {side} call #{k + 1} ({name}) has arguments that are not a JSON "
                f"object ({arguments!r:.40}); MLflow refuses them where it compares arguments "
                f"(\"Arguments must be a dict\"). Fix: repair them, or pass "
                f"compare_arguments=False.")
        try:
            text = json.dumps(arguments or {}, sort_keys=True)
        except (TypeError, ValueError) as error:
            raise InvalidCaseError(
                f"{_NAME}: {side} call #{k + 1} ({name}) has arguments MLflow cannot write "
                f"as JSON ({error}); expected JSON values. Fix: convert them, or pass "
                f"compare_arguments=False.") from None
        return f"{name}({text})"

    def _signatures(self, called: Sequence[ToolCall], wanted: Sequence[ToolCall],
                    memo: _Memo | None = None) -> tuple[list[Any], list[Any], bool] | int:
        """Both sides' signatures and whether arguments were compared; or, when
        the lengths differ (MLflow says no before it reads any argument), the
        number of calls made. ``memo`` keeps each call's reading and signature
        for the calls of a batch (the fast decoder shares one ToolCall among
        the calls of one text)."""
        made, expected, compare = self._read(called, wanted, memo)
        if len(made) != len(expected):
            return len(made)
        if memo is not None:
            return ([memo.signature(call, read, compare, "called", k)
                     for k, (call, read) in enumerate(zip(called, made, strict=True))],
                    [memo.signature(call, _expected_read(call), compare, "expected", k)
                     for k, call in enumerate(expected)], compare)
        got = [self._signature(name, arguments, compare, "called", k)
               for k, (name, arguments) in enumerate(made)]
        want = [self._signature(*_expected_read(call), compare, "expected", k)
                for k, call in enumerate(expected)]
        return got, want, compare

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        found = self._signatures(case.tool_calls, case.expected_tool_calls)
        if isinstance(found, int):
            return 0.0, f"no: {found} calls made, {len(case.expected_tool_calls)} expected"
        made, wanted, compare = found
        how = self._how(compare, case.expected_tool_calls)
        if self.should_consider_ordering:
            for k, (got, want) in enumerate(zip(made, wanted, strict=True)):
                if got != want:
                    return 0.0, f"no: call #{k + 1} is {got}, expected {want}{how}"
            return 1.0, f"yes: all {len(wanted)} calls in order{how}"
        if set(made) != set(wanted):
            missing = sorted(map(str, set(wanted) - set(made)))
            extra = sorted(map(str, set(made) - set(wanted)))
            parts = [f"{what} {listed(calls)}" for what, calls in (("missing", missing), ("not expected", extra))
                     if calls]  # one may be empty: the same length, repeats on one side
            return 0.0, f"no: {'; '.join(parts)}{how}"
        if sorted(map(str, made)) != sorted(map(str, wanted)):
            return 1.0, (f"yes: the same calls as sets, though repeated differently (MLflow "
                         f"compares sets){how}")
        return 1.0, f"yes: the same {len(wanted)} calls, in any order{how}"

    def _how(self, compare: bool, expected: tuple[ToolCall, ...]) -> str:
        """How the calls were compared, for the reason; with ``compare_arguments``
        True or False, whether MLflow's own rule would have compared otherwise."""
        if self.compare_arguments == _AUTO:
            return "" if compare else " by name (an expected call has no arguments given)"
        if compare == all(call.arguments_given for call in expected):
            return "" if compare else " by name"
        if compare:
            return (" (arguments compared, as compare_arguments=True asks; MLflow compares this "
                    "case by name: an expected call has no arguments given)")
        return " by name (compare_arguments=False; MLflow compares arguments here)"

    def _value(self, case: AgentTestCase) -> float:
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        return self._value_of(case.tool_calls, case.expected_tool_calls)

    def _value_of(self, called: Sequence[ToolCall], expected: Sequence[ToolCall],
                  memo: _Memo | None = None) -> float:
        """The value of a case holding these calls (raises where measure refuses it)."""
        found = self._signatures(called, expected, memo)
        if isinstance(found, int):
            return 0.0
        made, wanted, _ = found
        if self.should_consider_ordering:
            return 1.0 if made == wanted else 0.0
        return 1.0 if set(made) == set(wanted) else 0.0

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """Case by case in one tight loop of values (without ``evaluate``'s
        checks of each result; the values are checked once, as a batch), from
        each row's calls (``batch.call_lists()``: from the fast decoder, each
        distinct call built once, no case built) where the batch has them; each reason
        made by ``evaluate`` when asked for."""
        from agentmetrics.batch import case_values, require_cases, values_of_calls

        require_cases(self, batch, "compares calls")
        memo = _Memo()
        return case_values(self, batch, errors, self._value, bulk=lambda batch: values_of_calls(
            batch, lambda called, expected: self._value_of(called, expected, memo)))
