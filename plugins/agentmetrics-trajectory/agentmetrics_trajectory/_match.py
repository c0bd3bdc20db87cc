"""TrajectoryMatch: do the calls match the expected ones, under a mode?"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from agentmetrics import AgentTestCase, InvalidCaseError, InvalidParameterError, Metric, ToolCall

if TYPE_CHECKING:
    from agentmetrics import MetricResult, ToolCallBatch

__all__ = ["ARGS_MODES", "MODES", "TrajectoryMatch"]

MODES = ("strict", "unordered", "subset", "superset")
ARGS_MODES = ("exact", "ignore", "subset", "superset")
ArgsRule = str | Sequence[str] | Callable[[Mapping[str, Any], Mapping[str, Any]], bool]
_MISSING = object()


def _check_rule(rule: object, where: str) -> ArgsRule:
    if isinstance(rule, str):
        if rule not in ARGS_MODES:
            raise InvalidParameterError(
                f"trajectory_match: {where} must be one of {', '.join(ARGS_MODES)}, a list of "
                f"argument names or a callable(actual, expected) -> bool; got {rule!r}."
            )
        return rule
    if callable(rule):
        return rule
    if isinstance(rule, Sequence) and all(isinstance(key, str) for key in rule):
        return tuple(rule)
    raise InvalidParameterError(
        f"trajectory_match: {where} must be one of {', '.join(ARGS_MODES)}, a list of "
        f"argument names or a callable(actual, expected) -> bool; got {type(rule).__name__} {rule!r}."
    )


def _differs(key: str, expected: Any, actual: Any) -> str:
    if expected is _MISSING:
        return f"unexpected argument {key!r}={actual!r}"
    if actual is _MISSING:
        return f"argument {key!r} missing (expected {expected!r})"
    return f"argument {key!r} differs: expected {expected!r}, called {actual!r}"


def _argument_mismatch(
    rule: ArgsRule, actual: Mapping[str, Any], expected: Mapping[str, Any]
) -> str | None:
    """None when the arguments match under ``rule``, else what differs."""
    if rule == "ignore":
        return None
    if callable(rule):
        return None if rule(actual, expected) else "arguments rejected by the custom comparison"
    if rule == "exact":
        keys = list(expected) + [key for key in actual if key not in expected]
    elif rule == "subset":  # every argument given must be expected, with its value
        keys = list(actual)
    elif rule == "superset":  # every expected argument must be given, with its value
        keys = list(expected)
    else:  # the listed argument names
        keys = list(rule)
    for key in keys:
        want, got = expected.get(key, _MISSING), actual.get(key, _MISSING)
        if want != got:
            return _differs(key, want, got)
    return None


def _show(call: ToolCall) -> str:
    if not call.arguments:
        return call.name
    return f"{call.name}({', '.join(f'{k}={v!r}' for k, v in call.arguments.items())})"


def maximum_matching(compatible: Sequence[Sequence[int]], right_size: int) -> list[int]:
    """Maximum bipartite matching (augmenting paths, Kuhn's algorithm).

    ``compatible[i]`` lists the right-side indices left item ``i`` may pair
    with. Returns ``match`` with ``match[j]`` = the left index paired with
    right item ``j``, or -1. The size is maximal whatever the input order,
    unlike a greedy first-fit pairing.
    """
    match = [-1] * right_size

    def augment(left: int, seen: list[bool]) -> bool:
        for right in compatible[left]:
            if not seen[right]:
                seen[right] = True
                if match[right] == -1 or augment(match[right], seen):
                    match[right] = left
                    return True
        return False

    for left in range(len(compatible)):
        augment(left, [False] * right_size)
    return match


class TrajectoryMatch(Metric):
    """1.0 when the calls match the expected calls under ``mode``, else 0.0.

    ``mode``: ``strict`` (same calls in the same order), ``unordered`` (same
    calls, any order), ``subset`` (every call made was expected) or
    ``superset`` (every expected call was made). Calls pair one to one by
    maximum bipartite matching, so the score never depends on list order.

    ``args``: how arguments compare, ``exact``, ``ignore``, ``subset`` (the
    arguments given are among the expected ones) or ``superset`` (the expected
    arguments are all given); ``per_tool`` overrides it by tool name with one
    of those, a list of argument names to compare, or a callable
    ``(actual_args, expected_args) -> bool``.
    """

    name: ClassVar[str] = "trajectory_match"
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "expected_tool_calls")
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = (
        "1.0 when tool calls match the expected calls (strict, unordered, subset or superset)."
    )
    default_threshold: ClassVar[float] = 1.0

    def __init__(
        self,
        threshold: float | None = 1.0,
        mode: str = "strict",
        args: str = "exact",
        per_tool: Mapping[str, ArgsRule] | None = None,
    ) -> None:
        super().__init__(threshold)
        if mode not in MODES:
            raise InvalidParameterError(
                f"trajectory_match: mode must be one of {', '.join(MODES)}, got {mode!r}."
            )
        self.mode = mode
        self.args = _check_rule(args, "args")
        if per_tool is not None and not isinstance(per_tool, Mapping):
            raise InvalidParameterError(
                f"trajectory_match: per_tool must map tool names to argument rules, "
                f"got {type(per_tool).__name__}."
            )
        self.per_tool = (
            None
            if per_tool is None
            else {str(k): _check_rule(v, f"per_tool[{k!r}]") for k, v in per_tool.items()}
        )

    # -- one case ---------------------------------------------------------------

    def _rule(self, tool: str) -> ArgsRule:
        if self.per_tool and tool in self.per_tool:
            return self.per_tool[tool]
        return self.args

    def _mismatch(self, actual: ToolCall, expected: ToolCall) -> str | None:
        if actual.name != expected.name:
            return f"expected {expected.name}, called {actual.name}"
        return _argument_mismatch(self._rule(expected.name), actual.arguments, expected.arguments)

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        actual, expected = case.tool_calls, case.expected_tool_calls
        if not actual and not expected:
            return 1.0, "No tool calls expected and none made"
        problem = self._strict(actual, expected) if self.mode == "strict" else self._matched(
            actual, expected
        )
        if problem:
            return 0.0, problem
        return 1.0, f"All {len(actual)} calls match (mode={self.mode}, args={self._args_label()})"

    def _args_label(self) -> str:
        return self.args if isinstance(self.args, str) else "custom"

    def _strict(self, actual: Sequence[ToolCall], expected: Sequence[ToolCall]) -> str | None:
        for index in range(max(len(actual), len(expected))):
            if index >= len(actual):
                return f"missing call #{index + 1}: {_show(expected[index])}"
            if index >= len(expected):
                return f"extra call #{index + 1}: {_show(actual[index])}"
            mismatch = self._mismatch(actual[index], expected[index])
            if mismatch:
                return f"call #{index + 1} ({expected[index].name}): {mismatch}"
        return None

    def _matched(self, actual: Sequence[ToolCall], expected: Sequence[ToolCall]) -> str | None:
        compatible = [
            [j for j, want in enumerate(expected) if self._mismatch(call, want) is None]
            for call in actual
        ]
        match = maximum_matching(compatible, len(expected))
        paired_actual = {left for left in match if left != -1}
        unmatched_expected = [j for j, left in enumerate(match) if left == -1]
        unmatched_actual = [i for i in range(len(actual)) if i not in paired_actual]
        parts = []
        if self.mode in ("unordered", "superset") and unmatched_expected:
            want = expected[unmatched_expected[0]]
            part = f"missing call: {_show(want)}"
            # Say why the nearest candidate, an unpaired call of the same tool, did not fit.
            same_name = [i for i in unmatched_actual if actual[i].name == want.name]
            if same_name:
                part += f" (the {want.name} call made: {self._mismatch(actual[same_name[0]], want)})"
            parts.append(part)
        if self.mode in ("unordered", "subset") and unmatched_actual:
            parts.append(f"extra call: {_show(actual[unmatched_actual[0]])}")
        return "; ".join(parts) or None

    # -- a batch ------------------------------------------------------------------

    def _names_only(self) -> bool:
        rules = [self.args, *(self.per_tool or {}).values()]
        return all(rule == "ignore" for rule in rules)

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """Vectorized when arguments are ignored (names decide everything);
        otherwise case by case, which needs a batch built from cases."""
        if not self._names_only():
            if batch.cases is None:
                raise InvalidCaseError(
                    f"trajectory_match with args={self.args!r} compares arguments, but this "
                    f"batch holds tool names only. Fix: build it with "
                    f"ToolCallBatch.from_cases(...) (or evaluate() a list of AgentTestCase), "
                    f"or use args='ignore'."
                )
            return super().evaluate_batch(batch, errors=errors)
        import numpy as np

        from agentmetrics import MetricResult
        from agentmetrics.batch import batch_errors, passes, row_multiset_overlap

        failed = batch_errors(self, batch, errors)
        made = np.diff(batch.called_offsets)
        wanted = np.diff(batch.expected_offsets)
        if self.mode == "strict":
            same = made == wanted
            rows = np.flatnonzero(same & (made > 0))
            lengths = made[rows]
            within = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            called = batch.called_ids[np.repeat(batch.called_offsets[rows], lengths) + within]
            expected = batch.expected_ids[np.repeat(batch.expected_offsets[rows], lengths) + within]
            differing = np.bincount(
                np.repeat(rows, lengths), weights=called != expected, minlength=len(batch)
            )
            ok = same & (differing == 0)
        else:
            overlap = row_multiset_overlap(batch)
            ok = {
                "unordered": (overlap == made) & (made == wanted),
                "subset": overlap == made,
                "superset": overlap == wanted,
            }[self.mode]
        values = ok.astype(np.float64)
        if failed:
            values[list(failed)] = np.nan

        def explain(row: int) -> str:
            return self.measure(batch.case(row))[1]

        return MetricResult(self, values, passes(self, values), failed, explain)
