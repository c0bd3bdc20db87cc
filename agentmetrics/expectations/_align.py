"""The optimal alignment of calls to an expectation's steps.

Each step yields every way it can be met by a set of calls, as a map from the
set (a bit mask over the calls) to the most credit that set earns: a Call one
credit for one call it accepts; InOrder the children's sets combined when every
call of one comes before every call of the next; AnyOrder combined when
disjoint; Either each alternative's share of its own required steps; Repeat
every subset of the calls it accepts up to ``at_most``; OptionalStep its
child's sets, for no credit. The root's sets are then scored with the calls no
step accounts for and the forbidden calls, and the best is kept. This is exact
(every alignment is considered, kept only when it is dominated by another of
the same calls), never greedy; a case whose sets outgrow ``LIMIT`` is refused
rather than approximated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from agentmetrics.errors import InvalidCaseError
from agentmetrics.expectations._matchers import fields_match, matching
from agentmetrics.expectations._steps import (
    AnyOrder,
    Call,
    Either,
    Expectation,
    InOrder,
    OptionalStep,
    Repeat,
    Step,
    weight,
)

__all__ = ["LIMIT", "Alignment", "align", "value_of"]

#: The most ways of meeting one step kept at once before a case is refused.
LIMIT = 200_000

CallLike = tuple[str, Mapping[str, Any]]


@attrs.frozen(slots=True)
class Alignment:
    """The best alignment: ``value`` in [0, 1]; ``credit`` of ``weight``
    required steps; ``assigned`` maps a step's path to the calls it took;
    ``extra`` are the indices of calls no step accounts for (counted only
    when extra calls are forbidden); ``forbidden`` the indices of calls a
    ``never`` pattern matches."""

    value: float
    credit: float
    weight: float
    assigned: tuple[tuple[str, int], ...]
    extra: tuple[int, ...]
    forbidden: tuple[int, ...]


def _check(size: int, calls: int) -> None:
    if size > LIMIT:
        raise InvalidCaseError(
            f"expectation_match: {calls} calls can meet this expectation in more than {LIMIT:,} "
            f"ways; expected a case small enough to align exactly (it is never approximated). "
            f"Fix: split the case into turns, or narrow the patterns (names, arguments) so that "
            f"fewer calls fit each step.")


Credits = dict[int, float]  # set of calls (a bit mask) -> the most credit it earns
Paths = dict[int, tuple[tuple[str, int], ...]]  # the same sets -> the steps that took each call


class _Aligner:
    """The calls, indexed by name, and each step's ways of being met."""

    __slots__ = ("by_name", "calls")

    def __init__(self, calls: Sequence[CallLike]) -> None:
        self.calls = calls
        self.by_name: dict[str, list[int]] = {}
        for i, (name, _) in enumerate(calls):
            self.by_name.setdefault(name, []).append(i)

    def accepted(self, pattern: Call) -> list[int]:
        """The indices of the calls ``pattern`` accepts (only same-named ones are tried)."""
        same = self.by_name.get(pattern.name, ())
        if pattern.arguments is None or not same:
            return list(same)
        calls, fields, allow = self.calls, pattern.arguments, pattern.extra_arguments == "allow"
        return [i for i in same if fields_match(fields, calls[i][1], allow)]

    def outcomes(self, step: Step, path: str) -> tuple[Credits, Paths]:
        """Each way ``step`` can be met, with the steps that took each call
        (for reasons; :func:`value_of` computes the credits alone, faster)."""
        if type(step) is Call:
            found = self.accepted(step)
            credits = {0: 0.0}
            for i in found:
                credits[1 << i] = 1.0
            return credits, {0: (), **{1 << i: ((path, i),) for i in found}}
        if type(step) is InOrder or type(step) is AnyOrder:
            ordered = type(step) is InOrder
            key = ".in_order[" if ordered else ".any_order["
            current: Credits = {0: 0.0}
            paths: Paths = {0: ()}
            for k, inner in enumerate(step.steps):
                child, child_paths = self.outcomes(inner, f"{path}{key}{k}]")
                if k == 0:  # the first child: its ways as they are
                    current, paths = child, child_paths
                    continue
                joined: Credits = {}
                joined_paths: Paths = {}
                for m1, c1 in current.items():
                    top = m1.bit_length()  # every call of m2 must come after m1's last
                    for m2, c2 in child.items():
                        if m1 & m2 or (ordered and m1 and m2 and (m2 & -m2).bit_length() <= top):
                            continue
                        mask, credit = m1 | m2, c1 + c2
                        best = joined.get(mask)
                        if best is None or credit > best:
                            joined[mask] = credit
                            joined_paths[mask] = paths[m1] + child_paths[m2]
                _check(len(joined), len(self.calls))
                current, paths = joined, joined_paths
            return current, paths
        if type(step) is OptionalStep:
            child, child_paths = self.outcomes(step.step, f"{path}.optional")
            return dict.fromkeys(child, 0.0), child_paths
        if type(step) is Repeat:
            accepted = self.accepted(step.call)
            limit = len(accepted) if step.at_most is None else min(step.at_most, len(accepted))
            credits = {0: 0.0}
            paths = {0: ()}
            where = f"{path}.repeat"
            for i in accepted:
                bit = 1 << i
                for mask in list(credits):
                    if mask.bit_count() < limit:
                        grown = mask | bit
                        credits[grown] = float(min(grown.bit_count(), step.at_least))
                        paths[grown] = paths[mask] + ((where, i),)
                _check(len(credits), len(self.calls))
            return credits, paths
        assert isinstance(step, Either)
        credits = {}
        paths = {}
        for k, alternative in enumerate(step.alternatives):
            total = weight(alternative)
            child, child_paths = self.outcomes(alternative, f"{path}.either[{k}]")
            for mask, credit in child.items():
                share = credit / total if total else 1.0
                best = credits.get(mask)
                if best is None or share > best:
                    credits[mask] = share
                    paths[mask] = child_paths[mask]
        _check(len(credits), len(self.calls))
        return credits, paths


