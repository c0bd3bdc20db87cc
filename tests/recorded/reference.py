"""An independent reference reader of the tool calls in recorded provider responses.

Written from each provider's documented wire format and from the recorded
bodies, by a developer who did not read agentmetrics.formats (independence is
the point: the corpus test compares the two). Afterwards only the library's
documented *conventions* were applied here, never its reading: what a hosted
call is named, that a custom tool's free text is ``{"input": text}``, that an
MCP approval request is a call, that a stream holding several turns reads all
of them, that a Cohere v1 response's history is its conversation.

Every record is one line of a ``tests/recorded/*.jsonl.gz`` file:
    {"source", "commit", "path", "interaction", "url", "content_type",
     "body" (text) | "body_base64" (AWS event-stream frames)}

Public functions
    classify(record)        -> API name (see API_SHAPES below)
    provider(record)        -> the service ("OpenAI", "Bedrock", ...)
    reference_calls(record) -> list[RefCall] | Unreadable

Conventions used for every API
    * Only the first choice / first candidate counts (index 0 when the wire
      numbers them, else the first one listed).
    * RefCall.arguments: the parsed JSON object; {} when the wire says "none"
      ("", null, "null", {}, field absent); the raw text when it is text that
      does not parse as a JSON object; None when it cannot be pinned (e.g. a
      hosted item that carries no input object, or a non-object, non-text
      value). ``builtin`` marks provider built-ins whose arguments follow the
      library's documented convention and are not pinned here.
    * RefCall.id: the call id the wire gives ("" counts as no id -> None; a
      number, as TGI 2.0 sends, as its text).
    * hosted=True for calls to tools that the provider runs itself.
    * When one body holds several messages/responses one after the other (a
      new message_start / response.created after an earlier one), each one's
      calls count, in order.
    * Unreadable(reason) only when the body itself cannot tell the calls:
      truncated bodies and streams, an error in the middle of a stream, or a
      finish / stop reason saying tools were called while no call is in the
      body, or call arguments streamed with no name for the call (a snapshot
      of a stream's last chunk). For a stream cut before its end marker,
      Unreadable.calls holds the calls of its finished part.
    * A record with no URL (a project's own fixture file, snapshot or
      mock-server table) is placed by its folder (_FIXTURE_DIRS) and by the
      shape of its body.
"""
from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlparse


# ----------------------------------------------------------------------------
# Result types
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class RefCall:
    name: str
    arguments: Any          # dict | str | None
    id: str | None
    hosted: bool = False
    #: A provider built-in tool (OpenAI's computer, shell, apply_patch ...): its
    #: arguments are the library's documented convention, not pinned here.
    builtin: bool = False


@dataclass(frozen=True)
class Unreadable:
    reason: str
    #: For a stream cut before its end marker: the calls its finished part holds
    #: (a reader may return those, or refuse); None when nothing can be read.
    calls: Any = None


# The API set: name -> the documented shape its reader follows.
API_SHAPES = {
    "openai_chat": "Chat Completions JSON: choices[0].message.tool_calls[] "
                   "{id,type:function,function{name,arguments}} | {type:custom,custom{name,input}}; "
                   "legacy message.function_call{name,arguments}",
    "openai_chat_stream": "Chat Completions SSE chunks: choices[0].delta.tool_calls[] merged by index "
                          "(strings concatenated, as openai-python's accumulate_delta; a piece restating "
                          "the same id and name adds only its arguments); pieces without "
                          "index are whole calls (Mistral); legacy delta.function_call concatenated",
    "openai_completions": "legacy /v1/completions (choices[].text): no tool calls",
    "openai_completions_stream": "legacy /v1/completions SSE: no tool calls",
    "openai_responses": "Responses JSON: output[] items function_call / custom_tool_call (client) and "
                        "built-in *_call items (hosted; name = type without _call)",
    "openai_responses_stream": "Responses SSE events: output of the final response.completed "
                               "(or .incomplete/.failed), else the response.output_item.done items",
    "openai_thread_messages": "Assistants API thread message list: stored messages, no tool calls",
    "anthropic_messages": "Messages JSON: content[] tool_use (client), server_tool_use / mcp_tool_use (hosted)",
    "anthropic_stream": "Messages SSE: content_block_start (tool_use/server_tool_use/mcp_tool_use) + "
                        "input_json_delta.partial_json concatenated per block index",
    "gemini": "generateContent JSON: candidates[0].content.parts[] functionCall{name,args,id}; "
              "executableCode -> hosted code_execution; toolCall{toolType,args,id} -> hosted",
    "gemini_stream": "streamGenerateContent (SSE or JSON array): each chunk's candidates[0] parts as in "
                     "gemini; functionCall pieces with partialArgs/willContinue assembled into one call",
    "gemini_interactions": "Interactions API JSON: steps[] (or outputs[]) function_call{id,name,arguments} "
                           "(client) and *_call steps (hosted; name = type without _call)",
    "gemini_interactions_stream": "Interactions SSE: step.start{step} + step.delta "
                                  "(arguments_delta pieces concatenated, or *_call arguments object)",
    "bedrock_converse": "Converse JSON: output.message.content[] toolUse{toolUseId,name,input,type?}; "
                        "type server_tool_use -> hosted",
    "bedrock_converse_stream": "ConverseStream event-stream: contentBlockStart.start.toolUse{toolUseId,name} "
                               "+ contentBlockDelta.delta.toolUse.input pieces concatenated per contentBlockIndex",
    "bedrock_invoke_anthropic": "InvokeModel with the Anthropic Messages body (or legacy text completion)",
    "bedrock_invoke_stream_anthropic": "InvokeModelWithResponseStream: chunk.bytes are Anthropic stream events",
    "bedrock_invoke_nova": "InvokeModel, Amazon Nova: output.message.content[] toolUse (Converse-like)",
    "bedrock_invoke_stream_nova": "InvokeModelWithResponseStream, Nova: chunk.bytes are "
                                  "{contentBlockStart|contentBlockDelta|...} events (ConverseStream-like)",
    "bedrock_invoke_titan": "Titan text results[].outputText: no tool calls",
    "bedrock_invoke_stream_titan": "Titan text chunks: no tool calls",
    "bedrock_invoke_cohere": "Cohere on Bedrock: command-r chat {text, tool_calls[{name,parameters}]}; "
                             "command generations[]: no tool calls",
    "bedrock_invoke_meta": "Llama generation text: no tool calls",
    "bedrock_invoke_mistral": "Mistral outputs[].text (or choices[] chat shape with tool_calls)",
    "bedrock_invoke_ai21": "AI21 completions[]: no tool calls",
    "bedrock_invoke_openai": "OpenAI-compatible body (chat or text_completion) behind invoke",
    "bedrock_invoke_embedding": "embedding vector: no tool calls",
    "bedrock_invoke_unknown": "InvokeModel body of an unrecognised family: no tool calls read",
    "cohere_v2": "Cohere v2 chat JSON: message.tool_calls[] {id,type:function,function{name,arguments}}",
    "cohere_v2_stream": "Cohere v2 SSE: tool-call-start (delta.message.tool_calls is ONE object) + "
                        "tool-call-delta arguments pieces per event index; tool-call-end",
    "cohere_v1": "Cohere v1 chat JSON: tool_calls[] {name, parameters} (no ids)",
    "cohere_v1_stream": "Cohere v1 NDJSON: tool-calls-generation.tool_calls, else stream-end.response.tool_calls",
    "cohere_v1_generate": "Cohere v1 /generate (generations[] or text-generation NDJSON): no tool calls",
    "ollama_chat": "Ollama /api/chat JSON: message.tool_calls[] {id?, function{name, arguments(object)}}",
    "ollama_chat_stream": "Ollama /api/chat NDJSON: every chunk's message.tool_calls, in order",
    "ollama_generate": "Ollama /api/generate (JSON or NDJSON): no tool calls",
    "writer_completions": "Writer /v1/completions (JSON or {value} SSE): no tool calls",
    "non_chat": "embeddings, rerank, transcription, images, skills, live/realtime...: not a model turn",
    "other": "not placed",
}


