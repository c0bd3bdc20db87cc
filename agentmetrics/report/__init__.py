"""Self-contained HTML reports of an evaluation or a comparison: one file,
nothing fetched from the network, readable in light and dark mode and printed.

Reached through :meth:`agentmetrics.EvaluationResult.to_html`,
:meth:`agentmetrics.Comparison.to_html`, ``agentmetrics report`` and
``pytest --agentmetrics-html``."""

from agentmetrics.report._comparison import comparison_html
from agentmetrics.report._page import write_page
from agentmetrics.report._result import result_html

__all__ = ["comparison_html", "result_html", "write_page"]
