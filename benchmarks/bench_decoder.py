"""The fast decoder (msgspec, the ``fast`` extra) against the readers before it,
through the CLI, on JSONL of call objects with arguments (issue 52).

    python benchmarks/bench_decoder.py [--lines 1000000] [--repeats 3]
        [--argument-lines 100000] [--shape peers|cli]

Writes a seeded file of call objects (``--shape peers``: bench_peers.py's
records, 0 to 6 expected calls of 8 names with arguments and outputs, the
called ones near misses of them, as the issue measured; ``--shape cli``:
bench_cli.py's ``--objects`` file, 0 to 8 calls a side of 2,000 names), then
times, in fresh processes, interleaved round by round, the CPU seconds (user
and system) of:

- ``agentmetrics evaluate FILE --format summary`` with ``--reader fast`` (what
  ``auto`` takes when msgspec is installed), ``--reader arrow`` (what ``auto``
  took before: pyarrow tries the name lists, call objects are parsed 64 lines at
  a time and read column by column) and ``--reader lines`` (the line reader);
- the same with ``--metric argument_accuracy`` on the first
  ``--argument-lines`` lines (a metric that reads arguments: the fast reader
  builds the cases from its kept lines).

Prints the median of ``--repeats`` in microseconds a case, the ratio to the
fast reader, and each command's peak memory (ru_maxrss of one more run).

``--without-fast DIR`` instead compares, with msgspec hidden (a stub on
PYTHONPATH that refuses its import: what a machine without the ``fast`` extra
has), this tree against DIR, a checkout of the commit before issue 52 (its
package and plugins first on PYTHONPATH), on the same two commands with the
reader ``auto`` picks: whether the path without ``[fast]`` is any slower.

``--scale 1000000,10000000`` instead times ``agentmetrics evaluate FILE
--format summary`` (the reader ``auto`` picks) once on a file of each size,
CPU seconds and peak memory of the process: whether the time grows linearly
and the memory stays flat.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _peer_records import peer_records


def write_peers_file(path: Path, lines: int, seed: int = 17) -> None:
    """bench_peers.py's records (called and expected calls with arguments and
    outputs, many near misses) as case lines with string ids."""
    with path.open("w", encoding="utf-8") as handle:
        for index, record in enumerate(peer_records(lines, seed)):
            handle.write(json.dumps({"id": f"case-{index}", "tool_calls": record["called"],
                                     "expected_tool_calls": record["expected"]}) + "\n")


def cpu_seconds(command: list[str]) -> float:
    """User and system CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def peak_mb(command: list[str]) -> float:
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,"
            " stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, *command], capture_output=True, text=True)
    return int(out.stdout) / 1024


def scale(sizes: list[int]) -> None:
    """CPU seconds and peak memory of the CLI on files of ``sizes`` lines."""
    folder = Path(tempfile.mkdtemp())
    print(f"python {sys.version.split()[0]}; agentmetrics evaluate FILE --format summary "
          f"(reader auto); one run a size\n")
    print(f"{'lines':>12}{'MB':>8}{'CPU s':>9}{'us/case':>9}{'peak MB':>9}")
    for lines in sizes:
        path = folder / f"cases-{lines}.jsonl"
        write_peers_file(path, lines)
        command = [sys.executable, "-m", "agentmetrics", "evaluate", str(path), "--format",
                   "summary"]
        code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
                "stdout=subprocess.DEVNULL); usage = resource.getrusage(resource.RUSAGE_CHILDREN);"
                " print(usage.ru_utime + usage.ru_stime, usage.ru_maxrss)")
        out = subprocess.run([sys.executable, "-c", code, *command], capture_output=True,
                             text=True, check=True).stdout.split()
        seconds, peak = float(out[0]), int(out[1]) / 1024
        size = path.stat().st_size / 2**20
        print(f"{lines:>12,}{size:>8.0f}{seconds:>9.1f}{seconds / lines * 1e6:>9.2f}"
              f"{peak:>9.0f}")
        path.unlink()


