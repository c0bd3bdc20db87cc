"""bfcl_ast: the Berkeley Function Calling Leaderboard's AST checker, reproduced
for its Python categories (bfcl-eval 2026.3.23)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, cast

from agentmetrics import AgentTestCase, InvalidCaseError, Metric

from agentmetrics_compat._common import check_flag

__all__ = ["BfclAst", "Verdict", "check_bfcl"]

_NAME = "bfcl_ast"

#: BFCL's parameter types, as the Python types its checker compares with ``type(x) == T``.
_TYPES: dict[str, type] = {"string": str, "integer": int, "float": float, "boolean": bool,
                           "array": list, "tuple": list, "dict": dict, "any": str}
_STANDARDIZE = re.compile(r"[ ,./\-_*^]")


class Verdict:
    """The checker's answer: ``valid`` and, when not, BFCL's error type and message."""

    __slots__ = ("error", "error_type", "valid")

    def __init__(self, valid: bool, error_type: str = "", error: str = "") -> None:
        self.valid, self.error_type, self.error = valid, error_type, error


_OK = Verdict(True)


def _standardized(text: str) -> str:
    """BFCL's string normalisation: spaces and , . / - _ * ^ removed, lower
    case, ' read as "."""
    return _STANDARDIZE.sub("", text).lower().replace("'", '"')


def _answer_type(values: Sequence[Any]) -> type | None:
    """The type of the first acceptable value that is not ``""``."""
    for value in values:
        if value != "":
            return type(value)
    return None


def _type_check(value: Any, values: Any, expected: type,
                nested: type | None) -> tuple[Verdict, bool]:
    """(verdict, is_variable), as BFCL's type_checker decides: exact types; a
    value of the answers' type when that differs from the doc's passes as a
    "variable"; a list's items checked against each acceptable list."""
    answer_type = _answer_type(values)
    variable = answer_type is not None and answer_type is not expected
    if type(value) is expected:
        if nested is None:
            return _OK, variable
        for acceptable in values:
            if type(acceptable) is list:
                items = cast("list[Any]", value)
                if not all(_type_check(item, acceptable, nested, None)[0].valid for item in items):
                    continue
            return _OK, variable
        return Verdict(False, "type_error:nested", f"Nested type checking failed for {value!r}."), False
    if answer_type is not None and type(value) is answer_type:
        return _OK, True
    return Verdict(False, "type_error:simple",
                   f"Incorrect type: expected {expected.__name__}, got {type(value).__name__}."), False


def _string_check(value: str, values: Sequence[Any]) -> Verdict:
    accepted = [_standardized(v) for v in values if type(v) is str]
    if _standardized(value) not in accepted:
        return Verdict(False, "value_error:string", f"Invalid value {value!r}; expected one of {values!r}.")
    return _OK


def _list_check(value: list[Any], values: Sequence[Any]) -> Verdict:
    given = [_standardized(v) if type(v) is str else v for v in value]
    accepted = [[_standardized(v) if type(v) is str else v for v in acceptable] for acceptable in values]
    if given not in accepted:
        return Verdict(False, "value_error:list/tuple", f"Invalid value {value!r}; expected one of {values!r}.")
    return _OK


def _dict_check(value: Mapping[str, Any], candidates: Sequence[Any]) -> Verdict:
    """The first candidate dict (``""`` skipped) whose keys all take the
    given values (strings normalised), and whose keys the value leaves out
    are all optional; else the last candidate's error."""
    verdict = Verdict(False, "dict_checker:unclear", "No candidate dict.")
    for candidate in candidates:
        if candidate == "":
            continue
        verdict = Verdict(False, "dict_checker:unclear")
        ok = True
        for key, item in value.items():
            if key not in candidate:
                verdict, ok = Verdict(False, "value_error:dict_key", f"Unexpected dict key {key!r}."), False
                break
            given = _standardized(item) if type(item) is str else item
            accepted = [_standardized(v) if type(v) is str else v for v in candidate[key]]
            if given not in accepted:
                verdict, ok = Verdict(False, "value_error:dict_value", f"Invalid value for {key!r}: {item!r}."), False
                break
        for key, allowed in candidate.items():  # BFCL runs this pass even after a failure
            if key not in value and "" not in allowed:
                verdict, ok = Verdict(False, "value_error:dict_key", f"Missing dict key {key!r}."), False
                break
        if ok:
            return _OK
    return verdict


