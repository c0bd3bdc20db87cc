"""Assertions for tests of agents: ``assert_that(case).called_tool("GetOrder")``.

Each check raises AssertionError with a message a person can act on: what
was expected and what the agent called, in call order. Checks chain::

    assert_that(case).called_tool("GetOrder").never_called_tool("DeleteOrder")
"""

from __future__ import annotations

from typing import Any

from agentmetrics.errors import InvalidCaseError
from agentmetrics.metric._metric import Metric
from agentmetrics.model._model import AgentTestCase, describe
from agentmetrics.registry import resolve_metric

__all__ = ["AgentAssertions", "assert_that"]


def _listing(names: tuple[str, ...]) -> str:
    return ", ".join(names) if names else "no tools"


class AgentAssertions:
    """Fluent checks on one AgentTestCase's tool calls; every method returns self."""

    __slots__ = ("case",)

    def __init__(self, case: AgentTestCase) -> None:
        if not isinstance(case, AgentTestCase):
            raise InvalidCaseError(
                f"assert_that expects an AgentTestCase, got {describe(case)}. Fix: build "
                f"AgentTestCase(tool_calls=[...], expected_tool_calls=[...])."
            )
        self.case = case

    @property
    def _called(self) -> tuple[str, ...]:
        __tracebackhide__ = True
        names = self.case.tool_names
        if names is None:
            raise InvalidCaseError(
                "assert_that: the test case has tool_calls=None, so there is nothing to "
                "check. Fix: record what the agent called, e.g. AgentTestCase(tool_calls=[...]); "
                "an empty list means it called nothing."
            )
        return names

    def _fail(self, expectation: str) -> AssertionError:
        return AssertionError(f"{expectation}\n  the agent called: {_listing(self._called)}")

    def called_tool(self, name: str) -> AgentAssertions:
        """The agent called ``name`` at least once."""
        __tracebackhide__ = True  # pytest shows the test's line and this message, not our source
        if name not in self._called:
            raise self._fail(f"expected the agent to call {name!r}, but it never did")
        return self

    def never_called_tool(self, name: str) -> AgentAssertions:
        """The agent never called ``name``."""
        __tracebackhide__ = True
        positions = [i + 1 for i, called in enumerate(self._called) if called == name]
        if positions:
            where = ", ".join(f"#{p}" for p in positions)
            raise self._fail(
                f"expected the agent never to call {name!r}, but it did (call {where})"
            )
        return self

    def called_tools(self, *names: str) -> AgentAssertions:
        """The agent called every one of ``names`` (in any order, others allowed)."""
        __tracebackhide__ = True
        called = set(self._called)
        missing = [name for name in dict.fromkeys(names) if name not in called]
        if missing:
            raise self._fail(
                f"expected the agent to call all of {', '.join(names)}; "
                f"missing: {', '.join(missing)}"
            )
        return self

    def called_exactly(self, *names: str) -> AgentAssertions:
        """The set of tools called is exactly ``names`` (order and repeats aside)."""
        __tracebackhide__ = True
        called = dict.fromkeys(self._called)
        wanted = dict.fromkeys(names)
        missing = [name for name in wanted if name not in called]
        unexpected = [name for name in called if name not in wanted]
        if missing or unexpected:
            parts = []
            if missing:
                parts.append(f"missing: {', '.join(missing)}")
            if unexpected:
                parts.append(f"unexpected: {', '.join(unexpected)}")
            raise self._fail(
                f"expected the agent to call exactly {_listing(tuple(wanted))}; "
                + "; ".join(parts)
            )
        return self

    def called_in_order(self, *names: str) -> AgentAssertions:
        """``names`` appear in this order among the first calls of each tool
        (other tools may come between)."""
        __tracebackhide__ = True
        first_calls = tuple(dict.fromkeys(self._called))
        position = 0
        for index, name in enumerate(names):
            try:
                position = first_calls.index(name, position) + 1
            except ValueError:
                reason = (
                    f"{name!r} was never called"
                    if name not in first_calls
                    else f"{name!r} was first called before {names[index - 1]!r}"
                )
                raise self._fail(
                    f"expected first calls in the order {' -> '.join(names)}, but {reason}"
                    f"\n  first calls, in order: {' -> '.join(first_calls) or 'none'}"
                ) from None
        return self

    def called_tool_times(self, name: str, times: int) -> AgentAssertions:
        """The agent called ``name`` exactly ``times`` times."""
        __tracebackhide__ = True
        count = self._called.count(name)
        if count != times:
            raise self._fail(
                f"expected the agent to call {name!r} {times} time{'s' * (times != 1)}, "
                f"but it called it {count} time{'s' * (count != 1)}"
            )
        return self

    def meets_metric(
        self,
        metric: Metric | type[Metric] | str,
        threshold: float | None = None,
        **params: Any,
    ) -> AgentAssertions:
        """The case passes ``metric`` (an instance, a class or a registry name),
        with ``threshold`` and ``params`` overriding its configuration."""
        __tracebackhide__ = True

        resolved = resolve_metric(metric, threshold, **params)
        score = resolved.evaluate(self.case)
        if not score.passed:
            side = "below" if resolved.higher_is_better else "above"
            raise AssertionError(
                f"{score.metric}: {score.value:.2f} is {side} the threshold "
                f"{score.threshold:g}: {score.reason}"
            )
        return self


def assert_that(case: AgentTestCase) -> AgentAssertions:
    """Start a chain of checks on ``case``."""
    return AgentAssertions(case)
