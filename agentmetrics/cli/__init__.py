"""The ``agentmetrics`` command: ``evaluate`` test cases, ``compare`` two runs,
``report`` a run as HTML, ``runs list`` the history of saved runs, ``list`` and
``describe`` metrics, ``demo`` on the bundled runs; one module per command.

Exit status: 0 when done (and every pass rate reaches --fail-under), 1 when a
metric's pass rate is below --fail-under, the candidate of ``compare
--fail-on-regression`` is significantly worse, a gate (or ``report``) found
nothing to check (no case scored, none paired; --allow-empty lets it pass), or
the metric described is broken; 2 on bad input or usage; 130 after Ctrl-C; 141
when the reader of the output went away.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from agentmetrics._base._version import __version__
from agentmetrics.cli._common import DEFAULT_METRIC, INTERRUPTED, parse_metric_spec
from agentmetrics.cli._parsers import add_commands
from agentmetrics.errors import AgentMetricsError

__all__ = ["BROKEN_PIPE", "DEFAULT_METRIC", "INTERRUPTED", "build_parser", "main",
           "parse_metric_spec"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentmetrics",
        description="Score how LLM agents use tools.",
    )

    parser.add_argument("--version", action="version", version=f"agentmetrics {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")


    add_commands(commands)
    return parser


#: The exit status of a command whose reader went away (128 + SIGPIPE), as Unix tools give.
BROKEN_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = sys.stdout
    if out is None:
        print("agentmetrics: error: standard output is closed; expected somewhere to write "
              "the results. Fix: redirect it to a file or to /dev/null.", file=sys.stderr)
        return 2
    if hasattr(out, "reconfigure"):
        out.reconfigure(errors="backslashreplace")  # a lone surrogate never stops the output
    try:
        status: int = args.run(args, out)
        out.flush()
        return status
    except BrokenPipeError:
        # The reader (`| head`) has what it wanted: stop quietly, as Unix tools do.
        _quiet_stdout()
        return BROKEN_PIPE
    except (AgentMetricsError, OSError) as error:
        print(f"agentmetrics: error: {error}", file=sys.stderr)
        return 2
    except ValueError as error:
        if "closed file" not in str(error):
            raise
        print("agentmetrics: error: standard output was closed while writing. Fix: keep it "
              "open, or redirect it to a file.", file=sys.stderr)
        return 2


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush cannot
    raise BrokenPipeError again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
