"""ragas_tool_call_f1 and ragas_tool_call_accuracy: ragas' ToolCallF1 and
ToolCallAccuracy, reproduced."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from agentmetrics import AgentTestCase, Metric, ToolCall

from agentmetrics_compat._common import (
    check_flag,
    listed,
    readable_arguments,
    require_readable,
    show_call,
)

if TYPE_CHECKING:
    from agentmetrics import MetricResult, ToolCallBatch
    from agentmetrics.batch import CallItems

__all__ = ["RagasToolCallAccuracy", "RagasToolCallF1", "call_key", "f1_of_counts", "frozen"]

_NAME = "ragas_tool_call_f1"
_FIX = "repair them: ragas' ToolCall takes its args as an object."
#: What ragas does with a call given no arguments.
ABSENT = "ragas' ToolCall requires args as an object and refuses None."


def frozen(value: Any) -> Any:
    """A hashable form of an argument value, as ragas builds it: an object
    becomes a frozenset of (key, value) pairs, a list a tuple, recursively.
    Python equality decides matches, so ``1``, ``1.0`` and ``True`` are equal."""
    if isinstance(value, dict):
        return frozenset((key, frozen(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return tuple(frozen(item) for item in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(frozen(item) for item in value)
    return value


def call_key(call: ToolCall) -> tuple[str, Any]:
    """What makes two calls the same for ragas: the name and the arguments."""
    return call.name, frozen(call.arguments)


def f1_of_counts(shared: int, called: int, expected: int) -> float:
    """F1 from distinct calls shared, made and expected, with ragas' guards
    (0 wherever a denominator would be 0) and its rounding to 4 decimals."""
    false_pos, false_neg = called - shared, expected - shared
    precision = shared / (shared + false_pos) if shared + false_pos > 0 else 0.0
    recall = shared / (shared + false_neg) if shared + false_neg > 0 else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return round(f1, 4)


class RagasToolCallF1(Metric):
    """ragas' ToolCallF1 (0.4): the F1 of the **sets** of distinct calls made
    and expected, a call being its name and its arguments, rounded to 4
    decimals.

    Quirks kept: repeated calls count once (``[A, A]`` against ``[A]`` is
    1.0); order is ignored; **no calls on either side scores 0.0** (ragas'
    guards), where tool_call_f1 gives 1.0; arguments are compared with
    Python equality (``1 == 1.0``), an argument too many or too few makes a
    different call. A call given no arguments (``ToolCall(name, None)``) or
    arguments that are not an object is refused, as ragas' ToolCall refuses it.
    """

    name: ClassVar[str] = _NAME
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "expected_tool_calls")
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = "ragas' ToolCallF1: F1 of the sets of (name, arguments), reproduced."
    default_threshold: ClassVar[float] = 0.5

    def __init__(self, threshold: float | None = None) -> None:
        super().__init__(threshold)

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        called, expected = case.tool_calls, case.expected_tool_calls
        readable_arguments(_NAME, called, "called", _FIX, ABSENT)
        readable_arguments(_NAME, expected, "expected", _FIX, ABSENT)
        made = {call_key(c): c for c in reversed(called)}
        wanted = {call_key(c): c for c in reversed(expected)}
        shared = made.keys() & wanted.keys()
        value = f1_of_counts(len(shared), len(made), len(wanted))
        return value, self._reason(value, made, wanted, shared)

    @staticmethod
    def _reason(value: float, made: dict[Any, ToolCall], wanted: dict[Any, ToolCall],
                shared: set[Any]) -> str:
        if not made and not wanted:
            return "F1 0.0: no calls made or expected (ragas scores 0 when both sides are empty)"
        reason = (f"F1 {value:.4g}: {len(shared)} of {len(wanted)} distinct expected calls made, "
                  f"{len(made)} distinct made")
        missing = [show_call(c) for key, c in wanted.items() if key not in shared]
        extra = [show_call(c) for key, c in made.items() if key not in shared]
        if missing:
            reason += f"; missing: {listed(missing)}"
        if extra:
            reason += f"; not expected: {listed(extra)}"
        return reason

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """The distinct calls of every case counted with arrays: each distinct
        (name, arguments) becomes one id (the batch's call keys, which are
        ragas' Python equality, when it has them; rows they leave out, or that
        hold a call given no arguments, are scored by ``measure``, which
        refuses them), and the shared, made and expected counts come from
        agentmetrics' set kernel (F1 and rounding as above)."""
        from agentmetrics.batch import require_cases

        require_cases(self, batch, "compares arguments")
        import numpy as np

        from agentmetrics import MetricResult, ToolCallBatch
        from agentmetrics.batch import batch_errors, case_values, passes, row_set_counts

        keys = batch.call_keys("python")
        if keys is not None:
            def bulk(batch: ToolCallBatch) -> Any:
                counts = np.stack(row_set_counts(batch, keys), axis=1)  # made, expected, shared
                distinct, inverse = np.unique(counts, axis=0, return_inverse=True)
                table = np.array([f1_of_counts(shared, made, wanted)
                                  for made, wanted, shared in distinct.tolist()], dtype=np.float64)
                out = table[inverse.reshape(-1)] if len(table) else np.zeros(0)
                out[keys.unkeyed | keys.not_given] = np.nan
                return out

            return case_values(self, batch, errors, lambda case: self.measure(case)[0],
                               bulk=bulk)

        failed = batch_errors(self, batch, errors)
        ids: dict[Any, str] = {}
        called_col: list[list[str] | None] = []
        expected_col: list[list[str] | None] = []
        try:
            for row in range(len(batch)):
                if row in failed:
                    called_col.append(None)
                    expected_col.append(None)
                    continue
                case = batch.case(row)
                assert case.tool_calls is not None and case.expected_tool_calls is not None
                readable_arguments(_NAME, case.tool_calls, "called", _FIX, ABSENT)
                readable_arguments(_NAME, case.expected_tool_calls, "expected", _FIX, ABSENT)
                called_col.append(_tokens(case.tool_calls, ids))
                expected_col.append(_tokens(case.expected_tool_calls, ids))
        except Exception:  # a case to refuse: case by case, with the single-case errors
            from agentmetrics.batch import check_errors_mode

            return super().evaluate_batch(batch, errors=check_errors_mode(errors))
        tokens = ToolCallBatch.from_columns(tool_calls=called_col, expected_tool_calls=expected_col)
        made, wanted, shared = row_set_counts(tokens)
        values = np.array([f1_of_counts(s, c, e) for s, c, e in
                           zip(shared.tolist(), made.tolist(), wanted.tolist(), strict=True)],
                          dtype=np.float64).reshape(len(batch))
        if failed:
            values[list(failed)] = np.nan

        def explain(row: int) -> str:
            return self.evaluate(batch.case(row)).reason

        return MetricResult(self, values, passes(self, values), failed, explain)