def _list_dict_check(value: list[Any], candidates: Sequence[Any]) -> Verdict:
    verdict = Verdict(False, "list_dict_checker:unclear")
    for candidate in candidates:
        if len(value) != len(candidate):
            verdict = Verdict(False, "value_error:list_dict_count", "Wrong number of dictionaries in the list.")
            continue
        ok = True
        for k, item in enumerate(value):
            verdict = _dict_check(item, [candidate[k]])
            if not verdict.valid:
                ok = False
                break
        if ok:
            return _OK
    return verdict


def _doc_name(doc: Mapping[str, Any], underscore_to_dot: bool) -> str:
    name = str(doc["name"])
    return name.replace(".", "_") if underscore_to_dot and "." in name else name


def _simple(doc: Mapping[str, Any] | None, output: Mapping[str, Any], answer: Mapping[str, Any],
            underscore_to_dot: bool) -> Verdict:
    if doc is None:
        raise InvalidCaseError(f"{_NAME}: the ground truth names a function the question does not "
                               f"describe; expected its doc among the entry's functions (BFCL "
                               f"itself raises here). Fix: pass the entry's own question.")
    name = _doc_name(doc, underscore_to_dot)
    possible = next(iter(answer.values()))
    if name not in output:
        return Verdict(False, "simple_function_checker:wrong_func_name",
                       f"Function name {name!r} not found in the model output.")
    params = output[name]
    properties = doc["parameters"]["properties"]
    for required in doc["parameters"].get("required", []):
        if required not in params:
            return Verdict(False, "simple_function_checker:missing_required",
                           f"Missing required parameter {required!r}.")
    for param, value in params.items():
        if param not in properties or param not in possible:
            return Verdict(False, "simple_function_checker:unexpected_param", f"Unexpected parameter {param!r}.")
        kind = properties[param]["type"]
        if kind not in _TYPES:
            raise InvalidCaseError(f"{_NAME}: parameter {param!r} has type {kind!r}; expected one of "
                                   f"BFCL's Python types {sorted(_TYPES)} (BFCL itself raises here).")
        expected = _TYPES[kind]
        nested = _TYPES.get(properties[param].get("items", {}).get("type")) if kind in ("array", "tuple") else None
        if kind == "tuple" and type(value) is tuple:
            value = list(value)
        if kind == "float" and type(value) is int:  # an int for a float, at the top level only
            value = float(value)
        verdict, variable = _type_check(value, possible[param], expected, nested)
        if not verdict.valid:
            return verdict
        if not variable:
            if expected is dict:
                verdict = _dict_check(value, possible[param])
                if not verdict.valid:
                    return verdict
                continue
            if expected is list and nested is dict:
                verdict = _list_dict_check(value, possible[param])
                if not verdict.valid:
                    return verdict
                continue
            if expected is str:
                verdict = _string_check(value, possible[param])
                if not verdict.valid:
                    return verdict
                continue
            if expected is list:
                verdict = _list_check(value, possible[param])
                if not verdict.valid:
                    return verdict
                continue
        if value not in possible[param]:
            return Verdict(False, "value_error:others", f"Invalid value for {param!r}: {value!r}.")
    for param, allowed in possible.items():
        if param not in params and "" not in allowed:
            return Verdict(False, "simple_function_checker:missing_optional",
                           f"Optional parameter {param!r} not provided and not marked as optional.")
    return _OK


def _find(docs: Any, name: str) -> Mapping[str, Any] | None:
    if isinstance(docs, list):
        return next((doc for doc in docs if doc.get("name") == name), None)
    return docs  # type: ignore[no-any-return]


def check_bfcl(functions: Any, output: Sequence[Mapping[str, Any]], ground_truth: Sequence[Mapping[str, Any]] | None,
               category: str, underscore_to_dot: bool = False) -> Verdict:
    """BFCL's verdict on one decoded model output, rule for rule (Python
    categories; the relevance categories by whether a call was made). Where
    BFCL's own checker crashes on an output (a list of text where a list of
    objects is expected, say), this refuses it: there is no verdict to give."""
    try:
        return _check(functions, output, ground_truth, category, underscore_to_dot)
    except (AttributeError, TypeError, KeyError, IndexError, StopIteration) as error:
        raise InvalidCaseError(
            f"{_NAME}: BFCL's checker cannot score this output ({type(error).__name__}: {error}); "
            f"expected an output its rules can read. Fix: score it with expectation_match, which "
            f"reads any decoded output.") from None


