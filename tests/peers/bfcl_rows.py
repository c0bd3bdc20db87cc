"""BFCL rows for the differential test of bfcl_ast against bfcl-eval and for
benchmarks/bench_bfcl.py: BFCL's vendored questions (tests/data/bfcl) and a
few crafted entries, each with every acceptable answer and many mutations.
No test framework imported here (the benchmark runs without one)."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "bfcl"
DRIVER = REPO / "tests" / "peers" / "drive_bfcl.py"
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



def rows() -> list[dict[str, Any]]:
    """Every row, as the driver receives them (through JSON)."""
    return json.loads(json.dumps(_rows()))  # type: ignore[no-any-return]
