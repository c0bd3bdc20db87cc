"""`agentmetrics evaluate` on a large JSONL file: throughput and peak memory.

    python benchmarks/bench_cli.py [--lines 1000000] [--repeats 3]
        [--baseline REF] [--payload-lines 100000] [--integer-ids] [--objects]

Writes a seeded JSONL file (0 to 8 calls a side, 2,000 tool names; string ids,
or integer ones with --integer-ids; calls as tool names, or with --objects as
``{"name": ..., "arguments": {...}}`` objects whose arguments hold every JSON
type), then times,
in fresh processes, side by side:
  - floor: `json.loads` on every line (no scoring, no output);
  - `agentmetrics evaluate FILE --format FORMAT` for each output format, stdout
    to /dev/null (`summary`: no rows, the summary alone);
  - with --parquet, the same cases as a Parquet file, read through Arrow;
  - with --line-reader, each format again with `--reader lines` (the JSONL
    line reader alone, as before issue 15's Arrow reader of name lists).
Prints cases/s, MB/s, the ratio to the floor and each process's peak memory
(ru_maxrss), and peak memory for half the file, to show it does not grow with
the file. Goal (issue 6): within 2x of the floor, memory independent of size.

With --baseline REF (a git revision), the same commands also run on that
revision's code, checked out in a temporary git worktree and imported first,
interleaved with the current code's runs; a second, smaller file of provider
payloads (`response` lines: OpenAI chat completions, Responses, Anthropic
messages, as their APIs return them) is timed too. Goal (issue 10): the
stricter reading costs no more than 10% throughput on the 1M-line file.
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


def write_file(path: Path, lines: int, seed: int = 0, *, integer_ids: bool = False,
               objects: bool = False) -> None:
    rng = random.Random(seed)
    names = [f"tool_{i:04d}" for i in range(2000)]
    values = [1, 250, -3, 2.5, "x", "order 1234", None, True, False, [1, 2], {"a": 1}, ""]

    def call() -> object:
        if not objects:
            return rng.choice(names)
        arguments = {key: rng.choice(values) for key in rng.sample(["q", "id", "n", "f"],
                                                                   rng.randint(0, 3))}
        return {"name": rng.choice(names), "arguments": arguments}

    with path.open("w", encoding="utf-8") as handle:
        for index in range(lines):
            record = {
                "id": index if integer_ids else f"case-{index}",
                "tool_calls": [call() for _ in range(rng.randint(0, 8))],
                "expected_tool_calls": [call() for _ in range(rng.randint(0, 8))],
            }
            handle.write(json.dumps(record) + "\n")


def write_payload_file(path: Path, lines: int, seed: int = 1) -> None:
    """Provider payloads under `response`, in shapes every reader version reads."""
    rng = random.Random(seed)
    names = [f"tool_{i:03d}" for i in range(200)]

    def calls() -> list[tuple[str, str]]:
        return [(rng.choice(names), f"call_{rng.getrandbits(48):x}") for _ in range(rng.randint(0, 4))]

    def openai(made: list[tuple[str, str]]) -> dict:
        return {"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o", "choices": [
            {"index": 0, "finish_reason": "tool_calls" if made else "stop", "message": {
                "role": "assistant", "content": None if made else "Done.", "tool_calls": [
                    {"id": i, "type": "function", "function": {"name": n, "arguments": '{"q": 1}'}}
                    for n, i in made] or None}}]}

    def responses(made: list[tuple[str, str]]) -> dict:
        return {"id": "resp_1", "object": "response", "output": [
            {"type": "function_call", "id": "fc_" + i, "call_id": i, "name": n,
             "arguments": '{"q": 1}', "status": "completed"} for n, i in made] + [
            {"type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": "Done."}]}]}

    def anthropic(made: list[tuple[str, str]]) -> dict:
        return {"id": "msg_1", "type": "message", "role": "assistant",
                "stop_reason": "tool_use" if made else "end_turn", "content": [
                    {"type": "text", "text": "Let me check."}] + [
                    {"type": "tool_use", "id": i, "name": n, "input": {"q": 1}} for n, i in made]}

    shapes = [openai, responses, anthropic]
    with path.open("w", encoding="utf-8") as handle:
        for index in range(lines):
            made = calls()
            record = {"id": f"case-{index}", "response": shapes[index % 3](made),
                      "expected_tool_calls": [rng.choice(names) for _ in range(rng.randint(0, 4))]}
            handle.write(json.dumps(record) + "\n")


def baseline_checkout(ref: str, folder: Path) -> Path:
    """REF's code in a git worktree under ``folder``; its package is imported first."""
    repo = Path(__file__).resolve().parents[1]
    tree = folder / "baseline"
    subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", "-q", str(tree), ref],
                   check=True)
    return tree


def run(command: list[str], env: dict[str, str] | None = None,
        cwd: Path | None = None) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env, cwd=cwd)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(peak, before) / 1024


def peak_of(command: list[str]) -> float:
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,"
            " stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, *command], capture_output=True, text=True)
    return int(out.stdout) / 1024


