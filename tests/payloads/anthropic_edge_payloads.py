"""Edge-case payloads for the Anthropic Messages API (anthropic 2.15), built OFFLINE with
the real SDK: ``anthropic.Anthropic`` over an ``httpx2.MockTransport`` serving JSON / SSE;
streams through ``client.messages.create(stream=True)`` (raw events) and the SDK's own
accumulator (``anthropic.lib.streaming._messages.accumulate_event``, what
``client.messages.stream()`` runs), fed one message at a time: the SDK's MessageStream
assumes ONE message_start per stream (a second one is ignored and its blocks are written
into the first message), so several messages in one stream have no SDK answer as a whole.

RECORDED data are real API bodies kept as vercel/ai test fixtures (see NOTES.md).

Provider: "anthropic". Every name starts with "edge-".
"""

from __future__ import annotations

import copy
import json
import warnings
from typing import Any

import anthropic
import httpx2
from anthropic.lib.streaming._messages import accumulate_event

from payloads._scenario import Call, Scenario

PROVIDER = "anthropic"
MODEL = "claude-sonnet-4-5-20250929"
BASE_URL = "http://anthropic.test"
HOSTED_OFF = {"hosted_tools": False}
#: a stream whose first message was cut open and a second message started
REFUSE_SPLICED = r"(?i)(message_start|still open|unfinished|incomplete|cut|spliced)"


def _c(name: str, arguments: dict[str, Any] | None, cid: str) -> Call:
    return Call(name, {} if arguments is None else arguments, cid)


# ============================================================================================
# RECORDED: vercel/ai packages/anthropic/src/__fixtures__/anthropic-programmatic-tool-calling
# .1.chunks.txt (claude-sonnet-4-5-20250929, code_execution_20250825 + a rollDie tool with
# allowed_callers): ONE stream file holding FIFTEEN messages. Message 1 streams text, a
# server_tool_use code_execution (caller direct) and a tool_use rollDie whose input is whole in
# content_block_start (no input_json_delta), stop_reason tool_use; messages 2-14 are resumed
# turns whose message_start.message.content ALREADY holds one tool_use (caller
# code_execution_20250825) and that end at message_stop with no content_block events and no
# message_delta; message 15 streams the code_execution_tool_result and the final text.
# ============================================================================================

_PTC_TEXT_1 = ["I'll help you simulate", ' this', ' game between', ' two players where', ' one', ' is',
 ' using', ' a loaded die.', ' Let me play', ' out', ' the game roun', 'd by round until',
 ' one player wins', ' 3 rounds.']

_PTC_CODE_PIECES = ['', '{"code": "\\nimport async', 'io', '\\n\\nasync def main', '():\\n    player', '1_wins',
 ' = 0\\n    player2_', 'wins = 0\\n    roun', 'd_num = 0', '\\n    \\n    print', '(\\"=',
 '== DICE', ' GAME:', ' First', ' to', ' 3 ', 'Wins', ' ===\\\\', 'n\\")\\n    \\n    #',
 ' Play', ' until', ' one player wins', ' 3 rounds\\n    while player', '1_wins < 3 an',
 'd player2_wins < 3:', '\\n        round_num += 1', '\\n        print', '(f\\"---',
 ' Round {round_num} ---\\")', '\\n        \\n        # Both', ' players roll their',
 ' dice\\n        player1_roll =', ' await rollDie(', '{\\"player\\": \\"player1\\"})',
 '\\n        player2_roll = await', ' rollDie({\\"player\\": \\"',
 'player2\\"})\\n        \\n        ', '#', ' Extract', ' the numeric',
 ' values from the results', '\\n        p', '1_value', ' = int(player1_roll.', 'strip',
 '())\\n        p2_value =', ' int(player2_roll.strip', '())\\n        \\n        print',
 '(f\\"Player 1 rolls', ': {p1_value}\\")', '\\n        print(f\\"Player ', '2 rolls: {p2_',
 'value}\\")\\n        \\n        #', ' Determine roun', 'd winner\\n        if p1_value',
 ' > p2_value:\\n            ', 'player1_wins += 1', '\\n            print(f\\"Player 1',
 ' wins this', ' round!\\")\\n        elif p2_', 'value > p1_value:',
 '\\n            player2_wins += 1', '\\n            print(f\\"Player ',
 '2 wins this round!\\")\\n        ', 'else:\\n            print(', 'f\\"Draw', '! No',
 ' one gets', ' a', ' point', '.\\")', '\\n        \\n        print', '(f\\"Score',
 ': Player 1 =', ' {player1_wins}, Player ', '2 = {player2_wins', '}\\\\', 'n\\")\\n    ',
 '\\n    #', ' Announce', ' the game', ' winner', '\\n    print', '(\\"', '=\\"', ' * 40',
 ')\\n    if', ' player1_wins == 3:', '\\n        print(', 'f\\"', '🏆 GAME OVER:',
 ' Player 1 wins the game!', ' (', '3-', '{', 'player2', '_wins}',
 ')\\")\\n    else:\\n        print', '(f\\"🏆 ', 'GAME OVER: Player 2 ', 'wins the game! (3-{',
 'player1_wins})\\")\\n    ', 'print(\\"=\\" * 40)', '\\n    \\n    # Determine who', ' was',
 ' cheating base', 'd on the results', '\\n    print', '(\\"\\\\n', '📊 Analysis',
 ':\\")\\n    print(', 'f\\"Total', ' rounds playe', 'd: {round_num}\\")\\n    ', 'if',
 ' player1_wins >', ' player2_wins:\\n        print', '(\\"Player 1 ha', 'd better', ' results',
 ' -', ' likely', ' using', ' the', ' loaded die!', ' 🎲\\")\\n    elif',
 ' player2_wins > player1_', 'wins:\\n        print(\\"Player ',
 '2 had better results - likely using', ' the loaded die! 🎲',
 '\\")\\n    else:\\n        print', '(\\"Results', ' were', ' even', ' - har',
 'd to determine who', ' was cheating from', ' this', ' game alone', '.\\")\\n\\nasync',
 'io.run(main())', '\\n', '"}']

