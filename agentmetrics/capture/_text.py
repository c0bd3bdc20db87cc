"""Tool calls and tool results that agent frameworks carry in plain text.

Some agents ask for tools in the model's *text*, not in the API's tool-call
fields, and send the results back as ordinary messages. Read as an API
response, such a turn has no calls: a wrong score. This module reads them,
exactly or not at all (pure functions; no framework is imported).

**Requests in a response's text** (:func:`calls_in_text`), tried in this order:

1. *JSON action blobs* (LangChain's structured-chat and JSON-chat agents): a
   fenced block holding only ``{"action": name, "action_input": ...}`` (after
   an ``Action:`` line or alone); ``"Final Answer"`` as the action is an
   answer (``None``). More than one such blob raises ``ValueError``.
2. *ReAct* (llama-index's ``ReActAgent``, LangChain's classic ``create_react_agent``
   and ``ZeroShotAgent``): a line that starts with ``Action:`` (LangChain also
   writes ``Action 1:``) naming the tool, and a later line ``Action Input:``
   whose rest (to the end of the text) is the input. llama-index's prompt asks
   for a JSON object (``Action Input: {"city": "Paris"}``): it becomes the
   call's arguments. Any other input (LangChain's single-input tools take a
   bare string, ``Action Input: Paris``) is kept as the call's
   ``raw_arguments`` with empty ``arguments``, as :mod:`agentmetrics.formats`
   keeps argument text that is not a JSON object; a blank input is ``{}``.
   The call has no id (none is on the wire). The text is refused
   (``ValueError``) when it cannot be read the way every such framework reads
   it: more than one ``Action:`` line (llama-index runs the first, LangChain
   reads past it), an ``Action:`` line with no ``Action Input:``, an action
   and a final answer (``Answer:`` / ``Final Answer:``) together (llama-index
   runs the action, LangChain raises), an ``Observation:`` line the model wrote
   after its action, or a tool name that is not one word.
   An ``Action:`` line with neither ``Thought:`` nor ``Action Input:`` is prose
   (a list of film genres), not a request: ``None``.
3. *Code actions* (smolagents' ``CodeAgent``): a ``<code>`` tag that opens a
   line (smolagents' default tags; its closing ``</code>`` is a stop
   sequence, so the model's text usually ends without it; every block runs,
   joined, as smolagents runs them), or, for a ``CodeAgent`` built with
   ``code_block_tags="markdown"``, a fenced ``py``/``python`` block in a
   text whose first line starts with ``Thought:``. A code action is read
   only when its calls can be known without running it: every top-level
   statement is a call, or ``name = call``, to a tool (a name in ``tools``)
   with literal arguments (numbers, strings, lists, dicts, ``True``/``None``;
   positional ones named from the tool's parameters), or a ``print(...)`` /
   assignment whose arguments call nothing but such tool calls. Anything
   else (a loop, a condition, a call to a helper or a method, a variable as
   an argument, an import) raises ``ValueError``: the calls depend on running
   the code. Without ``tools`` no code action can be read (a name could be a
   function an earlier step defined); :func:`tools_in_prompt` reads them from
   smolagents' system prompt.

Everything else is an answer: ``None``. The capture reads a response for these
only when its request offers no tools through the API and its prompt teaches a
text protocol (:func:`taught`: it says ``Action Input``, ``action_input``,
``<code>`` or a fenced ``py`` block), as every framework that reads one does. In particular, an ordinary answer
that shows code in a fenced block, an inline ``<code>x</code>``, or the word
"Action" in a sentence asks for no tool.

**Results sent back as text** (:func:`results_in_text`): in a request's
messages (OpenAI chat shape), as ``(call id, tool name, output)`` like the
other formats' results, so the calls read from earlier turns get their
outputs:

- llama-index ReAct: an assistant message with an ``Action:`` line, then a
  user (or tool-role, with ``observation_role``) message
  ``Observation: <output>``: the output is the text after ``"Observation: "``
  (``str()`` of what the tool returned), the name the action's; no id.
- smolagents ``ToolCallingAgent``: an assistant message ending
  ``Calling tools:\\n[{'id': ..., 'function': {'name': ...}}, ...]`` (a
  Python literal), then a user message ``Observation:\\n<output>``. With one
  call, the output is the observation (``str(result).strip()``), with the
  call's id and name. With several, smolagents joins their outputs with
  newlines in one message, which cannot be split exactly (an output may hold
  a newline, or be empty): no result is given for them.
- smolagents ``CodeAgent``: the observation is the code's print log, not any
  tool's output: no result.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from agentmetrics.model._model import ToolCall

__all__ = ["calls_in_text", "message_text", "results_in_text", "taught", "tools_in_prompt"]

Result = tuple[str | None, str | None, Any]

_ACTION = re.compile(r"^[ \t]*Action[ \t]*\d*[ \t]*:[ \t]*(.*)$", re.MULTILINE)
_ACTION_INPUT = re.compile(r"^[ \t]*Action[ \t]*\d*[ \t]*Input[ \t]*\d*[ \t]*:[ \t]*", re.MULTILINE)
_THOUGHT = re.compile(r"^[ \t]*Thought[ \t]*:", re.MULTILINE)
_ANSWER = re.compile(r"^[ \t]*(?:Final[ \t]+)?Answer[ \t]*:", re.MULTILINE)
_OBSERVATION = re.compile(r"^[ \t]*Observation[ \t]*:", re.MULTILINE)
_TOOL_NAME = re.compile(r"[^\s()`'\"]+")
_FENCE = re.compile(r"^[ \t]*```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)^[ \t]*```", re.MULTILINE | re.DOTALL)
_CODE_OPEN = re.compile(r"^[ \t]*<code>", re.MULTILINE)
_CALLING_TOOLS = "Calling tools:\n"

_CODE_REFUSED = ("a code action calls tools in Python; its calls cannot be read exactly without running it")


# --------------------------------------------------------------------------- requests


def calls_in_text(text: str, *, tools: Mapping[str, Sequence[str]] | Iterable[str] | None = None
                  ) -> tuple[str, list[ToolCall]] | None:
    """The tool calls a model's text asks for: ``("react", calls)`` or
    ``("code", calls)``, or None when the text asks for no tool.

    ``tools`` names the tools a code action may call (with each one's
    parameter names, in order, to name positional arguments), as
    :func:`tools_in_prompt` reads them. Raises ``ValueError`` saying why when
    the text asks for tools in a way that cannot be read exactly. The rules
    are in this module's docstring."""
    if not isinstance(text, str):
        raise TypeError(f"expected the text of a model response, got {type(text).__name__}")
    blob = _json_action(text)
    if blob is not None:
        return ("react", [blob]) if blob.name != "Final Answer" else None
    actions = list(_ACTION.finditer(text))
    inputs = list(_ACTION_INPUT.finditer(text))
    answer = _ANSWER.search(text)
    if actions and (inputs or (_THOUGHT.search(text) and answer is None)):
        return "react", [_react_call(text, actions, inputs)]
    code = _code_of(text)
    if code is None:
        return None
    try:
        calls = _code_calls(code, tools)
    except ValueError as error:
        if tools is None and str(error).startswith(_CODE_REFUSED):
            raise ValueError(f"{error}; the tools it may call are not known (pass tools=, e.g. "
                             f"tools_in_prompt(messages))") from error
        raise
    return ("code", calls) if calls else None


