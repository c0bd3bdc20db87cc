"""ExactSum: the correctly rounded exact sum, whatever the partition, order and merge tree.

The reference is ``fractions.Fraction``: ``sum(map(Fraction, values))`` is the
exact sum and ``float()`` of a Fraction rounds correctly (ties to even).
"""

from __future__ import annotations

import copy
import math
import pickle
import struct
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentmetrics._base import _exact
from agentmetrics._base._exact import ExactSum

MAX = 1.7976931348623157e308  # (2**53 - 1) * 2**971


def exact(values: Sequence[float]) -> Fraction:
    return sum((Fraction(v) for v in values), Fraction(0))


def reference(values: Sequence[float]) -> float:
    return float(exact(values))


def bits(x: float) -> int:
    return int(struct.unpack("<Q", struct.pack("<d", x))[0])


def from_bits(pattern: int) -> float:
    return float(struct.unpack("<d", struct.pack("<Q", pattern))[0])


def assert_same_float(got: float, want: float) -> None:
    assert bits(got) == bits(want), f"{got!r} != {want!r} (bit patterns differ)"


# Values in [0, 1]: hypothesis's own floats (0, 1, subnormals, 2**-1074, ...),
# and significands of up to 53 bits at any exponent from 2**-1074 up.
unit = st.floats(0.0, 1.0)
spanning = st.builds(math.ldexp, st.integers(0, 2**53 - 1).map(float), st.integers(-1074, -53))
unit_values = st.lists(st.one_of(unit, spanning), max_size=200)
# Signed values of all magnitudes (kept below 2**900 so no total can overflow).
signed = st.one_of(
    unit,
    spanning,
    st.floats(-(2.0**900), 2.0**900, allow_nan=False, allow_infinity=False),
)
signed_values = st.lists(signed, max_size=200)


def random_reduction(data: st.DataObject, values: list[float]) -> ExactSum:
    """``values`` shuffled, cut into random chunks, combined by a random add/merge plan."""
    values = data.draw(st.permutations(values))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(values)), max_size=8)))
    chunks = [values[a:b] for a, b in zip([0, *cuts], [*cuts, len(values)])]
    as_array = data.draw(st.booleans())
    feed = [np.array(c, dtype=np.float64) if as_array else c for c in chunks]
    if data.draw(st.booleans()):  # one accumulator, chunk after chunk (the CLI)
        acc = ExactSum()
        for chunk in feed:
            assert acc.add(chunk) is acc
        return acc
    parts = [ExactSum().add(chunk) for chunk in feed]  # a random merge tree (Dask)
    while len(parts) > 1:
        i = data.draw(st.integers(0, len(parts) - 2))
        left, right = parts[i], parts.pop(i + 1)
        parts[i] = left.merge(right) if data.draw(st.booleans()) else right.merge(left)
    return parts[0]


def check_invariants(acc: ExactSum, values: Sequence[float]) -> None:
    """The partials are canonical, non-overlapping, and sum exactly to the exact total."""
    partials = acc.partials
    assert all(type(p) is float and math.isfinite(p) and p != 0 for p in partials)
    assert sum(map(Fraction, partials), Fraction(0)) == exact(values)
    assert len(partials) <= 40
    if partials:
        assert_same_float(acc.value, partials[0])
    for big, small in zip(partials, partials[1:]):
        big_n, small_n = abs(_exact._scaled(big)), abs(_exact._scaled(small))
        lowest_bit_of_big = (big_n & -big_n).bit_length() - 1
        assert small_n.bit_length() - 1 < lowest_bit_of_big  # no shared bit position
        assert abs(small) <= math.ulp(big) / 2  # each is the rounded remainder


