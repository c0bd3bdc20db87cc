"""Writing a run to a file, whole or not at all: JSON lines (the header, then
one line per case), one JSON document (the header's fields, then ``rows``,
one case a line) or Parquet (one row per case, the header in the schema's
metadata). Every value (to the bit), pass flag, reason, error, case id (with
its type), call name and, where the cases have any, their metadata and the
case fields of :data:`~agentmetrics.runs._format.CASE_FIELDS` (input,
outputs, latency, cost, usage; scrubbed of the metrics' secrets), and in
the header what the run was made with (``config``, format 3; a run without
one is written as format 2). The bytes are hashed as they are written (see
:mod:`agentmetrics.runs._identity`).

Below :mod:`agentmetrics.results._results`, which calls it: it reads a result only
through its attributes and methods.

One JSONL line per case::

    {"case": 0, "id": "c1", "tool_calls": ["A"], "expected_tool_calls": ["A", "B"],
     "invalid": null, "scores": [[0.5, false, "Missing expected tool: B", null]]}

``scores`` holds ``[value, passed, reason, error]`` per metric, in the order of
the header's ``provenance.metrics`` (labels are never column names, so any
label is kept as it is); ``metadata`` is there when the header says so. A
JSON file is ``{<the header's fields>, "rows": [<these lines>]}``. Each case
field the header's ``case_fields`` names follows (``"latency": 1.5``, null
where the case has none). In
Parquet the columns are ``case``, ``id`` (the id's JSON text), ``tool_calls``
and ``expected_tool_calls`` (``list<string>``), ``invalid``, ``metadata`` (JSON
text, when kept), each kept case field (JSON text), and per metric ``k`` (its index) ``m{k}.value``,
``m{k}.passed``, ``m{k}.reason``, ``m{k}.error``.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from itertools import pairwise
from json.encoder import encode_basestring
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from agentmetrics._base._files import atomic_write
from agentmetrics._base._optional import require
from agentmetrics._columnar import paused_gc
from agentmetrics.errors import InvalidCaseError, InvalidParameterError
from agentmetrics.model._model import AgentTestCase
from agentmetrics._secrets import scrub
from agentmetrics.runs._format import (
    CASE_FIELDS,
    FIELDS,
    FORMAT_KEY,
    FORMAT_VERSION,
    PLAIN_VERSION,
    ROWS_KEY,
    check_header,
    encode_field,
    encode_id,
    encode_metadata,
    encode_score,
    form_of,
)
from agentmetrics.runs._identity import digest_of, new_hash, remember
from agentmetrics.runs._provenance import field_values

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.results._results import EvaluationResult

__all__ = ["save_result"]

#: Lines encoded and written at a time.
_BLOCK = 8192
_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False, check_circular=False)
_ASCII = json.JSONEncoder(ensure_ascii=True, allow_nan=False, check_circular=False)


class _Run:
    """What is written of a result, column by column, checked once for both forms."""

    def __init__(self, result: EvaluationResult, metadata: bool) -> None:
        batch = result.batch
        self.n = n = len(result)
        provenance = result.provenance
        labels = [spec.label for spec in provenance.metrics]
        if labels != list(result.results) or provenance.cases != n:
            raise InvalidParameterError(
                f"save: the result's provenance describes {provenance.cases} cases and the "
                f"metrics {labels}, but the result has {n} cases and the metrics "
                f"{list(result.results)}; expected the provenance of this result. Fix: build "
                f"the EvaluationResult without provenance=, so that it takes its own.")
        self.provenance = provenance
        #: What the run was made with (masked when it was made).
        self.config = result.config
        self.has_ids = batch.case_ids is not None
        self.ids: list[Any] | None = None
        if batch.case_ids is not None:
            self.ids = [encode_id(case_id, row) for row, case_id in enumerate(batch.case_ids)]
        self.invalid = dict(batch.invalid)
        self.metadata: list[Any] | None = None
        cases = batch.cases
        if metadata and cases is not None and _has_metadata(cases):

            self.metadata = [encode_metadata(case.metadata, row)
                             if isinstance(case, AgentTestCase) else None
                             for row, case in enumerate(cases)]
        #: The case fields any case has, by name: each row's value as JSON,
        #: scrubbed of the metrics' secrets as their reasons are.
        self.fields: dict[str, list[Any]] = {}
        secrets = tuple(dict.fromkeys(form for scores in result.results.values()
                                      for form in scores.metric._secret_forms()))
        for name in CASE_FIELDS:
            kept = field_values(batch, name)
            if kept is not None:
                self.fields[name] = [None if value is None else
                                     _scrubbed(encode_field(value, name, row), secrets)
                                     for row, value in enumerate(kept)]
        #: Per metric that declares per-case statistics, each column as JSON
        #: numbers (what its corpus aggregates are computed from again).
        self.statistics: dict[str, dict[str, list[Any]]] = {}
        for label, scores in result.results.items():
            if type(scores.metric).statistics:
                self.statistics[label] = {name: list(map(encode_score, column.tolist()))
                                          for name, column in scores.statistics.items()}
        self.scores = []
        for scores in result.results.values():
            values = scores.values
            if values.dtype != np.float64 or len(values) != n or len(scores.passed) != n:
                raise InvalidParameterError(
                    f"save: {scores.metric!r} holds {len(values)} {values.dtype} values and "
                    f"{len(scores.passed)} pass flags; expected {n} float64 values and flags.")
            reasons: list[str | None] = list(scores.reason_list())
            errors: list[str | None] = [None] * n
            for row, message in scores.errors.items():
                errors[int(row)] = str(message)
                reasons[int(row)] = None  # an error row's reason is its error
            self.scores.append((values, scores.passed.astype(bool, copy=False), reasons, errors))
        try:  # what loading would refuse is never written (a provenance built by hand)
            check_header(self.header(), "save")
        except InvalidCaseError as error:
            raise InvalidParameterError(
                f"{str(error).split('. Fix:')[0]}. Fix: build the EvaluationResult without "
                f"provenance=, so that it takes its own.") from None

    def header(self) -> dict[str, Any]:
        # A run without a configuration is written as the format before it, which
        # an older agentmetrics reads too.
        version = FORMAT_VERSION if self.config else PLAIN_VERSION
        return {FORMAT_KEY: version, "cases": self.n, "ids": self.has_ids,
                "metadata": self.metadata is not None, "fields": list(FIELDS),
                "case_fields": list(self.fields), "provenance": self.provenance.to_json(),
                **({"statistics": self.statistics} if self.statistics else {}),
                **({"config": dict(self.config)} if self.config else {})}


def _scrubbed(value: Any, secrets: tuple[str, ...]) -> Any:
    """A case field's JSON with every string in it scrubbed as a metric's
    reason is (:func:`agentmetrics._secrets.scrub`: the run's metrics' known
    secrets in every form, and the credentials of URLs)."""
    if type(value) is str:
        return scrub(value, secrets)
    if type(value) is list:
        return [_scrubbed(item, secrets) for item in value]
    if type(value) is dict:
        return {key: _scrubbed(item, secrets) for key, item in value.items()}
    return value


def _has_metadata(cases: Any) -> bool:
    """Whether any case has metadata beyond its id (which the ids keep)."""
    for case in cases:
        metadata = getattr(case, "metadata", None)
        if metadata and (len(metadata) > 1 or "id" not in metadata):
            return True
    return False


def _score_column(values: Any) -> list[str]:
    """Each value's JSON text: ``repr`` of a finite float (what json.dumps
    writes), null for NaN, a float tag for any other non-finite value."""
    texts: list[str] = list(map(float.__repr__, values.tolist()))
    if not np.isfinite(values).all():
        for row in np.flatnonzero(~np.isfinite(values)).tolist():
            texts[row] = _JSON.encode(encode_score(float(values[row])))
    return texts


def _texts(column: list[str | None]) -> list[str]:
    """Strings (or None) as JSON text, at C speed."""
    if None not in column:
        return list(map(encode_basestring, column))  # type: ignore[arg-type]
    return ["null" if text is None else encode_basestring(text) for text in column]


def _name_texts(batch: Any, invalid: dict[int, str]) -> tuple[list[str], list[str]]:
    """Each row's called and expected names as JSON text (null where not
    given, and on both sides of a row that could not be read): each name
    encoded once, rows joined from the encoded names."""
    encoded = np.empty(len(batch.vocabulary), dtype=object)
    encoded[:] = [encode_basestring(name) for name in batch.vocabulary]
    sides = []
    for ids, offsets, given in ((batch.called_ids, batch.called_offsets, batch.called_given),
                                (batch.expected_ids, batch.expected_offsets,
                                 batch.expected_given)):
        flat = encoded[ids].tolist()
        join = ", ".join
        rows = [f"[{join(flat[a:b])}]" for a, b in pairwise(offsets.tolist())]
        for row in np.flatnonzero(~np.asarray(given, dtype=bool)).tolist():
            rows[row] = "null"
        for row in invalid:
            rows[row] = "null"
        sides.append(rows)
    return sides[0], sides[1]


def _jsonl_lines(run: _Run, batch: Any, document: bool = False) -> Iterator[str]:
    """The header line, then one line per case; each column's text made at
    once (the same JSON as json.dumps of each record, tested). A
    ``document``: the header's fields open the document's object, its rows
    are separated by commas, and the last line closes it."""
    header = _ASCII.encode(run.header())
    if not document:
        yield header + "\n"
    else:
        yield f'{header[:-1]}, "{ROWS_KEY}": [' + ("\n" if run.n else "")
    called, expected = _name_texts(batch, run.invalid)
    id_texts = ["null"] * run.n if run.ids is None else _id_texts(run.ids)
    invalid = ["null"] * run.n
    for row, message in run.invalid.items():
        invalid[row] = encode_basestring(message)
    metadata = (None if run.metadata is None else
                [", \"metadata\": " + _JSON.encode(m) for m in run.metadata])
    fields = [[f", \"{name}\": " + _JSON.encode(value) for value in values]
              for name, values in run.fields.items()]
    scores = [list(zip(_score_column(values), map(_BOOLS.__getitem__, passed.tolist()),
                       _texts(reasons), _texts(errors)))
              for values, passed, reasons, errors in run.scores]
    last = run.n - 1
    for row in range(run.n):
        entries = ", ".join(f"[{v}, {p}, {r}, {e}]" for v, p, r, e in
                            (column[row] for column in scores))
        end = ("}\n" if not document else "},\n" if row < last else "}\n")
        yield (f'{{"case": {row}, "id": {id_texts[row]}, "tool_calls": {called[row]}, '
               f'"expected_tool_calls": {expected[row]}, "invalid": {invalid[row]}'
               f'{"" if metadata is None else metadata[row]}'
               f'{"".join(column[row] for column in fields)}, "scores": [{entries}]{end}')
    if document:
        yield "]}\n"


_BOOLS = {True: "true", False: "false"}


def _write_jsonl(run: _Run, batch: Any, handle: IO[bytes], running: Any,
                 document: bool = False) -> None:
    """The JSON lines (or the JSON ``document``) written to ``handle``, every
    byte also given to the running digest."""
    lines = _jsonl_lines(run, batch, document)
    while True:
        block = [line for _, line in zip(range(_BLOCK), lines)]
        if not block:
            return
        try:
            data = "".join(block).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: those lines as \u escapes, exactly
            data = b"".join(map(_exact_bytes, block))
        running.update(data)
        handle.write(data)


def _exact_bytes(line: str) -> bytes:
    """A case's line as UTF-8, or, where it holds a lone surrogate, with its
    strings as \\u escapes (ASCII), which JSON reads back to the same text
    (a row of a JSON document keeps the comma that ends it). The header and
    the document's last line are ASCII already."""
    try:
        return line.encode("utf-8")
    except UnicodeEncodeError:
        body = line.rstrip("\n")
        comma = body.endswith(",")
        record = json.loads(body[:-1] if comma else body)
        return (_ASCII.encode(record) + ("," if comma else "") + "\n").encode("ascii")