# ----------------------------------------------------------------------------
# Body decoding helpers
# ----------------------------------------------------------------------------

def _text(record) -> str:
    return record.get("body") or ""


def _loads(s):
    try:
        return json.loads(s)
    except (ValueError, TypeError):
        return None


def _is_sse(text: str) -> bool:
    head = text.lstrip()[:200]
    return head.startswith(("data:", "event:", "id:", ":", "retry:"))


def sse_events(text: str) -> list[tuple[str | None, str]]:
    """Server-sent events per the WHATWG spec: (event name, data) per blank-line
    separated block, data lines joined with "\\n"."""
    out, event, data = [], None, []
    for raw in text.splitlines() + [""]:
        line = raw.rstrip("\r")
        if line == "":
            if data:
                out.append((event, "\n".join(data)))
            event, data = None, []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "event":
            event = value
        elif field == "data":
            data.append(value)
    return out


def _sse_objects(text: str) -> list[dict]:
    objs = []
    for event, data in sse_events(text):
        if data.strip() == "[DONE]":
            continue
        o = _loads(data)
        if o is None:
            # some recorders drop the blank lines between events: one JSON per line
            for piece in data.split("\n"):
                p = _loads(piece)
                if p is not None:
                    objs.append(p)
            continue
        if isinstance(o, dict) and event and "type" not in o and "event" not in o:
            o = dict(o, _sse_event=event)
        objs.append(o)
    return objs


def _sse_done(record) -> bool:
    """The OpenAI-style terminal `data: [DONE]` event is present."""
    return any(d.strip() == "[DONE]" for _, d in sse_events(_text(record))) if _is_sse(_text(record)) else False


def _ndjson_objects(text: str) -> list:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        o = _loads(line)
        if o is not None:
            out.append(o)
    return out


def body_objects(record) -> list:
    """All JSON values of a text body: one for plain JSON (a JSON array is
    spread out, as Gemini's streamGenerateContent without alt=sse sends),
    one per SSE event, one per NDJSON line."""
    text = _text(record)
    if _is_sse(text):
        return _sse_objects(text)
    o = _loads(text)
    if o is not None:
        return o if isinstance(o, list) else [o]
    return _ndjson_objects(text)


def _body_kind(record) -> str:
    """'binary' | 'sse' | 'json' | 'ndjson' | 'text' | 'empty'"""
    if "body_base64" in record:
        return "binary"
    text = _text(record)
    if not text.strip():
        return "empty"
    if _is_sse(text):
        return "sse"
    if _loads(text) is not None:
        return "json"
    lines = [l for l in text.splitlines() if l.strip()]
    n_obj = sum(isinstance(_loads(l), dict) for l in lines)
    if n_obj >= 2 or (n_obj == 1 and len(lines) == 1):
        return "ndjson"          # one JSON object per line; lines that do not parse are skipped
    return "text"


def eventstream_events(record) -> list[tuple[str, str, Any]]:
    """AWS event-stream frames -> (message-type, event-type, payload JSON).
    For invoke-with-response-stream, the 'chunk' payload {"bytes": b64} is
    replaced by the decoded model chunk JSON."""
    from botocore.eventstream import EventStreamBuffer
    buf = EventStreamBuffer()
    buf.add_data(base64.b64decode(record["body_base64"]))
    out = []
    for msg in buf:
        h = msg.headers
        mtype = h.get(":message-type", "event")
        etype = h.get(":event-type") or h.get(":exception-type") or ""
        payload = _loads(msg.payload.decode("utf-8", "replace")) if msg.payload else {}
        if etype == "chunk" and isinstance(payload, dict) and "bytes" in payload:
            payload = _loads(base64.b64decode(payload["bytes"]).decode("utf-8", "replace"))
        out.append((mtype, etype, payload))
    return out