@given(unit_values, st.data())
def test_unit_interval_values_match_fraction_for_any_partition_and_tree(
    values: list[float], data: st.DataObject
) -> None:
    acc = random_reduction(data, values)
    assert_same_float(acc.value, reference(values))
    assert acc.count == len(values)
    check_invariants(acc, values)
    # Identical state, not merely an identical value, for every partition/order/tree.
    single = ExactSum().add(np.array(values, dtype=np.float64))
    assert acc == single
    assert acc.partials == single.partials


@given(signed_values, st.data())
def test_signed_values_of_any_magnitude_match_fraction(
    values: list[float], data: st.DataObject
) -> None:
    acc = random_reduction(data, values)
    assert_same_float(acc.value, reference(values))
    assert acc == ExactSum().add(values)
    check_invariants(acc, values)


@given(signed_values, st.sampled_from([(1, 1), (3, 7), (5, 5), (16, 48)]), st.data())
def test_block_and_flush_boundaries(
    values: list[float], sizes: tuple[int, int], data: st.DataObject
) -> None:
    # The numpy kernel folds bins every _FLUSH values and works _BLOCK at a time:
    # tiny sizes exercise every boundary with short inputs.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_exact, "_BLOCK", sizes[0])
        mp.setattr(_exact, "_FLUSH", sizes[1])
        acc = random_reduction(data, values)
    assert_same_float(acc.value, reference(values))
    assert acc == ExactSum().add(values)


@given(st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=50))
def test_cancellation_leaves_only_the_exact_remainder(values: list[float]) -> None:
    tiny = 2.0**-1074
    acc = ExactSum().add(values).add([tiny]).add([-v for v in values])
    assert acc.partials == (tiny,)
    assert acc.value == tiny
    assert acc.count == 2 * len(values) + 1


def test_one_million_values_in_chunks_of_50000() -> None:
    values = np.random.default_rng(20240611).random(1_000_000)
    by_cli_chunks = ExactSum()
    for start in range(0, len(values), 50_000):
        by_cli_chunks.add(values[start : start + 50_000])
    by_odd_chunks = ExactSum()
    for chunk in np.array_split(values[::-1], 37):
        by_odd_chunks.add(chunk)
    whole = ExactSum().add(values)
    # math.fsum is correctly rounded too, and far cheaper than Fraction here.
    assert_same_float(whole.value, math.fsum(values.tolist()))
    assert by_cli_chunks == by_odd_chunks == whole
    assert by_cli_chunks.value / by_cli_chunks.count == whole.value / whole.count


@pytest.mark.parametrize("value", [1 - 2.0**-53, -(1 - 2.0**-53), 2.0**-1022 - 2.0**-1074, 0.1])
def test_many_copies_of_a_full_significand_stay_exact(value: float) -> None:
    # Bins hold many equal 53-bit significands: their sums use every bit there is.
    n = 1 << 20
    acc = ExactSum().add(np.full(n, value))
    assert_same_float(acc.value, float(Fraction(value) * n))
    assert sum(map(Fraction, acc.partials), Fraction(0)) == Fraction(value) * n


def test_naive_chunked_sum_differs_where_exactsum_does_not() -> None:
    """The comparison can fail: float(chunk.sum()) per chunk misses the exact result."""

    def naive(values: np.ndarray, chunk: int) -> float:
        total = 0.0
        for start in range(0, len(values), chunk):
            total += float(values[start : start + chunk].sum())
        return total

    for seed in range(1000):  # deterministic: the first seed where naive sums disagree
        values = np.random.default_rng(seed).random(20_000)
        want = reference(values.tolist())
        if naive(values, 1_000) != want and naive(values, 7_000) != naive(values, 1_000):
            break
    else:  # pragma: no cover
        pytest.fail("no seed below 1000 shows the rounding of naive chunked sums")
    assert bits(naive(values, 1_000)) != bits(want)
    assert naive(values, 1_000) != naive(values, 7_000)
    for chunk in (1_000, 7_000, 20_000):
        acc = ExactSum()
        for start in range(0, len(values), chunk):
            acc.add(values[start : start + chunk])
        assert_same_float(acc.value, want)


