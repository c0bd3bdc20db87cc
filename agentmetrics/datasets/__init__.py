"""The standard tool-calling benchmarks' data as cases with expectations.

Each loader reads a benchmark's own files (or their entries as Python
objects) and gives one :class:`~agentmetrics.AgentTestCase` per entry, with an
``expectation`` (see :mod:`agentmetrics.expectations`), the plain
``expected_tool_calls`` it stands for where there is one, and metadata
(``id``, ``category``, ``task``). The fields read are listed in each loader's
docstring and on the datasets page of the docs.
"""

from agentmetrics.datasets._adk import adk_cases, adk_expectation
from agentmetrics.datasets._api_bank import api_bank_cases
from agentmetrics.datasets._bfcl import (
    bfcl_calls,
    bfcl_cases,
    bfcl_category,
    bfcl_expectation,
    bfcl_multi_turn_cases,
    parse_bfcl_call,
)
from agentmetrics.datasets._nexusraven import nexusraven_calls, nexusraven_cases
from agentmetrics.datasets._seal_tools import seal_tools_cases
from agentmetrics.datasets._tau2 import tau2_cases, tau2_expectation, with_tau2_expectations
from agentmetrics.datasets._tau_bench import tau_bench_cases, tau_bench_tasks
from agentmetrics.datasets._xlam import xlam_cases

__all__ = [
    "adk_cases", "adk_expectation", "api_bank_cases", "bfcl_calls", "bfcl_cases", "bfcl_category",
    "bfcl_expectation", "bfcl_multi_turn_cases", "nexusraven_calls", "nexusraven_cases",
    "parse_bfcl_call", "seal_tools_cases", "tau2_cases", "tau2_expectation", "tau_bench_cases",
    "tau_bench_tasks", "with_tau2_expectations", "xlam_cases",
]
