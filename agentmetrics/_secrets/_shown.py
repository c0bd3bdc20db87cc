"""Parameter values as they may be shown: the credentials of their URLs masked,
the values of secret and credential-named parameters hidden."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

from agentmetrics._secrets._scrub import secret_variants
from agentmetrics._secrets._urls import MASK, credential_name, mask_value, url_credentials

__all__ = ["shown_items", "shown_value", "value_texts"]


class _Shown(str):
    """An object's repr with URL credentials masked, standing in for the object
    where parameters are shown: its repr is that text."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def _url_result(value: Any) -> bool:
    return type(value).__module__ == "urllib.parse" and hasattr(value, "geturl")


def shown_value(value: Any) -> Any:
    """A parameter's value as it may be shown: the credentials of the URLs in
    it masked (:func:`mask_value`), in text and bytes, in lists, tuples, sets
    and dicts (keys too), in urllib's parsed URLs, and in the repr of any
    other object (shown by that repr, masked, when it held one)."""
    if isinstance(value, str):
        return mask_value(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (bytes, bytearray)):
        text = bytes(value).decode("utf-8", "backslashreplace")
        masked = mask_value(text)
        return value if masked == text else type(value)(masked.encode("utf-8", "backslashreplace"))
    if _url_result(value):
        url = value.geturl()
        is_bytes = isinstance(url, bytes)
        text = url.decode("utf-8", "backslashreplace") if is_bytes else url
        masked = mask_value(text)
        if masked == text:
            return value
        split = urllib.parse.urlparse if hasattr(value, "params") else urllib.parse.urlsplit
        return split(masked.encode("utf-8", "backslashreplace") if is_bytes else masked)
    if isinstance(value, list):
        return [shown_value(item) for item in value]
    if isinstance(value, tuple):
        items = [shown_value(item) for item in value]
        if hasattr(value, "_fields"):  # a namedtuple keeps its type (and its repr)
            try:
                return type(value)(*items)
            except Exception:
                pass
        return tuple(items)
    if isinstance(value, (set, frozenset)):
        return type(value)(shown_value(item) for item in value)
    if isinstance(value, Mapping):
        return {shown_value(key): shown_value(item) for key, item in value.items()}
    try:
        text = repr(value)
    except Exception:
        return value
    masked = mask_value(text)
    return value if masked == text else _Shown(masked)


def value_texts(value: Any, depth: int = 0) -> list[str]:
    """The texts inside a parameter's value that may hold a URL: its strings
    (and bytes), in lists, tuples, sets and dicts (keys too), urllib's parsed
    URLs, and the repr of any other object."""
    if isinstance(value, str):
        return [value]
    if value is None or isinstance(value, (bool, int, float)) or depth > 20:
        return []
    if isinstance(value, (bytes, bytearray)):
        return [bytes(value).decode("utf-8", "backslashreplace")]
    if _url_result(value):
        url = value.geturl()
        return [url.decode("utf-8", "backslashreplace") if isinstance(url, bytes) else url]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [text for item in value for text in value_texts(item, depth + 1)]
    if isinstance(value, Mapping):
        return [text for pair in value.items() for item in pair
                for text in value_texts(item, depth + 1)]
    try:
        return [repr(value)]
    except Exception:
        return []


def shown_items(params: Iterable[tuple[str, object]], secret: Iterable[str] = ()
                ) -> tuple[list[str], tuple[str, ...]]:
    """``key=value`` texts for parameters given by name, as they may be shown
    (the values of ``secret``, the names a metric declares in its
    ``secret_params``, and of credential-named parameters ``***``; URL
    credentials masked), and the variants of the secrets among them, for
    :func:`scrub`."""
    declared = set(secret)
    texts: list[str] = []
    hidden: list[object] = []
    for key, value in params:
        if (key in declared or credential_name(key)) and value is not None:
            texts.append(f"{key}={MASK!r}")
            hidden.append(value)
        else:
            texts.append(f"{key}={shown_value(value)!r}")
            hidden.extend(found for text in value_texts(value)
                          for found in url_credentials(text, whole=True))
    return texts, secret_variants(hidden)
