"""bfcl_ast against BFCL's own AST checker (bfcl-eval, in its own venv, driven
by tests/peers/drive_bfcl.py) on BFCL's own questions (vendored under
tests/data/bfcl) with thousands of generated model outputs: every acceptable
answer and many mutations of it. The verdict must be the same on every row.

Without ``.venv-bfcl`` these tests skip, unless AGENTMETRICS_REQUIRE_PEERS is
set (``make test`` sets it), when they fail.
"""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agentmetrics import InvalidCaseError, get_metric
from agentmetrics.datasets import bfcl_cases
from agentmetrics_compat import check_bfcl

REPO = Path(__file__).resolve().parents[3]
BFCL_PYTHON = REPO / ".venv-bfcl" / "bin" / "python"
DRIVER = REPO / "tests" / "peers" / "drive_bfcl.py"
DATA = REPO / "tests" / "data" / "bfcl"
CATEGORIES = ["simple_python", "multiple", "parallel", "parallel_multiple", "live_simple",
              "live_multiple", "live_parallel", "live_parallel_multiple"]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _doc(name: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"name": name, "description": "", "parameters": {"type": "dict", "properties": properties,
                                                            "required": required}}


#: BFCL-shaped entries of our own, for the rules BFCL's sampled data does not
#: reach: answers of another type than the doc's ("variables"), float arrays,
#: tuples, nested dicts and lists of dicts, "any", text with ^ and quotes.
CRAFTED = [
    {"id": "simple_python_900", "category": "simple_python",
     "function": [_doc("calc.area", {"base": {"type": "float"}, "unit": {"type": "string"},
                                      "scale": {"type": "integer"}, "exact": {"type": "boolean"}},
                       ["base"])],
     "ground_truth": [{"calc.area": {"base": [10.0, 10], "unit": ["cm^2", "'cm'", ""], "scale": [1, ""],
                                     "exact": [True, ""]}}]},
    {"id": "simple_python_901", "category": "simple_python",
     "function": [_doc("stats", {"values": {"type": "array", "items": {"type": "float"}},
                                 "labels": {"type": "tuple", "items": {"type": "string"}},
                                 "target": {"type": "any"}, "size": {"type": "string"}}, ["values"])],
     "ground_truth": [{"stats": {"values": [[1.0, 2.0], [1, 2]], "labels": [["a", "B c"], ""],
                                 "target": ["x", 3], "size": [12, "12"]}}]},
    {"id": "simple_python_902", "category": "simple_python",
     "function": [_doc("book", {"options": {"type": "dict"}, "rooms": {"type": "array", "items": {"type": "dict"}}},
                       ["options"])],
     "ground_truth": [{"book": {"options": [{"city": ["Paris", "paris france"], "nights": [2, ""]}, ""],
                                "rooms": [[{"kind": ["double"], "count": [1]}, {"kind": ["single"], "count": [2, ""]}], ""]}}]},
    {"id": "parallel_900", "category": "parallel",
     "function": [_doc("f", {"a": {"type": "integer"}, "b": {"type": "string"}}, ["a"])],
     "ground_truth": [{"f": {"a": [1, 2], "b": ["x", ""]}}, {"f": {"a": [1], "b": ["x"]}}]},
]


def _entries() -> list[dict[str, Any]]:
    out = list(CRAFTED)
    for category in CATEGORIES:
        answers = {a["id"]: a["ground_truth"] for a in _lines(DATA / "possible_answer" / f"BFCL_v4_{category}.json")}
        for question in _lines(DATA / f"BFCL_v4_{category}.json"):
            out.append({"id": question["id"], "category": category, "function": question["function"],
                        "ground_truth": answers[question["id"]]})
    return out


def _pick(values: list[Any], k: int) -> Any:
    """The k-th acceptable value (cycling); ``_OMIT`` for ``""``; a dict
    candidate unwrapped to one value per key."""
    value = values[k % len(values)]
    if value == "":
        return _OMIT
    if isinstance(value, dict):
        picked = {key: _pick(inner, k) for key, inner in value.items()}
        return {key: item for key, item in picked.items() if item is not _OMIT}
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return [_pick([item], k) for item in value]
    return value


_OMIT = object()


def _answer(truth: list[dict[str, Any]], k: int) -> list[dict[str, Any]]:
    out = []
    for item in truth:
        (name, parameters), = item.items()
        arguments = {key: _pick(values, k) for key, values in parameters.items()}
        out.append({name: {key: value for key, value in arguments.items() if value is not _OMIT}})
    return out


