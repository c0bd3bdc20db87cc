"""What a run was made with: its configuration (:class:`RunConfig`), a
read-only mapping of names to JSON scalars, checked and masked once, where
it is made.

The well-known keys (:data:`WELL_KNOWN`) are ``model``, ``agent_version``,
``prompt_version`` and ``commit``; any other name is allowed. A value is a
str, an int, a finite float, a bool or None (each its exact type: a numpy
scalar or a str subclass is refused, so that a saved run reads back the same).

A configuration is kept as it may be shown, so every output (a repr, a saved
file, the run history, a page, the command line) shows it as it is kept: a
text value under a name the credential rule flags (``api_key``, ``password``,
``token``...: see :mod:`agentmetrics._secrets`) is ``***``; in every other
text value the credentials of URLs (``postgres://user:pw@host``) and what
looks like a key (``sk-...``, ``Bearer ...``) are masked.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeAlias

import attrs

from agentmetrics._secrets import MASK, credential_name, mask_tokens, mask_value
from agentmetrics.errors import InvalidParameterError

__all__ = ["CAPTURED_MODEL", "MAX_KEYS", "MAX_KEY_LENGTH", "MAX_VALUE_LENGTH", "NOT_SET",
           "WELL_KNOWN", "ConfigScalar", "RunConfig", "agreed_config", "config_differences",
           "config_text", "merged_config", "run_config", "shown_config_value",
           "shown_value"]

#: The keys with an agreed meaning: the model, the agent's and the prompt's
#: versions, and the code's commit. Any other key is allowed.
WELL_KNOWN = ("model", "agent_version", "prompt_version", "commit")
#: The most keys a configuration holds.
MAX_KEYS = 64
#: The longest key, in characters.
MAX_KEY_LENGTH = 100
#: The longest value, in characters of its text (a number's digits).
MAX_VALUE_LENGTH = 2000
#: The metadata key under which ``agentmetrics.capture`` notes the one model
#: every response of a captured run came from (read by ``evaluate``).
CAPTURED_MODEL = "captured_model"

#: A configuration's value.
ConfigScalar: TypeAlias = str | int | float | bool | None

_SCALARS = (str, int, float, bool, type(None))
_EXPECTED = ("a mapping of names (non-empty str) to values that are str, int, float, bool or "
             "None, e.g. {'model': 'gpt-4o', 'commit': 'a1b2c3d'}")


class _NotSet:
    """The side of a configuration difference that has no such key."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_SET"

    def __reduce__(self) -> str:
        return "NOT_SET"


#: What :func:`config_differences` gives for the side that lacks a key.
NOT_SET = _NotSet()


def _fail(where: str, what: str, received: str, fix: str) -> InvalidParameterError:
    return InvalidParameterError(f"{where}: {what}; got {received}. Fix: {fix}")


def _received(key: str, value: object) -> str:
    """A value as an error shows it: its type, and its text unless its key
    names a credential (then only the type), masked and cut short."""
    kind = type(value)
    name = kind.__qualname__ if kind.__module__ == "builtins" else (
        f"{kind.__module__}.{kind.__qualname__}")
    if credential_name(key):
        return f"a {name} (not shown: the name {key!r} holds a credential)"
    try:
        text = mask_tokens(mask_value(repr(value)))
    except Exception:  # a repr that fails: the type says enough
        return f"a {name}"
    return f"{name} {text[:57] + '...' if len(text) > 60 else text}"


def _check_key(key: object, where: str) -> str:
    if type(key) is not str:
        raise _fail(where, f"each name must be a str ({_EXPECTED})",
                    f"the name {_received('', key)}", "name each value with a str, e.g. "
                    "'model'.")
    masked = mask_tokens(mask_value(key))
    shown = repr(masked if len(masked) <= 60 else masked[:57] + "...")
    if masked != key:
        raise _fail(where, "a name must not hold a credential (a URL with its user and "
                    "password, a key): names are shown as they are", f"the name {shown}",
                    "name the value (e.g. 'endpoint') and give the URL as the value, whose "
                    "credentials are masked.")
    if not key or key != key.strip() or not key.isprintable() or "=" in key:
        raise _fail(where, "each name must be non-empty printable text without spaces at "
                    "either end and without '=' (the command line reads KEY=VALUE)",
                    f"the name {shown}", "use a plain name such as 'model' or "
                    "'agent_version'.")
    if len(key) > MAX_KEY_LENGTH:
        raise _fail(where, f"each name must be at most {MAX_KEY_LENGTH} characters",
                    f"a name of {len(key)} characters ({shown})", "use a shorter name.")
    return key


def _check_value(key: str, value: object, where: str) -> ConfigScalar:
    place = f"{where}[{key!r}]"
    kind = type(value)
    if kind not in _SCALARS:
        raise _fail(place, "expected a str, int, float, bool or None (the exact type: a "
                    "numpy scalar or a str subclass is not one)", _received(key, value),
                    "convert it first, e.g. str(value), int(value) or float(value).")
    if kind is float and not math.isfinite(value):  # type: ignore[arg-type]
        raise _fail(place, "expected a finite number (NaN and infinities are not kept)",
                    _received(key, value), "give a finite number, or the text "
                    "'nan' / 'inf' as a str if that is what the run was made with.")
    received = ""
    if kind is str and len(value) > MAX_VALUE_LENGTH:  # type: ignore[arg-type]
        received = f"a str of {len(value)} characters"  # type: ignore[arg-type]
    elif kind is int and abs(value).bit_length() > 14_000:  # type: ignore[arg-type]
        # over 4,200 digits: more than Python turns into text (its default limit)
        received = f"an int of more than {MAX_VALUE_LENGTH} digits"
    elif kind is int and len(str(value)) > MAX_VALUE_LENGTH:
        received = f"an int of {len(str(value))} characters"
    if received:
        raise _fail(place, f"expected at most {MAX_VALUE_LENGTH} characters (a configuration "
                    f"says what a run was made with, not its data)", received,
                    "keep a short name, version or digest (a commit hash, a prompt's "
                    "version), not the text itself.")
    return value  # type: ignore[return-value]


