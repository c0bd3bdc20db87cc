"""TrajectoryMatch: do the calls match the expected ones, under a mode?"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from agentmetrics import AgentTestCase, InvalidParameterError, Metric, ToolCall
from agentmetrics.errors import call_user_function
from agentmetrics_trajectory._matching import (
    canonical_json,
    connected,
    first_fit_order_matching,
    maximum_matching,
)

if TYPE_CHECKING:
    from agentmetrics import MetricResult, ToolCallBatch

__all__ = ["ARGS_MODES", "MODES", "TrajectoryMatch", "maximum_matching"]

MODES = ("strict", "unordered", "subset", "superset", "in_order")
ARGS_MODES = ("exact", "ignore", "subset", "superset")
ArgsRule = str | Sequence[str] | Callable[[Mapping[str, Any], Mapping[str, Any]], bool]
_MISSING = object()
_FEW_PAIRS = 64  # up to this many pairs of calls of the same tool, every pair is compared


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
    if callable(rule):  # the user's: what it raises makes the case an error row naming it
        accepted = call_user_function(rule, "trajectory_match's argument comparison",
                                      actual, expected, truth=True)
        return None if accepted else "arguments rejected by the custom comparison"
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


def _grouping_key(rule: ArgsRule, arguments: Mapping[str, Any]) -> str | None:
    """Calls of one tool whose keys are equal (and not None) fit the same
    calls under ``rule``; under ``exact`` or a list of names, calls whose keys
    differ never fit."""
    if rule == "ignore":
        return ""
    if callable(rule):  # anything: every pair is asked
        return None
    if not isinstance(rule, str):  # the listed argument names: only they count
        arguments = {key: arguments[key] for key in rule if key in arguments}
    return canonical_json(arguments)


class TrajectoryMatch(Metric):
    """1.0 when the calls match the expected calls under ``mode``, else 0.0.

    ``mode``: ``strict`` (same calls in the same order), ``unordered`` (same
    calls, any order), ``subset`` (every call made was expected),
    ``superset`` (every expected call was made) or ``in_order`` (the expected
    calls were made in their order, other calls allowed between them: the
    expected list is a subsequence of the calls). Calls pair one to one by
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
        "1.0 when tool calls match the expected calls (strict, unordered, subset, superset or in order)."
    )
    default_threshold: ClassVar[float] = 1.0

    def __init__(
        self,
        threshold: float | None = None,
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
        if self.mode == "strict":
            problem = self._strict(actual, expected)
        elif self.mode == "in_order":
            problem = self._in_order(actual, expected)
        else:
            problem = self._matched(actual, expected)
        if problem:
            return 0.0, problem
        if self.mode == "in_order":
            return 1.0, (f"All {len(expected)} expected calls made in order among {len(actual)} "
                         f"calls (args={self._args_label()})")
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

    def _in_order(self, actual: Sequence[ToolCall], expected: Sequence[ToolCall]) -> str | None:
        """Each expected call matched to the earliest fitting call after the
        previous match: that finds an embedding whenever one exists, for any
        argument rule (a later choice never leaves more room)."""
        position = 0
        for j, want in enumerate(expected):
            while position < len(actual) and self._mismatch(actual[position], want) is not None:
                position += 1
            if position == len(actual):
                last = self._last_fit(actual, expected[:j])
                after = f" after call #{last}" if last else ""
                problem = f"expected call #{j + 1} not made in order{after}: {_show(want)}"
                same = [i for i, call in enumerate(actual) if call.name == want.name]
                if same:
                    mismatch = self._mismatch(actual[same[0]], want)
                    where = ", ".join(f"#{i + 1}" for i in same[:3])
                    detail = f"; #{same[0] + 1}: {mismatch}" if mismatch else ""
                    problem += f" (calls of {want.name}: {where}{detail})"
                return problem
            position += 1
        return None

    def _last_fit(self, actual: Sequence[ToolCall], expected: Sequence[ToolCall]) -> int:
        """The 1-based position of the call the last of ``expected`` took (0: none)."""
        position = 0
        for want in expected:
            while self._mismatch(actual[position], want) is not None:
                position += 1
            position += 1
        return position

    def _matched(self, actual: Sequence[ToolCall], expected: Sequence[ToolCall]) -> str | None:
        paired_actual, paired_expected = self._pairing(actual, expected)
        unmatched_expected = [j for j in range(len(expected)) if j not in paired_expected]
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

    def _pairing(
        self, actual: Sequence[ToolCall], expected: Sequence[ToolCall]
    ) -> tuple[set[int], set[int]]:
        """The indices of the calls and of the expected calls that a maximum
        matching pairs: always those the first-fit augmenting order pairs
        (``first_fit_order_matching``, the pairing of 0.1.0), since reasons
        name the first unpaired ones.

        Up to ``_FEW_PAIRS`` pairs of calls of the same tool, every such pair
        is compared and paired in that order. Beyond, calls of one tool whose
        arguments are the same plain data (as far as the rule reads them) fit
        the same calls: they form a group, and fit is asked once per pair of
        groups that may fit (a custom comparison is asked for every pair of
        calls of its tool, in list order, as before). A connected set of
        groups in which every call fits every expected call is paired by
        count: the first-fit order pairs its first calls with its first
        expected calls. Other sets go through ``maximum_matching``; only when
        the case fails and such a set leaves a call unpaired is it paired
        again in the first-fit order, which says which call.
        """
        named: dict[str, list[int]] = {}
        for j, want in enumerate(expected):
            named.setdefault(want.name, []).append(j)
        if sum(len(named.get(call.name, ())) for call in actual) <= _FEW_PAIRS:
            compatible = [  # every pair of calls of the same tool: cheaper than grouping
                [j for j in named.get(call.name, ()) if self._mismatch(call, expected[j]) is None]
                for call in actual
            ]
            match = first_fit_order_matching(compatible, len(expected), range(len(actual)))
            return {i for i in match if i != -1}, {j for j, i in enumerate(match) if i != -1}
        shared = {call.name for call in actual} & set(named)
        rules = {name: self._rule(name) for name in shared}

        def grouping_keys(calls: Sequence[ToolCall]) -> list[str | None]:
            return [
                _grouping_key(rules[c.name], c.arguments) if c.name in shared else None
                for c in calls
            ]

        keys = (grouping_keys(actual), grouping_keys(expected))
        ungrouped = {  # tools with a call that cannot be grouped: none of theirs is
            call.name
            for calls, side in zip((actual, expected), keys)
            for call, key in zip(calls, side)
            if key is None and call.name in shared
        }
        groups: tuple[list[list[int]], list[list[int]]] = ([], [])  # members, ascending
        of_name: tuple[dict[str, list[int]], dict[str, list[int]]] = ({}, {})
        indexes: tuple[dict[tuple[str, str], int], dict[tuple[str, str], int]] = ({}, {})
        for calls, side, side_groups, by_name, index in zip(
            (actual, expected), keys, groups, of_name, indexes
        ):
            for i, (call, key) in enumerate(zip(calls, side)):
                if call.name not in shared:
                    continue  # no call of that tool on the other side
                if key is None or call.name in ungrouped:
                    group = len(side_groups)
                else:
                    group = index.setdefault((call.name, key), len(side_groups))
                if group == len(side_groups):
                    side_groups.append([])
                    by_name.setdefault(call.name, []).append(group)
                side_groups[group].append(i)
        left_groups, right_groups = groups
        fits: list[list[int]] = []  # per left group, the right groups it fits
        for members in left_groups:
            call, key = actual[members[0]], keys[0][members[0]]
            rule = rules[call.name]
            candidates = of_name[1][call.name]
            if key is not None and call.name not in ungrouped and (
                rule == "exact" or isinstance(rule, tuple)
            ):  # equality: only the group with the same key can fit
                same = indexes[1].get((call.name, key))
                candidates = [] if same is None else [same]
            first = [right_groups[h][0] for h in candidates]
            fits.append(
                [h for h, j in zip(candidates, first) if self._mismatch(call, expected[j]) is None]
            )

        paired_actual: set[int] = set()
        paired_expected: set[int] = set()
        uncertain = []  # sets not paired by count and not fully paired
        for lefts_of, rights_of in connected(fits, len(right_groups)):
            if len(lefts_of) + len(rights_of) <= 2:  # a group alone, or two that fit
                lefts = left_groups[lefts_of[0]] if lefts_of else []
                rights = right_groups[rights_of[0]] if rights_of else []
                count = min(len(lefts), len(rights))
                paired_actual.update(lefts[:count])
                paired_expected.update(rights[:count])
                continue
            lefts = sorted(i for g in lefts_of for i in left_groups[g])
            rights = sorted(j for h in rights_of for j in right_groups[h])
            if sum(len(fits[g]) for g in lefts_of) == len(lefts_of) * len(rights_of):
                count = min(len(lefts), len(rights))  # all fit all: paired by count
                paired_actual.update(lefts[:count])
                paired_expected.update(rights[:count])
                continue
            local = {j: k for k, j in enumerate(rights)}
            lists = {
                g: sorted(local[j] for h in fits[g] for j in right_groups[h]) for g in lefts_of
            }
            group_of = {i: g for g in lefts_of for i in left_groups[g]}
            kinds = [group_of[i] for i in lefts]
            compatible = [lists[g] for g in kinds]
            match = maximum_matching(compatible, len(rights))
            pairs = [(lefts[i], rights[j]) for j, i in enumerate(match) if i != -1]
            paired_actual.update(i for i, _ in pairs)
            paired_expected.update(j for _, j in pairs)
            if len(pairs) < max(len(lefts), len(rights)):
                uncertain.append((lefts, rights, compatible, kinds, pairs))
        fails = (self.mode != "subset" and len(paired_expected) < len(expected)) or (
            self.mode != "superset" and len(paired_actual) < len(actual)
        )
        if fails:  # the reason names unpaired calls: pair as the first-fit order does
            for lefts, rights, compatible, kinds, pairs in uncertain:
                paired_actual.difference_update(i for i, _ in pairs)
                paired_expected.difference_update(j for _, j in pairs)
                match = first_fit_order_matching(compatible, len(rights), kinds)
                paired_actual.update(lefts[i] for i in match if i != -1)
                paired_expected.update(rights[j] for j, i in enumerate(match) if i != -1)
        return paired_actual, paired_expected

    # -- a batch ------------------------------------------------------------------

    def _names_only(self) -> bool:
        rules = [self.args, *(self.per_tool or {}).values()]
        return all(rule == "ignore" for rule in rules)

    def scores_from_names(self) -> bool:
        return self._names_only()

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """Vectorized when arguments are ignored (names decide everything), or
        compared exactly for every tool: exact arguments are an equality, so
        the batch's call keys (``batch.call_keys()``) stand for the names, a
        maximum matching pairs as many calls as a count of equal keys, and an
        in-order embedding exists when the longest common subsequence of keys
        is the expected side. Rows the keys leave out, or that hold a call
        given no arguments (equal to ``{}`` here, not under the keys), are
        scored by ``measure``. Other argument rules case by case, which needs
        a batch built from cases."""
        import numpy as np

        from agentmetrics import MetricResult
        from agentmetrics.batch import (
            CallKeys,
            batch_errors,
            case_values,
            check_errors_mode,
            passes,
            require_cases,
            row_lcs,
            row_multiset_overlap,
        )

        def matches(batch: ToolCallBatch, keys: CallKeys | None = None) -> Any:
            made = np.diff(batch.called_offsets)
            wanted = np.diff(batch.expected_offsets)
            if self.mode == "strict":
                ids = (batch.called_ids, batch.expected_ids) if keys is None else (
                    keys.called_ids, keys.expected_ids)
                same = made == wanted
                rows = np.flatnonzero(same & (made > 0))
                lengths = made[rows]
                within = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
                called = ids[0][np.repeat(batch.called_offsets[rows], lengths) + within]
                expected = ids[1][np.repeat(batch.expected_offsets[rows], lengths) + within]
                differing = np.bincount(
                    np.repeat(rows, lengths), weights=called != expected, minlength=len(batch)
                )
                ok = same & (differing == 0)
            elif self.mode == "in_order":
                ok = row_lcs(batch, keys) == wanted
            else:
                overlap = row_multiset_overlap(batch, keys)
                ok = {
                    "unordered": (overlap == made) & (made == wanted),
                    "subset": overlap == made,
                    "superset": overlap == wanted,
                }[self.mode]
            values = ok.astype(np.float64)
            if keys is not None:
                values[keys.unkeyed | keys.not_given] = np.nan  # left to measure
            return values

        if not self._names_only():
            require_cases(self, batch, f"with args={self.args!r} compares arguments", "args='ignore'")
            rules = [self.args, *(self.per_tool or {}).values()]
            keys = batch.call_keys("python") if all(rule == "exact" for rule in rules) else None
            if keys is None:
                return super().evaluate_batch(batch, errors=check_errors_mode(errors))
            return case_values(self, batch, errors, lambda case: self.measure(case)[0],
                               bulk=lambda batch: matches(batch, keys))

        failed = batch_errors(self, batch, errors)
        values = matches(batch)
        if failed:
            values[list(failed)] = np.nan

        def explain(row: int) -> str:
            return self.measure(batch.case(row))[1]

        return MetricResult(self, values, passes(self, values), failed, explain)
