"""agentmetrics.dask against single-process agentmetrics.evaluate, on Parquet.

    python benchmarks/bench_dask.py [--cases 20000000] [--files 20] [--repeats 3]

The cases (synthetic runs: 0-5 calls a side out of 200 tools, string ids)
are written once as --files Parquet files. Then, side by side and
interleaved, --repeats times:

(a) single process: pyarrow.parquet.read_table of the files, then
    agentmetrics.evaluate on the table and its summary() and per_tool();
(a') single process, file after file: agentmetrics.partition.aggregate of each
    file and a merge (the work of (b) done serially: its ratio to (b) is the
    parallel speed-up alone);
(b) agentmetrics.dask on a LocalCluster of 2 worker processes with 1 thread
    each (started once, not timed): evaluate(paths), summary() and
    per_tool() (one pass: the workers read and score their files, only the
    partial aggregates travel); (b1) the same with 1 worker, after the others.

Goal (issue 14): (b) at least 1.6x faster than (a) on this 2-core machine.

(c) Out of core: a new cluster whose workers may each hold a quarter of the
    data's in-memory size; the same summary, with partitions of
    --partition-rows. Reports whether it completed, the workers' peak
    memory, any worker restart, and the client's peak memory (the client
    never holds per-case rows).

Medians (2 noisy cores). The summaries of (a) and (b) are checked equal.
"""

from __future__ import annotations

import argparse
import logging
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq

import agentmetrics as am
import agentmetrics.dask as amd
from _synthetic import write_cases

TSA = "tool_selection_accuracy"


def single_process(folder: Path) -> tuple[float, object]:
    start = time.perf_counter()
    table = pq.read_table(folder)
    result = am.evaluate(table, TSA, progress=False)
    summary, per_tool = result.summary(), result.per_tool()
    return time.perf_counter() - start, (summary.rows, per_tool.rows)


def serial_partitions(folder: Path) -> tuple[float, object]:
    """What each worker does, done by one process file after file: read, score,
    aggregate, merge (the same work as (b), without the parallelism)."""
    from agentmetrics import partition

    start = time.perf_counter()
    parts = [partition.aggregate(pq.read_table(path), [TSA])
             for path in sorted(folder.glob("*.parquet"))]
    total = partition.merge(parts)
    return time.perf_counter() - start, (total.summary().rows, total.per_tool().rows)