def args_of(value):
    """Normalise a wire 'arguments' value (see module docstring)."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        if value.strip() in ("", "null"):
            return {}
        o = _loads(value)
        if isinstance(o, dict):
            return o
        return value          # text that is not a JSON object: keep it raw
    return None               # a list / number / bool: cannot pin as arguments


def _id(v):
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)           # a server numbering its calls (TGI 2.0: "id": 0)
    return v if isinstance(v, str) and v != "" else None


def _first_choice(choices):
    """Only the first choice: the one numbered index 0, else the first listed."""
    if not isinstance(choices, list) or not choices:
        return None
    for c in choices:
        if isinstance(c, dict) and c.get("index") == 0:
            return c
    return choices[0] if isinstance(choices[0], dict) else None


# ----------------------------------------------------------------------------
# classify / provider
# ----------------------------------------------------------------------------

_REGION_PREFIX = re.compile(r"^(us|eu|apac|global|us-gov|ca|jp|au)\.")


def _bedrock_model(path: str) -> tuple[str, str]:
    """'/model/<id>/<op>' -> (model id, op); ARNs reduced to their last part."""
    m = re.search(r"/model/(.+)/(converse-stream|converse|invoke-with-response-stream|invoke)$", path)
    if not m:
        return "", ""
    model = unquote(m.group(1))
    if model.startswith("arn:"):
        tail = model.split("/", 1)[1] if "/" in model else ""
        kind = model.split(":")[5].split("/")[0] if model.count(":") >= 5 else ""
        model = tail if kind in ("inference-profile", "foundation-model") else ""
    return _REGION_PREFIX.sub("", model), m.group(2)


def _bedrock_family_from_model(model: str) -> str | None:
    vendor = model.split(".", 1)[0]
    if vendor == "amazon":
        if ".nova" in model:
            return "nova"
        if "embed" in model:
            return "embedding"
        return "titan"
    if vendor == "cohere":
        return "embedding" if "embed" in model else "cohere"
    return {"anthropic": "anthropic", "meta": "meta", "mistral": "mistral", "ai21": "ai21",
            "openai": "openai"}.get(vendor)


def _bedrock_family_from_body(objs: list) -> str:
    o = objs[0] if objs and isinstance(objs[0], dict) else {}
    if o.get("type") in ("message", "completion", "message_start") or "completion" in o:
        return "anthropic"
    if "output" in o or "messageStart" in o or "contentBlockDelta" in o:
        return "nova"
    if "results" in o or "outputText" in o:
        return "titan"
    if "generations" in o or "chat_history" in o:
        return "cohere"
    if "generation" in o:
        return "meta"
    if "outputs" in o:
        return "mistral"
    if "completions" in o:
        return "ai21"
    if "choices" in o:
        return "openai"
    if "embedding" in o or "embeddings" in o:
        return "embedding"
    return "unknown"


def _sniff(objs: list, stream: bool) -> str:
    """API from the shape of the (first) JSON object(s); used for fixtures
    and for hosts whose path does not tell."""
    first = next((o for o in objs if isinstance(o, dict)), {})
    t = first.get("type")
    if stream:
        if (isinstance(t, str) and t.startswith("response.")) or (
                isinstance(first.get("response"), dict) and first["response"].get("object") == "response"):
            return "openai_responses_stream"
        if t in ("message_start", "ping") or (t or "").startswith("content_block"):
            return "anthropic_stream"
        if t in ("message-start", "content-start", "tool-plan-delta", "tool-call-start"):
            return "cohere_v2_stream"
        if "event_type" in first and ("interaction" in first or "interaction_id" in first
                                      or str(first.get("event_type")).startswith(("step.", "content."))):
            return "gemini_interactions_stream"
        if "event_type" in first:
            return "cohere_v1_stream"
        if "candidates" in first or "usageMetadata" in first:
            return "gemini_stream"
        if any(k in first for k in ("messageStart", "contentBlockStart", "contentBlockDelta",
                                    "contentBlockStop", "messageStop", "metadata")):
            return "bedrock_converse_stream"
        if "choices" in first or first.get("object") == "chat.completion.chunk":
            ch = _first_choice(first.get("choices")) or {}
            return "openai_completions_stream" if "text" in ch else "openai_chat_stream"
        if "message" in first and "done" in first:
            return "ollama_chat_stream"
        if "response" in first and "done" in first:
            return "ollama_generate"
        return "other"
    if first.get("object") == "response" or (isinstance(first.get("output"), list) and "status" in first):
        return "openai_responses"
    if t == "message" and "content" in first:
        return "anthropic_messages"
    if "candidates" in first or "promptFeedback" in first:
        return "gemini"
    if first.get("object") == "interaction" or "steps" in first:
        return "gemini_interactions"
    if isinstance(first.get("output"), dict) and "message" in first["output"]:
        return "bedrock_converse"
    if "choices" in first:
        ch = _first_choice(first.get("choices")) or {}
        if "delta" in ch:
            return "openai_chat_stream"     # one chunk of a stream, kept alone
        return "openai_completions" if "text" in ch else "openai_chat"
    if "message" in first and "done" in first:
        return "ollama_chat"
    if isinstance(first.get("message"), dict) and ("finish_reason" in first or "tool_calls" in first["message"]):
        return "cohere_v2"
    if "response" in first and "done" in first:
        return "ollama_generate"
    return "other"


# fixture folders / file names of non-generation endpoints
_NON_CHAT = re.compile(r"/(embedding|reranking|transcription|image|skills|speech-translation)/|"
                       r"/(cohere-embedding|google-vertex-embedding|voyage-embedding|deepgram-|elevenlabs-|"
                       r"cartesia-|fal-|gladia-|revai-|mistral-transcription|groq-transcription)")


# Response files kept without a URL by other projects (their own fixtures, snapshots
# and mock-server tables): the folder names the service; the API is told by the
# body's shape. (pattern on the path, provider or a map from the folder's name)
_FIXTURE_DIRS = [
    # prism-php/prism: tests/Fixtures/<provider>/<name>.json|.sse
    (re.compile(r"^tests/Fixtures/([^/]+)/"), {
        "openai": "OpenAI", "anthropic": "Anthropic", "gemini": "Gemini API", "ollama": "Ollama",
        "xai": "xAI", "mistral": "Mistral", "groq": "Groq", "openrouter": "OpenRouter",
        "deepseek": "DeepSeek", "z": "Z.ai", "perplexity": "Perplexity"}),
    # microsoft/semantic-kernel: dotnet/src/Connectors/Connectors.<X>.UnitTests/TestData/
    (re.compile(r"/Connectors\.(\w+)\.UnitTests/TestData/"), {
        "OpenAI": "OpenAI", "AzureOpenAI": "Azure OpenAI", "AzureAIInference": "Azure AI Inference",
        "MistralAI": "Mistral", "Google": "Gemini API", "HuggingFace": "Hugging Face",
        "Ollama": "Ollama"}),
    # huggingface/text-generation-inference: the integration tests' response snapshots
    (re.compile(r"^integration-tests/models/__snapshots__/"), "text-generation-inference"),
    # newrelic/newrelic-python-agent: the recorded responses its mock servers replay
    (re.compile(r"^tests/\w+/_mock_external_(\w+?)_server"), {
        "openai": "OpenAI", "anthropic": "Anthropic", "gemini": "Gemini API", "bedrock": "Bedrock"}),
]


def _fixture_provider(record) -> str | None:
    path = record.get("path", "")
    for pattern, names in _FIXTURE_DIRS:
        m = pattern.search(path)
        if m:
            return names if isinstance(names, str) else names.get(m.group(1), "other")
    return None


def _classify_fixture(record) -> str:
    if _fixture_provider(record) is not None:
        return _classify_file(record)
    path = record.get("path", "")
    name = path.rsplit("/", 1)[-1].lower()
    stream = ".chunks." in name
    if "packages/" not in path or "__fixtures__" not in path:
        return "other"
    pkg = path.split("packages/", 1)[1].split("/", 1)[0]
    if pkg in ("openinference-genai", "openinference-vercel", "harness-claude-code"):
        return "other"       # tracing spans / SDK messages, not provider wire bodies
    if _NON_CHAT.search(path):
        return "non_chat"
    objs = body_objects(record)
    first = next((o for o in objs if isinstance(o, dict)), {})
    if not stream and first and set(first) <= {"error"}:
        # an error body: the API the package's folder speaks
        if "/responses/" in path:
            return "openai_responses"
        return {"google": "gemini", "anthropic": "anthropic_messages", "cohere": "cohere_v2",
                "amazon-bedrock": "bedrock_converse"}.get(pkg, "openai_chat")
    return _sniff(objs, stream)


def _classify_file(record) -> str:
    """A fixture file without a URL: a stream when it is server-sent events, JSON
    lines, AWS event-stream frames, or a JSON array of chunks; the API from the
    shape of its objects."""
    kind = _body_kind(record)
    if _fixture_provider(record) == "Bedrock":
        stream = kind == "binary"
        if "converse" in record.get("path", ""):
            return "bedrock_converse_stream" if stream else "bedrock_converse"
        objs = _bedrock_body_objs(record, stream)
        fam = _bedrock_family_from_body(objs if isinstance(objs, list) else [])
        return ("bedrock_invoke_stream_" if stream else "bedrock_invoke_") + fam
    stream = kind in ("sse", "ndjson", "binary") or (kind == "json" and isinstance(_loads(_text(record)), list))
    return _sniff(body_objects(record), stream)


# Keys one of which a plain-JSON body of the API has (an "error" body also passes).
_EXPECTED_KEYS = {
    "openai_chat": ("choices",), "openai_completions": ("choices",),
    "openai_responses": ("output", "object"), "anthropic_messages": ("content", "type"),
    "gemini": ("candidates", "promptFeedback", "usageMetadata"), "bedrock_converse": ("output",),
    "cohere_v2": ("message",), "cohere_v1": ("text", "tool_calls"), "ollama_chat": ("message",),
    "gemini_interactions": ("steps", "outputs", "object"),
}


def classify(record) -> str:
    api = _classify(record)
    keys = _EXPECTED_KEYS.get(api)
    if keys and _body_kind(record) == "json":
        o = body_objects(record)
        o = o[0] if o else None
        if not isinstance(o, dict) or not (any(k in o for k in keys) or "error" in o):
            return "other"      # e.g. an echo server answering on a chat path
    return api


def _classify(record) -> str:
    url = record.get("url") or ""
    if not url:
        return _classify_fixture(record)
    u = urlparse(url)
    host = (u.hostname or "").lower()
    path = u.path
    kind = _body_kind(record)
    streamed = kind in ("sse", "ndjson", "binary")

    if "bedrock-runtime" in host or path.startswith("/bedrock/model/"):
        model, op = _bedrock_model(path)
        if op == "converse":
            return "bedrock_converse"
        if op == "converse-stream":
            return "bedrock_converse_stream"
        if op in ("invoke", "invoke-with-response-stream"):
            fam = _bedrock_family_from_model(model)
            if fam is None:
                if kind == "binary":
                    evs = eventstream_events(record)
                    objs = [p for m, e, p in evs if e == "chunk"]
                else:
                    objs = body_objects(record)
                fam = _bedrock_family_from_body(objs)
            return ("bedrock_invoke_stream_" if op == "invoke-with-response-stream" else "bedrock_invoke_") + fam
        return "other"
    if kind == "text" and not _text(record).lstrip().startswith(("{", "[")):
        return "other"          # not a JSON / SSE body at all (e.g. an echo server)
    if re.search(r":(streamRawPredict|rawPredict)$", path):
        # Vertex AI partner models (Anthropic, Mistral...) speak their vendor's own format
        return _sniff(body_objects(record), streamed)
    if ":streamGenerateContent" in path:
        return "gemini_stream"
    if ":generateContent" in path:
        return "gemini"
    if path.rstrip("/").endswith("/interactions"):
        return "gemini_interactions_stream" if streamed else "gemini_interactions"
    if path.endswith("/chat/completions"):
        return "openai_chat_stream" if streamed else "openai_chat"
    if path.endswith("/responses"):
        return "openai_responses_stream" if streamed else "openai_responses"
    if re.search(r"/v1/responses/resp_\w+$", path):
        return "openai_responses"       # GET /v1/responses/{id}: a stored response, as created
    if path.endswith("/completions"):
        if host == "api.writer.com":
            return "writer_completions"
        return "openai_completions_stream" if streamed else "openai_completions"
    if re.search(r"/v1/threads/[^/]+/messages$", path):
        return "openai_thread_messages"
    if path.endswith("/v1/messages"):
        return "anthropic_stream" if streamed else "anthropic_messages"
    if host in ("api.cohere.com", "api.cohere.ai") and path == "/v2/chat":
        return "cohere_v2_stream" if streamed else "cohere_v2"
    if host in ("api.cohere.com", "api.cohere.ai") and path == "/v1/chat":
        return "cohere_v1_stream" if streamed else "cohere_v1"
    if host in ("api.cohere.com", "api.cohere.ai") and path == "/v1/generate":
        return "cohere_v1_generate"
    if host == "api.writer.com" and path == "/v1/chat":
        return "openai_chat_stream" if streamed else "openai_chat"   # Writer chat is OpenAI-shaped
    if path == "/api/chat":
        return "ollama_chat_stream" if len(body_objects(record)) > 1 else "ollama_chat"
    if path == "/api/generate":
        return "ollama_generate"
    if _NON_CHAT_PATH.search(path):
        return "non_chat"
    return "other"


_NON_CHAT_PATH = re.compile(r"/(embeddings|embed|rerank|moderations|images/\w+|audio/\w+|files|uploads|batches|"
                            r"vector_stores|fine_tuning/\w+|models)(/[^/:]*)?$|"
                            r":(embedContent|batchEmbedContents|countTokens|predict)$")


_HOSTS = [
    (r"(^|\.)api\.openai\.com$", "OpenAI"),
    (r"\.openai\.azure\.com$", "Azure OpenAI"),
    (r"(^|\.)api\.anthropic\.com$", "Anthropic"),
    (r"(^|\.)api\.groq\.com$", "Groq"),
    (r"(^|\.)api\.mistral\.ai$", "Mistral"),
    (r"\.snowflakecomputing\.com$", "Snowflake Cortex"),
    (r"(^|\.)openrouter\.ai$", "OpenRouter"),
    (r"^bedrock-mantle\.", "Bedrock (OpenAI-compatible Mantle)"),
    (r"^bedrock-runtime\.", "Bedrock"),
    (r"aiplatform\.googleapis\.com$", "Vertex AI"),
    (r"^generativelanguage\.googleapis\.com$", "Gemini API"),
    (r"(^|\.)api\.cohere\.(com|ai)$", "Cohere"),
    (r"(^|\.)api\.sambanova\.ai$", "SambaNova"),
    (r"\.cognitiveservices\.azure\.com$", "Azure OpenAI"),
    (r"(^|\.)api\.deepseek\.com$", "DeepSeek"),
    (r"(^|\.)api\.cerebras\.ai$", "Cerebras"),
    (r"(^|\.)api\.together\.(ai|xyz)$", "Together AI"),
    (r"(^|\.)api\.writer\.com$", "Writer"),
    (r"(^|\.)api\.z\.ai$", "Z.ai"),
    (r"(^|\.)api\.x\.ai$", "xAI"),
    (r"(^|\.)ollama\.com$", "Ollama Cloud"),
    (r"^router\.huggingface\.co$", "Hugging Face"),
    (r"(^|\.)api\.portkey\.ai$", "Portkey"),
    (r"(^|\.)inference\.heroku\.com$", "Heroku"),
    (r"crusoecloud\.com$", "Crusoe"),
    (r"^gateway\.pydantic\.dev$", "Pydantic AI Gateway"),
    (r"\.pydantic\.workers\.dev$", "Pydantic demo endpoint"),
]

_FIXTURE_PROVIDERS = {
    "openai": "OpenAI", "azure": "Azure OpenAI", "anthropic": "Anthropic", "amazon-bedrock": "Bedrock",
    "google": "Gemini API", "google-vertex": "Vertex AI", "cohere": "Cohere", "groq": "Groq",
    "mistral": "Mistral", "deepseek": "DeepSeek", "alibaba": "Alibaba (Qwen)", "moonshotai": "Moonshot AI",
    "xai": "xAI", "perplexity": "Perplexity", "open-responses": "LM Studio", "togetherai": "Together AI",
    "voyage": "Voyage AI", "deepgram": "Deepgram", "elevenlabs": "ElevenLabs", "cartesia": "Cartesia",
    "fal": "fal", "gladia": "Gladia", "revai": "Rev.ai", "harness-claude-code": "Claude Code",
}


def provider(record) -> str:
    url = record.get("url") or ""
    if not url:
        path = record.get("path", "")
        if _fixture_provider(record) is not None:
            return _fixture_provider(record)
        if "packages/" in path:
            pkg = path.split("packages/", 1)[1].split("/", 1)[0]
            name = path.rsplit("/", 1)[-1]
            if pkg == "openai-compatible" and name.startswith("xai-"):
                return "xAI"
            if pkg == "open-responses" and name.startswith("openai-"):
                return "OpenAI"
            if pkg == "azure" and name.startswith("openai-"):
                return "Azure OpenAI"
            if pkg == "openai" and name.startswith("azure-"):
                return "Azure OpenAI"
            if pkg == "openai" and name.startswith("github-copilot"):
                return "GitHub Copilot"
            if pkg.startswith("openinference"):
                return "other"
            return _FIXTURE_PROVIDERS.get(pkg, "other")
        return "other"
    u = urlparse(url)
    host = (u.hostname or "").lower()
    for pat, name in _HOSTS:
        if re.search(pat, host):
            if name == "Gemini API" and "/openai/" in u.path:
                return "Gemini API (OpenAI-compatible)"
            if name == "Anthropic" and u.path.endswith("/chat/completions"):
                return "Anthropic (OpenAI-compatible)"
            return name
    if host in ("localhost", "127.0.0.1"):
        p = u.path
        m = re.match(r"/router/v\d+/([^/]+)/", p)
        if m:
            return f"Mirascope Router ({m.group(1)})"
        m = re.match(r"/(anthropic|bedrock|google-vertex|groq|openai)/", p)
        if m:
            return f"Pydantic Gateway ({m.group(1)})"
        if p.startswith("/api/"):
            return "Ollama"
        return "Local OpenAI-compatible server"
    return host or "other"


# ----------------------------------------------------------------------------
# OpenAI Chat Completions (and every OpenAI-compatible server)
# ----------------------------------------------------------------------------

def _chat_tool_call(tc) -> RefCall | None:
    """One message.tool_calls[] entry. `type` chooses the payload; Go-style
    zero placeholders (name "") are not calls."""
    if not isinstance(tc, dict):
        return None
    if tc.get("type") == "custom":
        c = tc.get("custom") or {}
        # A custom tool takes free text: its input, as {"input": text}.
        name, args = c.get("name"), {"input": c.get("input")}
    else:
        f = tc.get("function") or {}
        name, args = f.get("name"), args_of(f.get("arguments"))
    if not name:
        return None
    return RefCall(name, args, _id(tc.get("id")), False)


def openai_chat(record):
    return chat_message_calls(body_objects(record))


def chat_message_calls(objs) -> list[RefCall] | Unreadable:
    calls = []
    for o in objs:
        if not isinstance(o, dict):
            continue
        ch = _first_choice(o.get("choices"))
        if ch is None:
            continue
        msg = ch.get("message") or {}
        for tc in msg.get("tool_calls") or []:
            c = _chat_tool_call(tc)
            if c:
                calls.append(c)
        fc = msg.get("function_call")           # deprecated `functions` API
        if isinstance(fc, dict) and fc.get("name"):
            calls.append(RefCall(fc["name"], args_of(fc.get("arguments")), None, False))
        if not calls and ch.get("finish_reason") in ("tool_calls", "function_call"):
            return Unreadable(f"finish_reason {ch.get('finish_reason')!r} but no tool call in the message")
        break                                   # one response body
    return calls


def _merge(acc: dict, delta: dict) -> dict:
    """openai-python lib/streaming/chat accumulate_delta semantics for one
    tool-call entry: strings concatenated, dicts merged, `index`/`type` replaced,
    null never overwrites."""
    for k, v in delta.items():
        if v is None:
            continue
        old = acc.get(k)
        if old is None or k in ("index", "type"):
            acc[k] = v
        elif isinstance(old, str) and isinstance(v, str):
            acc[k] = old + v
        elif isinstance(old, dict) and isinstance(v, dict):
            acc[k] = _merge(dict(old), v)
        else:
            acc[k] = v
    return acc


def openai_chat_stream(record):
    return chat_chunk_calls(body_objects(record), _sse_done(record))


def chat_chunk_calls(objs, saw_done: bool) -> list[RefCall] | Unreadable:
    """Chunks' choices[0].delta.tool_calls[] pieces merged per `index` (first
    appearance order). A piece without index is a whole call (Mistral). A piece
    bringing a different id to an index that already has one starts a new call."""
    entries: list = []        # merged tool-call dicts, in order of appearance
    by_index: dict = {}       # wire index -> position in entries
    legacy = None             # delta.function_call (deprecated functions API)
    finish = None
    seen_choice = False
    for o in objs:
        if not isinstance(o, dict):
            continue
        if o.get("error") and not o.get("choices"):
            return Unreadable(f"error event in stream: {str(o.get('error'))[:80]}")
        for ch in o.get("choices") or []:
            if not isinstance(ch, dict) or ch.get("index", 0) != 0:
                continue      # first choice only
            seen_choice = True
            delta = ch.get("delta") or {}
            pieces = delta.get("tool_calls") or []
            if isinstance(pieces, dict):
                pieces = [pieces]     # TGI 1.4-2.4 sent the one piece as an object
            for tc in pieces:
                if not isinstance(tc, dict):
                    continue
                idx = tc.get("index")
                pos = by_index.get(idx) if idx is not None else None
                if pos is not None and tc.get("id") and entries[pos].get("id") \
                        and tc["id"] != entries[pos]["id"]:
                    pos = None
                if pos is not None and tc.get("id") and tc["id"] == entries[pos].get("id"):
                    # a server restating the call's header (same id, same name) on a later
                    # piece (OpenRouter's Novita): the header again, not more of it
                    tc = {k: v for k, v in tc.items() if k != "id"}
                    f = tc.get("function")
                    if isinstance(f, dict) and f.get("name") == (entries[pos].get("function") or {}).get("name"):
                        tc["function"] = {k: v for k, v in f.items() if k != "name"}
                if pos is None:
                    entries.append({})
                    pos = len(entries) - 1
                    if idx is not None:
                        by_index[idx] = pos
                _merge(entries[pos], tc)
            fc = delta.get("function_call")
            if isinstance(fc, dict):
                legacy = _merge(legacy or {}, fc)
            if ch.get("finish_reason"):
                finish = ch["finish_reason"]
    for e in entries:
        f = e.get("function") if isinstance(e.get("function"), dict) else {}
        if e.get("type", "function") == "function" and not f.get("name") \
                and args_of(f.get("arguments")) not in ({}, None):
            # arguments streamed for a call no piece names (e.g. a snapshot of a stream's last chunk)
            return Unreadable("tool-call arguments with no name for the call")
    calls = [c for c in (_chat_tool_call(e) for e in entries) if c]
    if legacy and legacy.get("name"):
        calls.append(RefCall(legacy["name"], args_of(legacy.get("arguments")), None, False))
    if seen_choice and finish is None and not saw_done:
        return Unreadable("stream ends without a finish_reason or [DONE] (truncated)", calls)
    if not calls and finish in ("tool_calls", "function_call"):
        return Unreadable(f"finish_reason {finish!r} but no tool call in the stream")
    return calls


# ----------------------------------------------------------------------------
# OpenAI Responses
# ----------------------------------------------------------------------------

# Built-in items the client executes (the model asks, the app runs them).
_CLIENT_BUILTINS = {"computer_call", "local_shell_call", "apply_patch_call"}


def _hosted_shell(tools) -> bool:
    """The request's shell tool (echoed in response.tools) runs in an OpenAI container."""
    for t in tools or []:
        if isinstance(t, dict) and t.get("type") == "shell":
            env = t.get("environment") or {}
            return isinstance(env, dict) and str(env.get("type", "")).startswith("container")
    return False