def without_fast(before: Path, lines: int, argument_lines: int, repeats: int) -> None:
    """This tree and ``before`` side by side, msgspec hidden (see the module's doc)."""
    import os

    folder = Path(tempfile.mkdtemp())
    stub = folder / "stub" / "msgspec"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text('raise ImportError("msgspec hidden by bench_decoder.py")\n')
    big, small = folder / "cases.jsonl", folder / "arguments.jsonl"
    write_peers_file(big, lines)
    with big.open("rb") as source, small.open("wb") as target:
        for _, line in zip(range(argument_lines), source):
            target.write(line)
    here = Path(__file__).resolve().parent.parent
    trees = {"before": before.resolve(), "now": here}
    cli = [sys.executable, "-m", "agentmetrics", "evaluate"]
    jobs = {("tool_selection_accuracy", "before"): ([*cli, str(big), "--format", "summary"], lines),
            ("argument_accuracy", "before"): ([*cli, str(small), "--format", "summary",
                                               "--metric", "argument_accuracy"], argument_lines)}
    jobs.update({(metric, "now"): job for (metric, _), job in list(jobs.items())})
    environments = {}
    for side, tree in trees.items():
        plugins = [str(path) for path in sorted((tree / "plugins").glob("*")) if path.is_dir()]
        environments[side] = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(stub.parent), str(tree), *plugins])}
    samples: dict[tuple[str, str], list[float]] = {key: [] for key in jobs}
    for _ in range(repeats):  # interleaved
        for (metric, side), (command, _) in jobs.items():
            start = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=environments[side])
            end = resource.getrusage(resource.RUSAGE_CHILDREN)
            samples[metric, side].append(end.ru_utime - start.ru_utime + end.ru_stime - start.ru_stime)
    print(f"python {sys.version.split()[0]}; msgspec hidden; before = {trees['before']}; "
          f"CPU seconds (user + system), median of {repeats}, interleaved\n")
    print(f"{'metric':<25}{'side':<8}{'lines':>11}{'CPU s':>8}{'us/case':>9}{'now/before':>12}")
    for (metric, side), (_, count) in jobs.items():
        seconds = statistics.median(samples[metric, side])
        ratio = seconds / statistics.median(samples[metric, "before"])
        print(f"{metric:<25}{side:<8}{count:>11,}{seconds:>8.2f}{seconds / count * 1e6:>9.2f}"
              f"{ratio:>12.2f}")
    for path in (big, small):
        path.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--argument-lines", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--shape", choices=("peers", "cli"), default="peers")
    parser.add_argument("--argument-metrics", default="argument_accuracy",
                        help="metrics timed on the first --argument-lines lines (comma-separated)")
    parser.add_argument("--skip-names", action="store_true",
                        help="leave out tool_selection_accuracy on the whole file")
    parser.add_argument("--scale", default=None, metavar="SIZES",
                        help="comma-separated line counts: time and memory at each size")
    parser.add_argument("--without-fast", type=Path, default=None, metavar="DIR",
                        help="msgspec hidden: this tree against the checkout DIR")
    args = parser.parse_args()
    if args.without_fast is not None:
        without_fast(args.without_fast, args.lines, args.argument_lines, args.repeats)
        return
    if args.scale:
        scale([int(size) for size in args.scale.split(",")])
        return

    folder = Path(tempfile.mkdtemp())
    big, small = folder / "cases.jsonl", folder / "arguments.jsonl"
    if args.skip_names:
        args.lines = args.argument_lines  # the big file is only the source of the small one
    if args.shape == "peers":
        write_peers_file(big, args.lines)
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_cli import write_file

        write_file(big, args.lines, objects=True)
    with big.open("rb") as source, small.open("wb") as target:
        for _, line in zip(range(args.argument_lines), source):
            target.write(line)
    cli = [sys.executable, "-m", "agentmetrics", "evaluate"]
    readers = ("fast", "arrow", "lines")
    jobs = {}
    if not args.skip_names:
        for reader in readers:
            jobs["tool_selection_accuracy", reader] = (
                [*cli, str(big), "--format", "summary", "--reader", reader], args.lines)
    for metric in args.argument_metrics.split(","):
        for reader in readers:
            jobs[metric, reader] = (
                [*cli, str(small), "--format", "summary", "--reader", reader, "--metric",
                 metric, "--errors", "record"], args.argument_lines)
    samples: dict[tuple[str, str], list[float]] = {key: [] for key in jobs}
    for _ in range(args.repeats):  # interleaved: each round runs every command once
        for key, (command, _) in jobs.items():
            samples[key].append(cpu_seconds(command))
    size = big.stat().st_size / 2**20
    print(f"python {sys.version.split()[0]}, {args.shape} file: {args.lines:,} lines, {size:.0f} MB; "
          f"CPU seconds (user + system), median of {args.repeats}, interleaved\n")
    print(f"{'metric':<25}{'reader':<8}{'lines':>11}{'CPU s':>8}{'us/case':>9}"
          f"{'x fast':>8}{'peak MB':>9}")
    for (metric, reader), (command, lines) in jobs.items():
        seconds = statistics.median(samples[metric, reader])
        fast = statistics.median(samples[metric, "fast"])
        print(f"{metric:<25}{reader:<8}{lines:>11,}{seconds:>8.2f}{seconds / lines * 1e6:>9.2f}"
              f"{seconds / fast:>8.2f}{peak_mb(command):>9.0f}")
    for path in (big, small):
        path.unlink()


if __name__ == "__main__":
    main()