_PTC_RESUMED = [('msg_01KSVw3xmXbMNJPNMt46BC5W', 'toolu_015dGLMbwBKv1ZRQr6KdJzeH', 'player2',
  '2025-12-20T05:33:37.969567Z'),
 ('msg_016fLapHzDx8DG2SUcsGKyPA', 'toolu_01YYqBNq5mk1wMtv3PAqY44m', 'player1',
  '2025-12-20T05:33:39.648288Z'),
 ('msg_01MQHz6AzmwmZoTry5nk5EQC', 'toolu_018WxjDkQG8h7i63poySGT2x', 'player2',
  '2025-12-20T05:33:41.431511Z'),
 ('msg_01WCXNc8kDU1jBuaza6uUZ8k', 'toolu_014ch4D3vbx928ddwxMvMvF1', 'player1',
  '2025-12-20T05:33:43.145757Z'),
 ('msg_01Hoo8fVNFQyUpbagnajQ4BF', 'toolu_01QtZ46GWS93Z5ZaSifgGNnq', 'player2',
  '2025-12-20T05:33:44.839216Z'),
 ('msg_014eWUw8H2P9bDMyXcSpe1ss', 'toolu_012Zvp8FdgvjVGkmbHSU4EZk', 'player1',
  '2025-12-20T05:33:46.531362Z'),
 ('msg_015ecR3hog8LhtqDLdysH8p1', 'toolu_01CMz8Jhv6EfnzHQzEMdpHut', 'player2',
  '2025-12-20T05:33:48.294455Z'),
 ('msg_01CHzXfYTqEJ9HV3Kic1Uz5q', 'toolu_01PfH6ADzq8Yct5jeRY9QkS2', 'player1',
  '2025-12-20T05:33:49.977349Z'),
 ('msg_014nyoTPq6LG3UwHW1zvMTH3', 'toolu_013DE3qaKvBMheZXUhwkvpdF', 'player2',
  '2025-12-20T05:33:51.565949Z'),
 ('msg_01HLQ2uhM6N45SyR39CddV55', 'toolu_01MTRMy9BEvFHWR7hpCWc4nJ', 'player1',
  '2025-12-20T05:33:53.308898Z'),
 ('msg_01TdKL1d8pQ9hLtyzbPUNGNf', 'toolu_01CXqv27ozPihE5nj6eA3Joc', 'player2',
  '2025-12-20T05:33:55.035858Z'),
 ('msg_01Q5bmB7EBDZYRnY5A78n34S', 'toolu_01K6ST6orjmPHHwM8rwLj1n9', 'player1',
  '2025-12-20T05:33:56.857745Z'),
 ('msg_01E9RpqZHoGBsPDB9P3r1aBA', 'toolu_01QcWWQcQ1pd7nx9xohX4zAr', 'player2',
  '2025-12-20T05:33:58.450677Z')]

_PTC_STDOUT = ('=== DICE GAME: First to 3 Wins ===\n'
 '\n'
 '--- Round 1 ---\n'
 'Player 1 rolls: 5\n'
 'Player 2 rolls: 6\n'
 'Player 2 wins this round!\n'
 'Score: Player 1 = 0, Player 2 = 1\n'
 '\n'
 '--- Round 2 ---\n'
 'Player 1 rolls: 4\n'
 'Player 2 rolls: 6\n'
 'Player 2 wins this round!\n'
 'Score: Player 1 = 0, Player 2 = 2\n'
 '\n'
 '--- Round 3 ---\n'
 'Player 1 rolls: 5\n'
 'Player 2 rolls: 2\n'
 'Player 1 wins this round!\n'
 'Score: Player 1 = 1, Player 2 = 2\n'
 '\n'
 '--- Round 4 ---\n'
 'Player 1 rolls: 6\n'
 'Player 2 rolls: 6\n'
 'Draw! No one gets a point.\n'
 'Score: Player 1 = 1, Player 2 = 2\n'
 '\n'
 '--- Round 5 ---\n'
 'Player 1 rolls: 3\n'
 'Player 2 rolls: 2\n'
 'Player 1 wins this round!\n'
 'Score: Player 1 = 2, Player 2 = 2\n'
 '\n'
 '--- Round 6 ---\n'
 'Player 1 rolls: 6\n'
 'Player 2 rolls: 6\n'
 'Draw! No one gets a point.\n'
 'Score: Player 1 = 2, Player 2 = 2\n'
 '\n'
 '--- Round 7 ---\n'
 'Player 1 rolls: 2\n'
 'Player 2 rolls: 3\n'
 'Player 2 wins this round!\n'
 'Score: Player 1 = 2, Player 2 = 3\n'
 '\n'
 '========================================\n'
 '🏆 GAME OVER: Player 2 wins the game! (3-2)\n'
 '========================================\n'
 '\n'
 '📊 Analysis:\n'
 'Total rounds played: 7\n'
 'Player 2 had better results - likely using the loaded die! 🎲\n')