def shown_config_value(key: str, value: ConfigScalar) -> ConfigScalar:
    """``value`` as a configuration keeps it: text under a credential name is
    ``***``; any other text has its URL credentials and what looks like a key
    masked. Numbers, booleans and None are kept."""
    if type(value) is not str:
        return value
    if credential_name(key):
        return MASK
    return mask_tokens(mask_value(value))


def _checked(value: object, where: str = "config") -> dict[str, ConfigScalar]:
    if value is None:
        return {}
    if isinstance(value, RunConfig):
        return dict(value._data)
    if not isinstance(value, Mapping):
        raise _fail(where, f"expected {_EXPECTED}", _received("", value),
                    "pass a dict, e.g. config={'model': 'gpt-4o'}.")
    if len(value) > MAX_KEYS:
        raise _fail(where, f"expected at most {MAX_KEYS} names", f"{len(value)} names",
                    "keep what a run was made with (model, versions, commit, a few "
                    "settings); put per-case data in the cases' metadata.")
    checked: dict[str, ConfigScalar] = {}
    for key, item in value.items():
        name = _check_key(key, where)
        checked[name] = shown_config_value(name, _check_value(name, item, where))
    return checked


@attrs.frozen(slots=True, eq=False, repr=False)
class RunConfig(Mapping[str, ConfigScalar]):
    """What a run was made with: a read-only mapping of names (``model``,
    ``agent_version``, ``prompt_version``, ``commit``, or any other) to a
    str, int, float, bool or None, as it may be shown (secrets masked). Equal
    to any mapping of the same items; ``RunConfig()`` is empty."""

    _data: Mapping[str, ConfigScalar] = attrs.field(factory=dict, converter=_checked)

    def __getitem__(self, key: str) -> ConfigScalar:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"RunConfig({dict(self._data)!r})"

    def text(self, limit: int | None = None) -> str:
        """The configuration on one line, ``model=gpt-4o, commit=a1b2c3d``
        (cut to ``limit`` characters, ending in ``...``, when given)."""
        return config_text(self, limit)


def run_config(value: object, where: str = "config") -> RunConfig:
    """``value`` (None, a mapping) checked and masked as a :class:`RunConfig`;
    InvalidParameterError naming ``where`` otherwise."""
    if isinstance(value, RunConfig):
        return value
    return RunConfig(_checked(value, where))


def _same(a: object, b: object) -> bool:
    """Equal values of the same type (``1``, ``1.0`` and ``True`` differ)."""
    return type(a) is type(b) and a == b


def merged_config(config: RunConfig, more: object, where: str) -> RunConfig:
    """``config`` with the keys of ``more`` added; a key it has already with
    another value is refused (what a run was made with is not rewritten)."""
    extra = run_config(more, where)
    for key, value in extra.items():
        if key in config and not _same(config[key], value):
            raise InvalidParameterError(
                f"{where}[{key!r}]: the run's configuration has {key}="
                f"{shown_value(config[key])}; got {shown_value(value)}. A configuration says "
                f"what the run was made with, and is not rewritten when it is saved. Fix: "
                f"leave {key!r} out (the run keeps {shown_value(config[key])}), or evaluate "
                f"again with config={{{key!r}: ...}}.")
    return RunConfig({**config, **extra}) if extra else config


def agreed_config(configs: Iterable[RunConfig]) -> RunConfig:
    """The items every one of ``configs`` has, with the same value (and type):
    what the parts of one run concatenated agree they were made with."""
    found = list(configs)
    if not found:
        return RunConfig()
    first, *rest = found
    return RunConfig({key: value for key, value in first.items()
                      if all(key in other and _same(other[key], value) for other in rest)})


def config_differences(baseline: Mapping[str, ConfigScalar], candidate: Mapping[str, ConfigScalar]
                       ) -> dict[str, tuple[Any, Any]]:
    """Per key whose value differs (in value or type), or that one side
    lacks: ``(baseline value, candidate value)``, :data:`NOT_SET` for the
    side without it; the baseline's keys first, in order, then the
    candidate's own."""
    differences: dict[str, tuple[Any, Any]] = {}
    for key in (*baseline, *(key for key in candidate if key not in baseline)):
        before, after = baseline.get(key, NOT_SET), candidate.get(key, NOT_SET)
        if key not in baseline or key not in candidate or not _same(before, after):
            differences[key] = (before, after)
    return differences


def shown_value(value: object) -> str:
    """A configuration value as text: a str as it is, ``(not set)`` for
    :data:`NOT_SET`, anything else as JSON writes it (``true``, ``null``, ``0.2``)."""
    if isinstance(value, str):
        return value
    if value is NOT_SET:
        return "(not set)"
    return json.dumps(value)


def config_text(config: Mapping[str, ConfigScalar], limit: int | None = None) -> str:
    """``key=value`` pairs joined by ``, `` (cut to ``limit`` characters)."""
    text = ", ".join(f"{key}={shown_value(value)}" for key, value in config.items())
    text = " ".join(text.split())  # one line, whatever the values hold
    if limit is not None and len(text) > limit:
        text = text[:max(0, limit - 3)] + "..."
    return text