def _flat(expectation: Expectation) -> tuple[str, tuple[Call, ...]] | None:
    """The path and the Calls of an expectation that is one group of calls in
    any order (at the root, or the one step of the root's list), else None."""
    step, path = expectation.steps, "steps"
    if type(step) is InOrder and len(step.steps) == 1:
        step, path = step.steps[0], "steps.in_order[0]"
    if type(step) is AnyOrder and all(type(inner) is Call for inner in step.steps):
        return f"{path}.any_order", step.steps  # type: ignore[return-value]
    return None


def _matched(accepted: Sequence[Sequence[int]], forbidden_mask: int) -> list[int]:
    """For a group of calls in any order: each pattern's call (-1: none) in a
    maximum matching that, among the maximum ones, leaves the fewest calls
    that are not forbidden unmatched. Augmenting paths, grown from the calls
    that are not forbidden first: the matched calls of a matching form a
    matroid, so growing it greedily by weight is optimal, and an augmenting
    path never unmatches a call. ``accepted[j]``: the calls pattern j accepts."""
    takes: dict[int, list[int]] = {}  # call -> the patterns that accept it
    for j, calls in enumerate(accepted):
        for i in calls:
            takes.setdefault(i, []).append(j)
    order = sorted(takes, key=lambda i: (forbidden_mask >> i & 1, i))
    return matching(takes, len(accepted), order)[0]  # pattern -> call