_PTC_TEXT_2 = ['##', ' Game', ' Results', '\n\n**Player 2', ' wins the game ', '3-2!**', ' 🏆\n\nThe',
 ' game laste', 'd 7 rounds with', ' the', ' following breakdown', ':\n- **', 'Player', ' 1**:',
 ' 2', ' roun', 'd wins', '\n- **Player 2**: 3', ' round wins  ', '\n- **', 'Draws',
 '**: 2 rounds', ' (both', ' rolling', ' 6', ')\n\nBase', 'd on the results', ',', ' **',
 'Player 2 ', 'appears', ' to be the one', ' using the loaded die**,', ' as they', ' manage',
 'd to win the', ' game', ' an', 'd had slightly', ' better overall', ' results.', ' Player',
 ' 2', ' rolle', 'd high', ' numbers', ' consistently', ',', ' including', ' multiple', ' 6s',
 ',', ' which helped them secure', ' the victory.\n\nThe', ' game was', ' actually',
 ' quite competitive', ' despite', ' the cheating,', ' with Player 1', ' managing',
 ' to win 2 rounds an', 'd the', ' score', ' being tied ', '2-2 before', ' Player 2 won',
 ' the decisive', ' ', '7', 'th round with', ' a roll', ' of 3', ' ', 'against',
 " Player 1's 2", '.']



_PTC_SRV = "srvtoolu_01MzSrFWsmzBdcoQkGWLyRjK"
_PTC_CALLER = {"type": "code_execution_20250825", "tool_id": _PTC_SRV}
_PTC_CONTAINER = "container_011CWHPPTDTn1XufeRB9uHeH"


def _usage_start(inp: int, out: int) -> dict[str, Any]:
    return {"input_tokens": inp, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "output_tokens": out, "service_tier": "standard"}


def _start(mid: str, usage: dict[str, Any], content: list | None = None,
           **extra: Any) -> dict[str, Any]:
    message = {"model": MODEL, "id": mid, "type": "message", "role": "assistant",
               "content": content or []}
    message.update(extra)
    if "stop_reason" not in message:
        message["stop_reason"] = None
        message["stop_sequence"] = None
    message["usage"] = usage
    return {"type": "message_start", "message": message}


def _text_events(index: int, pieces: list[str], ping_after: int | None = 2) -> list[dict]:
    ev: list[dict[str, Any]] = [{"type": "content_block_start", "index": index,
                                 "content_block": {"type": "text", "text": ""}}]
    for i, p in enumerate(pieces):
        if ping_after is not None and i == ping_after:
            ev.append({"type": "ping"})
        ev.append({"type": "content_block_delta", "index": index,
                   "delta": {"type": "text_delta", "text": p}})
    ev.append({"type": "content_block_stop", "index": index})
    return ev


def _ptc_events() -> list[dict[str, Any]]:
    ev = [_start("msg_01ERcBqAvLTHWQDk9c9qJLWC", _usage_start(3369, 5))]
    ev += _text_events(0, _PTC_TEXT_1)
    ev.append({"type": "content_block_start", "index": 1, "content_block": {
        "type": "server_tool_use", "id": _PTC_SRV, "name": "code_execution", "input": {},
        "caller": {"type": "direct"}}})
    ev += [{"type": "content_block_delta", "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": p}} for p in _PTC_CODE_PIECES]
    ev.append({"type": "content_block_stop", "index": 1})
    ev.append({"type": "content_block_start", "index": 2, "content_block": {
        "type": "tool_use", "id": "toolu_019jKkXz4jAdwHweHBw92CVY", "name": "rollDie",
        "input": {"player": "player1"}, "caller": dict(_PTC_CALLER)}})
    ev.append({"type": "content_block_stop", "index": 2})
    ev.append({"type": "message_delta", "delta": {
        "stop_reason": "tool_use", "stop_sequence": None,
        "container": {"id": _PTC_CONTAINER, "expires_at": "2025-12-20T05:33:35.789626Z"}},
        "usage": {"input_tokens": 3369, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 0, "output_tokens": 725,
                  "server_tool_use": {"web_search_requests": 0}}})
    ev.append({"type": "message_stop"})
    for mid, tid, player, expires in _PTC_RESUMED:
        ev.append({"type": "message_start", "message": {
            "model": MODEL, "id": mid, "type": "message", "role": "assistant",
            "content": [{"type": "tool_use", "id": tid, "name": "rollDie",
                         "input": {"player": player}, "caller": dict(_PTC_CALLER)}],
            "container": {"id": _PTC_CONTAINER, "expires_at": expires},
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0,
                      "server_tool_use": {"web_search_requests": 0}}}})
        ev.append({"type": "message_stop"})
    ev.append(_start("msg_01CfmDducyrt61n4Q7QS8VFK", _usage_start(4551, 1)))
    ev.append({"type": "content_block_start", "index": 0, "content_block": {
        "type": "code_execution_tool_result", "tool_use_id": _PTC_SRV,
        "content": {"type": "code_execution_result", "stdout": _PTC_STDOUT, "stderr": "",
                    "return_code": 0, "content": []}}})
    ev.append({"type": "content_block_stop", "index": 0})
    ev += _text_events(1, _PTC_TEXT_2)
    ev.append({"type": "message_delta", "delta": {"stop_reason": "end_turn",
                                                  "stop_sequence": None},
               "usage": {"input_tokens": 4551, "cache_creation_input_tokens": 0,
                         "cache_read_input_tokens": 0, "output_tokens": 197,
                         "server_tool_use": {"web_search_requests": 0}}})
    ev.append({"type": "message_stop"})
    return ev