def _responses_item(it, tools=None) -> RefCall | None:
    if not isinstance(it, dict):
        return None
    t = it.get("type")
    if t == "function_call":
        return RefCall(it.get("name") or "", args_of(it.get("arguments")),
                       _id(it.get("call_id")) or _id(it.get("id")), False)
    if t == "custom_tool_call":
        # A custom tool takes free text: its input, as {"input": text}.
        return RefCall(it.get("name") or "", {"input": it.get("input")},
                       _id(it.get("call_id")) or _id(it.get("id")), False)
    if t in ("mcp_call", "mcp_approval_request"):
        # An MCP tool call names the tool of the developer's MCP server it calls;
        # an approval request is the same call, asked before it runs.
        return RefCall(it.get("name") or "", args_of(it.get("arguments")), _id(it.get("id")), True)
    if isinstance(t, str) and (t.endswith("_call") or t == "program"):
        name = t[:-len("_call")] if t.endswith("_call") else t
        if "arguments" in it:
            args = args_of(it.get("arguments"))
        elif isinstance(it.get("action"), dict):
            args = it["action"]
        elif isinstance(it.get("operation"), dict):
            args = it["operation"]
        else:
            args = None
        hosted = t not in _CLIENT_BUILTINS
        if t == "shell_call":
            # shell runs in OpenAI's container only when an environment says so
            env = it.get("environment")
            if isinstance(env, dict):
                hosted = str(env.get("type", "")).startswith("container")
            else:
                hosted = _hosted_shell(tools)
        if t == "tool_search_call" and it.get("execution") == "client":
            hosted = False
        return RefCall(name, args, _id(it.get("call_id")) or _id(it.get("id")), hosted,
                       builtin="arguments" not in it)
    return None      # message, reasoning, mcp_list_tools, mcp_approval_request, *_output, compaction