def align(expectation: Expectation, calls: Sequence[CallLike]) -> Alignment:
    """The alignment of ``calls`` (name, arguments) to ``expectation`` that
    scores best: value = credit / (required steps + calls no step accounts for
    (if forbidden) + forbidden calls), 1.0 when there is nothing to require
    and nothing made wrongly. Ties go to more credit, then fewer extra calls,
    then the smaller set of calls (lowest indices first)."""
    n = len(calls)
    forbidden: tuple[int, ...] = ()
    forbidden_mask = 0
    if expectation.never:
        forbidden = tuple(i for i, (name, arguments) in enumerate(calls)
                          if any(pattern.accepts(name, arguments) for pattern in expectation.never))
        forbidden_mask = sum(1 << i for i in forbidden)
    total = expectation.required_steps
    flat = _flat(expectation)
    if flat is not None:  # one group in any order: a matching, in polynomial time
        prefix, patterns = flat
        aligner = _Aligner(calls)
        owner = _matched([aligner.accepted(pattern) for pattern in patterns], forbidden_mask)
        mask = sum(1 << i for i in owner if i >= 0)
        credits = {mask: float(sum(1 for i in owner if i >= 0))}
        paths = {mask: tuple(sorted(((f"{prefix}[{j}]", i) for j, i in enumerate(owner) if i >= 0),
                                    key=lambda pair: pair[1]))}
    else:
        credits, paths = _Aligner(calls).outcomes(expectation.steps, "steps")
    count_extra = expectation.extra_calls == "forbid"
    free = ((1 << n) - 1) & ~forbidden_mask
    best: tuple[float, float, int, int, int] | None = None
    for mask, credit in credits.items():
        extra = (free & ~mask).bit_count() if count_extra else 0
        denominator = total + extra + len(forbidden)
        rank = (credit / denominator if denominator else 1.0, credit, -extra, -mask.bit_count(), -mask)
        if best is None or rank > best:
            best = rank
    assert best is not None
    best_mask = -best[4]
    credit = credits[best_mask]
    assigned = paths[best_mask]
    extra_calls = (tuple(i for i in range(n) if not (best_mask | forbidden_mask) >> i & 1)
                   if count_extra else ())
    value = best[0]
    if credit == total and not extra_calls and not forbidden:
        value = 1.0
    return Alignment(min(max(value, 0.0), 1.0), credit, total, assigned, extra_calls, forbidden)


# -- values alone: each step compiled once into a function of the calls -------------

#: A compiled step: given the calls by name and the calls, its Credits.
Plan = Callable[[dict[str, list[int]], Sequence[CallLike]], Credits]
#: A compiled Call: the indices of the calls it accepts.
Leaf = Callable[[dict[str, list[int]], Sequence[CallLike]], Sequence[int]]


def _leaf(pattern: Call) -> Leaf:
    name, fields, allow = pattern.name, pattern.arguments, pattern.extra_arguments == "allow"

    def accepted(by_name: dict[str, list[int]], calls: Sequence[CallLike]) -> Sequence[int]:
        same = by_name.get(name, ())
        if fields is None:
            return same
        return [i for i in same if fields_match(fields, calls[i][1], allow)]

    return accepted


