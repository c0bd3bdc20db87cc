"""Synthetic cases as Parquet files, shared by the benchmarks that read them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq


def write_cases(folder: Path, n: int, files: int, seed: int = 0, tools: int = 200,
                objects: bool = False, row_group_size: int = 250_000) -> int:
    """``files`` Parquet files of ``n`` cases: 0-5 calls a side out of
    ``tools`` names, string ids; with ``objects`` the calls are
    ``{name, arguments: {seat, city}}`` structs. Returns the in-memory Arrow size."""
    rng = np.random.default_rng(seed)
    names = pa.array([f"tool_{i}" for i in range(tools)])
    size = 0
    per_file = -(-n // files)
    for number, start in enumerate(range(0, n, per_file)):
        rows = min(per_file, n - start)

        def side() -> pa.Array:
            lengths = rng.integers(0, 6, rows)
            offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
            count = int(offsets[-1])
            values: pa.Array = names.take(pa.array(rng.integers(0, tools, count)))
            if objects:
                arguments = pa.StructArray.from_arrays(
                    [pa.array(rng.integers(0, 3, count)),
                     pa.array(np.where(rng.random(count) < 0.5, "Oslo", "Lima"))],
                    names=["seat", "city"])
                values = pa.StructArray.from_arrays([values, arguments],
                                                    names=["name", "arguments"])
            return pa.ListArray.from_arrays(pa.array(offsets), values)

        table = pa.table({
            "id": pa.array(np.char.add("case-", np.arange(start, start + rows).astype(str))),
            "tool_calls": side(), "expected_tool_calls": side()})
        size += table.nbytes
        pq.write_table(table, folder / f"part-{number:03d}.parquet",
                       row_group_size=row_group_size)
    return size
