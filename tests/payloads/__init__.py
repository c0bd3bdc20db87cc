"""Payloads built offline with the real provider SDKs, with their ground truth.

Each builder module exposes ``scenarios()`` and ``writers()`` (see
``_scenario.py``). The SDKs are test extras: a module whose SDK is missing is
skipped by the tests that use it, never silently passed.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from payloads._scenario import Call, Scenario

__all__ = ["BUILDERS", "Call", "Scenario", "all_scenarios", "all_writers", "builder", "scenarios"]

#: Builder modules, by the SDK they need.
BUILDERS = {
    "openai_payloads": "openai",
    "anthropic_payloads": "anthropic",
    "gemini_payloads": "google.genai",
    "langchain_payloads": "langchain_core",
    "otel_payloads": "opentelemetry.sdk",
    "bedrock_payloads": "boto3",
    "cohere_payloads": "cohere",
    "ollama_payloads": "ollama",
    "openai_edge_payloads": "openai",
    "gemini_edge_payloads": "google.genai",
    "anthropic_edge_payloads": "anthropic",
}

@cache
def builder(module: str) -> Any:
    # Instrumentations and SDKs warn about their own dependencies at import and
    # instrument time; the suite turns warnings into errors for our code only.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return importlib.import_module(f"payloads.{module}")


@cache
def scenarios(module: str) -> tuple[Scenario, ...]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tuple(builder(module).scenarios())


def all_scenarios() -> Iterator[Scenario]:
    for module in BUILDERS:
        yield from scenarios(module)


def all_writers() -> Iterator[tuple[str, Callable[..., Any]]]:
    for module in BUILDERS:
        for name, writer in builder(module).writers().items():
            yield f"{module.removesuffix('_payloads')}.{name}", writer
