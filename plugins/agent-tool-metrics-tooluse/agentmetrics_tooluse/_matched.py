"""argument_accuracy and tool_output_match: calls paired one to one with the
expected calls of the same tool by optimal assignment, then compared value by
value under the comparison rules."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

from agentmetrics import AgentTestCase, InvalidCaseError, InvalidParameterError, Metric, ToolCall
from agentmetrics_tooluse._assignment import best_assignment
from agentmetrics_tooluse._rules import MALFORMED, Compared, RuleSet, compare_values, score_values

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from agentmetrics import MetricResult, ToolCallBatch

    FloatArray = npt.NDArray[np.float64]

__all__ = ["ArgumentAccuracy", "ToolOutputMatch", "pair_calls"]

_SHOWN = 3  # items named per list in a reason
C = TypeVar("C")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_SHOWN])
    return shown + (f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else "")


def pair_calls(
    actual: Sequence[ToolCall], expected: Sequence[int], expected_calls: Sequence[ToolCall],
    compare: Callable[[ToolCall, ToolCall], C], weight: Callable[[C], float] | None,
) -> dict[int, tuple[int, C]]:
    """For each expected call (index into ``expected_calls``, among ``expected``)
    paired with a call of the same tool: ``(call index, comparison)``. Pairs
    maximize the total weight (Hungarian method), never greedy; ``weight``
    None: the comparisons are the weights."""
    names = [call.name for call in actual]
    wanted_names = [expected_calls[j].name for j in expected]
    if len(set(names)) == len(names) and len(set(wanted_names)) == len(wanted_names):
        # Each tool at most once a side (the common case): a pair per shared name.
        index = dict(zip(names, range(len(names))))
        paired: dict[int, tuple[int, C]] = {}
        for j, name in zip(expected, wanted_names):
            i = index.get(name)
            if i is not None:
                paired[j] = (i, compare(actual[i], expected_calls[j]))
        return paired
    by_tool: dict[str, tuple[list[int], list[int]]] = {}
    for i, name in enumerate(names):
        by_tool.setdefault(name, ([], []))[0].append(i)
    for j, name in zip(expected, wanted_names):
        by_tool.setdefault(name, ([], []))[1].append(j)
    paired = {}
    for calls, wanted in by_tool.values():
        if not calls or not wanted:
            continue
        if len(wanted) == 1:  # one pair: the best call (the first on ties)
            j = wanted[0]
            want = expected_calls[j]
            row = [compare(actual[i], want) for i in calls]
            weights = cast("list[float]", row) if weight is None else list(map(weight, row))
            best = weights.index(max(weights))
            paired[j] = (calls[best], row[best])
        elif len(calls) == 1:  # one pair: the best expected call (the first on ties)
            i = calls[0]
            got = actual[i]
            row = [compare(got, expected_calls[j]) for j in wanted]
            weights = cast("list[float]", row) if weight is None else list(map(weight, row))
            best = weights.index(max(weights))
            paired[wanted[best]] = (i, row[best])
        else:
            table = [[compare(actual[i], expected_calls[j]) for j in wanted] for i in calls]
            weights_table = (cast("list[list[float]]", table) if weight is None
                             else [list(map(weight, r)) for r in table])
            for a, b in best_assignment(weights_table):
                paired[wanted[b]] = (calls[a], table[a][b])
    return paired


def _mean_credit(credits: list[float], unpaired: int, missing_calls: str) -> float:
    """What ``_Paired._average`` gives as the value, from the credits alone."""
    count = len(credits) + (unpaired if missing_calls == "zero" else 0)
    return 0.0 if count == 0 else sum(credits) / count


def _has_output(call: ToolCall) -> bool:
    return call.output is not None



def _check_choice(owner: str, name: str, value: object, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise InvalidParameterError(f"{owner}: {name} must be one of {', '.join(map(repr, choices))}, "
                                    f"got {value!r}.")
    return str(value)


class _Paired(Metric):
    """What the two metrics share: rules, pairing, the batch fallback."""

    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "expected_tool_calls")
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True

    def _setup(self, compare: object, rules: Mapping[str, object] | None, missing_calls: str) -> None:
        self.compare = compare
        self.rules = None if rules is None else dict(rules)
        self._rules = RuleSet.of(compare, rules, self.name)
        self.missing_calls = _check_choice(self.name, "missing_calls", missing_calls, ("zero", "ignore"))

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """Case by case in one tight loop of values (``_value``: the pairing and
        the scores, no reason), the reasons made by ``measure`` when asked for.
        With a comparison of the user's (a function, a metric) each case goes
        through ``evaluate`` once, as it may be costly or not give the same
        answer twice."""
        from agentmetrics.batch import case_values, check_errors_mode, require_cases

        require_cases(self, batch, "compares arguments and outputs")
        if not self._rules.pure:
            return super().evaluate_batch(batch, errors=check_errors_mode(errors))
        return case_values(self, batch, errors, self._value, self._values)

    #: The call field compared: "arguments" or "output".
    _field: ClassVar[str]

    def _count_extra(self) -> bool:
        """Whether keys not expected count against a pair's credit."""
        return False

    def _checked(self, expected: Sequence[ToolCall]) -> Sequence[int]:
        """The expected calls that are scored (raises when measure refuses the case)."""
        return range(len(expected))

    def _pair_score(self) -> Callable[[Any, Any], float]:
        return partial(score_values, rules=self._rules, count_extra=self._count_extra())

    def _given(self, call: ToolCall) -> Any:
        """The value of a call compared (its ``_field``)."""
        return getattr(call, self._field)

    def _wanted(self, call: ToolCall) -> Any:
        """The value of an expected call compared (its ``_field``, as
        ``measure`` reads it)."""
        return getattr(call, self._field)

    def _value(self, case: AgentTestCase) -> float:
        """What ``measure(case)`` gives as the value, without the reason."""
        actual, expected = case.tool_calls, case.expected_tool_calls
        assert actual is not None and expected is not None
        if not expected:
            return 1.0
        checked = self._checked(expected)
        score, given, wanted = self._pair_score(), self._given, self._wanted
        paired = pair_calls(actual, checked, expected,
                            lambda call, want: score(given(call), wanted(want)), None)
        credits = [paired[j][1] for j in checked if j in paired]
        return _mean_credit(credits, len(checked) - len(credits), self.missing_calls)

    def _values(self, batch: ToolCallBatch) -> FloatArray:
        """``_value`` of every case at once (NaN: left to ``_value``). The
        fields of a batch that has call items (``batch.call_items()``: from a
        decoder's table, or from plain records) are read from those, without
        building the cases."""
        from agentmetrics_tooluse._bulk import paired_values, paired_values_of_items

        only = _has_output if self._field == "output" else None
        items = batch.call_items()
        if items is not None:
            score = self._pair_score()
            called, expected = self._item_values(items.fields)

            def credit(i: int, j: int) -> float:
                return score(called(i), expected(j))

            def checked(j: int) -> bool:
                return expected(j) is not None

            return paired_values_of_items(
                batch, (items.called, items.expected), len(items.fields[self._field]), credit,
                self.missing_calls, checked=None if only is None else checked)
        return paired_values(batch, self._given, self._pair_score(), only, self.missing_calls,
                             self._wanted)

    def _item_values(self, fields: Mapping[str, Sequence[Any]]
                     ) -> tuple[Callable[[int], Any], Callable[[int], Any]]:
        """Of an item id, what ``_given`` and ``_wanted`` give of a call of that
        item (see :class:`agentmetrics.batch.CallItems`): read per pair
        compared, not for every item of the table."""
        values = fields[self._field]
        return values.__getitem__, values.__getitem__

    def _average(self, scored: list[tuple[str, float, str]], unpaired: list[str], what: str,
                 ) -> tuple[float, str]:
        """``scored``: per paired expected call, (label, credit, details)."""
        count = len(scored) + (len(unpaired) if self.missing_calls == "zero" else 0)
        if count == 0:
            return 0.0, f"none of the {len(unpaired)} expected calls was made, so no {what} was compared"
        value = _mean_credit([credit for _, credit, _ in scored], len(unpaired), self.missing_calls)
        parts = [f"{label} {details}" for label, credit, details in scored if credit < 1.0]
        perfect = sum(1 for _, credit, _ in scored if credit == 1.0)
        head = f"{perfect} of {len(scored)} paired calls match fully"
        if parts:
            head += "; " + "; ".join(parts[:_SHOWN]) + (
                f"; and {len(parts) - _SHOWN} more" if len(parts) > _SHOWN else "")
        if unpaired:
            counted = "scored 0" if self.missing_calls == "zero" else "not scored"
            head += f"; not called ({counted}): {_listed(unpaired)}"
        return value, head