def _name_lists(pa: Any, vocabulary: Any, ids: Any, offsets: Any, given: Any,
                invalid: dict[int, str]) -> Any:
    """One side's names as a ``list<string>`` column, built from the batch's
    arrays (no Python object per name); a null list where not given."""
    mask = ~np.asarray(given, dtype=bool)
    if invalid:
        mask = mask.copy()
        mask[list(invalid)] = True
    values = vocabulary.take(pa.array(ids, type=pa.int32())) if len(ids) else pa.array(
        [], type=pa.string())
    offsets = np.asarray(offsets, dtype=np.int64)
    if offsets[-1] > np.iinfo(np.int32).max:
        return pa.LargeListArray.from_arrays(pa.array(offsets), values, mask=pa.array(mask))
    return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), values,
                                    mask=pa.array(mask))


def _id_texts(ids: list[Any]) -> list[str]:
    if all(type(value) is str for value in ids):
        return list(map(encode_basestring, ids))  # what json.dumps gives a str, at C speed
    return [_JSON.encode(value) for value in ids]


def _write_parquet(run: _Run, batch: Any, target: str) -> None:

    pa = require("pyarrow", "arrow")
    pq = require("pyarrow.parquet", "arrow")
    vocabulary = pa.array(batch.vocabulary, type=pa.string())
    columns: dict[str, Any] = {
        "case": pa.array(np.arange(run.n, dtype=np.int64)),
        "id": pa.array(_id_texts(run.ids if run.ids is not None else [None] * run.n),
                       type=pa.string()),
        "tool_calls": _name_lists(pa, vocabulary, batch.called_ids, batch.called_offsets,
                                  batch.called_given, run.invalid),
        "expected_tool_calls": _name_lists(pa, vocabulary, batch.expected_ids,
                                           batch.expected_offsets, batch.expected_given,
                                           run.invalid),
        "invalid": pa.array([run.invalid.get(row) for row in range(run.n)] if run.invalid
                            else pa.nulls(run.n, pa.string()), type=pa.string()),
    }
    if run.metadata is not None:
        columns["metadata"] = pa.array([None if m is None else _JSON.encode(m)
                                        for m in run.metadata], type=pa.string())
    for name, kept in run.fields.items():  # each value's JSON text (null: none)
        columns[name] = pa.array([None if value is None else _JSON.encode(value)
                                  for value in kept], type=pa.string())
    for k, (values, passed, reasons, errors) in enumerate(run.scores):
        columns[f"m{k}.value"] = pa.array(values, type=pa.float64())
        columns[f"m{k}.passed"] = pa.array(passed, type=pa.bool_())
        columns[f"m{k}.reason"] = pa.array(reasons, type=pa.string())
        columns[f"m{k}.error"] = pa.array(errors, type=pa.string())
    table = pa.table(columns).replace_schema_metadata(
        {FORMAT_KEY: _ASCII.encode(run.header())})
    # Dictionaries for the text (names repeat, reasons too); never for the values,
    # which are kept as their bits.
    text = ["id", "tool_calls.list.element", "expected_tool_calls.list.element", "invalid",
            "metadata", *run.fields, *(f"m{k}.{field}" for k in range(len(run.scores))
                          for field in ("reason", "error"))]
    if any(isinstance(columns[side], pa.LargeListArray) for side in ("tool_calls",
                                                                     "expected_tool_calls")):
        text = [name.replace(".list.", ".large_list.") if ".list." in name else name
                for name in text]
    pq.write_table(table, target, compression="zstd", use_dictionary=text)


