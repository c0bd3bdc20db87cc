"""ExpectationMatch: do the calls meet the case's expectation?"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from agentmetrics.batch import require_cases
from agentmetrics.errors import InvalidCaseError
from agentmetrics.expectations import Alignment, Call, Either, Expectation, Repeat, Step, align
from agentmetrics.expectations._align import value_of
from agentmetrics.expectations._steps import AnyOrder, InOrder, OptionalStep
from agentmetrics.metric._metric import Metric
from agentmetrics.model._metric_result import case_values
from agentmetrics.model._model import AgentTestCase, ToolCall

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._base._types import ErrorsMode
    from agentmetrics.cases._tool_call_batch import ToolCallBatch
    from agentmetrics.model._metric_result import MetricResult

__all__ = ["ExpectationMatch"]

_NAME = "expectation_match"


def _calls(calls: Sequence[ToolCall]) -> list[tuple[str, Any]]:
    """The (name, arguments) of each call, refused where arguments were unreadable."""
    out = []
    for call in calls:
        if not call.arguments_valid:
            _unreadable(calls)
        out.append((call.name, call.arguments))
    return out


def _unreadable(calls: Sequence[ToolCall]) -> None:
    for k, call in enumerate(calls):
        if not call.arguments_valid:
            text = call.raw_arguments or ""
            shown = text if len(text) <= 40 else text[:37] + "..."
            raise InvalidCaseError(
                f"{_NAME}: call #{k + 1} ({call.name}) has arguments that are not a JSON object "
                f"({shown!r}); expected an object to match against the expectation's arguments. "
                f"Fix: repair the recorded arguments.")


def _show(call: ToolCall) -> str:
    if not call.arguments:
        return call.name
    text = ", ".join(f"{key}={value!r}" for key, value in call.arguments.items())
    return f"{call.name}({text if len(text) <= 50 else text[:47] + '...'})"


class ExpectationMatch(Metric):
    """1.0 when the calls meet the case's ``expectation``; otherwise the
    credit of the best alignment over the required steps plus each call no
    step accounts for (when the expectation forbids extra calls) plus each
    call a ``never`` pattern matches.

    A required step is a :class:`~agentmetrics.expectations.Call` outside any
    OptionalStep, each of a Repeat's first ``at_least`` calls, and each Either
    (credited with its best alternative's share). The alignment is optimal
    over every way of assigning calls to steps under the order constraints
    (exact, never greedy); a case too large for that is refused. The reason
    names the first unmet step and the closest call to it.
    """

    name: ClassVar[str] = _NAME
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "expectation")
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = (
        "Share of an expectation's steps met (partial orders, acceptable values), aligned optimally."
    )
    default_threshold: ClassVar[float] = 1.0
    #: A cached score is reused only for the same calls against the same expectation.
    cache_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "expectation")

    def __init__(self, threshold: float | None = None) -> None:
        super().__init__(threshold)

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_calls is not None and case.expectation is not None
        calls = case.tool_calls
        found = align(case.expectation, _calls(calls))
        return found.value, _reason(case.expectation, calls, found)

    def _value(self, case: AgentTestCase) -> float:
        assert case.tool_calls is not None and case.expectation is not None
        return value_of(case.expectation, _calls(case.tool_calls))

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: ErrorsMode = "raise") -> MetricResult:
        """Case by case in one tight loop of values (the alignment without its
        bookkeeping), each reason made by ``evaluate`` when asked for."""

        require_cases(self, batch, "reads each case's expectation")
        return case_values(self, batch, errors, self._value)


def _leaves(step: Step, path: str, out: list[tuple[str, Step]]) -> None:
    """The required steps in the order they are written: Calls, Repeats and
    Eithers (an OptionalStep's are not required)."""
    if isinstance(step, (Call, Repeat, Either)):
        out.append((path, step))
    elif isinstance(step, (InOrder, AnyOrder)):
        key = "in_order" if isinstance(step, InOrder) else "any_order"
        for k, inner in enumerate(step.steps):
            _leaves(inner, f"{path}.{key}[{k}]", out)
    else:
        assert isinstance(step, OptionalStep)


def _describe(step: Step) -> str:
    if isinstance(step, Call):
        return step.describe()
    if isinstance(step, Repeat):
        most = "" if step.at_most is None else f", at most {step.at_most}"
        return f"{step.call.describe()} at least {step.at_least} times{most}"
    if isinstance(step, Either):
        return "one of " + " | ".join(_describe(s) if isinstance(s, (Call, Repeat, Either))
                                      else type(s).__name__ for s in step.alternatives)
    return type(step).__name__


def _closest(pattern: Call, calls: Sequence[ToolCall], taken: set[int]) -> str:
    """The same-named call with the fewest refused arguments (a free one first)."""
    named = [k for k, call in enumerate(calls) if call.name == pattern.name]
    if not named:
        return f"no call to {pattern.name} was made"
    scored = sorted(named, key=lambda k: (len(pattern.failing_arguments(calls[k].arguments)),
                                          k in taken, k))
    k = scored[0]
    why = pattern.failing_arguments(calls[k].arguments)
    note = "; ".join(why[:3]) + (f" and {len(why) - 3} more" if len(why) > 3 else "")
    if not why:
        return f"closest call: #{k + 1} {_show(calls[k])}, taken by another step or out of order"
    return f"closest call: #{k + 1} {_show(calls[k])}: {note}"


def _reason(expectation: Expectation, calls: Sequence[ToolCall], found: Alignment) -> str:
    credit = f"{found.credit:g}" if found.credit == int(found.credit) else f"{found.credit:.2f}"
    text = f"{credit} of {found.weight:g} required steps met"
    required: list[tuple[str, Step]] = []
    _leaves(expectation.steps, "steps", required)
    used: dict[str, list[int]] = {}
    for path, index in found.assigned:
        used.setdefault(path, []).append(index)
    taken = {index for _, index in found.assigned}
    for path, step in required:
        if isinstance(step, Call):
            met = path in used
        elif isinstance(step, Repeat):
            met = len(used.get(f"{path}.repeat", ())) >= step.at_least
        else:
            assert isinstance(step, Either)
            met = _either_met(step, path, used)
        if not met:
            pattern = step if isinstance(step, Call) else step.call if isinstance(step, Repeat) else None
            text += f"; first unmet: {path} {_describe(step)}"
            if pattern is not None:
                text += f" ({_closest(pattern, calls, taken)})"
            break
    if found.extra:
        shown = ", ".join(f"#{k + 1} {calls[k].name}" for k in found.extra[:3])
        more = f" and {len(found.extra) - 3} more" if len(found.extra) > 3 else ""
        text += f"; {len(found.extra)} call{'s' if len(found.extra) != 1 else ''} no step accounts for: {shown}{more}"
    if found.forbidden:
        shown = ", ".join(f"#{k + 1} {calls[k].name}" for k in found.forbidden[:3])
        text += f"; forbidden calls made: {shown}"
    return text


def _either_met(step: Either, path: str, used: dict[str, list[int]]) -> bool:
    """Whether some alternative of ``step`` had all its required steps met."""
    for k, alternative in enumerate(step.alternatives):
        inner: list[tuple[str, Step]] = []
        prefix = f"{path}.either[{k}]"
        _leaves(alternative, prefix, inner)
        if not any(p == prefix or p.startswith(prefix + ".") for p in used) and inner:
            continue
        ok = True
        for p, s in inner:
            if isinstance(s, Call):
                ok = ok and p in used
            elif isinstance(s, Repeat):
                ok = ok and len(used.get(f"{p}.repeat", ())) >= s.at_least
            else:
                assert isinstance(s, Either)
                ok = ok and _either_met(s, p, used)
        if ok:
            return True
    return False
