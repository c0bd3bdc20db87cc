"""Cold-process start-up cost of agentmetrics, against a bare interpreter.

Each command runs in a fresh interpreter; the commands are interleaved round
by round so that machine noise hits them alike, and medians are reported.

    python benchmarks/bench_startup.py [--runs 10]

Goal (issue 2): `import agentmetrics` and the first
`get_metric("tool_selection_accuracy")` each under 100 ms above the bare
interpreter.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "bare interpreter (python -c pass)": "pass",
    "import agentmetrics": "import agentmetrics",
    "import + first get_metric": (
        "import agentmetrics; agentmetrics.get_metric('tool_selection_accuracy')"
    ),
    "import + get_metric + evaluate": (
        "import agentmetrics as a; a.get_metric('tool_selection_accuracy').evaluate("
        "a.AgentTestCase(tool_calls=['A'], expected_tool_calls=['A']))"
    ),
    "reference: import numpy": "import numpy",
}


def time_once(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()

    for code in COMMANDS.values():  # warm the file system cache and .pyc files
        time_once(code)
    samples: dict[str, list[float]] = {label: [] for label in COMMANDS}
    for _ in range(args.runs):
        for label, code in COMMANDS.items():
            samples[label].append(time_once(code))

    bare = statistics.median(samples["bare interpreter (python -c pass)"])
    print(f"python {sys.version.split()[0]}, {args.runs} runs each, medians\n")
    print(f"{'command':<36}{'median ms':>10}{'above bare ms':>15}{'x bare':>8}")
    for label, times in samples.items():
        median = statistics.median(times)
        print(f"{label:<36}{median * 1e3:>10.1f}{(median - bare) * 1e3:>15.1f}{median / bare:>8.2f}")


if __name__ == "__main__":
    main()
