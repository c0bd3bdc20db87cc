"""docs/tutorial.ipynb runs from top to bottom without an error (nbclient)."""

from __future__ import annotations

import pytest

from conftest import REPO


def test_tutorial_notebook_executes():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.read(REPO / "docs" / "tutorial.ipynb", as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="python3",
        resources={"metadata": {"path": str(REPO / "docs")}},
    )
    client.execute()  # raises CellExecutionError on any error
    outputs = "".join(
        str(output.get("text", "")) + str(output.get("data", {}).get("text/plain", ""))
        for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs
    )
    assert "50 runs" in outputs
    assert "cancel_reservation" in outputs and "Failures" in outputs
    assert "expected the agent to call all of get_user_details, send_certificate; missing: send_certificate" in outputs
