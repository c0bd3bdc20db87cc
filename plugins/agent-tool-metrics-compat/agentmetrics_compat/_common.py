"""What the compatibility metrics share: refusing unreadable arguments, and
showing calls in reasons."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from agentmetrics import AgentTestCase, InvalidCaseError, InvalidParameterError, Metric, ToolCall

if TYPE_CHECKING:
    from agentmetrics import ToolCallBatch

__all__ = ["Unreadable", "check_choice", "check_flag", "listed", "names_reason", "readable_arguments",
           "require_readable", "show_call", "unreadable_rows_nan"]

_SHOWN = 3


def readable_arguments(metric: str, calls: Sequence[ToolCall], side: str, fix: str,
                       absent: str | None = None) -> None:
    """Refuse a call whose arguments arrived as text that is not a JSON object:
    the peer's call type takes an object and refuses the case, whatever it
    compares; scoring it as ``{}`` would be a wrong score. ``side`` is "called"
    or "expected". With ``absent`` (what the peer does with a call given no
    arguments, as a sentence), a call with no arguments given
    (``ToolCall.arguments_given`` False) is refused too."""
    for k, call in enumerate(calls):
        if not call.arguments_valid:
            text = call.raw_arguments or ""
            shown = text if len(text) <= 40 else text[:37] + "..."
            raise InvalidCaseError(
                f"{metric}: {side} call #{k + 1} ({call.name}) has arguments that are not a JSON "
                f"object ({shown!r}); expected an object, as the peer reads them. Fix: {fix}")
        if absent is not None and not call.arguments_given:
            raise InvalidCaseError(
                f"{metric}: {side} call #{k + 1} ({call.name}) has no arguments given (null); "
                f"expected an object: {absent} Fix: give the call its arguments ({{}} for none).")


class Unreadable(Exception):
    """Raised by a batch's value function for a case whose arguments are not
    all readable: ``case_values`` then scores the case with ``measure``, which
    refuses it with the full error."""


def require_readable(*sides: Sequence[ToolCall], absent: bool = False) -> None:
    """Raise :class:`Unreadable` unless every call's arguments were readable
    (and, with ``absent``, given)."""
    for calls in sides:
        for call in calls:
            if not call.arguments_valid or (absent and not call.arguments_given):
                raise Unreadable(call.name)


_RAW = attrgetter("raw_arguments")
_GIVEN = attrgetter("arguments_given")
_CALLED = attrgetter("tool_calls")
_EXPECTED = attrgetter("expected_tool_calls")


def unreadable_rows_nan(batch: ToolCallBatch, values: Any, absent: bool = False) -> Any:
    """``values`` (one float per case, from names alone) with NaN for every
    case holding a call whose arguments the peer refuses (not an object; with
    ``absent``, none given), so that :func:`agentmetrics.batch.case_values`
    leaves those cases to ``measure``, which refuses them with its message.
    The common batch, where there are none, costs one pass over the calls in C."""
    cases = batch.cases
    if cases is None:
        return values

    def calls() -> Any:
        return chain.from_iterable(chain(filter(None, map(_CALLED, cases)),
                                         filter(None, map(_EXPECTED, cases))))

    clean = not any(map(_RAW, calls())) and (not absent or all(map(_GIVEN, calls())))
    if clean:
        return values
    for row, case in enumerate(cases):
        for call in chain(case.tool_calls or (), case.expected_tool_calls or ()):
            if call.raw_arguments is not None or (absent and not call.arguments_given):
                values[row] = float("nan")
                break
    return values


def show_call(call: ToolCall) -> str:
    """``name(key=value, ...)``, cut at about 50 characters of arguments."""
    if not call.arguments:
        return call.name
    text = ", ".join(f"{key}={value!r}" for key, value in call.arguments.items())
    return f"{call.name}({text if len(text) <= 50 else text[:47] + '...'})"


def listed(items: Sequence[str]) -> str:
    """The first few items, comma-separated, and how many more."""
    head = ", ".join(items[:_SHOWN])
    return head + (f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else "")


def check_choice(metric: str, parameter: str, value: Any, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices`` (a str Enum member counts as its
    value), else InvalidParameterError naming the choices."""
    plain = getattr(value, "value", value)
    if not isinstance(plain, str) or plain not in choices:
        raise InvalidParameterError(
            f"{metric}: {parameter} must be one of {', '.join(map(repr, choices))}, got {value!r}.")
    return plain


def check_flag(metric: str, parameter: str, value: Any) -> bool:
    """``value`` if it is a bool, else InvalidParameterError."""
    if not isinstance(value, bool):
        raise InvalidParameterError(f"{metric}: {parameter} must be True or False, got {value!r}.")
    return value


def names_reason(metric: Metric) -> Callable[[Sequence[str], Sequence[str]], str]:
    """The reason ``metric`` gives for a case of these tool names: the reasons
    of a batch scored from names, made when asked for."""
    def reason(called: Sequence[str], expected: Sequence[str]) -> str:
        case = AgentTestCase(tool_calls=list(called), expected_tool_calls=list(expected))
        return metric.measure(case)[1]
    return reason