def _response_calls(output, tools=None, answered=frozenset()) -> list[RefCall]:
    """The calls of output items; an approval request that an mcp_call of the
    same payload answers (approval_request_id) is that call, counted once."""
    return [c for c in (_responses_item(it, tools) for it in (output or [])
                        if not (isinstance(it, dict) and it.get("type") == "mcp_approval_request"
                                and it.get("id") in answered)) if c]


def _answered(objs) -> set:
    found, stack = set(), list(objs)
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            if node.get("type") == "mcp_call" and node.get("approval_request_id"):
                found.add(node["approval_request_id"])
            stack.extend(v for v in node.values() if isinstance(v, (dict, list)))
    return found


def openai_responses(record):
    objs = body_objects(record)
    for o in objs:
        if isinstance(o, dict):
            if isinstance(o.get("response"), dict) and "output" not in o:
                o = o["response"]
            return _response_calls(o.get("output"), o.get("tools"), _answered(objs))
    return []


def _responses_segment(final, done, added_calls, error, tools, answered, last):
    if final is not None and (final.get("output") or not done):
        return _response_calls(final.get("output"), final.get("tools") or tools, answered)
    if done:
        calls = _response_calls([done[k] for k in sorted(done)], (final or {}).get("tools") or tools,
                                answered)
        if final is None and added_calls > len(calls):
            return Unreadable("stream ends before every call item is done (truncated)")
        return calls
    if error is not None:
        return Unreadable(f"error event: {str(error.get('message') or error.get('error'))[:80]}")
    if added_calls:
        return Unreadable("stream ends before the call items are done (truncated)")
    if final is None and last:
        return Unreadable("stream has no response.completed and no done items (truncated)")
    return []


