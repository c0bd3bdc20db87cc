"""``agentmetrics list`` and ``agentmetrics describe``: the installed metrics."""

from __future__ import annotations

import argparse
import json
from typing import IO, Any

from agentmetrics._base._display import range_text
from agentmetrics.cli._common import output_width, print_table
from agentmetrics.metric._inputs import Input
from agentmetrics.registry import (
    OWN_DISTRIBUTION,
    MetricDescription,
    ParameterDescription,
    describe_metric,
    describe_metrics,
)

__all__ = ["run_describe", "run_list"]


def _description_record(described: MetricDescription) -> dict[str, Any]:
    info = described.info
    details = None if described.parameter_details is None else [
        detail.to_json() for detail in described.parameter_details]
    return {
        "name": info.name,
        "class": info.class_name,
        "target": info.target,
        "distribution": info.distribution,
        "version": info.version,
        "requires_llm_judge": described.requires_llm_judge,
        "higher_is_better": described.higher_is_better,
        "required_fields": None if described.required_fields is None else list(described.required_fields),
        "default_threshold": described.default_threshold,
        # An infinite end as null: JSON has no infinity.
        "value_range": None if described.value_range is None else [
            None if abs(bound) == float("inf") else bound for bound in described.value_range],
        "unit": described.unit,
        "parameters": None if details is None else {
            detail["name"]: detail["default"] for detail in details},
        "parameter_details": details,
        "metric_version": described.metric_version,
        "inputs": None if described.inputs is None else [
            declared.to_json() for declared in described.inputs],
        "aggregates": list(described.aggregates),
        "description": described.description,
        "needs": list(described.needs),
        "shadows": info.shadows,
        "shadowed_by": info.shadowed_by,
        "error": described.error,
    }


def _values_text(described: MetricDescription) -> str:
    """``[0, inf), unit s`` or ``[0, 1], no unit (a share or score)``: the
    value_range and unit."""
    shown = "-" if described.value_range is None else range_text(described.value_range)
    return f"{shown}, unit {described.unit}" if described.unit else f"{shown}, no unit (a share or score)"


def _inputs_text(inputs: tuple[Input, ...]) -> str:
    """``actual_output (json), metadata.rubric (text): the grading rubric``."""
    return ", ".join(f"{declared.name} ({declared.value_kind})"
                     + (f": {declared.doc}" if declared.doc else "")
                     for declared in inputs) or "none"


def _parameter_lines(details: tuple[ParameterDescription, ...], indent: int) -> list[str]:
    """One line per parameter, ``name: type = default`` and its doc in a column."""
    texts = [detail.text() for detail in details]
    width = max(map(len, texts), default=0)
    return [(" " * indent + f"{text:<{width}}  {detail.doc}").rstrip()
            for text, detail in zip(texts, details)]


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def run_list(args: argparse.Namespace, out: IO[str]) -> int:
    """The metrics grouped by the distribution that provides them, one line each
    (a long description wraps under itself), to fit the output's width; ``--json``
    has every field, ``describe NAME`` one metric's parameters and fields."""
    described = describe_metrics()
    if args.json:
        out.write(json.dumps([_description_record(d) for d in described], indent=2) + "\n")
        return 0
    groups: dict[str, list[list[str]]] = {}
    for entry in described:
        info = entry.info
        if entry.error is not None:
            text = f"BROKEN: {entry.info.error or entry.error}"
        elif info.shadowed_by:
            text = f"SHADOWED in this process by {info.shadowed_by}"
        else:
            text = entry.description or "-"
            if info.shadows:
                text = f"shadows {info.shadows}: {text}"
            if entry.requires_llm_judge:
                text = f"[LLM judge] {text}"
        head = ("registered in this process" if info.distribution is None
                else f"{info.distribution} {info.version or ''}".rstrip())
        groups.setdefault(head, []).append(["", info.name, text])
    if not groups:
        out.write("No metrics are installed.\n")
        return 0
    name_width = max(len(row[1]) for rows in groups.values() for row in rows)
    text_width = max(len(row[2]) for rows in groups.values() for row in rows)
    widths = [0, name_width, min(text_width, max(output_width(out) - name_width - 4, 20))]
    own = f"{OWN_DISTRIBUTION} "
    # This library's own metrics first, then each plugin's, then this process's.
    for head in sorted(groups, key=lambda h: (h == "registered in this process",
                                              not h.startswith(own), h)):
        out.write(f"{head}\n")
        print_table(groups[head], out, widths=widths, width=output_width(out))
    count = sum(len(rows) for rows in groups.values())
    out.write(f"\n{count} metric{'s' * (count != 1)}. 'agentmetrics describe NAME' shows one's "
              f"parameters and fields;\n'agentmetrics list --json' lists everything.\n")
    return 0


def run_describe(args: argparse.Namespace, out: IO[str]) -> int:
    described = describe_metric(args.name)
    if args.json:
        out.write(json.dumps(_description_record(described), indent=2) + "\n")
        return 1 if described.error else 0
    info = described.info
    module, _, attribute = info.target.partition(":")
    source = "registered in this process" if info.distribution is None else (
        f"{info.distribution} {info.version or ''}".rstrip()
    )
    rows = [
        ("name", info.name),
        ("class", f"{attribute} (from {module})"),
        ("distribution", source),
    ]
    if info.shadows:
        rows.append(("shadows", info.shadows))
    if info.shadowed_by:
        rows.append(("shadowed by", f"{info.shadowed_by} (plain-name lookups find it)"))
    width = len("requires LLM judge")  # the longest key, broken or not
    parameter_lines: list[str] = []
    if described.error is None:
        details = described.parameter_details
        assert details is not None and described.inputs is not None
        rows += [
            ("metric version", described.metric_version or "-"),
            ("description", described.description or "-"),
            ("requires LLM judge", _yes_no(described.requires_llm_judge)),
            ("higher is better", _yes_no(described.higher_is_better)),
            ("inputs", _inputs_text(described.inputs)),
            ("values", _values_text(described)),
            ("default threshold", f"{described.default_threshold:g}"
             + (f" {described.unit}" if described.unit else "")),
        ]
        if described.aggregates:
            rows.append(("aggregates", ", ".join(described.aggregates)))
        rows.append(("parameters", "" if details else "none"))
        parameter_lines = _parameter_lines(details, 2)
        rows.append(("status", f"ok (needs {', '.join(described.needs)})" if described.needs else "ok"))
    else:
        rows.append(("status", f"broken: {described.error}"))
    for key, value in rows:
        out.write(f"{key + ':':<{width + 2}}{value}".rstrip() + "\n")
        if key == "parameters":
            out.writelines(line + "\n" for line in parameter_lines)
    return 1 if described.error else 0