class ArgumentAccuracy(_Paired):
    """The share of expected arguments the agent got right, per paired call, averaged.

    Each expected call is paired with at most one call of the same tool, the
    pairing that gets the most arguments right in total (optimal assignment,
    not first come first served). A paired call scores the share of the
    expected call's arguments it gives with a matching value; nested objects
    are compared leaf by leaf (``"address.city"``). ``compare`` is the default
    comparison (``exact``, ``normalized``, ``numeric``, ``set_equal``, a rule
    such as ``Numeric(abs_tol=0.01)``, or a callable ``(actual, expected) ->
    bool | float``); ``rules`` sets one per argument path. Arguments not
    expected are named in the reason and count against the call only with
    ``extra_arguments="penalize"``. An expected call that was never made scores
    0 (``missing_calls="zero"``) or is left out of the average (``"ignore"``).
    No expected calls scores 1.0.
    """

    name: ClassVar[str] = "argument_accuracy"
    _field: ClassVar[str] = "arguments"
    description: ClassVar[str] = "Share of expected arguments matched per paired call, averaged."
    default_threshold: ClassVar[float] = 0.8

    def __init__(self, threshold: float | None = None, compare: object = "exact",
                 rules: Mapping[str, object] | None = None, extra_arguments: str = "ignore",
                 missing_calls: str = "zero") -> None:
        super().__init__(threshold)
        self._setup(compare, rules, missing_calls)
        self.extra_arguments = _check_choice(self.name, "extra_arguments", extra_arguments,
                                             ("ignore", "penalize"))

    def _compared(self, call: ToolCall, expected: ToolCall) -> Compared:
        if not call.arguments_valid:  # no credit, whatever was expected (none included)
            wanted = compare_values(expected.arguments, expected.arguments, self._rules)
            return Compared(max(1, wanted.expected), 0.0, (), (), ())
        return compare_values(call.arguments, expected.arguments, self._rules)

    def _given(self, call: ToolCall) -> Any:
        return call.arguments if call.raw_arguments is None else MALFORMED

    def _item_values(self, fields: Mapping[str, Sequence[Any]]
                     ) -> tuple[Callable[[int], Any], Callable[[int], Any]]:
        # A call whose arguments are not an object gets no credit; an expected
        # one is compared by the arguments it holds, as measure compares it.
        arguments, malformed = fields["arguments"], fields["malformed"]

        def called(item: int) -> Any:
            return MALFORMED if malformed[item] else arguments[item]

        return called, arguments.__getitem__

    def _count_extra(self) -> bool:
        return self.extra_arguments == "penalize"

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        actual, expected = case.tool_calls, case.expected_tool_calls
        if not expected:
            return 1.0, "No expected calls: no arguments to check"
        penalize = self.extra_arguments == "penalize"
        paired = pair_calls(actual, range(len(expected)), expected, self._compared,
                            lambda c: c.score(penalize))
        scored, unpaired = [], []
        for j, want in enumerate(expected):
            if j not in paired:
                unpaired.append(want.name)
                continue
            i, compared = paired[j]
            credit = compared.score(penalize)
            total = compared.expected + (len(compared.extra) if penalize else 0)
            details = [f"{compared.credit:g}/{total} arguments"
                       + (" counting the extra ones" if penalize and compared.extra else "")]
            if not actual[i].arguments_valid:
                details.append("its arguments were not a JSON object")
            details += [f"{path} expected {_short(e)}, got {_short(a)}" for path, e, a in compared.differing]
            if compared.missing:
                details.append(f"missing {_listed(compared.missing)}")
            if compared.extra:
                details.append(f"extra {_listed(compared.extra)}")
            scored.append((f"{want.name} (call #{i + 1})", credit, "(" + ", ".join(details) + ")"))
        return self._average(scored, unpaired, "argument")


