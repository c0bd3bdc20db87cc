"""A canonical, type-tagged encoding of Python values: what a cache key is made of.

:func:`encode` turns a value into bytes such that two values get the same
bytes only if they are the same value of the same type: ``{1: "a"}`` and
``{"1": "a"}`` differ (JSON would merge them), so do ``1``, ``1.0`` and
``True``, ``-0.0`` and ``0.0``, a list and a tuple, and two numpy arrays that
print alike (their repr shortens with ``...``; their bytes do not). Every
part is tagged with its type and prefixed with its length, so no two
sequences of parts run together. Dicts and sets are encoded in the order of
their members' encodings, so insertion order never matters.

Encoded by content: None, bool, int, float (exactly, by ``float.hex``),
complex, str, bytes, list, tuple, dict, set, frozenset, Decimal, Fraction,
UUID, Enum members, paths, dates, times and datetimes (naive, fixed offset
or a named zone), timedeltas, :class:`~agentmetrics.ToolCall` and
:class:`~agentmetrics.AgentTestCase` (a turn), numpy scalars and arrays
(dtype, shape and data; a masked array with its mask, fill value and
hardness; ``np.matrix``, ``np.recarray`` and ``np.memmap`` tagged with their
class), pandas Series, Index, DataFrame (categoricals with their categories
and order), Timestamp, Timedelta and the missing-value markers. Anything
else has no faithful encoding and raises :class:`Unencodable`, another
ndarray subclass included (it may hold more than its data, as a mask): a
score depending on it is computed, never looked up under an approximate
key. ``fallback`` lets a caller encode a type of its own (a metric given as
a parameter) as a value that is itself encodable.
"""

from __future__ import annotations

import datetime
import decimal
import enum
import fractions
import pathlib
import uuid
from collections.abc import Callable
from typing import Any

import attrs

from agentmetrics.model._model import AgentTestCase, ToolCall

__all__ = ["Unencodable", "encode", "encode_fields"]


