"""A response's token usage and model, from whatever usage objects it holds."""

from __future__ import annotations

from typing import Any

from agentmetrics.capture._records import Usage

__all__ = ["read_model", "read_usage"]

_USAGE_KEYS = (  # (input, output, total, extra input, extra output)
    ("prompt_tokens", "completion_tokens", "total_tokens", (), ()),
    ("input_tokens", "output_tokens", "total_tokens",
     ("cache_read_input_tokens", "cache_creation_input_tokens"), ()),
    ("inputTokens", "outputTokens", "totalTokens", (), ()),
    ("promptTokenCount", "candidatesTokenCount", "totalTokenCount", (), ("thoughtsTokenCount",)),
    ("prompt_eval_count", "eval_count", None, (), ()),
)


def read_usage(tree: Any) -> Usage:
    """The response's token usage: the usage objects in it, the last value of each
    field winning (a stream repeats and completes them as it goes)."""
    found: dict[str, int] = {}

    def count(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0

    def visit(node: Any, key: str | None, depth: int) -> None:
        if depth > 6:
            return
        if isinstance(node, list):
            for item in node:
                visit(item, key, depth + 1)
            return
        if not isinstance(node, dict) or key == "billed_units":
            return
        for inp, out, total, extra_in, extra_out in _USAGE_KEYS:
            if count(node.get(inp)) or count(node.get(out)):
                for name, field in ((inp, "in"), (out, "out"), (total, "total")):
                    if name and count(node.get(name)):
                        found[field] = node[name]
                for name in extra_in:
                    if count(node.get(name)):
                        found[f"in:{name}"] = node[name]
                for name in extra_out:
                    if count(node.get(name)):
                        found[f"out:{name}"] = node[name]
                break
        for child_key, child in node.items():
            if isinstance(child, (dict, list)):
                visit(child, child_key, depth + 1)

    visit(tree, None, 0)
    if "in" not in found and "out" not in found:
        return Usage(turns=1, unreported=1)
    inp = found.get("in", 0) + sum(v for k, v in found.items() if k.startswith("in:"))
    out = found.get("out", 0) + sum(v for k, v in found.items() if k.startswith("out:"))
    return Usage(inp, out, found.get("total", inp + out), turns=1)


def read_model(tree: Any, request: Any, hint: str | None) -> str | None:
    items = tree if isinstance(tree, list) else [tree]
    for item in items[:8]:
        if not isinstance(item, dict):
            continue
        for holder in (item, item.get("response"), item.get("message"), item.get("data")):
            if isinstance(holder, dict):
                for key in ("model", "modelVersion"):
                    if isinstance(holder.get(key), str) and holder[key]:
                        return str(holder[key])
    if isinstance(request, dict) and isinstance(request.get("model"), str):
        return str(request["model"])
    return hint
