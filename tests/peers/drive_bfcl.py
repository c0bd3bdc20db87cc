"""Run BFCL's own AST checker (bfcl-eval, pinned in bfcl-requirements.txt) on
decoded model outputs, offline.

    .venv-bfcl/bin/python tests/peers/drive_bfcl.py < request.json > response.json

Request: {"rows": [{"function": [...], "output": [{name: {param: value}}],
                    "ground_truth": [...], "category": str}, ...],
          "underscore_to_dot": bool}
Response: {"verdicts": [{"valid": bool, "error_type": str} | {"error": "Type: message"}],
           "version": "2026.3.23", "seconds": [...]}
With "repeats": n (default 1) the rows are checked n times, and "seconds"
holds each pass's wall time (for benchmarks/bench_bfcl.py).

bfcl-eval is installed without its dependencies: its model_config module
imports every model SDK, and the checker reads from it only each model's
``underscore_to_dot`` flag, so that module is replaced by a stub holding one
model with the flag asked for. This file must not import agentmetrics.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
import time
import types
from typing import Any

MODEL = "agentmetrics-test-model"


class _Config:
    def __init__(self, underscore_to_dot: bool) -> None:
        self.underscore_to_dot = underscore_to_dot


def main() -> None:
    request = json.load(sys.stdin)
    stub = types.ModuleType("bfcl_eval.constants.model_config")
    stub.MODEL_CONFIG_MAPPING = {MODEL: _Config(bool(request.get("underscore_to_dot", False)))}  # type: ignore[attr-defined]
    sys.modules["bfcl_eval.constants.model_config"] = stub
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    seconds = []
    for _ in range(int(request.get("repeats", 1))):
        verdicts: list[dict[str, Any]] = []
        start = time.perf_counter()
        for row in request["rows"]:
            try:
                result = ast_checker(row["function"], row["output"], row["ground_truth"], Language.PYTHON,
                                     row["category"], MODEL)
                verdicts.append({"valid": bool(result["valid"]), "error_type": result.get("error_type", "")})
            except Exception as error:  # the checker's own crash on a row: reported, not hidden
                verdicts.append({"error": f"{type(error).__name__}: {error}"})
        seconds.append(time.perf_counter() - start)
    json.dump({"verdicts": verdicts, "version": importlib.metadata.version("bfcl-eval"),
               "seconds": seconds}, sys.stdout)


if __name__ == "__main__":
    main()
