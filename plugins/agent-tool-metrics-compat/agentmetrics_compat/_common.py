"""What the compatibility metrics share: refusing unreadable arguments, and
showing calls in reasons."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agentmetrics import AgentTestCase, InvalidCaseError, InvalidParameterError, Metric, ToolCall

__all__ = ["Unreadable", "check_choice", "check_flag", "listed", "names_reason", "readable_arguments",
           "require_readable", "show_call"]

_SHOWN = 3


def readable_arguments(metric: str, calls: Sequence[ToolCall], side: str, fix: str) -> None:
    """Refuse a call whose arguments arrived as text that is not a JSON object:
    the peer could not read it either, and scoring it as ``{}`` would be a
    wrong score. ``side`` is "called" or "expected"."""
    for k, call in enumerate(calls):
        if not call.arguments_valid:
            text = call.raw_arguments or ""
            shown = text if len(text) <= 40 else text[:37] + "..."
            raise InvalidCaseError(
                f"{metric}: {side} call #{k + 1} ({call.name}) has arguments that are not a JSON "
                f"object ({shown!r}); expected an object, as the peer reads them. Fix: {fix}")


class Unreadable(Exception):
    """Raised by a batch's value function for a case whose arguments are not
    all readable: ``case_values`` then scores the case with ``measure``, which
    refuses it with the full error."""


def require_readable(*sides: Sequence[ToolCall]) -> None:
    """Raise :class:`Unreadable` unless every call's arguments were readable."""
    for calls in sides:
        for call in calls:
            if not call.arguments_valid:
                raise Unreadable(call.name)


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