def test_kernel_constants_keep_every_bin_sum_within_2_53_quanta() -> None:
    # The exactness proof: hi has < 2**27 units, lo < 2**26, at most _FLUSH per bin.
    # (A bin overflowing 2**53 units needs 2**26 values: too big to test directly.)
    assert _exact._HI_MASK == (2**64 - 1) ^ (2**26 - 1)
    assert _exact._FLUSH * (2**27 - 1) <= 2**53
    assert 1 <= _exact._BLOCK <= _exact._FLUSH


# -- edge cases ------------------------------------------------------------------


def test_empty() -> None:
    acc = ExactSum()
    assert_same_float(acc.value, 0.0)
    assert (acc.count, acc.partials) == (0, ())
    acc.add([]).add(np.array([])).add(iter(()))
    acc.merge(ExactSum())
    assert_same_float(acc.value, 0.0)
    assert acc == ExactSum()
    assert acc.count == 0


def test_zeros_count_but_sum_to_positive_zero() -> None:
    acc = ExactSum().add([-0.0, 0.0, -0.0])
    assert_same_float(acc.value, 0.0)  # the exact sum is 0, which rounds to +0.0
    assert (acc.count, acc.partials) == (3, ())
    assert acc != ExactSum()  # same sum, different count


BAD = {
    "nan": math.nan,
    "inf": math.inf,
    "-inf": -math.inf,
    "negative nan": from_bits(0xFFF8000000000000),
    "signalling nan": from_bits(0x7FF0000000000001),
    "nan with a high payload": from_bits(0x7FF4000000000000),
}


@pytest.mark.parametrize("bad", BAD.values(), ids=BAD.keys())
@pytest.mark.parametrize("where", [0, 39_999, 25_000])
@pytest.mark.parametrize("container", [np.array, list])
def test_refuses_nan_and_infinities_and_keeps_the_state(
    bad: float, where: int, container: Callable[[np.ndarray], Iterable[float]]
) -> None:
    acc = ExactSum().add([0.25, 2.0**-1074])
    before = copy.deepcopy(acc)
    values = np.random.default_rng(where).random(40_000)
    values[where] = bad
    with pytest.raises(ValueError, match=r"(NaN|infinite) value"):
        acc.add(container(values))
    assert acc == before
    assert acc.count == 2


def test_message_names_nan_or_infinity() -> None:
    with pytest.raises(ValueError, match="NaN"):
        ExactSum().add([1.0, math.nan])
    with pytest.raises(ValueError, match="infinite"):
        ExactSum().add([1.0, -math.inf])


def test_huge_values_overflowing_inside_the_kernel_stay_exact() -> None:
    # 1000 copies of 1e308 overflow the float bin sums: that span is redone exactly.
    values = [1e308] * 1000 + [0.5, 2.0**-1074] + [-1e308] * 1000
    acc = ExactSum().add(np.array(values))
    assert acc.partials == (0.5, 2.0**-1074)
    assert ExactSum().add([1e308, 1e308, -1e308]).value == 1e308
    assert ExactSum().add([MAX, -MAX, MAX]).value == MAX


def test_overflowing_total_raises_and_keeps_the_state() -> None:
    acc = ExactSum().add([MAX])
    with pytest.raises(OverflowError):
        acc.add([MAX])
    assert acc == ExactSum().add([MAX])
    with pytest.raises(OverflowError):
        acc.merge(ExactSum().add([MAX]))
    assert acc == ExactSum().add([MAX])
    # Half an ulp above the largest float rounds (ties to even) to infinity ...
    halfway = [MAX, 2.0**970]
    with pytest.raises(OverflowError):
        reference(halfway)
    with pytest.raises(OverflowError):
        ExactSum().add(halfway)
    # ... and anything below it rounds to MAX.
    below = [MAX, 2.0**969, 2.0**968]
    assert_same_float(ExactSum().add(below).value, reference(below))


