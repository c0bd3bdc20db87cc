"""Regular expressions matched in time linear in the text, whatever the pattern.

Python's :mod:`re` backtracks: ``(a+)+`` against ``"a" * 40 + "!"`` tries every
way of splitting the a's before it fails, and holds the GIL while it does, so
no timeout can stop it. An expectation's ``$regex`` comes from a user's file,
so its matching must be bounded by construction. A pattern is parsed once, by
Python's own parser (it means here what it means to :mod:`re`), into a
Thompson automaton: single-character tests, zero-width assertions and
choices. Then:

- **Refused** when it is built, saying why: lookarounds, backreferences,
  conditionals, atomic groups and possessive repeats (they are not regular,
  and cannot be matched in linear time); an automaton of more than
  :data:`MAX_STATES` states (``(a{1000}){1000}``); and a pattern that can match
  one text in exponentially many ways inside a repeat (``(a+)+``,
  ``(\\w+\\s?)+``, ``(a|ab)(c|bcd)...`` looped): a backtracking engine, Python's
  among them, takes exponential time on it, so it is refused with a rewrite
  rather than kept in an expectation that other tools would hang on. The check
  is exact for what it refuses (two really different paths over one text,
  found in the automaton squared); a pattern too large to check is kept, and
  matched by the automaton below, linearly.
- **Deterministic** patterns, where at every point at most one character test
  can take the next character (``\\d{4}-\\d{2}``, ``[^,]+,\\w+``, ``(?i)yes|no``),
  are matched by :func:`re.fullmatch` itself: backtracking never has a choice
  to undo, so it is linear.
- **Every other** pattern is matched by running the automaton over the text
  once, all its states at a time, with the sets of states met built lazily into
  a cached table (a lazy DFA): time ``O(len(text) x states)``, memory bounded
  (the table is dropped and rebuilt past :data:`MAX_CACHED` entries). A match
  that would visit more than :data:`MAX_WORK` states while building its table (a
  value of thousands of characters against a pattern of thousands of states)
  raises :class:`RegexTooCostly` instead of running for minutes.

Each character test and assertion is decided by :mod:`re` itself, compiled
from the parsed piece with the flags in force there, so case folding,
``\\w``, ``\\b``, ``$`` before a final newline and the ASCII flag mean exactly
what they mean to :mod:`re`; a differential test checks the whole against
:func:`re.fullmatch` on patterns re answers quickly.
"""

from agentmetrics.expectations._regex._automaton import MAX_STATES, RegexRefused
from agentmetrics.expectations._regex._match import (
    MAX_CACHED,
    MAX_WORK,
    BoundedPattern,
    RegexTooCostly,
    bounded,
)

__all__ = ["MAX_CACHED", "MAX_STATES", "MAX_WORK", "BoundedPattern", "RegexRefused",
           "RegexTooCostly", "bounded"]
