"""Tool calls from what agents really produce: provider responses, framework
messages and telemetry, without importing any provider SDK.

The promise: every tool call a payload holds comes back, in the order the
agent made it, with its arguments and id; or an InvalidCaseError says which
format was read, where in the payload it stopped (a path such as
``output[1].arguments``) and what to do. Never fewer calls without an error:
each read is checked against an independent census of the call-like nodes in
the payload (:mod:`agentmetrics.formats._census`).

A payload may be JSON data (dicts and lists), JSON text (``str`` or
``bytes``, JSON lines, or server-sent ``data:`` lines), or the SDK objects
themselves: anything with ``model_dump()`` (OpenAI, Anthropic, google-genai
and LangChain types), ``to_dict()``/``to_json_dict()``, OpenTelemetry
``ReadableSpan`` objects, and lists of any of these.

Arguments given as JSON text are parsed; text that is not a JSON object is
kept in ``ToolCall.raw_arguments`` (``arguments`` is then empty), so a
malformed call is flagged, never dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import attrs

from agentmetrics._secrets import mask_tokens
from agentmetrics.errors import InvalidCaseError
from agentmetrics.formats._anthropic import read_anthropic
from agentmetrics.formats._bedrock import read_bedrock
from agentmetrics.formats._census import check, scan
from agentmetrics.formats._cohere import read_cohere
from agentmetrics.formats._detect import detect, shows
from agentmetrics.formats._gemini import read_gemini
from agentmetrics.formats._gemini_interactions import read_gemini_interactions
from agentmetrics.formats._langchain import read_langchain
from agentmetrics.formats._ledger import Ledger, parse_arguments
from agentmetrics.formats._ollama import read_ollama
from agentmetrics.formats._openai_chat import read_openai_chat
from agentmetrics.formats._openai_responses import read_openai_responses
from agentmetrics.formats._otel import NOT_CAPTURED, read_otel
from agentmetrics.formats._payload import render, to_tree
from agentmetrics.formats._tau2 import cases_from_tau2
from agentmetrics.model._model import ToolCall, describe

__all__ = [
    "FORMATS",
    "Format",
    "NOT_CAPTURED",
    "cases_from_tau2",
    "detect_format",
    "from_anthropic",
    "from_bedrock",
    "from_cohere",
    "from_gemini",
    "from_gemini_interactions",
    "from_langchain",
    "from_ollama",
    "from_openai_chat",
    "from_openai_responses",
    "from_otel",
    "parse_arguments",
    "tool_calls_from",
]


class _Reader(Protocol):
    def __call__(self, tree: Any, ledger: Ledger, *, hosted_tools: bool = True) -> None: ...


@attrs.frozen(slots=True)
class Format:
    """A payload format: its name, what detection looks for, and its reader."""

    name: str
    looks_for: str
    read: _Reader = attrs.field(repr=False)


#: The formats :func:`tool_calls_from` reads, by name.
FORMATS: Mapping[str, Format] = {
    format.name: format for format in (
        Format("otel", "'resourceSpans', or spans with gen_ai.*, llm.* or traceloop.* "
               "attributes, or messages with tool_call parts", read_otel),
        Format("langchain", "'lc' serialization, AIMessageChunk, 'additional_kwargs', "
               "'invalid_tool_calls' or tool calls with 'args'", read_langchain),
        Format("openai_responses", "object 'response', or items of type function_call, "
               "*_call, message with output_text, or response.* events",
               read_openai_responses),
        Format("openai_chat", "object 'chat.completion(.chunk)', 'choices', or tool_calls "
               "with 'function'", read_openai_chat),
        Format("anthropic", "'stop_reason', or blocks of type tool_use, tool_result, "
               "thinking, or message_start/content_block_* events", read_anthropic),
        Format("gemini", "'candidates', role 'model', or functionCall/function_call, "
               "executableCode parts", read_gemini),
        Format("bedrock", "Converse responses ('output.message', 'stopReason'), toolUse blocks, "
               "or contentBlockStart/contentBlockDelta/messageStop events", read_bedrock),
        Format("cohere", "'tool_plan', 'billed_units', v1 'generation_id'/'chat_history', or "
               "tool-call-start/message-end events", read_cohere),
        Format("ollama", "'done_reason', 'eval_count', or 'created_at' with 'done'",
               read_ollama),
        Format("gemini_interactions", "object 'interaction', or step.start/step.delta "
               "events", read_gemini_interactions),
    )
}


#: Keys of a model's output: an object with any of them is a response, even with an
#: ``error`` beside them (a failed hosted call, a partial response).
_OUTPUT_KEYS = frozenset({"choices", "output", "candidates", "content", "message", "messages",
                          "steps", "outputs", "delta", "response", "tool_calls", "generations",
                          "results", "parts", "item", "interaction"})


def _api_error(tree: Any) -> tuple[str, str] | None:
    """``(where, message)`` of an error the API returned instead of a response:
    the payload, or an item of it (a stream's error event, an error line), that is
    an error object and no output."""
    if type(tree) is dict and "error" not in tree and tree.get("type") != "error":
        return None  # the common case, told at once
    items = [(tree, "the payload")] if isinstance(tree, dict) else [
        (item, f"[{index}]") for index, item in enumerate(tree)
        if isinstance(item, dict)] if isinstance(tree, list) else []
    for item, where in items:
        error = item.get("error")
        if (error is not None and error is not False and _OUTPUT_KEYS.isdisjoint(item)) or (
                item.get("type") == "error" and "response" not in item):
            detail = error if error is not None else item.get("message")
            if isinstance(detail, dict):
                detail = detail.get("message", detail.get("type", detail))
            return where, mask_tokens(repr(detail))[:160]
    return None


def _tried() -> str:
    return "; ".join(f"{name} ({fmt.looks_for})" for name, fmt in FORMATS.items())


def _read(payload: object, format: str | None, hosted_tools: bool) -> list[ToolCall]:
    if format is not None and format not in FORMATS:
        raise InvalidCaseError(
            f"unknown format {format!r}; expected one of {', '.join(FORMATS)}. Fix: pass one "
            f"of those names, or format=None to detect it."
        )
    if not isinstance(hosted_tools, bool):
        raise InvalidCaseError(f"hosted_tools: expected True or False, got {describe(hosted_tools)}.")
    tree = to_tree(payload)
    failed = _api_error(tree)
    if failed is not None:
        raise InvalidCaseError(
            f"{failed[0]} is an error the API returned ({failed[1]}), not a model response; "
            f"expected the model's response. Fix: an error holds no calls to read: score the "
            f"case as failed yourself, or pass the response of a request that succeeded."
        )
    found = scan(tree)
    if format is None:
        format, evidence, weak = detect(found)
        if format is None:
            if weak and not found.sites and not found.promises:
                return []  # a conversation of some format, with no call to read
            if isinstance(tree, list) and not tree:
                return []  # nothing at all: no call was made
            if evidence:
                fits = "; ".join(f"{name} ({', '.join(hits[:4])})" for name, hits in evidence.items())
                raise InvalidCaseError(
                    f"the payload fits several formats: {fits}; expected one. Fix: pass "
                    f"format=... naming the one it is."
                )
            where = (f" It holds call-like content at {render(found.sites[0].path)}."
                     if found.sites else f" It says at {render(found.promises[0])} that the "
                     f"model stopped to call tools." if found.promises else "")
            raise InvalidCaseError(
                f"could not tell the format of {describe(payload)}.{where} Tried: {_tried()}. "
                f"Fix: pass format=... or call the matching agentmetrics.formats.from_* function."
            )
    ledger = Ledger(format)
    FORMATS[format].read(tree, ledger, hosted_tools=hosted_tools)
    check(found, ledger)
    if not ledger.calls and not _nothing(tree) and not shows(found, format):
        raise InvalidCaseError(
            f"{format}: nothing in {describe(payload)} is of the {format} format; expected "
            f"{FORMATS[format].looks_for}, or a message, a conversation or a list of them. "
            f"It was not read as 'no calls'. Fix: pass the response, message or stream as "
            f"the SDK gives it, or format=None to detect the format."
        )
    return ledger.calls


def _nothing(tree: Any) -> bool:
    """An empty list, or a list of empty lists: no turn, or turns with nothing
    in them, which is no call made."""
    return type(tree) is list and all(type(item) is list and _nothing(item) for item in tree)


def detect_format(payload: object) -> str | None:
    """The name of the format ``payload`` is in, as :func:`tool_calls_from`
    detects it; None when no format, or more than one, fits (or the payload
    cannot be read at all). Reads no call.

    >>> detect_format({"stop_reason": "end_turn", "content": []})
    'anthropic'
    >>> detect_format({"score": 0.5}) is None
    True
    """
    try:
        tree = to_tree(payload)
    except InvalidCaseError:
        return None
    return detect(scan(tree))[0]


def tool_calls_from(
    payload: object, format: str | None = None, *, hosted_tools: bool = True
) -> list[ToolCall]:
    """The tool calls in ``payload``, in the order they were made.

    ``format`` names one of :data:`FORMATS`; by default the format is
    detected. ``hosted_tools=False`` leaves out calls to tools the provider
    runs itself (OpenAI Responses' built-in tools such as web search, Anthropic's
    server tools and MCP calls it makes, Gemini's code execution); they are
    counted as read, not lost. Raises InvalidCaseError when the payload cannot
    be read exactly.
    """
    return _read(payload, format, hosted_tools)


def _reader(format: str, doc: str) -> Callable[..., list[ToolCall]]:
    def read(payload: object, *, hosted_tools: bool = True) -> list[ToolCall]:
        return _read(payload, format, hosted_tools)

    read.__name__ = read.__qualname__ = f"from_{format}"
    read.__doc__ = doc
    return read


from_openai_chat = _reader("openai_chat", """OpenAI Chat Completions: a response (its
first choice), an assistant message, a conversation or request body (the
assistant messages' calls), streamed chunks (``delta.tool_calls`` joined per
completion), or a list of these, one per turn.""")
from_openai_responses = _reader("openai_responses", """OpenAI Responses: a
response's output items, a list of items (an input-item conversation, the
Agents SDK's ``to_input_list()``), a list of responses, or stream events.""")
from_anthropic = _reader("anthropic", """Anthropic Messages: a message, a
conversation, a list of content blocks, or raw stream events.""")
from_gemini = _reader("gemini", """Gemini: a response (first candidate, after
the automatic function-calling history), a list of responses or streamed
chunks, a content, a chat history, a part or a list of parts.""")
from_bedrock = _reader("bedrock", """AWS Bedrock Converse: a ``converse()`` response
(as boto3 returns it), a message, a conversation or request body
(``messages``), content blocks, or the events of ``converse_stream()``.""")
from_cohere = _reader("cohere", """Cohere chat (v2 and v1): a response, a message, a
conversation (``messages`` or v1 ``chat_history``), or stream events.""")
from_gemini_interactions = _reader("gemini_interactions", """Google's Interactions API:
an interaction (its ``steps``), a list of them, or stream events.""")
from_ollama = _reader("ollama", """Ollama ``/api/chat``: a response, a message, a
conversation, or the NDJSON lines of a stream.""")
from_langchain = _reader("langchain", """LangChain: messages and their dumps
(``model_dump``, ``message_to_dict``, ``dumpd``), a LangGraph state, or a stream
of AIMessageChunks, merged as LangChain merges them.""")
from_otel = _reader("otel", """OpenTelemetry GenAI: spans (``ReadableSpan``,
dicts, ``to_json()``), OTLP JSON exports or a list of them, or bare
``gen_ai.output.messages``; calls in span start order.""")