def openai_responses_stream(record):
    """Every response of the stream in order (a stream may hold several turns,
    each from response.created to its terminal event)."""
    objs = body_objects(record)
    answered = _answered(objs)
    segments = []
    state = None

    def flush(last=False):
        if state is not None:
            segments.append(_responses_segment(*state, answered, last))

    for o in objs:
        if not isinstance(o, dict):
            continue
        t = o.get("type")
        if t == "response.created" or state is None:
            if t == "response.created":
                flush()
            state = [None, {}, 0, None, (o.get("response") or {}).get("tools")]
            if t == "response.created":
                continue
        if t in ("response.completed", "response.incomplete", "response.failed", "response.done"):
            state[0] = o.get("response") or {}
        elif t == "response.output_item.done":
            state[1][o.get("output_index", len(state[1]))] = o.get("item")
        elif t == "response.output_item.added":
            if _responses_item(o.get("item")):
                state[2] += 1
        elif t == "error":
            state[3] = o
    flush(last=True)
    calls = []
    for segment in segments:
        if isinstance(segment, Unreadable):
            return segment
        calls += segment
    return calls


# ----------------------------------------------------------------------------
# Anthropic Messages
# ----------------------------------------------------------------------------

_ANTHROPIC_CALL_BLOCKS = {"tool_use": False, "server_tool_use": True, "mcp_tool_use": True}


def _anthropic_block(b, input_text=None) -> RefCall | None:
    if not isinstance(b, dict) or b.get("type") not in _ANTHROPIC_CALL_BLOCKS:
        return None
    args = args_of(input_text) if input_text is not None else args_of(b.get("input"))
    return RefCall(b.get("name") or "", args, _id(b.get("id")), _ANTHROPIC_CALL_BLOCKS[b["type"]])


def anthropic_messages_obj(o) -> list[RefCall] | Unreadable:
    if not isinstance(o, dict):
        return []
    if o.get("type") == "completion" or ("completion" in o and "content" not in o):
        return []                               # legacy text completion (claude-v2 on Bedrock)
    calls = [c for c in (_anthropic_block(b) for b in o.get("content") or []) if c]
    if not calls and o.get("stop_reason") == "tool_use":
        return Unreadable("stop_reason 'tool_use' but no tool_use block")
    return calls


def anthropic_messages(record):
    objs = [o for o in body_objects(record) if isinstance(o, dict)]
    return anthropic_messages_obj(objs[0]) if objs else []


def anthropic_events(events: list) -> list[RefCall] | Unreadable:
    """Documented stream: message_start, content_block_start/delta/stop, message_delta,
    message_stop; a stream may hold several messages (turns), each from its
    message_start: their calls in order."""
    messages, current = [], []
    for e in events:
        if isinstance(e, dict) and e.get("type") == "message_start" and current:
            messages.append(current)
            current = []
        current.append(e)
    if current:
        messages.append(current)
    calls = []
    for message in messages or [[]]:
        got = _anthropic_message_events(message)
        if isinstance(got, Unreadable):
            return got
        calls += got
    return calls


def _anthropic_message_events(events: list) -> list[RefCall] | Unreadable:
    blocks: dict = {}        # index -> [content_block, partial_json pieces, stopped]
    order: list = []
    stop_reason = None
    finished = False
    error = None
    for e in events:
        if not isinstance(e, dict):
            continue
        t = e.get("type")
        if t == "message_start":
            msg = e.get("message") or {}
            blocks, order, stop_reason, finished, error = {}, [], None, False, None
            for i, b in enumerate(msg.get("content") or []):
                blocks[i] = [b, [], True]
                order.append(i)
        elif t == "content_block_start":
            i = e.get("index")
            if i not in blocks:
                order.append(i)
            blocks[i] = [e.get("content_block") or {}, [], False]
        elif t == "content_block_delta":
            d = e.get("delta") or {}
            if d.get("type") == "input_json_delta" and e.get("index") in blocks:
                blocks[e["index"]][1].append(d.get("partial_json") or "")
        elif t == "content_block_stop":
            if e.get("index") in blocks:
                blocks[e["index"]][2] = True
        elif t == "message_delta":
            stop_reason = (e.get("delta") or {}).get("stop_reason") or stop_reason
        elif t == "message_stop":
            finished = True
        elif t == "error":
            error = e.get("error") or e
    calls = []
    for i in order:
        b, pieces, stopped = blocks[i]
        if b.get("type") not in _ANTHROPIC_CALL_BLOCKS:
            continue
        if not stopped and not finished:
            return Unreadable("tool block never stopped (truncated)")
        c = _anthropic_block(b, "".join(pieces) if pieces else None)
        if c:
            calls.append(c)
    if error is not None:
        return Unreadable(f"error event in stream: {str(error)[:80]}")
    if not finished and stop_reason is None:
        return Unreadable("stream ends without message_delta/message_stop (truncated)", calls)
    if not calls and stop_reason == "tool_use":
        return Unreadable("stop_reason 'tool_use' but no tool_use block")
    return calls


def anthropic_stream(record):
    return anthropic_events(body_objects(record))


# ----------------------------------------------------------------------------
# Gemini generateContent / streamGenerateContent (Gemini API and Vertex AI)
# ----------------------------------------------------------------------------

def _gemini_part(p) -> RefCall | None:
    if not isinstance(p, dict):
        return None
    if isinstance(p.get("functionCall"), dict):
        fc = p["functionCall"]
        if not fc.get("name"):
            return None          # a nameless piece (e.g. a stray stream terminator) is not a call
        return RefCall(fc["name"], args_of(fc.get("args")), _id(fc.get("id")), False)
    if isinstance(p.get("executableCode"), dict):
        return RefCall("code_execution", p["executableCode"], _id(p["executableCode"].get("id")), True)
    if isinstance(p.get("toolCall"), dict):       # Gemini 3 server-side built-in tool invocation
        tc = p["toolCall"]
        return RefCall(str(tc.get("toolType") or "tool").lower(), args_of(tc.get("args")),
                       _id(tc.get("id")), True)
    return None


def _first_candidate(o):
    cands = o.get("candidates") if isinstance(o, dict) else None
    if not isinstance(cands, list) or not cands:
        return None
    for c in cands:
        if isinstance(c, dict) and c.get("index", 0) == 0:
            return c
    return None


def _gemini_finish_check(calls, finish):
    if not calls and finish in ("MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"):
        return Unreadable(f"finishReason {finish} with no function call in the body")
    return calls


def gemini(record):
    for o in body_objects(record):
        c = _first_candidate(o)
        if c is None:
            continue
        calls = [x for x in (_gemini_part(p) for p in (c.get("content") or {}).get("parts") or []) if x]
        return _gemini_finish_check(calls, c.get("finishReason"))
    return []


_PATH_TOKEN = re.compile(r"\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['([^']*)'\]|\[\"([^\"]*)\"\]")


def _set_path(root: dict, json_path: str, value, append: bool):
    """Set `value` at an RFC 9535 path like $.a.b[0].c; concatenate strings
    when `append` (a previous stringValue piece said willContinue)."""
    keys = []
    for m in _PATH_TOKEN.finditer(json_path[1:] if json_path.startswith("$") else json_path):
        if m.group(2) is not None:
            keys.append(int(m.group(2)))
        else:
            keys.append(m.group(1) or m.group(3) or m.group(4))
    if not keys:
        return
    cur = root
    for k, nxt in zip(keys, keys[1:]):
        empty = [] if isinstance(nxt, int) else {}
        if isinstance(k, int):
            while len(cur) <= k:
                cur.append(None)
            if cur[k] is None:
                cur[k] = empty
            cur = cur[k]
        else:
            if cur.get(k) is None:
                cur[k] = empty
            cur = cur[k]
    last = keys[-1]
    if isinstance(last, int):
        while len(cur) <= last:
            cur.append(None)
        old = cur[last]
    else:
        old = cur.get(last)
    if append and isinstance(old, str) and isinstance(value, str):
        value = old + value
    if isinstance(last, int):
        cur[last] = value
    else:
        cur[last] = value


