"""What a key, a ``type`` value or a stop reason says, in any spelling.

Providers spell the same thing many ways (``tool_calls``, ``toolCalls``,
``tool-calls``, ``ToolCalls``), and a census that knows only the spellings it
was taught passes a new one as "no calls". So the census compares *normalized*
spellings: lower case, with ``_``, ``-``, ``.`` and spaces removed
(:func:`norm`), and decides by what the words say, not by a list of formats:

- a key **names calls** when its words hold ``toolcall``, ``tooluse``,
  ``functioncall``, ``toolinvocation``, ``toolrequest`` or ``executablecode``
  (``tool_calls``, ``toolUse``, ``function_call``, ``tool_call_chunks``,
  ``toolInvocations``), unless the words only *refer* to a call or *configure*
  calling: ids (``tool_call_id``, ``toolUseId``), results and outputs
  (``tool_call_result``), and settings or counts (``parallel_tool_calls``,
  ``function_calling_config``, ``tool_use_prompt_token_count``);
- a ``type`` value **names a call** when its words end in ``call`` or
  ``tooluse`` (``function_call``, ``web_search_call``, ``tool-call``,
  ``toolCall``, ``server_tool_use``), unless it names a result, an output or a
  stream event (``function_call_output``, ``tool_result``,
  ``response.function_call_arguments.delta``);
- a **stop reason** (``stop_reason``, ``stopReason``, ``finish_reason``,
  ``finishReason``, ``done_reason``, ``finish_reasons`` ...) **says tools were
  used** when its value's words hold ``toolcall``, ``tooluse`` or
  ``functioncall`` (``tool_calls``, ``TOOL_CALL``, ``tool_use``,
  ``MALFORMED_FUNCTION_CALL``).

Lookups are cached per spelling (a bounded cache: hostile payloads with
millions of distinct keys cost time, not memory).

>>> [key_kind(k) for k in ("toolUse", "tool_call_id", "parallel_tool_calls", "tools")]
[1, 0, 0, 2]
>>> [type_kind(t) for t in ("tool_use", "toolCall", "function_call_output", "recall")]
[1, 1, 3, 0]
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from agentmetrics._base._memo import memo

__all__ = [
    "CALL_KEY",
    "CONTEXT_KEY",
    "KEY_KINDS",
    "PLAIN_KEY",
    "REASON_KEY",
    "RESULT_KEY",
    "TYPE_KINDS",
    "cached",
    "key_kind",
    "norm",
    "says_tools",
    "type_kind",
]

_DROP = str.maketrans("", "", "_-. ")

#: Key kinds.
PLAIN_KEY = 0
#: Names calls: its value holds calls (or pieces of one).
CALL_KEY = 1
#: Tool definitions and settings: never entered.
CONTEXT_KEY = 2
#: A tool's result: never entered.
RESULT_KEY = 3
#: A stop or finish reason.
REASON_KEY = 4

_CALL_WORDS = re.compile(r"toolcall|tooluse|functioncall|toolinvocation|toolrequest|"
                         r"executablecode")
#: Words that make a call word a reference, a setting or a count.
_REFERENCE = re.compile(r"(id|ids|index|indices|name|names|type|types|count|counts|number|"
                        r"tokens?|limit|max|min)$|^(max|min|num|parallel|allow|disable|enable)|"
                        r"calling|config|choice|mode|prompt|policy|format|schema|definition|"
                        r"enabled|allowed|supported|support|behaviou?r|strategy|budget")
_RESULT = re.compile(r"result|response|output|return|error")
#: Keys of tool definitions and request settings (normalized).
_CONTEXT = frozenset({
    "tools", "functions", "toolchoice", "functiondeclarations", "toolconfig", "inputschema",
    "parameters", "responseformat", "toolspec", "tooldefinitions", "availabletools",
    "genaitooldefinitions", "genaitooldescription", "genairequesttools", "toolresources",
    "functiondefinitions", "tooldefs",
})
#: Keys of tools' results (normalized), beside those the call words make results.
_RESULTS = frozenset({
    "functionresponse", "codeexecutionresult", "toolresult", "toolresults", "functionresult",
    "functionresults", "toolresponse", "toolresponses", "toolcallresult", "toolcallresponse",
    "toolcallresults", "tooloutputs", "tooloutput",
})
_REASONS = frozenset({
    "stopreason", "finishreason", "donereason", "finishreasons", "stopreasons",
    "completionreason", "genairesponsefinishreasons", "llmfinishreason",
})
_TOOL_REASON = re.compile(r"toolcall|tooluse|functioncall|toolinvocation")

_T = TypeVar("_T")


def cached(compute: Callable[[str], _T]) -> tuple[dict[str, _T], Callable[[str], _T]]:
    """:func:`agentmetrics._base._memo.memo` bounded at 8,192 spellings: hostile payloads
    with millions of distinct keys cost time, not memory."""
    return memo(compute, limit=8192)


def norm(text: str) -> str:
    """``text`` in lower case without ``_``, ``-``, ``.`` and spaces.

    >>> norm("tool_calls"), norm("toolCalls"), norm("Tool-Calls")
    ('toolcalls', 'toolcalls', 'toolcalls')
    """
    return text.lower().translate(_DROP)


def _classify(key: str) -> int:
    n = norm(key)
    if n in _REASONS:
        return REASON_KEY
    if n in _CONTEXT:
        return CONTEXT_KEY
    if n in _RESULTS:
        return RESULT_KEY
    if _CALL_WORDS.search(n):
        if _RESULT.search(n):
            return RESULT_KEY
        if _REFERENCE.search(n.replace("executablecode", "")):
            return PLAIN_KEY  # an id, a setting or a count: context, entered as any key
        return CALL_KEY
    return PLAIN_KEY


#: ``key_kind(key)``: what a key says, one of the ``*_KEY`` kinds; ``KEY_KINDS``
#: is its cache, which the census's inner loop reads directly.
KEY_KINDS, key_kind = cached(_classify)

#: A call's ``type``: ends in the word "call" in any word spelling (``_call``,
#: ``-call``, ``Call``, `` call``), so that ``recall`` is not one; or in "tool use".
_CAMEL_CALL = re.compile(r"[a-z0-9]Call$|[_\- ]call$|^call$|[_\- ]CALL$|^CALL$")
_RESULT_TYPE = re.compile(r"(output|outputs|result|results|response|error)$")


def _type_kind(kind: str) -> int:
    if "." in kind:
        return PLAIN_KEY  # a stream event (response.function_call_arguments.delta)
    n = norm(kind)
    if _RESULT_TYPE.search(n):
        return RESULT_KEY
    if _CAMEL_CALL.search(kind) or n.endswith("tooluse") or n == "mcpapprovalrequest":
        return CALL_KEY
    return PLAIN_KEY


#: ``type_kind(kind)``: ``CALL_KEY`` for a call's ``type``, ``RESULT_KEY`` for a
#: result's, else ``PLAIN_KEY``; ``TYPE_KINDS`` is its cache.
TYPE_KINDS, type_kind = cached(_type_kind)


def says_tools(reason: object) -> bool:
    """A stop or finish reason that says the model stopped to use tools (a str,
    or a list of them).

    >>> [says_tools(r) for r in ("tool_calls", "TOOL_CALL", "tool_use", "end_turn", ["stop"])]
    [True, True, True, False, False]
    """
    if type(reason) is str:
        said = _SAID.get(reason)
        return _says(reason) if said is None else said
    if type(reason) is list:
        return any(type(item) is str and _says(item) for item in reason)
    return False


#: Whether one reason's words say tools were used, per spelling: a file repeats
#: the same few reasons ("tool_calls", "stop") on every line.
_SAID, _says = cached(lambda reason: bool(_TOOL_REASON.search(norm(reason))))