PTC_EVENTS = _ptc_events()
PTC_CODE = json.loads("".join(_PTC_CODE_PIECES))["code"]
PTC_CALLS = ((_c("code_execution", {"code": PTC_CODE}, _PTC_SRV),
              _c("rollDie", {"player": "player1"}, "toolu_019jKkXz4jAdwHweHBw92CVY"))
             + tuple(_c("rollDie", {"player": p}, tid) for _, tid, p, _ in _PTC_RESUMED))

# RECORDED: vercel/ai packages/anthropic/src/__fixtures__/anthropic-programmatic-tool-calling
# .1.json: a non-streamed final Message of the same kind of run (the whole turn's content:
# server_tool_use, four tool_use blocks with caller code_execution_20250825, the
# code_execution_tool_result, the answer; stop_reason end_turn).
PTC_MESSAGE = {'model': 'claude-sonnet-4-5-20250929',
 'id': 'msg_01LPPbjvqcSgBPfApMEiJ4qv',
 'type': 'message',
 'role': 'assistant',
 'content': [{'type': 'text',
              'text': "I'll help you simulate this dice game between two players! Let me run "
                      'the game where both players roll dice each round until one player wins '
                      '3 rounds.'},
             {'type': 'server_tool_use',
              'id': 'srvtoolu_01CberhXc9TgYXrCZU8bQoks',
              'name': 'code_execution',
              'input': {'code': '\n'
                                'import asyncio\n'
                                '\n'
                                'async def main():\n'
                                '    player1_wins = 0\n'
                                '    player2_wins = 0\n'
                                '    round_num = 0\n'
                                '    \n'
                                '    print("=" * 60)\n'
                                '    print("DICE GAME: First to 3 Round Wins")\n'
                                '    print("=" * 60)\n'
                                '    print()\n'
                                '    \n'
                                '    while player1_wins < 3 and player2_wins < 3:\n'
                                '        round_num += 1\n'
                                '        print(f"Round {round_num}:")\n'
                                '        \n'
                                '        # Both players roll simultaneously\n'
                                '        results = await asyncio.gather(\n'
                                '            rollDie({"player": "player1"}),\n'
                                '            rollDie({"player": "player2"})\n'
                                '        )\n'
                                '        \n'
                                '        roll1 = int(results[0])\n'
                                '        roll2 = int(results[1])\n'
                                '        \n'
                                '        print(f"  Player 1 rolls: {roll1}")\n'
                                '        print(f"  Player 2 rolls: {roll2}")\n'
                                '        \n'
                                '        # Determine winner\n'
                                '        if roll1 > roll2:\n'
                                '            player1_wins += 1\n'
                                '            print(f"  → Player 1 wins this round!")\n'
                                '        elif roll2 > roll1:\n'
                                '            player2_wins += 1\n'
                                '            print(f"  → Player 2 wins this round!")\n'
                                '        else:\n'
                                '            print(f"  → Draw! No points awarded.")\n'
                                '        \n'
                                '        print(f"  Score: Player 1: {player1_wins} | Player 2: '
                                '{player2_wins}")\n'
                                '        print()\n'
                                '    \n'
                                '    print("=" * 60)\n'
                                '    if player1_wins == 3:\n'
                                '        print("🏆 PLAYER 1 WINS THE GAME!")\n'
                                '    else:\n'
                                '        print("🏆 PLAYER 2 WINS THE GAME!")\n'
                                '    print(f"Final Score: Player 1: {player1_wins} | Player 2: '
                                '{player2_wins}")\n'
                                '    print(f"Total Rounds: {round_num}")\n'
                                '    print("=" * 60)\n'
                                '\n'
                                'asyncio.run(main())\n'},
              'caller': {'type': 'direct'}},
             {'type': 'tool_use',
              'id': 'toolu_01PMcE1JBKCeLjn83cgUCvR5',
              'name': 'rollDie',
              'input': {'player': 'player2'},
              'caller': {'type': 'code_execution_20250825',
                         'tool_id': 'srvtoolu_01CberhXc9TgYXrCZU8bQoks'}},
             {'type': 'tool_use',
              'id': 'toolu_01MZf5QJ1EQyd2yGyeLzBxAS',
              'name': 'rollDie',
              'input': {'player': 'player1'},
              'caller': {'type': 'code_execution_20250825',
                         'tool_id': 'srvtoolu_01CberhXc9TgYXrCZU8bQoks'}},
             {'type': 'tool_use',
              'id': 'toolu_01T7Upuuv8C71nq7DZ9ZPNQW',
              'name': 'rollDie',
              'input': {'player': 'player1'},
              'caller': {'type': 'code_execution_20250825',
                         'tool_id': 'srvtoolu_01CberhXc9TgYXrCZU8bQoks'}},
             {'type': 'tool_use',
              'id': 'toolu_016Da1tDet9Bf7dAdYTkF5Ar',
              'name': 'rollDie',
              'input': {'player': 'player2'},
              'caller': {'type': 'code_execution_20250825',
                         'tool_id': 'srvtoolu_01CberhXc9TgYXrCZU8bQoks'}},
             {'type': 'code_execution_tool_result',
              'tool_use_id': 'srvtoolu_01CberhXc9TgYXrCZU8bQoks',
              'content': {'type': 'code_execution_result',
                          'stdout': '============================================================\n'
                                    'DICE GAME: First to 3 Round Wins\n'
                                    '============================================================\n'
                                    '\n'
                                    'Round 1:\n'
                                    '  Player 1 rolls: 6\n'
                                    '  Player 2 rolls: 6\n'
                                    '  → Draw! No points awarded.\n'
                                    '  Score: Player 1: 0 | Player 2: 0\n'
                                    '\n'
                                    'Round 2:\n'
                                    '  Player 1 rolls: 5\n'
                                    '  Player 2 rolls: 4\n'
                                    '  → Player 1 wins this round!\n'
                                    '  Score: Player 1: 1 | Player 2: 0\n'
                                    '\n'
                                    'Round 3:\n'
                                    '  Player 1 rolls: 6\n'
                                    '  Player 2 rolls: 4\n'
                                    '  → Player 1 wins this round!\n'
                                    '  Score: Player 1: 2 | Player 2: 0\n'
                                    '\n'
                                    'Round 4:\n'
                                    '  Player 1 rolls: 6\n'
                                    '  Player 2 rolls: 3\n'
                                    '  → Player 1 wins this round!\n'
                                    '  Score: Player 1: 3 | Player 2: 0\n'
                                    '\n'
                                    '============================================================\n'
                                    '🏆 PLAYER 1 WINS THE GAME!\n'
                                    'Final Score: Player 1: 3 | Player 2: 0\n'
                                    'Total Rounds: 4\n'
                                    '============================================================\n',
                          'stderr': '',
                          'return_code': 0,
                          'content': []}},
             {'type': 'text',
              'text': '**Game Over!** \n'
                      '\n'
                      'Player 1 dominated this game with a decisive 3-0 victory! Looking at '
                      'the rolls:\n'
                      '- **Round 1**: Both rolled 6 (Draw)\n'
                      '- **Round 2**: Player 1 (5) beat Player 2 (4)\n'
                      '- **Round 3**: Player 1 (6) beat Player 2 (4)\n'
                      '- **Round 4**: Player 1 (6) beat Player 2 (3)\n'
                      '\n'
                      'Based on these results, it appears **Player 1 is likely the one with '
                      'the loaded die** - they rolled 6 three times out of four rolls '
                      '(including the draw), and consistently rolled high numbers (5, 6, 6, '
                      "6). Player 2's rolls were more varied and lower (6, 4, 4, 3), which "
                      'looks more like a fair die distribution.\n'
                      '\n'
                      'The loaded die gave Player 1 a significant advantage, allowing them to '
                      'win the game without Player 2 scoring a single round!'}],
 'container': {'id': 'container_011CWHQB57xVregfCMPrKgew',
               'expires_at': '2025-12-20T05:43:56.821156Z'},
 'stop_reason': 'end_turn',
 'stop_sequence': None,
 'usage': {'input_tokens': 4243,
           'cache_creation_input_tokens': 0,
           'cache_read_input_tokens': 0,
           'cache_creation': {'ephemeral_5m_input_tokens': 0, 'ephemeral_1h_input_tokens': 0},
           'output_tokens': 229,
           'service_tier': 'standard',
           'server_tool_use': {'web_search_requests': 0}}}