def compare(args: argparse.Namespace, folder: Path, big: Path) -> None:
    """The current code against --baseline, interleaved, on the big file and on payloads."""
    tree = baseline_checkout(args.baseline, folder)
    probe = subprocess.run([sys.executable, "-c", "import agentmetrics; print(agentmetrics.__file__)"],
                           env={**os.environ, "PYTHONPATH": str(tree)}, cwd=folder,
                           capture_output=True, text=True, check=True).stdout
    assert probe.startswith(str(tree)), f"the baseline imports {probe!r}, not its checkout"
    try:
        payloads = folder / "payloads.jsonl"
        write_payload_file(payloads, args.payload_lines)
        old_env = {**os.environ, "PYTHONPATH": str(tree)}
        cli = [sys.executable, "-m", "agentmetrics", "evaluate"]
        jobs = {
            ("names", "jsonl"): (big, ["--format", "jsonl"], args.lines),
            ("names", "table"): (big, ["--format", "table"], args.lines),
            ("payloads", "jsonl"): (payloads, ["--format", "jsonl"], args.payload_lines),
        }
        samples: dict[tuple[str, str, str], list[float]] = {}
        for _ in range(args.repeats):
            for (kind, form), (path, options, _) in jobs.items():
                for code, env in (("baseline", old_env), ("current", None)):
                    # Outside the checkout: `python -m` puts the working directory first.
                    seconds = run([*cli, str(path), *options], env=env, cwd=folder)[0]
                    samples.setdefault((kind, form, code), []).append(seconds)
        print(f"\nagainst {args.baseline} (its code imported from a git worktree), "
              f"median of {args.repeats}, interleaved\n")
        print(f"{'file':<10}{'format':<8}{'lines':>10}{'baseline cases/s':>18}"
              f"{'current cases/s':>17}{'current / baseline':>20}")
        for (kind, form), (_, _, lines) in jobs.items():
            old = statistics.median(samples[kind, form, "baseline"])
            new = statistics.median(samples[kind, form, "current"])
            print(f"{kind:<10}{form:<8}{lines:>10,}{lines / old:>18,.0f}{lines / new:>17,.0f}"
                  f"{old / new:>20.3f}")
        os.remove(payloads)
    finally:
        repo = Path(__file__).resolve().parents[1]
        subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(tree)],
                       check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--formats", nargs="+", default=["jsonl", "csv", "table", "summary"])
    parser.add_argument("--parquet", action="store_true",
                        help="also time the same cases as a Parquet file (needs pyarrow)")
    parser.add_argument("--baseline", metavar="REF", help="also time this git revision's code")
    parser.add_argument("--line-reader", action="store_true",
                        help="also time each format with --reader lines (every line parsed by "
                        "the line reader, as before the Arrow reader of name lists)")
    parser.add_argument("--payload-lines", type=int, default=100_000)
    parser.add_argument("--integer-ids", action="store_true",
                        help="the file's ids are integers (0, 1, ...) instead of strings")
    parser.add_argument("--objects", action="store_true",
                        help="calls as {name, arguments} objects instead of tool names")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp())
    big, half = folder / "cases.jsonl", folder / "half.jsonl"
    write_file(big, args.lines, integer_ids=args.integer_ids, objects=args.objects)
    write_file(half, args.lines // 2, integer_ids=args.integer_ids, objects=args.objects)
    size_mb = big.stat().st_size / 2**20
    cli = [sys.executable, "-m", "agentmetrics", "evaluate"]
    commands = {"floor: json.loads per line": [sys.executable, "-c", FLOOR, str(big)]}
    for form in args.formats:
        commands[f"agentmetrics evaluate --format {form}"] = [*cli, str(big), "--format", form]
        if args.line_reader:
            commands[f"evaluate --format {form} --reader lines"] = [
                *cli, str(big), "--format", form, "--reader", "lines"]
    if args.parquet:
        for path in (big, half):
            to_parquet(path, path.with_suffix(".parquet"))
        for form in ("jsonl", "summary"):
            commands[f"evaluate FILE.parquet --format {form}"] = [
                *cli, str(big.with_suffix(".parquet")), "--format", form]

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
        half_command = [str(half) if part == str(big) else
                        str(half.with_suffix(".parquet")) if part == str(big.with_suffix(".parquet"))
                        else part for part in command]
        print(f"{label:<40}{seconds:>7.2f}{args.lines / seconds:>11,.0f}{size_mb / seconds:>7.1f}"
              f"{seconds / floor:>9.2f}{peak:>9.0f}{peak_of(half_command):>19.0f}")
    if args.baseline:
        compare(args, folder, big)
    for path in (big, half, big.with_suffix(".parquet"), half.with_suffix(".parquet")):
        if path.exists():
            os.remove(path)


def to_parquet(source: Path, target: Path) -> None:
    """The JSONL file's cases as a Parquet file (id and the two name lists)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    records = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    pq.write_table(pa.table({
        "id": [r["id"] for r in records],
        "tool_calls": [r["tool_calls"] for r in records],
        "expected_tool_calls": [r["expected_tool_calls"] for r in records]}), target)


if __name__ == "__main__":
    main()