def _partial_value(pa):
    for k in ("stringValue", "numberValue", "boolValue"):
        if k in pa:
            return pa[k]
    if "nullValue" in pa:
        return None
    if "structValue" in pa:
        return pa["structValue"]
    if "listValue" in pa:
        return pa["listValue"]
    return None


def gemini_stream(record):
    """Each chunk is a GenerateContentResponse; functionCall parts are whole,
    except Vertex streamFunctionCallArguments: {name, willContinue:true} opens a
    call, {partialArgs:[{jsonPath, <x>Value, willContinue}], willContinue} adds
    to it, and the first functionCall piece without willContinue closes it."""
    calls: list = []
    open_call = None            # [name, args dict, id, continuing string paths]
    finish = None
    seen = False
    for o in body_objects(record):
        c = _first_candidate(o)
        if c is None:
            continue
        seen = True
        finish = c.get("finishReason") or finish
        for p in (c.get("content") or {}).get("parts") or []:
            fc = p.get("functionCall") if isinstance(p, dict) else None
            if isinstance(fc, dict) and (open_call is not None or fc.get("willContinue") or fc.get("partialArgs")):
                if open_call is None:
                    open_call = [fc.get("name") or "", {}, _id(fc.get("id")), set()]
                elif fc.get("name") and not open_call[0]:
                    open_call[0] = fc["name"]
                if isinstance(fc.get("args"), dict):
                    open_call[1].update(fc["args"])
                for pa in fc.get("partialArgs") or []:
                    jp = pa.get("jsonPath") or ""
                    _set_path(open_call[1], jp, _partial_value(pa), jp in open_call[3])
                    if pa.get("willContinue"):
                        open_call[3].add(jp)
                    else:
                        open_call[3].discard(jp)
                if not fc.get("willContinue"):
                    calls.append(RefCall(open_call[0], open_call[1], open_call[2], False))
                    open_call = None
                continue
            x = _gemini_part(p)
            if x:
                calls.append(x)
    if open_call is not None:
        return Unreadable("a streamed functionCall never ends (willContinue on the last piece)")
    if finish is None and seen:
        return Unreadable("no chunk carries a finishReason (truncated)", calls)
    return _gemini_finish_check(calls, finish)


# ----------------------------------------------------------------------------
# Gemini Interactions API
# ----------------------------------------------------------------------------

def _interaction_step(s, args_text=None) -> RefCall | None:
    if not isinstance(s, dict):
        return None
    t = s.get("type")
    if t == "function_call":
        args = args_of(args_text) if args_text is not None else args_of(s.get("arguments"))
        return RefCall(s.get("name") or "", args, _id(s.get("id")), False)
    if isinstance(t, str) and t.endswith("_call"):
        args = args_of(s.get("arguments")) if "arguments" in s else None
        return RefCall(t[:-len("_call")], args, _id(s.get("id")), True)
    return None


def gemini_interactions(record):
    for o in body_objects(record):
        if isinstance(o, dict):
            steps = o.get("steps") if "steps" in o else o.get("outputs")
            return [c for c in (_interaction_step(s) for s in steps or []) if c]
    return []


def gemini_interactions_stream(record):
    steps: dict = {}       # index -> [step dict, argument text pieces]
    completed = False
    for o in body_objects(record):
        if not isinstance(o, dict):
            continue
        et = o.get("event_type") or o.get("_sse_event")
        if et in ("step.start", "content.start"):
            steps[o.get("index")] = [dict(o.get("step") or o.get("content") or {}), []]
        elif et in ("step.delta", "content.delta"):
            d = o.get("delta") or {}
            s = steps.setdefault(o.get("index"), [{}, []])
            if d.get("type") == "arguments_delta" and isinstance(d.get("arguments"), str):
                s[1].append(d["arguments"])
            elif isinstance(d.get("type"), str) and d["type"].endswith("_call"):
                for k, v in d.items():
                    if k != "type":
                        s[0][k] = v
                s[0].setdefault("type", d["type"])
        elif isinstance(et, str) and et.startswith("interaction.complete"):
            completed = True
    calls = []
    for i in sorted(steps, key=lambda k: (k is None, k)):
        s, pieces = steps[i]
        c = _interaction_step(s, "".join(pieces) if pieces else None)
        if c:
            calls.append(c)
    if not completed:
        return Unreadable("stream ends without interaction.completed (truncated)", calls)
    return calls


# ----------------------------------------------------------------------------
# Bedrock Converse / ConverseStream, and InvokeModel per model family
# ----------------------------------------------------------------------------

def _converse_message(o) -> list[RefCall] | Unreadable:
    msg = ((o.get("output") or {}).get("message") or {}) if isinstance(o, dict) else {}
    calls = []
    for b in msg.get("content") or []:
        tu = b.get("toolUse") if isinstance(b, dict) else None
        if isinstance(tu, dict):
            calls.append(RefCall(tu.get("name") or "", args_of(tu.get("input")), _id(tu.get("toolUseId")),
                                 tu.get("type") == "server_tool_use"))
    if not calls and isinstance(o, dict) and o.get("stopReason") == "tool_use":
        return Unreadable("stopReason 'tool_use' but no toolUse block")
    return calls


def bedrock_converse(record):
    objs = [o for o in body_objects(record) if isinstance(o, dict)]
    return _converse_message(objs[0]) if objs else []


def converse_events(events: list[tuple[str, Any]]) -> list[RefCall] | Unreadable:
    """(event type, payload) pairs of a ConverseStream (or Nova invoke stream)."""
    blocks: dict = {}       # contentBlockIndex -> [toolUse start, input pieces]
    order: list = []
    stop = None
    for et, p in events:
        if not isinstance(p, dict):
            continue
        if et == "contentBlockStart":
            tu = (p.get("start") or {}).get("toolUse")
            if isinstance(tu, dict):
                i = p.get("contentBlockIndex")
                if i not in blocks:
                    order.append(i)
                blocks[i] = [tu, []]
        elif et == "contentBlockDelta":
            tu = (p.get("delta") or {}).get("toolUse")
            i = p.get("contentBlockIndex")
            if isinstance(tu, dict) and i in blocks:
                inp = tu.get("input")
                if isinstance(inp, str):
                    blocks[i][1].append(inp)
        elif et == "messageStop":
            stop = p.get("stopReason") or "?"
        elif et.endswith("Exception") or et == "exception":
            return Unreadable(f"exception in stream: {et}")
    calls = []
    for i in order:
        tu, pieces = blocks[i]
        calls.append(RefCall(tu.get("name") or "", args_of("".join(pieces)), _id(tu.get("toolUseId")),
                             tu.get("type") == "server_tool_use"))
    if stop is None:
        return Unreadable("stream ends without messageStop (truncated)", calls)
    if not calls and stop == "tool_use":
        return Unreadable("stopReason 'tool_use' but no toolUse block")
    return calls


def _unwrap_converse_objs(objs) -> list[tuple[str, Any]]:
    """{"contentBlockDelta": {...}} style objects (Nova invoke chunks, vercel fixtures)."""
    out = []
    for o in objs:
        if isinstance(o, dict):
            for k, v in o.items():
                if not k.startswith("amazon-bedrock-"):
                    out.append((k, v))
    return out


def bedrock_converse_stream(record):
    if "body_base64" in record:
        evs = eventstream_events(record)
        for mtype, et, _p in evs:
            if mtype in ("exception", "error"):
                return Unreadable(f"exception frame in stream: {et}")
        return converse_events([(et, p) for _, et, p in evs])
    return converse_events(_unwrap_converse_objs(body_objects(record)))