def _first_key(call: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    (name, arguments), = call.items()
    return name, arguments


def _variants(entry: dict[str, Any], rng: random.Random) -> list[tuple[str, list[dict[str, Any]]]]:
    """Outputs for one entry: acceptable answers and their mutations."""
    truth = entry["ground_truth"]
    docs = {doc["name"]: doc for doc in entry["function"]}
    out: list[tuple[str, list[dict[str, Any]]]] = []
    for k in range(3):
        good = _answer(truth, k)
        out.append((f"answer {k}", good))
        out.append((f"answer {k} reversed", good[::-1]))
    base = _answer(truth, 0)
    out.append(("dropped call", base[:-1]))
    out.append(("added call", base + [copy.deepcopy(base[0])]))
    out.append(("no call", []))
    for index, call in enumerate(base):
        name, arguments = _first_key(call)
        doc = docs.get(name, {"parameters": {"properties": {}, "required": []}})
        properties = doc["parameters"].get("properties", {})
        required = doc["parameters"].get("required", [])

        def variant(label: str, new_name: str, new_arguments: dict[str, Any]) -> None:
            calls = copy.deepcopy(base)
            calls[index] = {new_name: new_arguments}
            out.append((f"{label} (call {index})", calls))

        variant("wrong name", name + "_v2", arguments)
        if "." in name:
            variant("dots as underscores", name.replace(".", "_"), arguments)
        variant("unknown argument", name, {**arguments, "unknown_parameter": 1})
        optional = [key for key in properties if key not in required and key not in arguments]
        if optional:
            variant("real optional argument not in the answer", name, {**arguments, optional[0]: "x"})
        for key, value in arguments.items():
            rest = {k: v for k, v in arguments.items() if k != key}
            variant(f"dropped {'required' if key in required else 'optional'} {key}", name, rest)
            if isinstance(value, str):
                variant(f"{key} upper case", name, {**arguments, key: value.upper()})
                variant(f"{key} punctuated", name, {**arguments, key: value.replace(" ", "-") + "."})
                variant(f"{key} with a colon", name, {**arguments, key: value + ":"})
                variant(f"{key} quoted", name, {**arguments, key: f"'{value}'"})
                variant(f"{key} wrong text", name, {**arguments, key: "zzz unrelated"})
                variant(f"{key} as a number", name, {**arguments, key: 7})
            elif isinstance(value, bool):
                variant(f"{key} flipped", name, {**arguments, key: not value})
                variant(f"{key} as an int", name, {**arguments, key: int(value)})
            elif isinstance(value, int):
                variant(f"{key} as a float", name, {**arguments, key: float(value)})
                variant(f"{key} plus one", name, {**arguments, key: value + 1})
                variant(f"{key} as text", name, {**arguments, key: str(value)})
                variant(f"{key} as a bool", name, {**arguments, key: True})
            elif isinstance(value, float):
                variant(f"{key} as an int", name, {**arguments, key: int(value)})
                variant(f"{key} off", name, {**arguments, key: value + 0.5})
            elif isinstance(value, list):
                variant(f"{key} reversed", name, {**arguments, key: value[::-1]})
                variant(f"{key} shortened", name, {**arguments, key: value[:-1]})
                variant(f"{key} items as text", name, {**arguments, key: [str(v) for v in value]})
                if value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                    variant(f"{key} items as floats", name, {**arguments, key: [float(v) for v in value]})
            elif isinstance(value, dict):
                variant(f"{key} extra key", name, {**arguments, key: {**value, "zz": 1}})
                if value:
                    first = next(iter(value))
                    variant(f"{key} key dropped", name, {**arguments, key: {k: v for k, v in value.items() if k != first}})
                    variant(f"{key} value changed", name, {**arguments, key: {**value, first: "zzz"}})
    probes = [0, 1, 1.0, 2.5, True, False, "1", "", " ", "cm^2", "cm2", "CM^2", '"cm"', "'cm'", [], [1],
              [1.0, 2.0], [1, 2], ["a"], [[1]], {}, {"city": "Paris"}, {"nights": 5}, {"city": "PARIS", "nights": 2},
              [{"kind": "double", "count": 1}], None]
    for index, call in enumerate(base):  # every argument as every kind of value
        name, arguments = _first_key(call)
        for key in arguments:
            for probe in probes:
                calls = copy.deepcopy(base)
                calls[index] = {name: {**arguments, key: copy.deepcopy(probe)}}
                out.append((f"{key} = {probe!r} (call {index})", calls))
    if len(base) > 1:
        swapped = copy.deepcopy(base)
        rng.shuffle(swapped)
        out.append(("shuffled", swapped))
    return out


def _rows() -> list[dict[str, Any]]:
    rng = random.Random(7)
    rows = []
    for entry in _entries():
        for label, output in _variants(entry, rng):
            rows.append({**entry, "label": label, "output": output})
    return rows


ROWS = json.loads(json.dumps(_rows()))  # as the driver receives them


def _bfcl(rows: list[dict[str, Any]], underscore_to_dot: bool) -> list[dict[str, Any]]:
    if not BFCL_PYTHON.exists():
        message = f"BFCL's environment {BFCL_PYTHON.parent.parent} is missing; `make test` builds it"
        if os.environ.get("AGENTMETRICS_REQUIRE_PEERS"):
            pytest.fail(message)
        pytest.skip(message)
    request = {"underscore_to_dot": underscore_to_dot,
               "rows": [{key: row[key] for key in ("function", "output", "ground_truth", "category")}
                        for row in rows]}
    done = subprocess.run([str(BFCL_PYTHON), str(DRIVER)], input=json.dumps(request), text=True,
                          capture_output=True, timeout=600, cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    response = json.loads(done.stdout)
    assert response["version"] == "2026.3.23"
    return response["verdicts"]


@pytest.fixture(scope="module")
def verdicts() -> dict[bool, list[dict[str, Any]]]:
    return {flag: _bfcl(ROWS, flag) for flag in (False, True)}


def test_the_rows_are_many_and_reach_both_verdicts(verdicts):
    assert len(ROWS) >= 5000
    valid = sum(v.get("valid", False) for v in verdicts[False])
    assert 200 <= valid <= len(ROWS) - 1000
    kinds = {v.get("error_type") for v in verdicts[False] if not v.get("valid", True)}
    assert {"simple_function_checker:wrong_func_name", "simple_function_checker:unexpected_param",
            "value_error:string", "type_error:simple", "simple_function_checker:missing_optional",
            "parallel_function_checker_no_order:wrong_count"} <= kinds


@pytest.mark.parametrize("underscore_to_dot", [False, True])
def test_the_same_verdict_and_error_type_on_every_row(verdicts, underscore_to_dot):
    mismatches = []
    for row, theirs in zip(ROWS, verdicts[underscore_to_dot], strict=True):
        try:
            ours = check_bfcl(row["function"], row["output"], row["ground_truth"], row["category"],
                              underscore_to_dot)
        except InvalidCaseError as error:
            if "error" not in theirs:
                mismatches.append(f"{row['id']} {row['label']}: we refused ({error}), BFCL said {theirs}")
            continue
        if "error" in theirs:
            mismatches.append(f"{row['id']} {row['label']}: BFCL raised {theirs['error']}, we said {ours.valid}")
        elif ours.valid != theirs["valid"] or (not ours.valid and ours.error_type != theirs["error_type"]):
            mismatches.append(f"{row['id']} {row['label']}: ours {ours.valid} {ours.error_type}, "
                              f"BFCL {theirs['valid']} {theirs['error_type']}")
    assert not mismatches, f"{len(mismatches)} of {len(ROWS)} differ:\n" + "\n".join(mismatches[:10])


def test_the_metric_on_cases_read_by_bfcl_cases_gives_bfcls_verdict(verdicts):
    """End to end: the first output of every entry through bfcl_cases and the
    registered metric, against BFCL's verdict on the same row."""
    metric = get_metric("bfcl_ast")
    firsts: dict[str, int] = {}
    for k, row in enumerate(ROWS):
        firsts.setdefault(f"{row['id']}/{row['label']}", k)
    for category in CATEGORIES:
        for label in ("answer 0", "answer 1 reversed", "dropped call"):
            picked = [k for key, k in firsts.items() if key.endswith("/" + label)
                      and ROWS[k]["category"] == category and not ROWS[k]["id"].endswith(("_900", "_901", "_902"))]
            outputs = {ROWS[k]["id"]: ROWS[k]["output"] for k in picked}
            cases = bfcl_cases(DATA / f"BFCL_v4_{category}.json",
                               DATA / "possible_answer" / f"BFCL_v4_{category}.json", outputs)
            by_id = {case.metadata["id"]: case for case in cases}
            for k in picked:
                value = metric.evaluate(by_id[ROWS[k]["id"]]).value
                assert value == (1.0 if verdicts[False][k]["valid"] else 0.0), (ROWS[k]["id"], label)


def test_greedy_parallel_178_is_kept():
    (entry,) = [e for e in _entries() if e["id"] == "parallel_178"]
    apple_first = [{"get_stock_price": {"company_name": "Apple", "date": "2022-01-01"}},
                   {"get_stock_price": {"company_name": "Microsoft", "date": "2022-01-01"}},
                   {"get_stock_price": {"company_name": "Microsoft", "date": "2022-02-01"}},
                   {"get_stock_price": {"company_name": "Apple", "date": "2022-02-01"}}]
    verdict = check_bfcl(entry["function"], apple_first, entry["ground_truth"], "parallel")
    assert not verdict.valid and verdict.error_type == "parallel_function_checker_no_order:cannot_find_match"
    microsoft_first = [apple_first[1], apple_first[2], apple_first[0], apple_first[3]]
    assert check_bfcl(entry["function"], microsoft_first, entry["ground_truth"], "parallel").valid


def test_java_and_javascript_are_refused():
    metric = get_metric("bfcl_ast")
    cases = bfcl_cases(DATA / "BFCL_v4_simple_java.json", DATA / "possible_answer" / "BFCL_v4_simple_java.json",
                       {"simple_java_0": []})
    with pytest.raises(InvalidCaseError, match="Java and JavaScript"):
        metric.evaluate(cases[0])


def test_contract():
    from agentmetrics.testing import check_metric

    from agentmetrics_compat import BfclAst

    check_metric(BfclAst)
    check_metric(BfclAst, {"underscore_to_dot": True})