def _compiled(step: Step) -> Plan:
    """What :meth:`_Aligner.outcomes` computes for ``step``, credits only (no
    paths), as nested functions built once: the same rules, without
    dispatching on each step's type for every case."""
    if type(step) is Call:
        leaf = _leaf(step)

        def call(by_name: dict[str, list[int]], calls: Sequence[CallLike]) -> Credits:
            credits = {0: 0.0}
            for i in leaf(by_name, calls):
                credits[1 << i] = 1.0
            return credits

        return call
    if type(step) is InOrder or type(step) is AnyOrder:
        ordered = type(step) is InOrder
        parts: list[tuple[Leaf | None, Plan | None]] = [
            (_leaf(inner), None) if type(inner) is Call else (None, _compiled(inner)) for inner in step.steps]

        def group(by_name: dict[str, list[int]], calls: Sequence[CallLike]) -> Credits:
            current: Credits = {0: 0.0}
            for leaf, plan in parts:
                if leaf is not None:  # a call joined in place
                    bits = [1 << i for i in leaf(by_name, calls)]
                    if not bits:
                        continue  # unmet: every way as it was
                    placed = dict(current)
                    get = placed.get
                    for m1, c1 in current.items():
                        top = m1.bit_length() if ordered and m1 else 0
                        credit = c1 + 1.0
                        for bit in bits:
                            if m1 & bit or bit.bit_length() <= top:
                                continue
                            mask = m1 | bit
                            best = get(mask)
                            if best is None or credit > best:
                                placed[mask] = credit
                    if len(placed) > LIMIT:
                        _check(len(placed), len(calls))
                    current = placed
                    continue
                assert plan is not None
                child = plan(by_name, calls)
                joined: Credits = {}
                get = joined.get
                for m1, c1 in current.items():
                    top = m1.bit_length() if ordered and m1 else 0  # m2 must start after it
                    for m2, c2 in child.items():
                        if m1 & m2 or (m2 and (m2 & -m2).bit_length() <= top):
                            continue
                        mask, credit = m1 | m2, c1 + c2
                        best = get(mask)
                        if best is None or credit > best:
                            joined[mask] = credit
                if len(joined) > LIMIT:
                    _check(len(joined), len(calls))
                current = joined
            return current

        return group
    if type(step) is OptionalStep:
        inner = _compiled(step.step)
        return lambda by_name, calls: dict.fromkeys(inner(by_name, calls), 0.0)
    if type(step) is Repeat:
        leaf, at_least, at_most = _leaf(step.call), step.at_least, step.at_most

        def repeat(by_name: dict[str, list[int]], calls: Sequence[CallLike]) -> Credits:
            accepted = leaf(by_name, calls)
            limit = len(accepted) if at_most is None else min(at_most, len(accepted))
            credits = {0: 0.0}
            for i in accepted:
                bit = 1 << i
                for mask in list(credits):
                    if mask.bit_count() < limit:
                        grown = mask | bit
                        credits[grown] = float(min(grown.bit_count(), at_least))
                _check(len(credits), len(calls))
            return credits

        return repeat
    assert isinstance(step, Either)
    alternatives = [(weight(alternative), _compiled(alternative)) for alternative in step.alternatives]

    def either(by_name: dict[str, list[int]], calls: Sequence[CallLike]) -> Credits:
        credits: Credits = {}
        for total, plan in alternatives:
            for mask, credit in plan(by_name, calls).items():
                share = credit / total if total else 1.0
                best = credits.get(mask)
                if best is None or share > best:
                    credits[mask] = share
        _check(len(credits), len(calls))
        return credits

    return either


#: An expectation compiled: the leaves of its top-level group in any order (or
#: None), its steps' plan (None for such a group), and its never patterns' leaves.
Compiled = tuple[list[Leaf] | None, Plan | None, list[Leaf]]


def _plan(expectation: Expectation) -> Compiled:
    """The expectation compiled, built on first use and kept on it."""
    compiled: Compiled | None = expectation._plan
    if compiled is None:
        flat = _flat(expectation)
        compiled = ([_leaf(pattern) for pattern in flat[1]] if flat is not None else None,
                    None if flat is not None else _compiled(expectation.steps),
                    [_leaf(pattern) for pattern in expectation.never])
        object.__setattr__(expectation, "_plan", compiled)
    return compiled


def value_of(expectation: Expectation, calls: Sequence[CallLike]) -> float:
    """``align(expectation, calls).value``, without the alignment's bookkeeping."""
    flat, plan, never = _plan(expectation)
    by_name: dict[str, list[int]] = {}
    for i, (name, _) in enumerate(calls):
        by_name.setdefault(name, []).append(i)
    forbidden_mask = 0
    for leaf in never:
        for i in leaf(by_name, calls):
            forbidden_mask |= 1 << i
    forbidden = forbidden_mask.bit_count()
    if flat is not None:
        owner = _matched([leaf(by_name, calls) for leaf in flat], forbidden_mask)
        credits = {sum(1 << i for i in owner if i >= 0): float(sum(1 for i in owner if i >= 0))}
    else:
        assert plan is not None
        credits = plan(by_name, calls)
    total = expectation.required_steps
    if expectation.extra_calls != "forbid":
        denominator = total + forbidden
        return max(credits.values()) / denominator if denominator else 1.0
    free = ((1 << len(calls)) - 1) & ~forbidden_mask
    best = 0.0
    for mask, credit in credits.items():
        denominator = total + (free & ~mask).bit_count() + forbidden
        value = credit / denominator if denominator else 1.0
        if value > best:
            best = value
    return min(best, 1.0)
