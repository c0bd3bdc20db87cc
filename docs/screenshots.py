"""The screenshots in docs/report.md: each page made from the bundled tau2-bench
runs, rendered by headless Chromium at 1,280 and 1,920 px.

    python docs/screenshots.py        # writes docs/images/report-*.png

Needs Chromium (tests/browser.py finds it: apt-get install chromium)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

import agentmetrics  # noqa: E402
from agentmetrics.report._page import write_page  # noqa: E402
from agentmetrics.report._result import parts_html, session_headline  # noqa: E402
from agentmetrics.runs import RunStore  # noqa: E402
from browser import CHROMIUM, render  # noqa: E402

METRICS = ["tool_selection_accuracy", ("trajectory_match", {"mode": "in_order"}),
           "argument_accuracy", "tool_call_micro_f1", "trajectory_lcs"]
WIDTHS = (1280, 1920)
HEIGHT = 820


def pages(folder: Path) -> dict[str, Path]:
    baseline = agentmetrics.evaluate(
        agentmetrics.read_cases(ROOT / "agentmetrics/examples/tau2_airline.jsonl"), METRICS,
        errors="record", progress=False,
        config={"model": "gpt-4.1", "prompt_version": "p7", "commit": "3f2a91c"})
    candidate = agentmetrics.evaluate(
        agentmetrics.read_cases(ROOT / "docs/examples/tau2_stops_early.jsonl"), METRICS,
        errors="record", progress=False,
        config={"model": "gpt-4.1-mini", "prompt_version": "p7", "commit": "8d04be2"})
    store = RunStore(folder / "runs.sqlite")
    for name, result in (("airline-agent v1", baseline), ("airline-agent v2", candidate)):
        result.save(folder / f"{name.split()[-1]}.jsonl", history=store, label=name)
    made = {
        "run": baseline.to_html(folder / "run.html", name="airline-agent v1", history=store),
        "comparison": agentmetrics.compare(
            baseline, candidate, names=("airline-agent v1", "airline-agent v2")).to_html(
            folder / "comparison.html"),
        "pytest": write_page(folder / "pytest.html", parts_html(
            [("tool_selection_accuracy", candidate)], title="agentmetrics: pytest session",
            subtitle="50 evaluations in 3 tests", headline=session_headline(
                [("tests/test_airline.py::test_cancellations", False),
                 ("tests/test_airline.py::test_bookings", True),
                 ("tests/test_airline.py::test_baggage", True)]))),
        "browser": store.to_html(folder / "runs.html", compare=agentmetrics.compare),
    }
    return made


def main() -> None:
    if CHROMIUM is None:
        sys.exit("headless Chromium is not installed (apt-get install chromium)")
    out = ROOT / "docs" / "images"
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as temporary:
        for name, path in pages(Path(temporary)).items():
            for width in WIDTHS:
                shot = out / f"report-{name}-{width}.png"
                shot.write_bytes(render(path, width=width, height=HEIGHT).png)
                print(f"{shot.relative_to(ROOT)} ({shot.stat().st_size // 1024} kB)")


if __name__ == "__main__":
    main()