def _react_call(text: str, actions: list[re.Match[str]], inputs: list[re.Match[str]]) -> ToolCall:
    if len(actions) > 1:
        raise ValueError(f"the ReAct step has {len(actions)} 'Action:' lines; frameworks run different ones "
                         f"(llama-index the first, LangChain reads them as one input), so its call cannot be "
                         f"read exactly")
    action = actions[0]
    following = [match for match in inputs if match.start() > action.start()]
    if not following or len(inputs) > 1:
        raise ValueError("the ReAct step names an action ('Action:') without exactly one 'Action Input:' line "
                         "after it, so the framework cannot run it as written")
    if _ANSWER.search(text) is not None:
        raise ValueError("the ReAct step gives both an action and a final answer ('Answer:'); llama-index runs "
                         "the action, LangChain refuses the step, so its call cannot be read exactly")
    name = action.group(1).strip()
    if not _TOOL_NAME.fullmatch(name):
        raise ValueError(f"the ReAct action names {name[:80]!r}, not one tool name; frameworks read such a name "
                         f"differently, so the call cannot be read exactly")
    raw = text[following[0].end():]
    if _OBSERVATION.search(raw):
        raise ValueError("the ReAct step goes on past its Action Input with an 'Observation:' the model wrote "
                         "itself; where the input ends depends on the framework, so the call cannot be read "
                         "exactly")
    raw = raw.strip()
    fenced = re.fullmatch(r"```[A-Za-z]*\n(.*?)\n?```", raw, re.DOTALL)
    if fenced:
        raw = fenced.group(1).strip()
    return _call(name, raw)


def _call(name: str, raw: str) -> ToolCall:
    """A call with its argument text read as the formats read it: a JSON object
    gives the arguments, blank gives ``{}``, anything else is kept as raw text."""
    if not raw.strip():
        return ToolCall(name, {})
    try:
        parsed = json.loads(raw)
    except (ValueError, RecursionError):
        parsed = None
    if isinstance(parsed, dict):
        return ToolCall(name, parsed)
    return ToolCall(name, {}, raw_arguments=raw)


