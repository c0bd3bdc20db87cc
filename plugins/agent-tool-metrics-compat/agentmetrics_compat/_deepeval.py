"""deepeval_tool_correctness: deepeval's ToolCorrectnessMetric, reproduced."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from agentmetrics import AgentTestCase, InvalidCaseError, InvalidParameterError, Metric, ToolCall

from agentmetrics_compat._common import (
    check_flag,
    listed,
    readable_arguments,
    require_readable,
    show_call,
)

if TYPE_CHECKING:
    from agentmetrics import MetricResult, ToolCallBatch

__all__ = ["EVALUATION_PARAMS", "DeepevalToolCorrectness", "compare_dicts"]

#: What deepeval's ``evaluation_params`` may name (its ToolCallParams values).
EVALUATION_PARAMS = ("input_parameters", "output")
_NAME = "deepeval_tool_correctness"


def compare_dicts(expected: dict[str, Any], called: dict[str, Any]) -> float:
    """deepeval's partial credit for arguments: 1.0 when equal; otherwise, over
    the union of keys, 1 for each shared key with an equal value and the same
    credit recursively for two nested objects. Keys are visited in the
    expected call's order (deepeval visits a set, whose order varies between
    processes: the sums can differ in the last bit)."""
    if expected == called:
        return 1.0
    total = len(expected.keys() | called.keys())
    score: float = 0
    for key in expected:
        if key not in called:
            continue
        want, got = expected[key], called[key]
        if want == got:
            score += 1 / total
        elif isinstance(want, dict) and isinstance(got, dict):
            score += compare_dicts(want, got) / total
    return score


def _params(value: Iterable[Any] | str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = (value,)
    chosen = set()
    for item in value:
        plain = getattr(item, "value", item)  # deepeval's ToolCallParams members
        if plain not in EVALUATION_PARAMS:
            raise InvalidParameterError(
                f"{_NAME}: evaluation_params may hold {', '.join(map(repr, EVALUATION_PARAMS))}, "
                f"got {item!r}. Fix: list the call fields to compare besides the tool name.")
        chosen.add(plain)
    return tuple(p for p in EVALUATION_PARAMS if p in chosen)


class DeepevalToolCorrectness(Metric):
    """deepeval's ToolCorrectnessMetric (4.x), without its LLM: the score it
    gives when no ``available_tools`` are passed.

    - Default: each expected call, in order, takes the same-named call that
      scores best (the first on ties) among those not used yet; the score is
      the credit over the number of expected calls. Extra calls cost nothing.
      **Quirk kept:** a call equal to one already used (same name, arguments
      and output) is skipped, so a tool expected twice with the same
      arguments and called twice scores 0.5.
    - ``should_consider_ordering``: a weighted longest common subsequence of
      the expected and called calls, over the number of expected calls.
    - ``should_exact_match``: 1.0 when the calls equal the expected ones
      position by position, else 0.0.
    - ``evaluation_params``: ``"input_parameters"`` gives partial credit for
      arguments (equal keys over all keys, nested objects recursively; plain
      equality in exact mode); ``"output"`` makes a differing output score 0.
    - No expected calls: 1.0 when none were made, else 0.0.
    - ``strict_mode``: any score below 1 is 0, and the threshold defaults to
      1 (deepeval forces it to 1; with scores of 0 or 1, any threshold above
      0 passes and fails the same cases).
    """

    name: ClassVar[str] = _NAME
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "expected_tool_calls")
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = "deepeval's ToolCorrectnessMetric score, reproduced (its quirks kept)."
    default_threshold: ClassVar[float] = 0.5

    def __init__(self, threshold: float | None = None,
                 evaluation_params: Iterable[Any] | str = (),
                 should_consider_ordering: bool = False, should_exact_match: bool = False,
                 strict_mode: bool = False) -> None:
        self.should_consider_ordering = check_flag(_NAME, "should_consider_ordering",
                                                   should_consider_ordering)
        self.should_exact_match = check_flag(_NAME, "should_exact_match", should_exact_match)
        self.strict_mode = check_flag(_NAME, "strict_mode", strict_mode)
        self.evaluation_params = _params(evaluation_params)
        if strict_mode and threshold is None:
            threshold = 1.0
        super().__init__(threshold)

    # -- one case -----------------------------------------------------------------

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        called, expected = case.tool_calls, case.expected_tool_calls
        fix = "repair them (deepeval's ToolCall takes input_parameters as an object only)."
        readable_arguments(_NAME, called, "called", fix)
        readable_arguments(_NAME, expected, "expected", fix)
        if self.should_exact_match:
            value, reason = self._exact(called, expected)
        elif not expected:
            value = 1.0 if not called else 0.0
            reason = ("No calls expected and none made" if not called else
                      f"No calls expected, {len(called)} made (deepeval scores 0)")
        elif self.should_consider_ordering:
            value, reason = self._ordered(called, expected)
        else:
            value, reason = self._greedy(called, expected)
        if self.strict_mode and value < 1.0:
            return 0.0, f"{reason}; strict_mode: below 1, so 0"
        return value, reason

    def _value(self, case: AgentTestCase) -> float:
        """What ``measure(case)`` gives as the value, without the reason (raises
        where measure refuses the case)."""
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        return self._value_of(case.tool_calls, case.expected_tool_calls)

    def _value_of(self, called: Sequence[ToolCall], expected: Sequence[ToolCall]) -> float:
        """The value of a case holding these calls (raises where measure refuses it)."""
        require_readable(called, expected)
        if self.should_exact_match:
            value = 1.0 if self._mismatch(called, expected) is None else 0.0
        elif not expected:
            value = 1.0 if not called else 0.0
        elif self.should_consider_ordering:
            value = sum(step for _, step in self._lcs_steps(called, expected)) / len(expected)
        else:
            value = sum(best for best, _ in self._greedy_credits(called, expected)
                        if best is not None) / len(expected)
        if self.strict_mode and value < 1.0:
            return 0.0
        return value

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """Case by case in one tight loop of values (no reasons), from each
        row's calls (``batch.call_lists()``: from the fast decoder, each
        distinct call built once, no case built) where the batch has them; each reason
        made by ``evaluate`` when it is asked for."""
        from agentmetrics.batch import case_values, require_cases, values_of_calls

        require_cases(self, batch, "compares calls")
        return case_values(self, batch, errors, self._value,
                           bulk=lambda batch: values_of_calls(batch, self._value_of))

    def _credit(self, want: ToolCall, got: ToolCall) -> float:
        """deepeval's score of a same-named pair. With input_parameters, a pair
        where one call was given no arguments (None) and the other an object
        is refused: deepeval's partial credit calls ``None.keys()`` there and
        raises; two calls given none are equal (1.0)."""
        credit = 1.0
        if "input_parameters" in self.evaluation_params:
            if want.arguments_given != got.arguments_given:
                none, given = (want, got) if not want.arguments_given else (got, want)
                raise InvalidCaseError(
                    f"{_NAME}: the {'expected' if none is want else 'called'} call {none.name} "
                    f"has no arguments given (None) and the same-named "
                    f"{'called' if none is want else 'expected'} call it is compared with has "
                    f"{show_call(given) if given.arguments else '{}'}; deepeval's partial credit "
                    f"for input_parameters cannot compare them and raises (AttributeError: "
                    f"'NoneType' object has no attribute 'keys'), so the case is refused, as "
                    f"deepeval refuses it. Fix: give both calls arguments ({{}} for none), or "
                    f"leave input_parameters out of evaluation_params.")
            credit *= compare_dicts(want.arguments, got.arguments)
        if "output" in self.evaluation_params and want.output != got.output:
            credit = 0.0
        return credit

    def _greedy_credits(self, called: Sequence[ToolCall], expected: Sequence[ToolCall]
                        ) -> list[tuple[float | None, bool]]:
        """For each expected call, in order: the credit of the call it took
        (None if none), and whether a same-named call was skipped as a repeat
        of one already used."""
        used: list[ToolCall] = []
        out: list[tuple[float | None, bool]] = []
        for want in expected:
            best, chosen, skipped = 0.0, None, False
            for got in called:
                if got.name != want.name:
                    continue
                if any(_identical(got, u) for u in used):  # deepeval's set of used calls
                    skipped = True
                    continue
                credit = self._credit(want, got)
                if credit > best:
                    best, chosen = credit, got
            if chosen is not None:
                used.append(chosen)
                out.append((best, skipped))
            else:
                out.append((None, skipped))
        return out

    def _greedy(self, called: Sequence[ToolCall], expected: Sequence[ToolCall]) -> tuple[float, str]:
        total = 0.0
        missed, partial, collapsed = [], [], []
        for j, (best, skipped) in enumerate(self._greedy_credits(called, expected)):
            label = f"{show_call(expected[j])} (#{j + 1})"
            if best is not None:
                total += best
                if best < 1.0:
                    partial.append(f"{label} {best:.2f}")
            elif skipped:
                collapsed.append(label)
            else:
                missed.append(label)
        value = total / len(expected)
        return value, self._reason(value, len(expected), missed, partial, collapsed)

    def _lcs_steps(self, called: Sequence[ToolCall], expected: Sequence[ToolCall]
                   ) -> list[tuple[int, float]]:
        """The steps of deepeval's backtrack through its weighted LCS table,
        last first: (expected index, credit). deepeval sums these steps rather
        than reading the table's corner."""
        m, n = len(expected), len(called)
        dp: list[list[float]] = [[0.0] * (n + 1) for _ in range(m + 1)]
        for i in range(1, m + 1):
            want, row, above = expected[i - 1], dp[i], dp[i - 1]
            for j in range(1, n + 1):
                got = called[j - 1]
                if want.name != got.name:
                    row[j] = max(above[j], row[j - 1])
                    continue
                credit = self._credit(want, got)
                row[j] = max(above[j], row[j - 1], above[j - 1] + credit if credit > 0 else 0)
        i, j = m, n
        steps = []
        while i > 0 and j > 0:
            if dp[i][j] == dp[i - 1][j]:
                i -= 1
            elif dp[i][j] == dp[i][j - 1]:
                j -= 1
            else:
                steps.append((i - 1, dp[i][j] - dp[i - 1][j - 1]))
                i, j = i - 1, j - 1
        return steps

    def _ordered(self, called: Sequence[ToolCall], expected: Sequence[ToolCall]) -> tuple[float, str]:
        m = len(expected)
        steps = self._lcs_steps(called, expected)
        value = sum(step for _, step in steps) / m
        kept = {k for k, _ in steps}
        partial = [f"{show_call(expected[k])} (#{k + 1}) {step:.2f}"
                   for k, step in reversed(steps) if step < 1.0]
        missed = [f"{show_call(e)} (#{k + 1})" for k, e in enumerate(expected) if k not in kept]
        return value, self._reason(value, m, missed, partial, [], " in order")

    def _mismatch(self, called: Sequence[ToolCall], expected: Sequence[ToolCall]
                  ) -> tuple[int, list[str]] | None:
        """Exact mode: None when the calls equal the expected ones position by
        position, else the first differing position and its differing fields
        (``-1`` and no fields when the lengths differ)."""
        if len(called) != len(expected):
            return -1, []
        for k, (got, want) in enumerate(zip(called, expected, strict=True)):
            fields = ["name"] if got.name != want.name else []
            if "input_parameters" in self.evaluation_params and (
                    got.arguments != want.arguments or got.arguments_given != want.arguments_given):
                fields.append("input_parameters")  # None != {} there
            if "output" in self.evaluation_params and got.output != want.output:
                fields.append("output")
            if fields:
                return k, fields
        return None

    def _exact(self, called: Sequence[ToolCall], expected: Sequence[ToolCall]) -> tuple[float, str]:
        found = self._mismatch(called, expected)
        if found is None:
            if not expected:
                return 1.0, "Exact match: no calls expected and none made"
            return 1.0, f"Exact match: all {len(expected)} calls as expected"
        k, fields = found
        if k < 0:
            return 0.0, f"Exact match: {len(called)} calls made, {len(expected)} expected"
        got, want = called[k], expected[k]
        note = ""
        if "input_parameters" in fields and got.arguments == want.arguments:
            note = (" (no arguments given, None, against {}: deepeval tells them apart)")
        return 0.0, (f"Exact match: call #{k + 1} {show_call(got)} differs from the expected "
                     f"{show_call(want)} in {' and '.join(fields)}{note}")

    @staticmethod
    def _reason(value: float, count: int, missed: list[str], partial: list[str],
                collapsed: list[str], how: str = "") -> str:
        reason = f"Score {value:.2f} over {count} expected call{'s' if count != 1 else ''}{how}"
        if missed:
            reason += f"; not credited: {listed(missed)}"
        if partial:
            reason += f"; partial: {listed(partial)}"
        if collapsed:
            reason += (f"; skipped as repeats of a call already credited (deepeval's set of used "
                       f"calls): {listed(collapsed)}")
        return reason


def _identical(a: ToolCall, b: ToolCall) -> bool:
    """deepeval's ToolCall equality: name, arguments (None differs from ``{}``)
    and output."""
    return (a.name == b.name and a.arguments == b.arguments and a.output == b.output
            and a.arguments_given == b.arguments_given)