class Unencodable(Exception):
    """A value with no faithful encoding: ``what`` it is, and ``path``, the
    steps to it inside the value encoded (``[2]``, ``['args']``, ``.arguments``)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.path: list[str] = []
        super().__init__(what)

    @property
    def where(self) -> str:
        return "".join(self.path) or "the value"

    def __str__(self) -> str:
        return f"{self.where}: {self.what} has no faithful encoding"


Fallback = Callable[[Any], Any]


def encode(value: Any, fallback: Fallback | None = None) -> bytes:
    """``value`` as canonical bytes; :class:`Unencodable` if a part of it has none.

    ``fallback(part)`` is asked for parts of unknown types: it returns an
    encodable stand-in (tagged with the part's type), or raises Unencodable."""
    parts: list[bytes] = []
    try:
        _put(value, parts, fallback)
    except RecursionError:
        raise Unencodable("a value nested too deeply (or containing itself)") from None
    return b"".join(parts)


def encode_fields(names: tuple[str, ...], values: list[Any]) -> bytes:
    """``[(name, value), ...]`` encoded (what :func:`encode` gives for that list
    of pairs), faster: the names' encodings are worked out once per tuple."""
    head = _FIELD_HEADS.get(names)
    if head is None:
        head = tuple(b"t2:" + _text(b"s", name) for name in names)
        _FIELD_HEADS[names] = head
    parts: list[bytes] = [b"l%d:" % len(names)]
    try:
        for encoded_name, value, name in zip(head, values, names):
            parts.append(encoded_name)
            try:
                _put(value, parts, None)
            except Unencodable as error:
                raise _step(error, f".{name}") from None
    except RecursionError:
        raise Unencodable("a value nested too deeply (or containing itself)") from None
    return b"".join(parts)


_FIELD_HEADS: dict[tuple[str, ...], tuple[bytes, ...]] = {}


def _text(tag: bytes, text: str) -> bytes:
    data = text.encode("utf-8", "surrogatepass")
    return tag + str(len(data)).encode() + b":" + data


def _type_name(value: Any) -> str:
    cls = type(value)
    return f"{cls.__module__}.{cls.__qualname__}"


def _step(error: Unencodable, step: str) -> Unencodable:
    error.path.insert(0, step[:120])
    return error


#: Per ToolCall class: its fields, and their names as encoded (worked out once).
_CALL_FIELDS: dict[type, tuple[bytes, tuple[tuple[str, bytes], ...]]] = {}


def _call_fields(kind: type) -> tuple[bytes, tuple[tuple[str, bytes], ...]]:
    known = _CALL_FIELDS.get(kind)
    if known is None:
        fields = attrs.fields(kind)
        head = _text(b"C", f"{kind.__module__}.{kind.__qualname__}") + b"%d:" % len(fields)
        known = head, tuple((field.name, _text(b"s", field.name)) for field in fields)
        _CALL_FIELDS[kind] = known
    return known


def _put(value: Any, out: list[bytes], fallback: Fallback | None) -> None:
    kind = type(value)
    if kind is str:
        data = value.encode("utf-8", "surrogatepass")
        out.append(b"s%d:" % len(data))
        out.append(data)
    elif value is None:
        out.append(b"N")
    elif kind is int:
        out.append(b"i%d:" % value if -(2 ** 62) < value < 2 ** 62 else _text(b"I", str(value)))
    elif kind is bool:
        out.append(b"T" if value else b"F")
    elif kind is float:
        out.append(_text(b"f", value.hex()))
    elif kind is list or kind is tuple:
        out.append((b"l%d:" if kind is list else b"t%d:") % len(value))
        for index, item in enumerate(value):
            try:
                _put(item, out, fallback)
            except Unencodable as error:
                raise _step(error, f"[{index}]") from None
    elif kind is dict or (isinstance(value, dict) and kind.__module__ == "collections"):
        ordered = kind.__name__ == "OrderedDict"  # its equality is order-sensitive
        if not ordered and all(type(key) is str for key in value):
            # The common case: str keys sort as their encodings do (UTF-8 keeps
            # code point order), so the items are encoded in key order directly.
            out.append(b"d%d:" % len(value))
            for key in sorted(value):
                data = key.encode("utf-8", "surrogatepass")
                out.append(b"s%d:" % len(data))
                out.append(data)
                item = value[key]
                leaf = type(item)
                if leaf is str:  # the leaves of arguments, inline: no call per value
                    data = item.encode("utf-8", "surrogatepass")
                    out.append(b"s%d:" % len(data))
                    out.append(data)
                elif leaf is int and -(2 ** 62) < item < 2 ** 62:
                    out.append(b"i%d:" % item)
                elif item is None:
                    out.append(b"N")
                else:
                    try:
                        _put(item, out, fallback)
                    except Unencodable as error:
                        raise _step(error, f"[{key!r}]") from None
            return
        entries = []
        for key, item in value.items():
            try:
                entries.append((encode(key, fallback), encode(item, fallback)))
            except Unencodable as error:
                raise _step(error, f"[{key!r}]") from None
        if not ordered:
            entries.sort()
        out.append((b"o%d:" if ordered else b"d%d:") % len(entries))
        for encoded_key, encoded_item in entries:
            out.append(encoded_key)
            out.append(encoded_item)
    elif kind is bytes:
        out.append(b"b%d:" % len(value))
        out.append(value)
    elif kind is set or kind is frozenset:
        try:
            members = sorted(encode(item, fallback) for item in value)
        except Unencodable as error:
            raise _step(error, " member") from None
        out.append((b"S%d:" if kind is set else b"Z%d:") % len(members))
        out.extend(members)
    elif isinstance(value, (ToolCall, AgentTestCase)):
        head, fields = _call_fields(kind)
        out.append(head)
        for name, encoded_name in fields:
            out.append(encoded_name)
            part = getattr(value, name)
            if type(part) is str:  # the name, the id, the raw arguments: inline
                data = part.encode("utf-8", "surrogatepass")
                out.append(b"s%d:" % len(data))
                out.append(data)
            elif part is None:
                out.append(b"N")
            else:
                try:
                    _put(part, out, fallback)
                except Unencodable as error:
                    raise _step(error, f".{name}") from None
    else:
        _put_other(value, out, fallback)


def _put_other(value: Any, out: list[bytes], fallback: Fallback | None) -> None:
    kind = type(value)
    module = kind.__module__.partition(".")[0]
    if module == "numpy":
        _put_numpy(value, out, fallback)
    elif module == "pandas":
        _put_pandas(value, out, fallback)
    elif isinstance(value, enum.Enum):
        out.append(_text(b"E", _type_name(value)))
        _put(value.name, out, fallback)
        _put(value.value, out, fallback)
    elif module == "agentmetrics" and kind.__name__ == "Expectation" and hasattr(value, "canonical"):
        out.append(_text(b"X", value.canonical()))
    elif kind is complex:
        out.append(_text(b"j", f"{value.real.hex()},{value.imag.hex()}"))
    elif kind is decimal.Decimal:
        out.append(_text(b"D", str(value)))
    elif kind is fractions.Fraction:
        out.append(_text(b"Q", f"{value.numerator}/{value.denominator}"))
    elif kind is uuid.UUID:
        out.append(_text(b"U", value.hex))
    elif isinstance(value, pathlib.PurePath):
        out.append(_text(b"P", _type_name(value)))
        out.append(_text(b"s", str(value)))
    elif kind in (datetime.datetime, datetime.time):
        out.append(_text(b"W" if kind is datetime.datetime else b"H",
                         f"{value.isoformat()}|{value.fold}|{_zone(value.tzinfo)}"))
    elif kind is datetime.date:
        out.append(_text(b"Y", value.isoformat()))
    elif kind is datetime.timedelta:
        out.append(_text(b"R", f"{value.days},{value.seconds},{value.microseconds}"))
    else:
        _put_fallback(value, out, fallback)


def _put_fallback(value: Any, out: list[bytes], fallback: Fallback | None) -> None:
    if fallback is None:
        raise Unencodable(f"a {_type_name(value)}")
    stand_in = fallback(value)
    out.append(_text(b"X", _type_name(value)))
    _put(stand_in, out, fallback)


def _zone(tzinfo: datetime.tzinfo | None) -> str:
    if tzinfo is None:
        return ""
    if type(tzinfo) is datetime.timezone:
        return f"offset {tzinfo.utcoffset(None)}"
    key = getattr(tzinfo, "key", None)  # zoneinfo.ZoneInfo: the zone's name says it all
    if type(tzinfo).__module__ == "zoneinfo" and isinstance(key, str):
        return f"zone {key}"
    raise Unencodable(f"a time zone of type {_type_name(tzinfo)}")


def _put_array(value: Any, out: list[bytes], fallback: Fallback | None) -> None:
    """A plain ndarray: its dtype, shape and data."""
    import numpy as np

    dtype = value.dtype
    out.append(_text(b"A", f"{dtype.descr!r}|{value.shape!r}"))
    if dtype.hasobject:
        for index, item in enumerate(value.ravel(order="C").tolist()):
            try:
                _put(item, out, fallback)
            except Unencodable as error:
                raise _step(error, f".flat[{index}]") from None
    else:
        data = np.ascontiguousarray(value).tobytes()
        out.append(b"b" + str(len(data)).encode() + b":" + data)


def _put_numpy(value: Any, out: list[bytes], fallback: Fallback | None) -> None:
    import numpy as np

    if isinstance(value, np.ndarray):
        kind = type(value)
        if kind is np.ndarray:
            _put_array(value, out, fallback)
        elif value is np.ma.masked:  # the masked constant: one of a kind
            out.append(_text(b"m", "numpy.ma.masked"))
        elif kind is np.ma.MaskedArray:
            # What a reader of a masked array sees: its data, its mask, the
            # value filled in where it is masked, and whether the mask is hard.
            masked: Any = value
            out.append(_text(b"m", _type_name(value)))
            _put_array(np.asarray(masked.data), out, fallback)
            _put_array(np.ma.getmaskarray(masked), out, fallback)
            try:
                _put(masked.fill_value, out, fallback)
            except Unencodable as error:
                raise _step(error, ".fill_value") from None
            _put(bool(masked.hardmask), out, fallback)
        elif kind in (np.matrix, np.recarray, np.memmap):
            # Their data is all they hold; their class changes how they behave.
            out.append(_text(b"n", _type_name(value)))
            _put_array(value.view(np.ndarray), out, fallback)
        else:
            raise Unencodable(f"a {_type_name(value)} (a subclass of numpy.ndarray, which "
                              f"may hold more than its data)")
    elif isinstance(value, np.generic) and not value.dtype.hasobject:
        data = value.tobytes()
        out.append(_text(b"G", f"{value.dtype.descr!r}") + str(len(data)).encode() + b":" + data)
    elif isinstance(value, np.dtype):
        out.append(_text(b"K", repr(value.descr)))
    else:
        _put_fallback(value, out, fallback)


def _put_pandas(value: Any, out: list[bytes], fallback: Fallback | None) -> None:
    name = type(value).__name__
    if name in ("NAType", "NaTType"):
        out.append(_text(b"M", name))
    elif name == "Timestamp":
        out.append(_text(b"V", f"{value.value}|{value.unit}|{_zone(value.tzinfo)}"))
    elif name == "Timedelta":
        out.append(_text(b"B", f"{value.value}|{value.unit}"))
    elif name == "Series" or name.endswith("Index"):
        out.append(_text(b"L" if name == "Series" else b"I", f"{name}|{value.dtype}"))
        _put_categories(value.dtype, out, fallback)
        names = getattr(value, "names", None)
        _put(list(names) if names is not None else value.name, out, fallback)
        if name == "Series":
            try:
                _put_pandas(value.index, out, fallback)
            except Unencodable as error:
                raise _step(error, ".index") from None
        _put_values(value, out, fallback)
    elif name == "DataFrame":
        out.append(_text(b"J", f"DataFrame|{value.shape!r}"))
        for part in ("columns", "index"):
            try:
                _put_pandas(getattr(value, part), out, fallback)
            except Unencodable as error:
                raise _step(error, f".{part}") from None
        for position in range(value.shape[1]):
            column = value.iloc[:, position]
            out.append(_text(b"s", str(column.dtype)))
            _put_categories(column.dtype, out, fallback)
            try:
                _put_values(column, out, fallback)
            except Unencodable as error:
                raise _step(error, f".iloc[:, {position}]") from None
    else:
        _put_fallback(value, out, fallback)


def _put_categories(dtype: Any, out: list[bytes], fallback: Fallback | None) -> None:
    """What ``str(dtype)`` leaves out of a categorical ("category"): its
    categories, in order, and whether they are ordered."""
    if type(dtype).__name__ != "CategoricalDtype":
        return
    out.append(b"T" if dtype.ordered else b"F")
    categories = dtype.categories
    if categories is None:
        out.append(b"N")
        return
    try:
        _put_pandas(categories, out, fallback)
    except Unencodable as error:
        raise _step(error, ".dtype.categories") from None


def _put_values(value: Any, out: list[bytes], fallback: Fallback | None) -> None:
    import numpy as np

    dtype = value.dtype
    array = value.to_numpy() if isinstance(dtype, np.dtype) else value.to_numpy(dtype=object)
    _put_numpy(np.asarray(array), out, fallback)