PTC_MESSAGE_CALLS = (
    (_c("code_execution", {"code": PTC_MESSAGE["content"][1]["input"]["code"]},
        "srvtoolu_01CberhXc9TgYXrCZU8bQoks"),)
    + tuple(_c("rollDie", b["input"], b["id"]) for b in PTC_MESSAGE["content"]
            if b["type"] == "tool_use"))


# ============================================================================================
# the SDK client over a mock transport
# ============================================================================================


class _Server:
    def __init__(self) -> None:
        self.queue: list[Any] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = self.queue.pop(0)
        if isinstance(body, str):
            return httpx2.Response(200, content=body.encode(),
                                   headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, json=body, headers={"request-id": "req_mock"})


_SERVER = _Server()
_CLIENT = anthropic.Anthropic(api_key="x", base_url=BASE_URL, max_retries=0,
                              http_client=anthropic.DefaultHttpxClient(
                                  transport=httpx2.MockTransport(_SERVER)))
_ASK = [{"role": "user", "content": "Two players roll dice, one die is loaded. Play to 3 wins."}]


def create(body: dict[str, Any]) -> Any:
    _SERVER.queue.append(body)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _CLIENT.messages.create(model=MODEL, max_tokens=4096, messages=_ASK)


def stream_raw(sse: str) -> list[Any]:
    _SERVER.queue.append(sse)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(_CLIENT.messages.create(model=MODEL, max_tokens=4096, messages=_ASK,
                                            stream=True))


