"""What a request sends: its messages, the tool results it sends back, whether
it is the user's own turn, whether it offers the model tools."""

from __future__ import annotations

from typing import Any

__all__ = ["declares_tools", "read_messages", "read_results", "read_user_input"]

#: Formats whose request bodies are read for tool results and user turns.
_CHAT_LIKE = ("openai_chat", "cohere", "ollama")


def _text_of(content: Any) -> Any:
    """A tool result's content: text as text, one JSON value as that value,
    anything else as given."""
    if isinstance(content, list):
        texts = [block.get("text") for block in content if isinstance(block, dict)]
        if content and all(isinstance(text, str) for text in texts):
            return "".join(texts)  # type: ignore[arg-type]
        if len(content) == 1 and isinstance(content[0], dict) and "json" in content[0]:
            return content[0]["json"]
    return content


def _items(value: Any) -> list[Any]:
    """A message's blocks or parts: a list, or none (a request of another shape
    is read as sending nothing back, never as a crash)."""
    return value if isinstance(value, list) else []


def read_messages(format: str, request: Any) -> list[Any]:
    if not isinstance(request, dict):
        return []
    if format == "gemini":
        found = request.get("contents")
    elif format == "openai_responses":
        found = request.get("input")
    else:
        found = request.get("messages")
    return found if isinstance(found, list) else []


def read_results(format: str, request: Any) -> list[tuple[str | None, str | None, Any]]:
    """The tool results a request sends back: (call id, tool name, output)."""
    out: list[tuple[str | None, str | None, Any]] = []
    for message in read_messages(format, request):
        if not isinstance(message, dict):
            continue
        if format in _CHAT_LIKE:
            if message.get("role") == "tool":
                out.append((message.get("tool_call_id"), message.get("tool_name")
                            or message.get("name"), _text_of(message.get("content"))))
            elif message.get("role") == "function":
                out.append((None, message.get("name"), message.get("content")))
        elif format == "openai_responses":
            if message.get("type") == "function_call_output":
                out.append((message.get("call_id"), None, _text_of(message.get("output"))))
        elif format in ("anthropic", "bedrock_invoke"):
            for block in _items(message.get("content")):
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    out.append((block.get("tool_use_id"), None, _text_of(block.get("content"))))
        elif format == "bedrock":
            for block in _items(message.get("content")):
                result = block.get("toolResult") if isinstance(block, dict) else None
                if isinstance(result, dict):
                    out.append((result.get("toolUseId"), None, _text_of(result.get("content"))))
        elif format == "gemini":
            for part in _items(message.get("parts")):
                response = (part.get("functionResponse") or part.get("function_response")
                            ) if isinstance(part, dict) else None
                if isinstance(response, dict):
                    out.append((response.get("id"), response.get("name"),
                                response.get("response")))
    return out


def read_user_input(format: str, request: Any) -> tuple[bool, Any]:
    """Whether the request's last message is the user's own (a new user turn, not
    tool results sent back), and its text."""
    messages = read_messages(format, request)
    if format == "openai_responses" and isinstance(request, dict) and isinstance(
            request.get("input"), str):
        return True, request["input"]
    if not messages:
        return False, None
    last = messages[-1]
    if not isinstance(last, dict):
        return False, None
    role = last.get("role")
    if format in _CHAT_LIKE:
        return role == "user", _text_of(last.get("content"))
    if format == "openai_responses":
        return (role == "user" and last.get("type", "message") == "message",
                _text_of(last.get("content")))
    content = last.get("content") if format != "gemini" else last.get("parts")
    if role != "user" or not isinstance(content, (list, str)):
        return False, None
    if isinstance(content, str):
        return True, content
    blocks = [block for block in content if isinstance(block, dict)]
    if any(block.get("type") == "tool_result" or "toolResult" in block
           or "functionResponse" in block or "function_response" in block for block in blocks):
        return False, None
    return True, _text_of([{"text": block.get("text")} for block in blocks if "text" in block])


def declares_tools(request: Any) -> bool:
    """Whether the request offers the model tools through the API (then a text
    answer is an answer, whatever it says)."""
    if not isinstance(request, dict):
        return False
    tools = request.get("tools") or request.get("toolConfig") or request.get("functions")
    return bool(tools)
