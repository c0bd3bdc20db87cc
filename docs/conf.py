"""Sphinx configuration: furo theme, MyST Markdown pages, an executed notebook."""

from __future__ import annotations

import agentmetrics

project = "agentmetrics"
author = "agentmetrics developers"
copyright = "2026, agentmetrics developers"
release = version = agentmetrics.__version__

extensions = [
    "myst_nb",  # MyST Markdown and notebooks (it includes myst_parser)
    "sphinx.ext.autodoc",
]
exclude_patterns = ["_build", "examples", "jupyter_execute", ".jupyter_cache"]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}

html_theme = "furo"
html_title = f"agentmetrics {release}"

myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

# The tutorial is executed at every build (and by the test suite), so what the
# site shows is what the code does today.
nb_execution_mode = "force"
nb_execution_timeout = 120
nb_execution_raise_on_error = True

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options: dict[str, object] = {}
