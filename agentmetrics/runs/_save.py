"""Writing a run to a file: JSON lines (a header, then one line per case) or
Parquet (one row per case, the header in the schema's metadata). Every value,
pass flag, reason, error and id as the result holds it."""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentmetrics.errors import InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._results import EvaluationResult

__all__ = ["FORMAT_VERSION", "HEADER_KEY", "encode_id", "format_of", "save_result"]

#: The key of a saved run's header, and the version of its layout.
HEADER_KEY = "agentmetrics_run"
FORMAT_VERSION = 1
_SUFFIXES = {".jsonl": "jsonl", ".json": "jsonl", ".parquet": "parquet"}


def format_of(path: str | os.PathLike[str], format: str | None) -> str:
    if format is not None:
        if format not in ("jsonl", "parquet"):
            raise InvalidParameterError(
                f"format: expected 'jsonl' or 'parquet', got {format!r}.")
        return format
    suffix = Path(path).suffix.lower()
    try:
        return _SUFFIXES[suffix]
    except KeyError:
        raise InvalidParameterError(
            f"{os.fspath(path)}: expected a saved run's file name ending in .jsonl or .json "
            f"(JSON lines) or .parquet, got the suffix {suffix or 'none'!r}. Fix: name the "
            f"file run.jsonl or run.parquet, or pass format='jsonl'.") from None


def encode_id(value: Any, row: int) -> Any:
    """A case id as JSON keeps it with its type: a string, an integer, a
    finite float, a boolean or None as itself; a tuple (pytest's
    ``(test, case)``) as ``{"tuple": [...]}``."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, tuple):
        return {"tuple": [encode_id(item, row) for item in value]}
    raise InvalidParameterError(
        f"row {row}: the case id {value!r} is a {type(value).__name__}; a saved run keeps "
        f"ids that are strings, integers, finite floats, booleans, None or tuples of those. "
        f"Fix: give the case a string id (metadata['id']).")


def _header(result: EvaluationResult) -> dict[str, Any]:
    return {HEADER_KEY: FORMAT_VERSION, "cases": len(result),
            "has_ids": result.batch.case_ids is not None,
            "provenance": result.provenance.to_json()}


def _columns(result: EvaluationResult) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    batch = result.batch
    ids = [encode_id(batch.case_id(row), row) for row in range(len(batch))]
    called, expected = batch.name_lists()
    invalid = [batch.invalid.get(row) for row in range(len(batch))]
    return ids, called, expected, invalid


def _scores(result: EvaluationResult) -> list[tuple[list[float | None], list[bool],
                                                    list[str | None], list[str | None]]]:
    out = []
    for scores in result.results.values():
        values = [None if v != v else v for v in scores.values.tolist()]
        reasons: list[str | None] = list(scores.reason_list())
        errors: list[str | None] = [None] * len(scores)
        for row, message in scores.errors.items():
            errors[row] = message
            reasons[row] = None
        out.append((values, [bool(p) for p in scores.passed.tolist()], reasons, errors))
    return out


def _jsonl_lines(result: EvaluationResult) -> Iterator[str]:
    yield json.dumps(_header(result), allow_nan=False) + "\n"
    ids, called, expected, invalid = _columns(result)
    scores = _scores(result)
    for row in range(len(result)):
        record: dict[str, Any] = {"case": row, "id": ids[row], "called": called[row],
                                  "expected": expected[row]}
        if invalid[row] is not None:
            record["invalid"] = invalid[row]
        record["scores"] = [[v[row], p[row], r[row], e[row]] for v, p, r, e in scores]
        yield json.dumps(record, allow_nan=False) + "\n"


def _write_parquet(result: EvaluationResult, target: str) -> None:
    from agentmetrics._optional import require

    pa = require("pyarrow", "arrow")
    import pyarrow.parquet as pq

    ids, called, expected, invalid = _columns(result)
    columns: dict[str, Any] = {
        "case": pa.array(range(len(result)), type=pa.int64()),
        "id": pa.array([json.dumps(i) for i in ids], type=pa.string()),
        "called": pa.array(called, type=pa.list_(pa.string())),
        "expected": pa.array(expected, type=pa.list_(pa.string())),
        "invalid": pa.array(invalid, type=pa.string()),
    }
    for k, (values, passed, reasons, errors) in enumerate(_scores(result)):
        columns[f"m{k}_value"] = pa.array(values, type=pa.float64())
        columns[f"m{k}_passed"] = pa.array(passed, type=pa.bool_())
        columns[f"m{k}_reason"] = pa.array(reasons, type=pa.string())
        columns[f"m{k}_error"] = pa.array(errors, type=pa.string())
    table = pa.table(columns).replace_schema_metadata(
        {HEADER_KEY: json.dumps(_header(result), allow_nan=False)})
    pq.write_table(table, target)


def save_result(result: EvaluationResult, path: str | os.PathLike[str],
                format: str | None = None) -> Path:
    """Write ``result`` to ``path`` whole or not at all (see
    :meth:`agentmetrics.EvaluationResult.save`)."""
    kind = format_of(path, format)
    target = Path(path)
    handle, temporary = tempfile.mkstemp(dir=target.parent if str(target.parent) else ".",
                                         prefix=f".{target.name}.", suffix=".tmp")
    try:
        if kind == "parquet":
            os.close(handle)
            try:
                _write_parquet(result, temporary)
            except UnicodeEncodeError as error:
                raise InvalidParameterError(
                    f"{os.fspath(path)}: a name, reason or id holds text Parquet cannot "
                    f"store ({error.reason} at {error.start}). Fix: save as JSON lines "
                    f"(run.jsonl), which keeps it exactly.") from None
        else:
            with os.fdopen(handle, "w", encoding="ascii", newline="\n") as out:
                out.writelines(_jsonl_lines(result))
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    return target
