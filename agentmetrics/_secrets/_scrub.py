"""Known secrets in text: every form an error may quote them in, and scrubbed.

:func:`secret_variants` gives the forms of declared secrets (of any type:
:func:`secret_leaves`), :func:`scrub` removes them from a text, and
:func:`scrub_reason` does that to a metric's reason.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from agentmetrics._secrets._urls import MASK, MIN_SECRET, mask_urls

__all__ = ["scrub", "scrub_reason", "secret_variants"]

_AUTH_SCHEME = re.compile(r"(?P<scheme>[A-Za-z][\w-]*)\s+(?P<credentials>\S+)\s*")


def secret_leaves(value: Any, depth: int = 0) -> list[str]:
    """The texts of a declared secret: a str or bytes itself; every string and
    number inside a dict (its values), list, tuple or set; the value of a
    ``get_secret_value()`` (pydantic's SecretStr); the text of any other
    object. Booleans and None hold nothing."""
    if isinstance(value, str):
        return [value]
    if value is None or isinstance(value, bool) or depth > 20:
        return []
    if isinstance(value, (bytes, bytearray)):
        return [bytes(value).decode("utf-8", "backslashreplace")]
    if isinstance(value, (int, float)):
        return list(dict.fromkeys([str(value), repr(value)]))
    if isinstance(value, Mapping):
        return [text for item in value.values() for text in secret_leaves(item, depth + 1)]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [text for item in value for text in secret_leaves(item, depth + 1)]
    reveal = getattr(value, "get_secret_value", None)
    if callable(reveal):
        try:
            return secret_leaves(reveal(), depth + 1)
        except Exception:
            pass
    try:
        return [str(value)]
    except Exception:
        return []


def _credential_parts(text: str) -> list[str]:
    """An Authorization header's value (``Bearer <key>``, ``Basic <base64>``):
    its credentials, and those of Basic decoded (``user:password``, the password)."""
    match = _AUTH_SCHEME.fullmatch(text.strip())
    if match is None:
        return []
    credentials = match["credentials"]
    parts = [credentials]
    if match["scheme"].lower() == "basic":
        try:
            pair = base64.b64decode(credentials, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return parts
        user, colon, password = pair.partition(":")
        parts += [pair, password if colon and password else user]
    return parts


def _forms(form: str) -> list[str]:
    quoted = [urllib.parse.quote(form, safe=""), urllib.parse.quote(form),
              urllib.parse.quote_plus(form)]
    return [
        form,
        repr(form)[1:-1],  # escaped: a newline as \n
        repr(form.encode("utf-8", "surrogatepass"))[2:-1],  # as in b'...'
        form.encode("unicode_escape").decode("ascii"),
        json.dumps(form)[1:-1],  # as in JSON: \u00e9, \"
        json.dumps(form, ensure_ascii=False)[1:-1],
        *quoted,
        *(re.sub(r"%[0-9A-F]{2}", lambda hexa: hexa[0].lower(), text) for text in quoted),
    ]


def secret_variants(values: Iterable[object]) -> tuple[str, ...]:
    """Every form in which an error's text may quote one of ``values`` (each
    a declared secret of any type: see :func:`secret_leaves`), longest first,
    so a longer form is replaced before a part of it."""
    forms: set[str] = set()
    for value in values:
        for leaf in secret_leaves(value):
            for text in (leaf, *_credential_parts(leaf)):
                for form in (text, text.strip()):
                    if len(form) >= MIN_SECRET:
                        forms.update(_forms(form))
    return tuple(sorted((form for form in forms if len(form) >= MIN_SECRET),
                        key=lambda form: (-len(form), form)))


def scrub(text: str, variants: tuple[str, ...]) -> str:
    """``text`` with every one of ``variants`` (from :func:`secret_variants`)
    replaced by ``***``, and the credentials of its URLs masked."""
    for form in variants:
        if form in text:
            text = text.replace(form, MASK)
    return mask_urls(text)


class _HoldsSecrets(Protocol):
    def _secret_forms(self) -> tuple[str, ...]: ...


def scrub_reason(metric: _HoldsSecrets, reason: str) -> str:
    """A metric's ``reason`` as it may be shown, kept and cached: scrubbed of
    the metric's secrets as its errors are (the same object when there was
    nothing to scrub)."""
    variants = metric._secret_forms()
    if not variants and "=" not in reason and "@" not in reason:
        return reason
    cleaned = scrub(reason, variants)
    return reason if cleaned == reason else cleaned