def stream_helper(sse: str) -> tuple[list[Any], Any]:
    """client.messages.stream(...): (its events, get_final_message())."""
    _SERVER.queue.append(sse)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with _CLIENT.messages.stream(model=MODEL, max_tokens=4096, messages=_ASK) as s:
                events = list(s)
                return events, s.get_final_message()
    finally:
        _SERVER.queue.clear()


def sse_of(events: list[dict[str, Any]]) -> str:
    return "".join(
        f"event: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'), ensure_ascii=False)}\n\n"
        for e in events)


def block_calls(content: list[Any]) -> tuple[Call, ...]:
    out = []
    for block in content:
        data = block if isinstance(block, dict) else block.model_dump(mode="json")
        if data["type"] in ("tool_use", "server_tool_use", "mcp_tool_use"):
            out.append(_c(data["name"], data["input"], data["id"]))
    return tuple(out)


def sdk_per_message(events: list[Any]) -> tuple[Call, ...]:
    """The SDK's accumulator run over each message_start..message_stop run separately."""
    out: list[Call] = []
    snapshot = None
    bufs: dict[int, bytes] = {}
    for event in events:
        if event.type == "message_start":
            if snapshot is not None:
                out += block_calls(snapshot.content)
            snapshot, bufs = None, {}
        if event.type == "ping":
            continue
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=bufs)
    if snapshot is not None:
        out += block_calls(snapshot.content)
    return tuple(out)


def _dump(value: Any) -> Any:
    if isinstance(value, list):
        return [_dump(v) for v in value]
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return value


def _forms(base: str, obj: Any, expected: tuple[Call, ...] | None, note: str, *,
           sse: str | None = None, raw: Any = None, refusal: str | None = None,
           options: dict[str, Any] | None = None, object_form: bool = True) -> list[Scenario]:
    opts = options or {}

    def sc(form: str, suffix: str, payload: Any, extra: str = "") -> Scenario:
        return Scenario(PROVIDER, form, f"{base}-{suffix}", payload, expected, refusal,
                        dict(opts), (note + extra).strip())

    out = []
    if object_form:
        out.append(sc("object", "object", obj))
    out.append(sc("dump", "dump", _dump(obj), ' model_dump(mode="json").'))
    out.append(sc("json", "json", json.dumps(_dump(obj), ensure_ascii=False)))
    if raw is not None:
        out.append(sc("dump", "raw", raw, " The JSON the API sent (events as a list)."))
    if sse is not None:
        out.append(sc("sse", "sse", sse, " The SSE text."))
        out.append(sc("sse", "sse-bytes", sse.encode()))
    return out


# ============================================================================================
# synthesized streams
# ============================================================================================