def save_result(result: EvaluationResult, path: str | os.PathLike[str],
                format: str | None = None, *, metadata: bool = True) -> Path:
    """Write ``result`` to ``path`` whole or not at all: into a temporary file
    beside it, then renamed over it (see :meth:`agentmetrics.EvaluationResult.save`)."""
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidParameterError(f"path: expected a file path, got {type(path).__name__}.")
    form = form_of(path, format)
    if not isinstance(metadata, bool):
        raise InvalidParameterError(f"metadata: expected True or False, got {metadata!r}.")
    target = Path(path)
    if target.is_dir():
        raise InvalidParameterError(f"{os.fspath(path)}: a directory; expected the path of a "
                                    f"file to save the run in, e.g. {target / 'run.jsonl'}.")
    if not target.parent.is_dir():
        raise InvalidParameterError(f"{os.fspath(path)}: the folder {target.parent} does not "
                                    f"exist; expected the path of a file in a folder that does. "
                                    f"Fix: create the folder first.")
    if form == "parquet":

        require("pyarrow", "arrow")  # before any work: say what to install at once
    with paused_gc():  # many short-lived strings, no cycles: nothing to collect
        return _save(result, target, form, metadata)


def _save(result: EvaluationResult, target: Path, form: str, metadata: bool) -> Path:
    path = target
    run = _Run(result, metadata)
    running = new_hash()
    with atomic_write(target) as (raw, temporary):
        if form == "parquet":
            raw.close()
            try:
                _write_parquet(run, result.batch, temporary)
            except UnicodeEncodeError as error:
                raise InvalidParameterError(
                    f"{os.fspath(path)}: a tool name, reason, error or id holds text that "
                    f"Parquet cannot store (a lone surrogate, {error.object[error.start:error.end]!r}). "
                    f"Fix: save as JSON lines (run.jsonl), which keeps it exactly.") from None
            with open(temporary, "rb") as written:  # pyarrow writes it: hashed as it is
                while block := written.read(1 << 22):
                    running.update(block)
        elif target.name.lower().endswith(".gz"):
            with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as out:
                _write_jsonl(run, result.batch, out, running, form == "json")  # type: ignore[arg-type]
        else:
            _write_jsonl(run, result.batch, raw, running, form == "json")
    remember(target, result, run.provenance.uid, digest_of(running))
    return target
