"""An exception scrubbed of known secrets, with every exception linked to it:
causes, contexts and the sub-exceptions of an ExceptionGroup."""

from __future__ import annotations

import builtins
from typing import Any

from agentmetrics._secrets._scrub import scrub

__all__ = ["scrub_exception"]

#: Links followed from an exception (causes, contexts, sub-exceptions) before the rest is cut.
_MAX_DEPTH = 200
_GROUP: Any = getattr(builtins, "BaseExceptionGroup", None)  # Python 3.11+


def _scrub_value(value: object, variants: tuple[str, ...]) -> object:
    if isinstance(value, str):
        return scrub(value, variants)
    if isinstance(value, bytes):
        text = value.decode("utf-8", "backslashreplace")
        cleaned = scrub(text, variants)
        return value if cleaned == text else cleaned.encode("utf-8", "backslashreplace")
    return value


def _leaks(error: BaseException, variants: tuple[str, ...]) -> bool:
    try:
        text = str(error)
    except Exception:  # an exception whose __str__ fails shows nothing
        return False
    return scrub(text, variants) != text


def _carry(source: BaseException, target: BaseException) -> BaseException:
    """``target`` with ``source``'s links, traceback and notes."""
    target.__cause__ = source.__cause__
    target.__context__ = source.__context__
    target.__suppress_context__ = source.__suppress_context__
    target.__traceback__ = source.__traceback__
    notes = getattr(source, "__notes__", None)
    if isinstance(notes, list):
        target.__notes__ = list(notes)
    return target


class _Scrubber:
    """One walk over an exception's graph: every exception reached is
    scrubbed once (a cycle leads back to it unchanged)."""

    def __init__(self, variants: tuple[str, ...]) -> None:
        self.variants = variants
        self.done: dict[int, BaseException] = {}
        self.kept: list[BaseException] = []  # ids stay valid while the walk lasts

    def clean(self, error: BaseException, depth: int = 0) -> BaseException:
        known = self.done.get(id(error))
        if known is not None:
            return known
        self.done[id(error)] = error  # in progress
        self.kept.append(error)
        variants = self.variants
        try:
            error.args = tuple(_scrub_value(arg, variants) for arg in error.args)
        except (AttributeError, TypeError):  # pragma: no cover - args is always settable
            pass
        notes = getattr(error, "__notes__", None)
        if isinstance(notes, list):
            notes[:] = [_scrub_value(note, variants) for note in notes]
        suppress = error.__suppress_context__
        for link in ("__cause__", "__context__"):
            linked = getattr(error, link)
            if linked is None:
                continue
            cleaned = None if depth >= _MAX_DEPTH else self.clean(linked, depth + 1)
            if cleaned is not linked:
                setattr(error, link, cleaned)
        error.__suppress_context__ = suppress
        result = error
        if _GROUP is not None and isinstance(error, _GROUP):
            result = self._group(error, depth)
        if _leaks(result, variants):
            result = self._replacement(result)
        self.done[id(error)] = result
        return result

    def _group(self, group: Any, depth: int) -> BaseException:
        members = group.exceptions
        cleaned = tuple(member if depth >= _MAX_DEPTH else self.clean(member, depth + 1)
                        for member in members)
        message = scrub(group.message, self.variants)
        if message == group.message and all(a is b for a, b in zip(cleaned, members)):
            return group  # type: ignore[no-any-return]
        try:
            rebuilt = type(group)(message, cleaned)
        except Exception:
            rebuilt = _GROUP(message, cleaned)
        return _carry(group, rebuilt)

    def _replacement(self, error: BaseException) -> BaseException:
        """A plain copy of ``error``'s class with its text scrubbed (or a
        RuntimeError, if the class cannot be built so), in its place."""
        text = scrub(str(error), self.variants)
        try:
            replacement = type(error)(text)
        except Exception:
            replacement = RuntimeError(f"{type(error).__name__}: {text}")
        if str(replacement) != text:
            replacement = RuntimeError(f"{type(error).__name__}: {text}")
        return _carry(error, replacement)


def scrub_exception(error: BaseException, variants: tuple[str, ...]) -> BaseException:
    """Scrub ``error`` and every exception linked to it, in place: each one's
    arguments and notes, through every ``__cause__`` and ``__context__`` (a
    context hidden behind a cause included) and the sub-exceptions of an
    ExceptionGroup. An exception whose text still shows a secret after that
    (a ``__str__`` of its own) is replaced, where it is linked, by a plain
    copy of its class with the scrubbed text (or a RuntimeError, if the class
    cannot be built so); a group whose members changed is rebuilt. Returns
    the exception to raise: ``error`` itself, or its replacement."""
    return _Scrubber(variants).clean(error)