class ToolOutputMatch(_Paired):
    """The share of expected tool outputs the calls returned.

    Only expected calls that carry an ``output`` are checked; each is paired
    with at most one call of the same tool, the pairing that matches the most
    output in total (optimal assignment). Outputs that are objects are
    compared leaf by leaf (partial credit), anything else as one value, under
    ``compare`` and ``rules`` as in argument_accuracy. A call without a
    recorded output matches nothing. An expected call never made scores 0
    (``missing_calls="zero"``) or is left out (``"ignore"``). Expected calls
    none of which carries an output are refused (InvalidCaseError), since
    there would be nothing to check; no expected calls at all scores 1.0.
    """

    name: ClassVar[str] = "tool_output_match"
    _field: ClassVar[str] = "output"
    description: ClassVar[str] = "Share of expected tool outputs matched by the paired calls' outputs."
    default_threshold: ClassVar[float] = 1.0

    def __init__(self, threshold: float | None = None, compare: object = "exact",
                 rules: Mapping[str, object] | None = None, missing_calls: str = "zero") -> None:
        super().__init__(threshold)
        self._setup(compare, rules, missing_calls)

    def _compared(self, call: ToolCall, expected: ToolCall) -> Compared:
        return compare_values(call.output, expected.output, self._rules)

    def _checked(self, expected: Sequence[ToolCall]) -> Sequence[int]:
        checked = [j for j, want in enumerate(expected) if want.output is not None]
        if not checked:  # measure refuses the case, in its own words
            raise LookupError("no expected output")
        return checked

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        actual, expected = case.tool_calls, case.expected_tool_calls
        if not expected:
            return 1.0, "No expected calls: no outputs to check"
        checked = [j for j, want in enumerate(expected) if want.output is not None]
        if not checked:
            raise InvalidCaseError(
                f"tool_output_match: none of the {len(expected)} expected calls carries an output, "
                f"so there is nothing to check. Fix: set ToolCall.output on the expected calls "
                f"whose results matter (e.g. {{'name': ..., 'output': {{...}}}}).")
        paired = pair_calls(actual, checked, expected, self._compared, lambda c: c.score(False))
        scored, unpaired = [], []
        for j in checked:
            want = expected[j]
            if j not in paired:
                unpaired.append(want.name)
                continue
            i, compared = paired[j]
            if actual[i].output is None:
                details = "(no output recorded)"
            else:
                parts = [f"{path or 'output'} expected {_short(e)}, got {_short(a)}"
                         for path, e, a in compared.differing]
                if compared.missing:
                    parts.append(f"missing {_listed(compared.missing)}")
                details = "(" + ", ".join(parts) + ")"
            scored.append((f"{want.name} (call #{i + 1})", compared.score(False), details))
        return self._average(scored, unpaired, "output")