def _bedrock_body_objs(record, stream: bool) -> list | Unreadable:
    if stream:
        if "body_base64" not in record:
            return body_objects(record)
        objs = []
        for mtype, et, p in eventstream_events(record):
            if mtype in ("exception", "error"):
                return Unreadable(f"exception frame in stream: {et}")
            if et == "chunk":
                objs.append(p)
        return objs
    return [o for o in body_objects(record) if isinstance(o, dict)]


def _cohere_v1_calls(tool_calls) -> list[RefCall]:
    return [RefCall(tc.get("name") or "", args_of(tc.get("parameters")), None, False)
            for tc in tool_calls or [] if isinstance(tc, dict) and tc.get("name")]


def bedrock_invoke(record, family: str, stream: bool):
    objs = _bedrock_body_objs(record, stream)
    if isinstance(objs, Unreadable):
        return objs
    if not objs:
        return []
    if family == "anthropic":
        if stream and not any(isinstance(o, dict) and "type" in o and o["type"] != "completion" for o in objs):
            return []        # legacy Claude text-completion chunks {"completion": ...}
        return anthropic_events(objs) if stream else anthropic_messages_obj(objs[0])
    if family == "nova":
        return converse_events(_unwrap_converse_objs(objs)) if stream else _converse_message(objs[0])
    if family == "cohere":
        if stream:
            if any(isinstance(o, dict) and "event_type" in o for o in objs):
                return cohere_v1_events(objs)
            return []        # command (text generation) chunks
        return _cohere_v1_calls(objs[0].get("tool_calls"))
    if family in ("openai", "mistral", "ai21") and any(isinstance(o, dict) and "choices" in o for o in objs):
        # OpenAI-shaped chat bodies (Mistral chat models, AI21 Jamba, OpenAI gpt-oss)
        return chat_chunk_calls(objs, False) if stream else chat_message_calls(objs)
    return []       # titan, meta, ai21, mistral text, embedding: no tool calling in these bodies


# ----------------------------------------------------------------------------
# Cohere
# ----------------------------------------------------------------------------

def cohere_v2(record):
    for o in body_objects(record):
        if not isinstance(o, dict):
            continue
        msg = o.get("message") or {}
        calls = [c for c in (_chat_tool_call(tc) for tc in msg.get("tool_calls") or []) if c]
        if not calls and o.get("finish_reason") == "TOOL_CALL":
            return Unreadable("finish_reason TOOL_CALL but no tool_calls")
        return calls
    return []


def cohere_v2_stream(record):
    """tool-call-start: delta.message.tool_calls is ONE object {id,type,function{name,arguments}};
    tool-call-delta: delta.message.tool_calls.function.arguments piece; index = event index."""
    calls: dict = {}
    order: list = []
    finish = None
    for o in body_objects(record):
        if not isinstance(o, dict):
            continue
        t = o.get("type")
        tc = ((o.get("delta") or {}).get("message") or {}).get("tool_calls")
        if t == "message-start":
            calls, order, finish = {}, [], None
        elif t == "tool-call-start" and isinstance(tc, dict):
            i = o.get("index", len(order))
            if i not in calls:
                order.append(i)
            f = tc.get("function") or {}
            calls[i] = [f.get("name") or "", [f.get("arguments") or ""], _id(tc.get("id"))]
        elif t == "tool-call-delta" and isinstance(tc, dict):
            i = o.get("index")
            if i in calls:
                calls[i][1].append((tc.get("function") or {}).get("arguments") or "")
        elif t == "message-end":
            finish = (o.get("delta") or {}).get("finish_reason") or "?"
    out = [RefCall(calls[i][0], args_of("".join(calls[i][1])), calls[i][2], False)
           for i in order if calls[i][0]]
    if finish is None:
        return Unreadable("stream ends without message-end (truncated)", out)
    if not out and finish == "TOOL_CALL":
        return Unreadable("finish_reason TOOL_CALL but no tool call")
    return out


def _cohere_v1_response(o) -> list[RefCall]:
    """A v1 response: its chat_history is the whole conversation, this turn
    included, so its calls are the CHATBOT turns' tool_calls; the top-level
    tool_calls repeat the last CHATBOT turn's (else they are a turn the history
    lacks)."""
    history = [t for t in o.get("chat_history") or [] if isinstance(t, dict)
               and str(t.get("role", "")).upper() == "CHATBOT"]
    calls = [c for t in history for c in _cohere_v1_calls(t.get("tool_calls"))]
    top = o.get("tool_calls") or []
    if top and not (history and history[-1].get("tool_calls") == top):
        calls += _cohere_v1_calls(top)
    return calls


def cohere_v1(record):
    for o in body_objects(record):
        if isinstance(o, dict):
            return _cohere_v1_response(o)
    return []


def cohere_v1_events(objs) -> list[RefCall] | Unreadable:
    """v1 stream: tool-calls-generation carries the whole tool_calls; stream-end
    carries the final response (which repeats them)."""
    gen, end = None, None
    for o in objs:
        if not isinstance(o, dict):
            continue
        et = o.get("event_type")
        if et == "tool-calls-generation":
            gen = o.get("tool_calls")
        elif et == "stream-end":
            end = o.get("response") or {}
    if end is None:
        return Unreadable("stream ends without stream-end (truncated)", _cohere_v1_calls(gen))
    return _cohere_v1_response(end)


def cohere_v1_stream(record):
    return cohere_v1_events(body_objects(record))


# ----------------------------------------------------------------------------
# Ollama native API
# ----------------------------------------------------------------------------

def _ollama_calls(msg) -> list[RefCall]:
    out = []
    for tc in (msg or {}).get("tool_calls") or []:
        f = (tc or {}).get("function") or {}
        if f.get("name"):
            out.append(RefCall(f["name"], args_of(f.get("arguments")), _id(tc.get("id")), False))
    return out


def ollama_chat(record):
    for o in body_objects(record):
        if isinstance(o, dict):
            return _ollama_calls(o.get("message"))
    return []


def ollama_chat_stream(record):
    calls, done = [], False
    for o in body_objects(record):
        if isinstance(o, dict):
            calls += _ollama_calls(o.get("message"))
            done = done or bool(o.get("done"))
    if not done:
        return Unreadable("stream ends without a done:true chunk (truncated)", calls)
    return calls


# ----------------------------------------------------------------------------
# Dispatch
# ----------------------------------------------------------------------------

def _no_calls(record):
    return []


_READERS = {
    "openai_chat": openai_chat,
    "openai_chat_stream": openai_chat_stream,
    "openai_responses": openai_responses,
    "openai_responses_stream": openai_responses_stream,
    "anthropic_messages": anthropic_messages,
    "anthropic_stream": anthropic_stream,
    "gemini": gemini,
    "gemini_stream": gemini_stream,
    "gemini_interactions": gemini_interactions,
    "gemini_interactions_stream": gemini_interactions_stream,
    "bedrock_converse": bedrock_converse,
    "bedrock_converse_stream": bedrock_converse_stream,
    "cohere_v2": cohere_v2,
    "cohere_v2_stream": cohere_v2_stream,
    "cohere_v1": cohere_v1,
    "cohere_v1_stream": cohere_v1_stream,
    "ollama_chat": ollama_chat,
    "ollama_chat_stream": ollama_chat_stream,
}


def reference_calls(record):
    api = classify(record)
    if api not in ("other", "non_chat"):
        kind = _body_kind(record)
        if kind == "text":
            return Unreadable("body is not complete JSON (truncated)")
        if kind == "empty":
            return Unreadable("empty body")
    if api.startswith("bedrock_invoke_stream_"):
        return bedrock_invoke(record, api[len("bedrock_invoke_stream_"):], True)
    if api.startswith("bedrock_invoke_"):
        return bedrock_invoke(record, api[len("bedrock_invoke_"):], False)
    return _READERS.get(api, _no_calls)(record)
