"""Exact, order-independent sums of float64 values, for chunked and tree reductions.

``total += float(chunk.sum())`` rounds once per chunk, and numpy's pairwise
summation rounds inside each chunk, so the total (and every mean derived from
it) changes in its last bits with the chunk size, the chunk order and the shape
of a merge tree. :class:`ExactSum` instead keeps the *exact* sum of everything
added and reports it correctly rounded, so the result depends only on the
multiset of values added::

    acc = ExactSum()
    for chunk in chunks:            # any partition, any order
        acc.add(chunk)              # 1-D float64 array (NaN removed by the caller)
    other.merge(acc)                # combine partial aggregates exactly
    mean = acc.mean                 # the exact mean, correctly rounded

Representation
--------------
The state is a short tuple of *partials* ``p_1, p_2, ..., p_k`` (``k <= 40``):
finite floats of strictly decreasing magnitude that do not overlap (the
highest set bit of ``p_(i+1)`` is below the lowest set bit of ``p_i``, as in
Shewchuk's expansions and ``math.fsum``'s partials), whose exact sum is the
exact total, plus the count. It is *canonical*: ``p_1`` is the exact total
rounded to nearest (ties to even), ``p_2`` is the remainder rounded to nearest,
and so on; so ``value`` is simply ``p_1``, and two accumulators holding the same
exact total hold the same partials, whatever produced them.

Why it is exact
---------------
1. Every finite double is an integer multiple of ``2**-1074`` (the spacing of
   the subnormals). So the exact total is ``N * 2**-1074`` for an integer
   ``N``, and the arithmetic on ``N`` is done with Python integers, which never
   round: partials -> ``N`` (``float.as_integer_ratio``), ``N += chunk``,
   ``N`` -> partials.

2. A chunk's ``N`` is computed at numpy speed without rounding. Each value
   ``x = m * q`` has an integer significand ``0 <= m < 2**53`` and a quantum
   ``q = 2**(max(E, 1) - 1075)`` fixed by its biased exponent field ``E``.
   Clearing the 26 low bits of the significand gives ``hi`` (a multiple of
   ``2**26 * q``, at most ``2**27 - 1`` of them), and ``lo = x - hi`` (at most
   ``2**26 - 1`` quanta) is exactly representable, so the subtraction is
   exact. Values are binned by ``(sign, E)`` with ``np.bincount``, at most
   ``2**26`` values per bin between two conversions to integers. Every
   partial sum inside a bin is then an integer multiple of the bin's quantum
   (``2**26 * q`` for ``hi``, ``q`` for ``lo``) of magnitude at most ``2**53``
   quanta, hence a representable double: no addition rounds. Folding the two
   sign bins of an exponent adds a sum ``>= 0`` to one ``<= 0``, again at
   most ``2**53`` quanta, so exact. The only failure is overflow to infinity
   (values near ``1.8e308``); it leaves a non-finite bin sum, which is
   detected, and that span is recomputed with Python integers instead.
   Non-finite inputs all land in the bins of ``E = 2047`` and make their
   ``lo`` sum NaN (``lo = x - hi`` with ``hi`` infinite or NaN), while an
   empty bin sums to exactly ``0.0``: that is how ``add`` refuses them.

3. ``N`` -> partials terminates and is exact. If ``|N|`` has at most 53 bits,
   ``N * 2**-1074`` is a double (a subnormal, or a normal below ``2**-1021``
   whose spacing is ``2**-1074``) and is the last partial. Otherwise ``N`` is
   rounded to its top 53 bits, ties to even, which is exactly the correctly
   rounded double ``p`` of ``N * 2**-1074``, and ``p`` is subtracted from
   ``N`` exactly. The remainder is at most half a unit in the last place of
   ``p``, so its bit length is at least 53 smaller than that of ``N`` (this is
   why the partials do not overlap and decrease), and the loop stops after at
   most ``ceil(2098 / 53) = 40`` steps, ``2**1024 / 2**-1074`` spanning 2098
   bits. The partials sum to ``N * 2**-1074`` by construction.

Since the state is a function of the exact total and the count alone, every
partition of the values into ``add`` calls and every merge tree gives the same
partials, bit for bit.

Why not repeated ``math.fsum`` (rounded sum, then residuals until zero): it is
exact too, but needs the chunk as a Python list and one full pass per partial,
so it is ~10x slower on uniform values and ~200x slower when the values span
all exponents (20 partials); the kernel above costs the same either way.

Limits: the correctly rounded total must be finite (``|total| < 2**1024 -
2**970``); otherwise ``add``/``merge`` raise ``OverflowError`` and leave the
accumulator unchanged. Metric values in [0, 1] would need 2**1023 of them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from fractions import Fraction

    import numpy as np
    import numpy.typing as npt

__all__ = ["ExactSum", "exact_products", "exact_squares", "exact_variance", "mean_and_variance"]

#: Values whose bins are accumulated before the bin sums are folded into the
#: integer total: ``2**26`` keeps every bin sum within ``2**53`` quanta.
_FLUSH = 1 << 26
#: Values processed per numpy pass: a few cache-sized temporaries.
_BLOCK = 1 << 14
#: ``x == N * 2**-_SCALE`` for an integer ``N``, for every finite double ``x``.
_SCALE = 1074
#: Bit pattern mask clearing the 26 low significand bits (``hi`` of a value).
_HI_MASK = ~((1 << 26) - 1) & ((1 << 64) - 1)


def _scaled(x: float) -> int:
    """The integer ``N`` with ``x == N * 2**-1074`` (``x`` finite)."""
    numerator, denominator = x.as_integer_ratio()  # denominator == 2**k, k <= 1074
    return numerator << (_SCALE + 1 - denominator.bit_length())


def _partials(total: int) -> tuple[float, ...]:
    """Canonical non-overlapping partials of ``total * 2**-1074``, largest first.

    Raises ``OverflowError`` when the correctly rounded value is not finite.
    """
    parts: list[float] = []
    while total:
        sign = -1 if total < 0 else 1
        magnitude = abs(total)
        excess = magnitude.bit_length() - 53
        if excess <= 0:  # at most 53 bits: exactly a double, below 2**-1021
            parts.append(math.ldexp(float(total), -_SCALE))
            break
        top = magnitude >> excess
        rest = magnitude - (top << excess)
        half = 1 << (excess - 1)
        if rest > half or (rest == half and top & 1):
            top += 1  # round to nearest, ties to even; top <= 2**53
        try:
            part = math.ldexp(float(top), excess - _SCALE)
        except OverflowError:
            raise OverflowError(
                "the exact sum is too large for a float (|sum| >= 2**1024 - 2**970)"
            ) from None
        parts.append(sign * part)
        total -= sign * (top << excess)
    return tuple(parts)


def _scaled_sum(values: npt.NDArray[np.float64]) -> int:
    """``N`` with ``sum(values) == N * 2**-1074`` exactly (see the module docstring)."""
    import numpy as np

    total = 0
    hi_mask = np.uint64(_HI_MASK)
    shift = np.uint64(52)
    with np.errstate(invalid="ignore", over="ignore"):
        for start in range(0, len(values), _FLUSH):
            span = values[start : start + _FLUSH]
            # Bins 0..2047: sign 0 and biased exponent E; 2048..4095: sign 1.
            hi_bins = np.zeros(4096)
            lo_bins = np.zeros(4096)
            step = -(-len(span) // -(-len(span) // _BLOCK))  # equal blocks <= _BLOCK
            for offset in range(0, len(span), step):
                block = span[offset : offset + step]
                bits = block.view(np.uint64)
                hi = (bits & hi_mask).view(np.float64)
                lo = block - hi
                index = (bits >> shift).view(np.int64)
                hi_bins += np.bincount(index, weights=hi, minlength=4096)
                lo_bins += np.bincount(index, weights=lo, minlength=4096)
            if lo_bins[2047] != 0 or lo_bins[4095] != 0:  # NaN: a non-finite input
                bad = "NaN" if np.isnan(span).any() else "infinite"
                raise ValueError(
                    f"ExactSum.add got a {bad} value: remove NaN (skipped cases) "
                    "before adding, and add only finite values"
                )
            if not (np.isfinite(hi_bins).all() and np.isfinite(lo_bins).all()):
                # A bin sum overflowed (values near 1.8e308): exact integers instead.
                total += sum(_scaled(x) for x in span.tolist())
                continue
            hi_folded = hi_bins[:2048] + hi_bins[2048:]  # >= 0 plus <= 0: exact
            lo_folded = lo_bins[:2048] + lo_bins[2048:]
            exponents = np.flatnonzero((hi_folded != 0) | (lo_folded != 0))
            # Quantum of exponent E is 2**shifts * 2**-1074.
            shifts = np.maximum(exponents, 1) - 1
            hi_units = np.ldexp(hi_folded[exponents], _SCALE - 26 - shifts)
            lo_units = np.ldexp(lo_folded[exponents], _SCALE - shifts)
            for h, low, s in zip(
                hi_units.astype(np.int64).tolist(),
                lo_units.astype(np.int64).tolist(),
                shifts.tolist(),
            ):
                total += ((h << 26) + low) << s
    return total


class ExactSum:
    """The exact sum of float64 values, correctly rounded on demand.

    ``value`` is the exact sum of every value ever added (directly or through
    :meth:`merge`), rounded once to the nearest float (ties to even): the same
    float, bit for bit, whatever the order of the values, their partition into
    :meth:`add` calls and the shape of the merge tree. The state is a few plain
    floats and an int, so it pickles cheaply (for Dask or multiprocessing);
    the module docstring gives the representation and the exactness argument.
    """

    __slots__ = ("_count", "_partials")

    def __init__(self) -> None:
        self._partials: tuple[float, ...] = ()
        self._count = 0

    def add(self, values: npt.NDArray[np.float64] | Iterable[float]) -> ExactSum:
        """Add every value of ``values`` exactly; return ``self``.

        ``values`` is a 1-D numpy array (converted to float64 if it is not one)
        or any iterable of floats. NaN and infinities are refused with
        ``ValueError``: the caller drops NaN (skipped cases) first, since a
        NaN cannot be part of an exact sum. ``OverflowError`` if the exact
        total becomes too large for a float. On any error the accumulator is
        left unchanged.

        Speed: about one numpy pass and two ``np.bincount`` per value, plus a
        Python loop over the distinct exponents present, whatever their span.
        """
        import numpy as np

        array: npt.NDArray[np.float64]
        if isinstance(values, np.ndarray):
            array = np.asarray(values, dtype=np.float64)
            if array.ndim != 1:
                raise ValueError(f"ExactSum.add takes a 1-D array, not {array.ndim}-D")
        else:
            array = np.fromiter(values, dtype=np.float64)
        if len(array) == 0:
            return self
        total = self._scaled() + _scaled_sum(array)
        self._partials = _partials(total)
        self._count += len(array)
        return self

    def merge(self, other: ExactSum) -> ExactSum:
        """Add ``other``'s exact sum and count to ``self`` exactly; return ``self``.

        ``other`` is not modified. ``a.merge(b)`` and ``b.merge(a)`` leave equal
        states, so partial aggregates can be combined in any tree.
        ``OverflowError`` (state unchanged) if the total is too large for a float.
        """
        if not isinstance(other, ExactSum):
            raise TypeError(f"ExactSum.merge takes an ExactSum, not {type(other).__name__}")
        if other._partials:
            self._partials = _partials(self._scaled() + other._scaled())
        self._count += other._count
        return self

    @property
    def value(self) -> float:
        """The exact sum, correctly rounded to a float; ``0.0`` if nothing was added."""
        return self._partials[0] if self._partials else 0.0

    @property
    def mean(self) -> float:
        """The exact sum divided by the count, correctly rounded (one rounding,
        not two); NaN if nothing was added."""
        from fractions import Fraction

        if not self._count:
            return math.nan
        return float(Fraction(self._scaled(), self._count << _SCALE))

    @property
    def count(self) -> int:
        """How many values were added (through :meth:`add` or :meth:`merge`)."""
        return self._count

    @property
    def partials(self) -> tuple[float, ...]:
        """Non-overlapping floats, largest first, summing exactly to the exact total."""
        return self._partials

    def _scaled(self) -> int:
        return sum(_scaled(p) for p in self._partials)

    def fraction(self) -> Fraction:
        """The exact sum as a Fraction (no rounding at all)."""
        from fractions import Fraction

        return Fraction(self._scaled(), 1 << _SCALE)

    def __eq__(self, other: object) -> bool:
        # The partials are canonical: equal iff the exact sums are equal.
        if not isinstance(other, ExactSum):
            return NotImplemented
        return self._count == other._count and self._partials == other._partials

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (
            f"ExactSum(value={self.value!r}, count={self._count}, "
            f"partials={list(self._partials)!r})"
        )

    def __getstate__(self) -> dict[str, Any]:
        return {"partials": list(self._partials), "count": self._count}

    def __setstate__(self, state: dict[str, Any]) -> None:
        partials = state["partials"]
        count = state["count"]
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise ValueError(f"ExactSum state: count must be an int >= 0, not {count!r}")
        if not all(isinstance(p, float) and math.isfinite(p) for p in partials):
            raise ValueError("ExactSum state: partials must be finite floats")
        # Re-canonicalised, so a hand-made state compares and rounds like any other.
        self._partials = _partials(sum(_scaled(p) for p in partials))
        self._count = count


_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitter for float64


def exact_squares(values: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64],
                                                            npt.NDArray[np.float64]]:
    """``hi + lo == x * x`` exactly for every value (Dekker's product) whose
    square does not underflow (|x| > 1e-146; below that each square is off by
    at most 1e-300). Computed in cache-sized blocks, in place."""
    import numpy as np

    values = np.ascontiguousarray(values, dtype=np.float64)
    square = np.multiply(values, values)
    error = np.empty_like(values)
    head = np.empty(min(len(values), _BLOCK))
    tail = np.empty_like(head)
    for start in range(0, len(values), _BLOCK):
        x = values[start:start + _BLOCK]
        h, t, e = head[:len(x)], tail[:len(x)], error[start:start + _BLOCK]
        np.multiply(x, _SPLIT, out=h)           # Veltkamp: h = c*x - (c*x - x)
        np.subtract(h, x, out=t)
        np.subtract(h, t, out=h)
        np.subtract(x, h, out=t)                # t = x - h, exactly
        np.multiply(h, h, out=e)                # e = ((h*h - p) + 2*h*t) + t*t
        np.subtract(e, square[start:start + _BLOCK], out=e)
        np.multiply(h, t, out=h)
        np.add(h, h, out=h)
        np.add(e, h, out=e)
        np.multiply(t, t, out=t)
        np.add(e, t, out=e)
    return square, error


def exact_products(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> tuple[
        npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``hi + lo == a * b`` exactly for every pair (Dekker's product, both
    factors split with Veltkamp's method) whose product does not underflow."""
    import numpy as np

    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    product = a * b
    a_high = a * _SPLIT
    a_high = a_high - (a_high - a)
    a_low = a - a_high
    b_high = b * _SPLIT
    b_high = b_high - (b_high - b)
    b_low = b - b_high
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    return product, error


def exact_variance(total: ExactSum, squares: ExactSum, ddof: int) -> float:
    """The variance (divisor ``count - ddof``) of the values whose exact sum is
    ``total`` and whose squares' exact sum is ``squares``, computed exactly and
    rounded once: the same whatever the partition of the values."""
    from fractions import Fraction

    m = total.count
    if m - ddof <= 0:
        return math.nan
    s1 = sum((Fraction(p) for p in total.partials), Fraction(0))
    s2 = sum((Fraction(p) for p in squares.partials), Fraction(0))
    return float(max((s2 - s1 * s1 / m) / (m - ddof), Fraction(0)))


def mean_and_variance(values: npt.NDArray[np.float64], ddof: int) -> tuple[float, float]:
    """The correctly rounded mean and the exact-moment variance of finite values."""
    total = ExactSum().add(values)
    square, error = exact_squares(values)
    squares = ExactSum().add(square).add(error)
    mean = total.mean
    return mean, exact_variance(total, squares, ddof)