def _tool_events(index: int, block: dict[str, Any], pieces: int = 3) -> list[dict[str, Any]]:
    text = json.dumps(block["input"]) if block["input"] else ""
    size = max(1, -(-len(text) // pieces)) if text else 1
    ev: list[dict[str, Any]] = [{"type": "content_block_start", "index": index,
                                 "content_block": dict(block, input={})}]
    for i in range(0, max(len(text), 1), size):
        ev.append({"type": "content_block_delta", "index": index,
                   "delta": {"type": "input_json_delta", "partial_json": text[i:i + size]}})
    ev.append({"type": "content_block_stop", "index": index})
    return ev


def _message_events(mid: str, blocks: list[dict[str, Any]], stop: str,
                    preloaded: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    ev = [_start(mid, _usage_start(120, 1), copy.deepcopy(preloaded or []))]
    index = len(preloaded or [])
    for block in blocks:
        if block["type"] == "text":
            ev += _text_events(index, [block["text"][:10], block["text"][10:]], ping_after=None)
        elif block["type"] == "thinking":
            ev += [{"type": "content_block_start", "index": index, "content_block": {
                       "type": "thinking", "thinking": "", "signature": ""}},
                   {"type": "content_block_delta", "index": index, "delta": {
                       "type": "thinking_delta", "thinking": "The user wants the weather."}},
                   {"type": "content_block_delta", "index": index, "delta": {
                       "type": "signature_delta", "signature": "EqQBCkYIBRgCKkBsig"}},
                   {"type": "content_block_stop", "index": index}]
        else:
            ev += _tool_events(index, block)
        index += 1
    ev.append({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
               "usage": {"output_tokens": 64}})
    ev.append({"type": "message_stop"})
    return ev


def _tool_use(tid: str, name: str, inp: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tid, "name": name, "input": inp, **extra}


# ============================================================================================
# scenarios
# ============================================================================================


def _ptc() -> list[Scenario]:
    out: list[Scenario] = []
    sse = sse_of(PTC_EVENTS)
    events = stream_raw(sse)
    assert sdk_per_message(events) == PTC_CALLS
    helper_events, final = stream_helper(sse)
    helper_calls = block_calls(final.content)
    assert helper_calls == PTC_CALLS[:2], helper_calls  # the 13 resumed calls are lost
    note = ("RECORDED programmatic tool calling stream with FIFTEEN message_start events: "
            "message 1 (text, server_tool_use code_execution caller direct, tool_use rollDie "
            "whose input is whole in content_block_start with no input_json_delta), thirteen "
            "resumed messages whose ONLY content is a tool_use (caller code_execution_20250825, "
            "tool_id = the code_execution call) inside message_start.message.content, with no "
            "content_block events and no message_delta, then the message with the "
            "code_execution_tool_result and the answer. 1 hosted + 14 client calls. The SDK's "
            "accumulator, run per message, agrees; client.messages.stream() keeps only the "
            "first message (its get_final_message() has 2 of the 15 calls).")
    out += _forms("edge-stream-ptc-fifteen-messages-recorded", events, PTC_CALLS, note,
                  sse=sse, raw=PTC_EVENTS)
    out += _forms("edge-stream-ptc-fifteen-messages-recorded-no-hosted", events, PTC_CALLS[1:],
                  "hosted_tools=False: the 14 rollDie tool_use blocks (caller code_execution "
                  "is still a client tool the app runs).", options=HOSTED_OFF,
                  object_form=False)
    out.append(Scenario(PROVIDER, "object", "edge-stream-ptc-fifteen-messages-helper-events",
                        helper_events, PTC_CALLS,
                        note="list(client.messages.stream(...)) over that stream: the raw "
                             "events (all fifteen message_start events, the resumed tool_use "
                             "blocks in them) plus the helper's events, whose message_stop / "
                             "content_block_stop snapshots carry only the FIRST message. The "
                             "raw events still hold every call: 15."))

    message = create(copy.deepcopy(PTC_MESSAGE))
    assert block_calls(message.content) == PTC_MESSAGE_CALLS
    out += _forms("edge-ptc-final-message-recorded", message, PTC_MESSAGE_CALLS,
                  "RECORDED non-streamed programmatic tool calling Message: server_tool_use "
                  "code_execution (caller direct), four tool_use rollDie blocks with caller "
                  "{type: code_execution_20250825, tool_id}, code_execution_tool_result (a "
                  "result), text; stop_reason end_turn, container set.", raw=PTC_MESSAGE)
    out += _forms("edge-ptc-final-message-recorded-no-hosted", message, PTC_MESSAGE_CALLS[1:],
                  "hosted_tools=False keeps the four caller-code_execution tool_use blocks.",
                  options=HOSTED_OFF, object_form=False)

    # the conversation a tool loop builds from that run (request-style messages)
    srv = {"type": "server_tool_use", "id": _PTC_SRV, "name": "code_execution",
           "input": {"code": PTC_CODE}, "caller": {"type": "direct"}}
    convo: list[dict[str, Any]] = [_ASK[0], {"role": "assistant", "content": [
        {"type": "text", "text": "".join(_PTC_TEXT_1)}, srv,
        _tool_use("toolu_019jKkXz4jAdwHweHBw92CVY", "rollDie", {"player": "player1"},
                  caller=dict(_PTC_CALLER))]},
        {"role": "user", "content": [{"type": "tool_result",
                                      "tool_use_id": "toolu_019jKkXz4jAdwHweHBw92CVY",
                                      "content": "5"}]}]
    for _, tid, player, _ in _PTC_RESUMED:
        convo.append({"role": "assistant", "content": [
            _tool_use(tid, "rollDie", {"player": player}, caller=dict(_PTC_CALLER))]})
        convo.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid,
                                                   "content": "4"}]})
    convo.append({"role": "assistant", "content": [
        {"type": "code_execution_tool_result", "tool_use_id": _PTC_SRV,
         "content": {"type": "code_execution_result", "stdout": _PTC_STDOUT, "stderr": "",
                     "return_code": 0, "content": []}},
        {"type": "text", "text": "".join(_PTC_TEXT_2)}]})
    out.append(Scenario(PROVIDER, "dump", "edge-ptc-conversation", convo, PTC_CALLS,
                        note="The request-style conversation of that run (container passed "
                             "along): one assistant turn per resumed message, each answered by "
                             "a tool_result; the code_execution_tool_result is a result."))
    out.append(Scenario(PROVIDER, "json", "edge-ptc-conversation-json",
                        json.dumps(convo, ensure_ascii=False), PTC_CALLS))
    return out