def distributed(folder: Path, partition_rows: int) -> tuple[float, object]:
    start = time.perf_counter()
    run = amd.evaluate(str(folder / "*.parquet"), TSA, partition_rows=partition_rows)
    summary, per_tool = run.summary(), run.per_tool()
    return time.perf_counter() - start, (summary.rows, per_tool.rows)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20_000_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--partition-rows", type=int, default=1 << 20)
    parser.add_argument("--out-of-core-rows", type=int, default=250_000)
    parser.add_argument("--out-of-core", nargs=2, metavar=("FOLDER", "SIZE"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.out_of_core:
        out_of_core(Path(args.out_of_core[0]), int(args.out_of_core[1]), args.out_of_core_rows)
        return
    from distributed import Client, LocalCluster

    with tempfile.TemporaryDirectory(prefix="agentmetrics-bench-dask-") as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        size = write_cases(folder, args.cases, args.files)
        on_disk = sum(f.stat().st_size for f in folder.glob("*.parquet"))
        print(f"{args.cases:,} cases in {args.files} Parquet files: {size / 1e6:,.0f} MB in "
              f"memory (Arrow), {on_disk / 1e6:,.0f} MB on disk; written in "
              f"{time.perf_counter() - start:.1f} s")
        print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}")

        start = time.perf_counter()
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
        client.run(lambda: __import__("agentmetrics.partition"))  # warm imports, not timed
        print(f"LocalCluster (2 workers x 1 thread) started in "
              f"{time.perf_counter() - start:.1f} s (not timed below)\n")
        ones: list[float] = []
        serial: list[float] = []
        theirs: list[float] = []
        for _ in range(args.repeats):
            seconds, reference = single_process(folder)
            ones.append(seconds)
            seconds, tables = serial_partitions(folder)
            serial.append(seconds)
            assert tables == reference, "the merged summary differs"
            seconds, tables = distributed(folder, args.partition_rows)
            theirs.append(seconds)
            assert tables == reference, "the distributed summary differs"
        single_peak = peak_mb()
        client.close()
        cluster.close()
        # The same cluster with one worker: how the time scales with workers.
        cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
        client.run(lambda: __import__("agentmetrics.partition"))
        alone = statistics.median(distributed(folder, args.partition_rows)[0]
                                  for _ in range(args.repeats))
        client.close()
        cluster.close()
        one, many = statistics.median(ones), statistics.median(theirs)
        chunked = statistics.median(serial)
        print(f"(a)  single process: read_table + evaluate + summary/per_tool  {one:7.2f} s  "
              f"{args.cases / one / 1e6:5.2f} M cases/s  1.00x  (peak {single_peak:,.0f} MB)")
        print(f"(a') single process, file after file: aggregate + merge      {chunked:7.2f} s  "
              f"{args.cases / chunked / 1e6:5.2f} M cases/s  {one / chunked:.2f}x")
        print(f"(b)  agentmetrics.dask, 2 workers: the same                   {many:7.2f} s  "
              f"{args.cases / many / 1e6:5.2f} M cases/s  {one / many:.2f}x "
              f"({chunked / many:.2f}x (a'))")
        print(f"(b1) agentmetrics.dask, 1 worker: the same                    {alone:7.2f} s  "
              f"{args.cases / alone / 1e6:5.2f} M cases/s  {one / alone:.2f}x  "
              f"(2 workers: {alone / many:.2f}x faster)")
        print("     summaries and per-tool tables: identical in (a), (a') and (b)")

        # (c) in a fresh process, so that the client's peak memory is its own.
        import subprocess

        subprocess.run([sys.executable, __file__, "--out-of-core", str(folder), str(size),
                        "--out-of-core-rows", str(args.out_of_core_rows)], check=True)


def out_of_core(folder: Path, size: int, partition_rows: int) -> None:
    from distributed import Client, LocalCluster

    limit = size // 4
    print(f"\n(c) out of core: worker memory limit {limit / 1e6:,.0f} MB each (a quarter "
          f"of {size / 1e6:,.0f} MB), partitions of {partition_rows:,} rows")
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           memory_limit=limit, dashboard_address=None,
                           silence_logs=logging.ERROR)
    client = Client(cluster)
    before = set(client.scheduler_info()["workers"])
    import psutil  # a dependency of distributed

    peaks: dict[str, float] = {}
    me = psutil.Process()
    client_peak = [me.memory_info().rss / 1e6]
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            client_peak[0] = max(client_peak[0], me.memory_info().rss / 1e6)
            try:
                for address, info in client.scheduler_info()["workers"].items():
                    rss = info["metrics"]["memory"] / 1e6
                    peaks[address] = max(peaks.get(address, 0.0), rss)
            except Exception:
                pass
            stop.wait(0.2)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    client_before = client_peak[0]
    seconds, _ = distributed(folder, partition_rows)
    stop.set()
    watcher.join()
    after = set(client.scheduler_info()["workers"])
    print(f"    completed in {seconds:.2f} s; workers restarted: {len(before - after)}")
    print(f"    worker peak memory (sampled every 0.2 s): "
          f"{', '.join(f'{mb:,.0f} MB' for mb in peaks.values())} (limit "
          f"{limit / 1e6:,.0f} MB)")
    print(f"    client memory {client_before:,.0f} MB before the run, at most "
          f"{client_peak[0]:,.0f} MB during it: the per-case rows never reach it")
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
