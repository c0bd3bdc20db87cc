"""`agentmetrics evaluate` on a large JSONL file: throughput and peak memory.

    python benchmarks/bench_cli.py [--lines 1000000] [--repeats 3]

Writes a seeded JSONL file (0 to 8 calls a side, 2,000 tool names), then times,
in fresh processes, side by side:
  - floor: `json.loads` on every line (no scoring, no output);
  - `agentmetrics evaluate FILE --format FORMAT` for each output format, stdout
    to /dev/null.
Prints cases/s, MB/s, the ratio to the floor and each process's peak memory
(ru_maxrss), and peak memory for half the file, to show it does not grow with
the file. Goal (issue 6): within 2x of the floor, memory independent of size.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLOOR = """
import json, sys
with open(sys.argv[1], encoding="utf-8") as handle:
    for line in handle:
        json.loads(line)
"""


def write_file(path: Path, lines: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    names = [f"tool_{i:04d}" for i in range(2000)]
    with path.open("w", encoding="utf-8") as handle:
        for index in range(lines):
            record = {
                "id": f"case-{index}",
                "tool_calls": [rng.choice(names) for _ in range(rng.randint(0, 8))],
                "expected_tool_calls": [rng.choice(names) for _ in range(rng.randint(0, 8))],
            }
            handle.write(json.dumps(record) + "\n")


def run(command: list[str]) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(peak, before) / 1024


def peak_of(command: list[str]) -> float:
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,"
            " stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, *command], capture_output=True, text=True)
    return int(out.stdout) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--formats", nargs="+", default=["jsonl", "csv", "table"])
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp())
    big, half = folder / "cases.jsonl", folder / "half.jsonl"
    write_file(big, args.lines)
    write_file(half, args.lines // 2)
    size_mb = big.stat().st_size / 2**20
    cli = [sys.executable, "-m", "agentmetrics", "evaluate"]
    commands = {"floor: json.loads per line": [sys.executable, "-c", FLOOR, str(big)]}
    for form in args.formats:
        commands[f"agentmetrics evaluate --format {form}"] = [*cli, str(big), "--format", form]

    samples: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(args.repeats):
        for label, command in commands.items():
            samples[label].append(run(command)[0])
    floor = statistics.median(samples["floor: json.loads per line"])
    print(f"python {sys.version.split()[0]}, {args.lines:,} lines, {size_mb:.0f} MB, "
          f"median of {args.repeats}\n")
    print(f"{'command':<40}{'s':>7}{'cases/s':>11}{'MB/s':>7}{'x floor':>9}{'peak MB':>9}"
          f"{'half-file peak MB':>19}")
    for label, command in commands.items():
        seconds = statistics.median(samples[label])
        peak = peak_of(command)
        half_command = [str(half) if part == str(big) else part for part in command]
        print(f"{label:<40}{seconds:>7.2f}{args.lines / seconds:>11,.0f}{size_mb / seconds:>7.1f}"
              f"{seconds / floor:>9.2f}{peak:>9.0f}{peak_of(half_command):>19.0f}")
    for path in (big, half):
        os.remove(path)


if __name__ == "__main__":
    main()