def _json_action(text: str) -> ToolCall | None:
    """LangChain's JSON action blob, in a fenced block: ``{"action": ..., "action_input": ...}``."""
    found = None
    for match in _FENCE.finditer(text):
        try:
            blob = json.loads(match.group(2))
        except (ValueError, RecursionError):
            continue
        if isinstance(blob, dict) and set(blob) == {"action", "action_input"} and isinstance(blob["action"], str):
            if found is not None:
                raise ValueError("the text holds more than one JSON action blob; the framework runs one, so its "
                                 "call cannot be read exactly")
            found = blob
    if found is None:
        return None
    name, given = found["action"].strip(), found["action_input"]
    if not name:
        raise ValueError("the JSON action blob names no tool ('action' is empty)")
    if isinstance(given, dict):
        return ToolCall(name, given)
    if given is None:
        return ToolCall(name, None)
    return ToolCall(name, {}, raw_arguments=given if isinstance(given, str) else json.dumps(given))


def _code_of(text: str) -> str | None:
    """The code of a smolagents code action (every block, joined), or None."""
    opening = _CODE_OPEN.search(text)
    answer = _ANSWER.search(text)
    if opening and not (answer and answer.start() < opening.start()):
        blocks = []
        rest = text
        while True:
            start = rest.find("<code>")
            if start < 0:
                break
            end = rest.find("</code>", start)
            blocks.append(rest[start + 6:end if end >= 0 else len(rest)].strip())
            if end < 0:
                break
            rest = rest[end + 7:]
        return "\n\n".join(blocks)
    first = next((line for line in text.splitlines() if line.strip()), "")
    if first.lstrip().startswith("Thought:") and answer is None:
        blocks = [match.group(2).strip() for match in _FENCE.finditer(text)
                  if match.group(1).lower() in ("py", "python")]
        if blocks:
            return "\n\n".join(blocks)
    return None


def _literal(node: ast.expr) -> Any:
    """A literal argument as the JSON value it stands for (tuples as lists)."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as error:
        raise ValueError(f"{_CODE_REFUSED}: an argument is not a literal ({ast.unparse(node)[:80]!r})") from error

    def plain(item: Any) -> Any:
        if item is None or isinstance(item, (bool, int, str)):
            return item
        if isinstance(item, float):
            if math.isfinite(item):
                return item
        elif isinstance(item, (list, tuple)):
            return [plain(each) for each in item]
        elif isinstance(item, dict) and all(isinstance(key, str) for key in item):
            return {key: plain(each) for key, each in item.items()}
        raise ValueError(f"{_CODE_REFUSED}: the argument {ast.unparse(node)[:80]!r} has no JSON value")

    return plain(value)


def _calls_nothing(node: ast.AST) -> bool:
    return not any(isinstance(each, (ast.Call, ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom))
                   for each in ast.walk(node))


def _code_calls(code: str, tools: Mapping[str, Sequence[str]] | Iterable[str] | None) -> list[ToolCall]:
    known: dict[str, Sequence[str] | None] = (
        {} if tools is None else {name: list(params) for name, params in tools.items()}
        if isinstance(tools, Mapping) else dict.fromkeys(tools))
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise ValueError(f"the code action is not valid Python ({error}); it asks for tools the framework "
                         f"cannot run") from error
    calls: list[ToolCall] = []

    def tool_call(node: ast.Call) -> ToolCall:
        assert isinstance(node.func, ast.Name)
        name = node.func.id
        params = known[name]
        arguments: dict[str, Any] = {}
        if node.args:
            if any(isinstance(arg, ast.Starred) for arg in node.args):
                raise ValueError(f"{_CODE_REFUSED}: {name}() is given *arguments")
            if params is None or len(node.args) > len(params):
                raise ValueError(f"{_CODE_REFUSED}: {name}() is given positional arguments whose parameter "
                                 f"names are not known")
            for param, arg in zip(params, node.args):
                arguments[param] = _literal(arg)
        for keyword in node.keywords:
            if keyword.arg is None:
                raise ValueError(f"{_CODE_REFUSED}: {name}() is given **arguments")
            if keyword.arg in arguments:
                raise ValueError(f"the code action gives {name}() the argument {keyword.arg!r} twice")
            arguments[keyword.arg] = _literal(keyword.value)
        return ToolCall(name, arguments)

    def expression(node: ast.expr, top: bool) -> None:
        """Read the calls of one statement's value: a tool call, print(...) at the top, or no call at all."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in known:
            calls.append(tool_call(node))
            return
        if top and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print" \
                and "print" not in known:
            for arg in node.args:
                expression(arg.value if isinstance(arg, ast.Starred) else arg, False)
            for keyword in node.keywords:
                expression(keyword.value, False)
            return
        if not _calls_nothing(node):
            raise ValueError(f"{_CODE_REFUSED}: {ast.unparse(node)[:80]!r} calls something other than a tool "
                             f"with literal arguments")

    for statement in tree.body:
        plain_assignment = isinstance(statement, ast.Assign) and all(
            isinstance(target, ast.Name) for target in statement.targets)
        if isinstance(statement, ast.Expr) or plain_assignment:
            expression(statement.value, True)  # type: ignore[attr-defined]
        elif isinstance(statement, ast.Pass):
            continue
        else:
            raise ValueError(f"{_CODE_REFUSED}: it is not a straight sequence of tool calls (a "
                             f"{type(statement).__name__.lower()} statement at line {statement.lineno})")
    return calls