def _several_messages() -> list[Scenario]:
    out: list[Scenario] = []
    turns = [
        ("msg_01E3a", [{"type": "text", "text": "Let me check the weather."},
                       _tool_use("toolu_01E3a", "get_weather", {"city": "Paris"})], "tool_use"),
        ("msg_01E3b", [_tool_use("toolu_01E3b1", "get_weather", {"city": "Lyon"}),
                       _tool_use("toolu_01E3b2", "get_time", {"timezone": "Europe/Paris"})],
         "tool_use"),
        ("msg_01E3c", [{"type": "text", "text": "Paris 18C, Lyon 21C, it is 14:05."}],
         "end_turn")]
    expected = (_c("get_weather", {"city": "Paris"}, "toolu_01E3a"),
                _c("get_weather", {"city": "Lyon"}, "toolu_01E3b1"),
                _c("get_time", {"timezone": "Europe/Paris"}, "toolu_01E3b2"))
    evs = [e for mid, blocks, stop in turns for e in _message_events(mid, blocks, stop)]
    sse = sse_of(evs)
    events = stream_raw(sse)
    assert sdk_per_message(events) == expected
    _, final = stream_helper(sse)
    got = block_calls(final.content)
    assert got != expected, got
    out += _forms("edge-stream-three-messages", events, expected,
                  "Three complete message streams of an agent loop in one stream (one log per "
                  "conversation): three message_start ... message_stop runs, content indexes "
                  "restarting at 0 in each. The SDK's accumulator per message agrees; "
                  f"client.messages.stream() over the whole gives {[(c.name, c.id) for c in got]}.",
                  sse=sse, raw=evs)

    # message_start with content already in it, then more streamed blocks (synthesized)
    pre = [_tool_use("toolu_01E4pre", "lookup_order", {"order_id": 7},
                     caller={"type": "code_execution_20260120", "tool_id": "srvtoolu_01E4"})]
    evs = _message_events("msg_01E4", [
        _tool_use("toolu_01E4b", "send_email", {"to": "sam@example.com", "body": "Order 7"},
                  caller={"type": "direct"})], "tool_use", preloaded=pre)
    whole = {"type": "content_block_start", "index": 2, "content_block": _tool_use(
        "toolu_01E4c", "get_weather", {"city": "Paris"})}
    evs[-2:-2] = [whole, {"type": "content_block_stop", "index": 2}]
    expected = (_c("lookup_order", {"order_id": 7}, "toolu_01E4pre"),
                _c("send_email", {"to": "sam@example.com", "body": "Order 7"}, "toolu_01E4b"),
                _c("get_weather", {"city": "Paris"}, "toolu_01E4c"))
    sse = sse_of(evs)
    events = stream_raw(sse)
    helper_events, final = stream_helper(sse)
    assert block_calls(final.content) == expected
    out += _forms("edge-stream-message-start-content-and-blocks", events, expected,
                  "SYNTHESIZED on the recorded pattern: message_start.message.content already "
                  "holds a tool_use (caller code_execution_20260120), then content_block_start "
                  "index 1 streams a tool_use with input_json_delta, then index 2 is a tool_use "
                  "whose input is whole in content_block_start (no deltas). The SDK's "
                  "MessageStream starts its snapshot FROM message_start.message (content "
                  "included) and agrees: three calls.", sse=sse, raw=evs)
    out += _forms("edge-stream-message-start-content-and-blocks-sdk-final", final, expected,
                  "client.messages.stream(...).get_final_message() of that stream.")
    out.append(Scenario(PROVIDER, "object", "edge-stream-message-start-content-helper-events",
                        helper_events, expected,
                        note="list(client.messages.stream(...)): raw events plus helper events "
                             "(message_stop carries the final snapshot): each call once."))

    # the same message_start sent twice (a gateway bug)
    evs = _message_events("msg_01E5", [_tool_use("toolu_01E5", "get_weather",
                                                 {"city": "Nice"})], "tool_use")
    evs.insert(1, copy.deepcopy(evs[0]))
    expected = (_c("get_weather", {"city": "Nice"}, "toolu_01E5"),)
    sse = sse_of(evs)
    events = stream_raw(sse)
    _, final = stream_helper(sse)
    assert block_calls(final.content) == expected
    out += _forms("edge-stream-duplicate-message-start", events, expected,
                  "message_start sent TWICE with the same message id before any block "
                  "(BerriAI/litellm#32478, #32667; maximhq/bifrost#4556; NVIDIA/NemoClaw#6297): "
                  "one message, one call. The SDK's MessageStream ignores the second "
                  "message_start and agrees.", sse=sse, raw=evs)

    # a cut message, then a retried one spliced into the same body
    first = _message_events("msg_01E6a", [
        {"type": "thinking"},
        _tool_use("toolu_01E6a", "get_weather", {"city": "Paris", "unit": "celsius"})],
        "tool_use")
    first = [e for e in first if e["type"] not in ("message_delta", "message_stop")]
    first = first[:-2]  # cut inside the tool_use input: its last delta and stop never came
    second = _message_events("msg_01E6b", [
        _tool_use("toolu_01E6b", "get_weather", {"city": "Paris", "unit": "celsius"})],
        "tool_use")
    evs = first + second
    sse = sse_of(evs)
    events = stream_raw(sse)
    out += _forms("edge-stream-spliced-retry", events, None,
                  "An intermediary lost its upstream mid-generation and spliced the retried "
                  "generation into the same body (vercel/ai#18331, fix #18332): message A's "
                  "tool_use is cut mid input_json_delta (no content_block_stop, no "
                  "message_delta/message_stop), then message_start of a NEW message B that "
                  "completes. Which generation the agent acted on cannot be read from the "
                  "stream, and A's call is incomplete: REFUSED.", sse=sse, raw=evs,
                  refusal=REFUSE_SPLICED)
    return out


def scenarios() -> list[Scenario]:
    _SERVER.queue.clear()
    return _ptc() + _several_messages()


def writers() -> dict[str, Any]:
    return {}


if __name__ == "__main__":
    import collections
    import sys

    got = scenarios()
    print(len(got), "scenarios")
    print(collections.Counter((s.provider, s.form) for s in got))
    ids = [s.id for s in got]
    assert len(ids) == len(set(ids))
    if "-v" in sys.argv:
        for s in got:
            print(s.id, "->", None if s.expected is None else len(s.expected))
