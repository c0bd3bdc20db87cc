"""agentmetrics.partition on Spark (local[2]) and Ray Data (local, 2 CPUs)
against agentmetrics.evaluate in one process, on the same Parquet files.

    python benchmarks/bench_engines.py [--cases 2000000] [--files 8] [--repeats 3]

Two data sets of --cases synthetic runs (0-5 calls a side out of 200 tools,
string ids), written once as --files Parquet files:

* names:   ``tool_calls`` and ``expected_tool_calls`` as list<string>;
* objects: the same calls as list<struct<name, arguments: struct<...>>>
           (how most traces are stored), scored with tool_selection_accuracy
           and argument_accuracy.

Then, side by side and interleaved, --repeats times, each giving the
summary and the per-tool table of the whole (checked equal to (a)'s):

(a) one process: pyarrow.parquet.read_table of the files, evaluate, summary()
    and per_tool();
(a') one process, file after file: partition.aggregate of each file, merge
    (the engines' work done serially: its ratio to (b) and (c) is the
    parallel gain alone);
(b) Spark: spark.read.parquet, mapInArrow(SparkScorer(metrics,
    aggregates=True)), collect, merge on the driver (session started once,
    not timed);
(c) Ray Data: read_parquet, map_batches(RowScorer(metrics, aggregates=True),
    batch_format="pyarrow"), take_all, merge (ray.init once, not timed).

Medians (2 noisy cores). No speed-up is expected on one 2-core machine:
both engines run the same kernels as (a) on two processes while the driver,
the JVM or Ray's raylet compete for the same two cores.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

import agentmetrics as am
from agentmetrics import partition
from _synthetic import write_cases

NAMES = ["tool_selection_accuracy"]
OBJECTS = ["tool_selection_accuracy", "argument_accuracy"]


def tables(summary: Any, per_tool: Any) -> tuple[Any, Any]:
    return summary.to_dicts(), per_tool.to_dicts()


def single_process(folder: Path, metrics: list[str]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = am.evaluate(pq.read_table(folder), metrics, progress=False)
    shown = tables(result.summary(ci=None), result.per_tool())
    return time.perf_counter() - start, shown


def file_after_file(folder: Path, metrics: list[str]) -> tuple[float, Any]:
    """The engines' work done serially in one process: each file read,
    aggregated, then merged (its ratio to (b) or (c) is the parallel gain alone)."""
    start = time.perf_counter()
    parts = [partition.aggregate(pq.read_table(path), metrics)
             for path in sorted(folder.glob("*.parquet"))]
    total = partition.merge(parts, metrics)
    shown = tables(total.summary(ci=None), total.per_tool())
    return time.perf_counter() - start, shown


def on_spark(session: Any, folder: Path, metrics: list[str]) -> tuple[float, Any]:
    start = time.perf_counter()
    frame = session.read.parquet(str(folder))
    parts = frame.mapInArrow(partition.SparkScorer(metrics, aggregates=True),
                             partition.AGGREGATE_DDL).collect()
    total = partition.merge([partition.Aggregate.from_json(row["aggregate"]) for row in parts],
                            metrics)
    shown = tables(total.summary(ci=None), total.per_tool())
    return time.perf_counter() - start, shown


def on_ray(ray_data: Any, folder: Path, metrics: list[str]) -> tuple[float, Any]:
    start = time.perf_counter()
    parts = ray_data.read_parquet(str(folder)).map_batches(
        partition.RowScorer(metrics, aggregates=True), batch_format="pyarrow",
        batch_size=250_000).take_all()
    total = partition.merge([partition.Aggregate.from_json(row["aggregate"]) for row in parts],
                            metrics)
    shown = tables(total.summary(ci=None), total.per_tool())
    return time.perf_counter() - start, shown


def start_spark() -> Any:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("bench-engines")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.memory", "6g")
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "125000")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    return session


def start_ray() -> Any:
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray
    import ray.data

    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
             log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)  # no line per execution
    return ray.data


def main() -> None:
    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2_000_000)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}")
    start = time.perf_counter()
    session = None
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        print("Spark: not run, no Java runtime here (Debian: apt-get install "
              "openjdk-17-jre-headless, as .ci/run does)")
    else:
        session = start_spark()
        import pyspark

        print(f"Spark {pyspark.__version__} local[2] started in "
              f"{time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    ray_data = start_ray()
    import ray

    print(f"Ray {ray.__version__} local (2 CPUs) started in {time.perf_counter() - start:.1f} s "
          f"(neither start timed below)\n")
    with tempfile.TemporaryDirectory(prefix="agentmetrics-bench-engines-") as tmp:
        for kind, metrics in (("names", NAMES), ("objects", OBJECTS)):
            folder = Path(tmp) / kind
            folder.mkdir()
            write_cases(folder, args.cases, args.files, objects=kind == "objects",
                        row_group_size=125_000)
            on_disk = sum(f.stat().st_size for f in folder.glob("*.parquet"))
            if session is not None:
                on_spark(session, folder, metrics)  # warm the workers, not timed
            on_ray(ray_data, folder, metrics)
            times: dict[str, list[float]] = {"evaluate": [], "serial": [], "spark": [],
                                             "ray": []}
            for _ in range(args.repeats):
                seconds, reference = single_process(folder, metrics)
                times["evaluate"].append(seconds)
                seconds, shown = file_after_file(folder, metrics)
                times["serial"].append(seconds)
                assert shown == reference, "the merged summary or per-tool table differs"
                if session is not None:
                    seconds, shown = on_spark(session, folder, metrics)
                    times["spark"].append(seconds)
                    assert shown == reference, "Spark's summary or per-tool table differs"
                seconds, shown = on_ray(ray_data, folder, metrics)
                times["ray"].append(seconds)
                assert shown == reference, "Ray's summary or per-tool table differs"
            one = statistics.median(times["evaluate"])
            print(f"{kind}: {args.cases:,} cases in {args.files} Parquet files "
                  f"({on_disk / 1e6:,.0f} MB), metrics {', '.join(metrics)}")
            for label, key in (("(a) evaluate, one process", "evaluate"),
                               ("(a') one process, file after file", "serial"),
                               ("(b) Spark local[2], mapInArrow", "spark"),
                               ("(c) Ray Data local, map_batches", "ray")):
                if not times[key]:
                    continue
                median = statistics.median(times[key])
                print(f"  {label:<34} {median:7.2f} s  {args.cases / median / 1e6:5.2f} M "
                      f"cases/s  {one / median:.2f}x")
            serial = statistics.median(times["serial"])
            gains = [f"{name} {serial / statistics.median(times[key]):.2f}x"
                     for name, key in (("Spark", "spark"), ("Ray", "ray")) if times[key]]
            print(f"  against (a'), the parallel gain alone: {', '.join(gains)}")
            print("  summaries and per-tool tables: identical in (a), (a'), (b) and (c)\n")
    if session is not None:
        session.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