def _tokens(calls: Sequence[ToolCall], ids: dict[Any, str]) -> list[str]:
    out = []
    for call in calls:
        key = call_key(call)
        token = ids.get(key)
        if token is None:
            token = ids[key] = f"c{len(ids)}"
        out.append(token)
    return out


def _sort_key(call: ToolCall) -> tuple[str, ...]:
    """ragas' order for strict_order=False: the name, then each argument name
    (sorted) with its value as text."""
    key = [call.name]
    for name in sorted(call.arguments):
        key += [name, str(call.arguments[name])]
    return tuple(key)


def _argument_share(given: dict[str, Any], wanted: dict[str, Any]) -> float:
    """ragas' argument score: the share of expected arguments given with the
    same text (``str``); 1.0 when neither side has arguments."""
    if not wanted and not given:
        return 1.0
    if not wanted:
        return 0.0
    score = 0.0
    for name in wanted:
        if name in given and str(given[name]) == str(wanted[name]):
            score += 1.0
    return score / len(wanted)


class RagasToolCallAccuracy(Metric):
    """ragas' ToolCallAccuracy (0.4): the tool names must line up with the
    expected ones (in order, or as sorted lists with ``strict_order=False``),
    else 0.0; then, position by position, the share of expected arguments
    given with the same text, averaged over the expected calls.

    Quirks kept: arguments compare as **text** (``str``), so ``"1"`` matches
    ``1`` but ``1.0`` does not match ``1``, and objects compare by their text
    (key order counts); extra arguments cost nothing, but an expected call
    without arguments is 0 against a call that has some; any extra or missing
    call makes the names misaligned, so 0.0; no calls on either side is 1.0
    (where ragas' F1 gives 0.0). With ``strict_order=False`` both lists are
    sorted by name and argument text before pairing. A call given no
    arguments (``ToolCall(name, None)``) or arguments that are not an object
    is refused, as ragas' ToolCall refuses it.
    """

    name: ClassVar[str] = "ragas_tool_call_accuracy"
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "expected_tool_calls")
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = "ragas' ToolCallAccuracy: aligned names, then arguments as text, reproduced."
    default_threshold: ClassVar[float] = 0.5

    def __init__(self, threshold: float | None = None, strict_order: bool = True) -> None:
        self.strict_order = check_flag("ragas_tool_call_accuracy", "strict_order", strict_order)
        super().__init__(threshold)

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        called, expected = list(case.tool_calls), list(case.expected_tool_calls)
        readable_arguments(self.name, called, "called", _FIX, ABSENT)
        readable_arguments(self.name, expected, "expected", _FIX, ABSENT)
        if not called and not expected:
            return 1.0, "No calls made or expected"
        if not called or not expected:
            return 0.0, f"{len(called)} calls made, {len(expected)} expected (ragas scores 0)"
        score, aligned, shares, called, expected = self._compared(called, expected)
        if not aligned:
            how = "in order" if self.strict_order else "as sorted lists"
            names, wanted_names = [c.name for c in called], [c.name for c in expected]
            return 0.0, (f"Tool names do not line up {how}: made {listed(names)}, expected "
                         f"{listed(wanted_names)} (ragas scores 0)")
        partial = [f"{show_call(expected[k])} (#{k + 1}) {share:.2f}"
                   for k, share in enumerate(shares) if share is not None and share < 1.0]
        reason = f"Names aligned; arguments {score:.2f}"
        if partial:
            reason += f"; partial: {listed(partial)}"
        return score, reason

    def _compared(self, called: list[ToolCall], expected: list[ToolCall]
                  ) -> tuple[float, bool, list[float | None], list[ToolCall], list[ToolCall]]:
        """Both sides non-empty: the score before the alignment check, whether
        the names line up, each position's argument share (None where the
        names differ), and the two sides as paired (sorted without
        strict_order)."""
        if not self.strict_order:
            called, expected = sorted(called, key=_sort_key), sorted(expected, key=_sort_key)
        names, wanted_names = [c.name for c in called], [c.name for c in expected]
        aligned = names == wanted_names if self.strict_order else sorted(names) == sorted(wanted_names)
        score = 0.0
        shares: list[float | None] = []
        for want, got in zip(expected, called):
            if want.name == got.name:
                share = _argument_share(got.arguments, want.arguments)
                score += share
                shares.append(share)
            else:
                shares.append(None)
        score /= len(expected)
        compared = min(len(called), len(expected))
        if compared < len(expected):
            score *= compared / len(expected)
        return score, aligned, shares, called, expected

    def _value(self, case: AgentTestCase) -> float:
        """What ``measure(case)`` gives as the value (raises where it refuses)."""
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        return self._value_of(case.tool_calls, case.expected_tool_calls)

    def _value_of(self, made: Sequence[ToolCall], wanted: Sequence[ToolCall]) -> float:
        """The value of a case holding these calls (raises where measure refuses it)."""
        called, expected = list(made), list(wanted)
        require_readable(called, expected, absent=True)
        if not called or not expected:
            return 1.0 if not called and not expected else 0.0
        score, aligned, _, _, _ = self._compared(called, expected)
        return score if aligned else 0.0

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """With ``strict_order`` and the batch's call items
        (``batch.call_items()``: no case built), the names' alignment for
        every case at once and each pair of items' argument share computed
        once; a row holding a call ragas refuses (arguments not an object, or
        given as null) or read the reference way is scored by ``measure``.
        Otherwise case by case in one tight loop of values, from each row's
        calls (``batch.call_lists()``: from the fast decoder, each distinct
        call built once, no case built) where the batch has them. Each reason is
        made by ``evaluate`` when asked for."""
        from agentmetrics.batch import case_values, require_cases, values_of_calls

        require_cases(self, batch, "compares arguments")
        items = batch.call_items() if self.strict_order else None
        if items is None:
            return case_values(self, batch, errors, self._value,
                               bulk=lambda batch: values_of_calls(batch, self._value_of))
        return case_values(self, batch, errors, self._value,
                           bulk=lambda batch: _aligned_shares(batch, items))