def test_inputs_other_than_float64_arrays() -> None:
    rng = np.random.default_rng(7)
    values = rng.random(1001)
    want = ExactSum().add(values)
    assert ExactSum().add(values.tolist()) == want
    assert ExactSum().add(tuple(values.tolist())) == want
    assert ExactSum().add(v for v in values.tolist()) == want
    assert ExactSum().add(values.astype(">f8")) == want  # big-endian
    strided = np.repeat(values, 3)[::3]
    assert not strided.flags.contiguous
    assert ExactSum().add(strided) == want
    single = values.astype(np.float32)  # converted to float64 exactly
    assert_same_float(ExactSum().add(single).value, reference(single.astype(np.float64).tolist()))
    assert ExactSum().add([1, 2, True]).value == 4.0
    with pytest.raises(ValueError, match="1-D"):
        ExactSum().add(values.reshape(7, 143))
    with pytest.raises(TypeError):
        ExactSum().add(0.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ExactSum().merge(0.5)  # type: ignore[arg-type]


def test_merge() -> None:
    a = ExactSum().add([0.1, 0.2])
    b = ExactSum().add([0.3, 2.0**-1074])
    b_before = copy.deepcopy(b)
    assert a.merge(b) is a
    assert b == b_before  # the argument is not modified
    assert a == ExactSum().add([0.1, 0.2, 0.3, 2.0**-1074])
    assert a.count == 4
    twice = ExactSum().add([0.1, 0.2, 0.3, 2.0**-1074] * 2)
    assert a.merge(a) == twice  # merging with itself doubles


def test_equality_and_hash() -> None:
    assert ExactSum().add([0.5, 0.25]) == ExactSum().add([0.25]).add([0.5])
    assert ExactSum().add([0.5, 0.25]) != ExactSum().add([0.75])  # count differs
    assert ExactSum().add([0.1, 0.2]) != ExactSum().add([0.30000000000000004, 0.0])
    assert ExactSum() != 0.0
    assert ExactSum().__eq__(0.0) is NotImplemented
    with pytest.raises(TypeError):
        hash(ExactSum())


def test_repr() -> None:
    acc = ExactSum().add([0.1, 0.2])
    assert repr(acc) == (
        "ExactSum(value=0.30000000000000004, count=2, "
        f"partials=[0.30000000000000004, {acc.partials[1]!r}])"
    )
    assert acc.partials[1] == float(exact([0.1, 0.2]) - Fraction(0.30000000000000004))
    assert repr(ExactSum()) == "ExactSum(value=0.0, count=0, partials=[])"


@given(signed_values)
def test_pickle_and_copy_round_trip(values: list[float]) -> None:
    acc = ExactSum().add(values)
    state = acc.__getstate__()
    assert state == {"partials": list(acc.partials), "count": len(values)}
    assert all(type(p) is float for p in state["partials"]) and type(state["count"]) is int
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(acc, protocol=protocol))
        assert back == acc
        assert_same_float(back.value, acc.value)
        assert back.partials == acc.partials
    assert copy.copy(acc) == acc == copy.deepcopy(acc)
    back.add([0.5])  # independent after the round trip
    assert acc.count == len(values)


def test_setstate_canonicalises_and_validates() -> None:
    acc = ExactSum.__new__(ExactSum)
    acc.__setstate__({"partials": [0.5, 0.5, 2.0**-1074], "count": 3})
    assert acc.partials == (1.0, 2.0**-1074)
    assert acc == ExactSum().add([0.5, 0.5, 2.0**-1074])
    for bad in (
        {"partials": [math.nan], "count": 1},
        {"partials": [1], "count": 1},
        {"partials": [1.0], "count": -1},
        {"partials": [1.0], "count": 1.0},
    ):
        with pytest.raises(ValueError):
            ExactSum.__new__(ExactSum).__setstate__(bad)