#: What a prompt that teaches a text protocol says: ReAct's input line, the key of
#: LangChain's JSON action blob, smolagents' code tags (its default, and markdown).
_TAUGHT = ("Action Input", "action_input", "<code>", "```py")


def taught(messages: Sequence[Any]) -> bool:
    """Whether a request's messages teach the model a text protocol: every framework
    that reads one says how in its prompt; a model that writes ``Action:`` lines
    unasked is answering, not asking for a tool."""
    return any(isinstance(message, Mapping) and any(
        marker in message_text(message.get("content")) for marker in _TAUGHT) for message in messages)


def tools_in_prompt(messages: Sequence[Any]) -> dict[str, list[str]]:
    """The tools a smolagents ``CodeAgent`` offers, by name, with their parameter names in order: the
    ``def name(...)`` lines its system prompt lists them as. Empty when there are none."""
    found: dict[str, list[str]] = {}
    for message in messages:
        if not isinstance(message, Mapping) or message.get("role") != "system":
            continue
        for line in message_text(message.get("content")).splitlines():
            stripped = line.strip()
            if not (stripped.startswith("def ") and stripped.endswith(":")):
                continue
            try:
                tree = ast.parse(stripped + "\n    pass")
            except (SyntaxError, ValueError, RecursionError):
                continue
            function = tree.body[0]
            if isinstance(function, ast.FunctionDef):
                args = function.args
                found[function.name] = [arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    return found


# --------------------------------------------------------------------------- results


def message_text(content: Any) -> str:
    """A message's text: a string, or the text blocks of a content list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(block.get("text", "") for block in content
                       if isinstance(block, Mapping) and isinstance(block.get("text"), str))
    return ""


def _smolagents_calls(text: str) -> list[tuple[str | None, str]] | None:
    """The calls a smolagents ``Calling tools:`` note lists: (id, name), or None if the text has none."""
    at = text.rfind(_CALLING_TOOLS)
    if at < 0 or (at and text[at - 1] != "\n"):
        return None
    try:
        listed = ast.literal_eval(text[at + len(_CALLING_TOOLS):].strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(listed, list):
        return None
    out: list[tuple[str | None, str]] = []
    for item in listed:
        function = item.get("function") if isinstance(item, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str):
            return None
        call_id = item.get("id")
        out.append((call_id if isinstance(call_id, str) else None, name))
    return out


def results_in_text(messages: Sequence[Any]) -> list[Result]:
    """The tool results a request's messages (OpenAI chat shape) send back as
    plain text, in order: ``(call id or None, tool name or None, output)``,
    the shape of the results the core reads from tool messages. See this
    module's docstring for the conventions read."""
    out: list[Result] = []
    pending: tuple[str, list[tuple[str | None, str]]] | None = None
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        role = message.get("role")
        text = message_text(message.get("content"))
        if role == "assistant":
            listed = _smolagents_calls(text)
            if listed is not None:
                pending = ("smolagents", listed)
                continue
            actions = list(_ACTION.finditer(text))
            name = actions[0].group(1).strip() if len(actions) == 1 else ""
            pending = ("react", [(None, name)]) if _TOOL_NAME.fullmatch(name) and _ACTION_INPUT.search(text) \
                else None
            continue
        if role not in ("user", "tool") or pending is None:
            continue
        kind, listed = pending
        pending = None
        if kind == "react" and text.startswith("Observation:"):
            output = text[len("Observation:"):]
            out.append((None, listed[0][1], output[1:] if output.startswith(" ") else output))
        elif kind == "smolagents" and text.startswith("Observation:\n") and len(listed) == 1 \
                and listed[0][1] != "python_interpreter":
            out.append((listed[0][0], listed[0][1], text[len("Observation:\n"):]))
    return out