def _aligned_shares(batch: ToolCallBatch, items: CallItems) -> Any:
    """ToolCallAccuracy with strict_order for every row (NaN: left to
    ``measure``): 1.0 with no calls on either side, 0.0 with none on one side
    or names that do not line up position by position, else the argument
    shares of the positions summed in order, over the expected calls."""
    import numpy as np

    fields = items.fields
    arguments, given, malformed = fields["arguments"], fields["given"], fields["malformed"]
    n = len(batch)
    made, wanted = np.diff(batch.called_offsets), np.diff(batch.expected_offsets)
    out = np.where((made == 0) & (wanted == 0), 1.0, 0.0)
    refused = np.zeros(n, dtype=bool)
    for side, offsets in ((items.called, batch.called_offsets),
                          (items.expected, batch.expected_offsets)):
        bad = side < 0
        if len(side) and not bad.all():
            distinct, inverse = np.unique(side[~bad], return_inverse=True)
            flags = np.array([malformed[item] or not given[item] for item in distinct.tolist()],
                             dtype=bool)
            bad[~bad] = flags[inverse.reshape(-1)]
        positions = np.flatnonzero(bad)
        if len(positions):
            refused[np.searchsorted(offsets, positions, side="right") - 1] = True
    rows = np.flatnonzero((made == wanted) & (made > 0) & ~refused)
    if len(rows):
        lengths = made[rows]
        within = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        called_at = np.repeat(batch.called_offsets[rows], lengths) + within
        expected_at = np.repeat(batch.expected_offsets[rows], lengths) + within
        same = batch.called_ids[called_at] == batch.expected_ids[expected_at]
        aligned = np.bincount(np.repeat(np.arange(len(rows)), lengths), weights=~same,
                              minlength=len(rows)) == 0
        keep = np.repeat(aligned, lengths)
        pairs = np.stack([items.called[called_at[keep]], items.expected[expected_at[keep]]], 1)
        shares: list[float] = []
        if len(pairs):
            distinct, inverse = np.unique(pairs, axis=0, return_inverse=True)
            table = [_argument_share(arguments[got], arguments[want])
                     for got, want in distinct.tolist()]
            shares = [table[k] for k in inverse.reshape(-1).tolist()]
        at = 0
        for row, length, fits in zip(rows.tolist(), lengths.tolist(), aligned.tolist()):
            if not fits:
                continue
            score = 0.0
            for share in shares[at:at + length]:  # in order, as measure adds them
                score += share
            out[row] = score / length
            at += length
    out[refused] = np.nan
    return out
