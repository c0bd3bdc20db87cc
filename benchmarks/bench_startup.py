"""Cold-process start-up cost of agentmetrics, against a bare interpreter.

Each command runs in a fresh interpreter; the commands are interleaved round
by round so that machine noise hits them alike, and medians are reported.

    python benchmarks/bench_startup.py [--runs 10]

Goal (issue 2): `import agentmetrics` and the first
`get_metric("tool_selection_accuracy")` each under 100 ms above the bare
interpreter. Also timed: what the auto-loaded pytest plugin adds to a pytest
run that collects one trivial test (issue 4: loading it must cost little).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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

# pytest start-up with the plugin (auto-loaded through pytest11) against the
# same run with it disabled: what every pytest run in an environment with
# agentmetrics installed pays.
PYTEST_COMMANDS = {
    "pytest --co, plugin disabled": ["-p", "no:agentmetrics"],
    "pytest --co, plugin loaded": [],
}


def time_once(code: str | list[str]) -> float:
    if isinstance(code, str):
        command = [sys.executable, "-c", code]
    else:  # pytest collecting one trivial test, no cache, no other plugins' output
        command = [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider",
                   *code, str(_TRIVIAL_TEST)]
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


_TRIVIAL_TEST = Path(tempfile.mkdtemp()) / "test_trivial.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()

    _TRIVIAL_TEST.write_text("def test_nothing():\n    pass\n")
    commands: dict[str, str | list[str]] = {**COMMANDS, **PYTEST_COMMANDS}
    for code in commands.values():  # warm the file system cache and .pyc files
        time_once(code)
    samples: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(args.runs):
        for label, code in commands.items():
            samples[label].append(time_once(code))

    bare = statistics.median(samples["bare interpreter (python -c pass)"])
    print(f"python {sys.version.split()[0]}, {args.runs} runs each, medians\n")
    print(f"{'command':<36}{'median ms':>10}{'above bare ms':>15}{'x bare':>8}")
    for label in COMMANDS:
        median = statistics.median(samples[label])
        print(f"{label:<36}{median * 1e3:>10.1f}{(median - bare) * 1e3:>15.1f}{median / bare:>8.2f}")
    without = statistics.median(samples["pytest --co, plugin disabled"])
    print(f"\n{'command':<36}{'median ms':>10}{'above disabled':>15}")
    for label in PYTEST_COMMANDS:
        median = statistics.median(samples[label])
        print(f"{label:<36}{median * 1e3:>10.1f}{(median - without) * 1e3:>15.1f}")


if __name__ == "__main__":
    main()