def _check(functions: Any, output: Sequence[Mapping[str, Any]], ground_truth: Sequence[Mapping[str, Any]] | None,
           category: str, underscore_to_dot: bool) -> Verdict:
    if "irrelevance" in category or "relevance" in category:
        empty = list(output) in ([], [{}])
        made = not empty
        if "irrelevance" in category:
            return _OK if not made else Verdict(False, "irrelevance_error:decoder_success",
                                                "A call was made where none was relevant.")
        return _OK if made else Verdict(False, "relevance_error:decoder_failed", "No call was made.")
    if ground_truth is None:
        raise InvalidCaseError(f"{_NAME}: a {category} entry without its ground truth; expected the "
                               f"possible answer. Fix: load the entry with bfcl_cases and its answers file.")
    if "parallel" in category:
        if len(output) != len(ground_truth):
            return Verdict(False, "parallel_function_checker_no_order:wrong_count", "Wrong number of functions.")
        matched: list[int] = []
        for answer in ground_truth:
            doc = _find(functions, next(iter(answer)))
            verdict = _OK
            for index, call in enumerate(output):
                if index in matched:
                    continue
                verdict = _simple(doc, call, answer, underscore_to_dot)
                if verdict.valid:
                    matched.append(index)
                    break
            if not verdict.valid:  # greedy, as BFCL: no backtracking
                return Verdict(False, "parallel_function_checker_no_order:cannot_find_match",
                               f"Could not find a matching function for {next(iter(answer))!r}.")
        return _OK
    if "multiple" in category:
        if len(output) != len(ground_truth):
            return Verdict(False, "multiple_function_checker:wrong_count", "Wrong number of functions.")
        return _simple(_find(functions, next(iter(ground_truth[0]))), output[0], ground_truth[0], underscore_to_dot)
    if len(output) != 1:
        return Verdict(False, "simple_function_checker:wrong_count", "Wrong number of functions.")
    docs = functions if isinstance(functions, list) else [functions]
    return _simple(docs[0], output[0], ground_truth[0], underscore_to_dot)


class BfclAst(Metric):
    """The Berkeley Function Calling Leaderboard's AST checker (bfcl-eval
    2026.3.23) for its Python categories: 1.0 when BFCL marks the output
    valid, else 0.0, the reason naming BFCL's error type.

    Scores cases read by :func:`agentmetrics.datasets.bfcl_cases`, which keep
    the entry's function docs and ground truth under ``metadata["bfcl"]``.
    Rules kept as BFCL has them: exact types (an int for a float only at the
    top level), BFCL's string normalisation, ``""`` for an omittable
    parameter, dict and list rules, the parallel categories matched
    **greedily** (a correct answer can fail in one order), the multiple
    categories checking the first call; ``underscore_to_dot`` is the
    model-config flag BFCL applies to dotted function names (default False,
    names compared as they are). The Java and JavaScript categories (values
    as source text, read by BFCL's type converters) are refused.
    """

    name: ClassVar[str] = _NAME
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls",)
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = "BFCL's AST checker (Python categories), reproduced rule for rule."
    default_threshold: ClassVar[float] = 1.0
    cache_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "metadata")

    def __init__(self, threshold: float | None = None, underscore_to_dot: bool = False) -> None:
        self.underscore_to_dot = check_flag(_NAME, "underscore_to_dot", underscore_to_dot)
        super().__init__(threshold)

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_calls is not None
        entry = case.metadata.get("bfcl")
        category = case.metadata.get("category")
        if not isinstance(entry, Mapping) or not isinstance(category, str):
            raise InvalidCaseError(
                f"{_NAME}: the case has no BFCL entry; expected metadata 'bfcl' (the function docs "
                f"and ground truth) and 'category'. Fix: read the cases with "
                f"agentmetrics.datasets.bfcl_cases.")
        if "java" in category:  # java and javascript
            raise InvalidCaseError(
                f"{_NAME}: category {category!r}: BFCL reads Java and JavaScript values as source "
                f"text with its own type converters, which are not reproduced; expected a Python "
                f"category. Fix: score these with expectation_match, or with BFCL itself.")
        output = [{call.name: dict(call.arguments)} for call in case.tool_calls]
        verdict = check_bfcl(entry.get("function"), output, entry.get("ground_truth"), category,
                             self.underscore_to_dot)
        if verdict.valid:
            return 1.0, f"valid ({category})"
        return 0.0, f"{verdict.error_type}: {verdict.error}"
