"""The credential-name rule, and the credentials of URLs masked, stripped and found.

:func:`credential_name` applies the rule below; :func:`mask_urls` (free text)
and :func:`mask_value` (a whole parameter value) mask the credentials of URLs,
:func:`strip_credentials` leaves them out of a cache key, and
:func:`url_credentials` finds their values for scrubbing; :func:`mask_tokens`
also masks what merely looks like a credential.

**The credential-name rule.** A name (of a parameter given by name, or of a
query or fragment parameter) holds a credential when, lower-cased, decoded
from percent-encoding and stripped of everything but letters and digits
(``X-Api_Key``, ``api%5Fkey`` and ``apiKey`` are all ``apikey``), it
contains one of :data:`CREDENTIAL_WORDS` or is one of
:data:`CREDENTIAL_NAMES`. The rule is conservative: ``?author=`` is masked
too. A query (or fragment) with one such name is shown with *every* value
masked (``?model=***&api_token=***``): a credential next to one is often
under a name no rule knows.
"""

from __future__ import annotations

import base64
import functools
import re
import urllib.parse
from typing import Any

__all__ = [
    "MASK",
    "MIN_SECRET",
    "credential_name",
    "mask_tokens",
    "mask_urls",
    "mask_value",
    "strip_credentials",
    "url_credentials",
]

#: What a secret is replaced by.
MASK = "***"
#: The shortest secret value searched for in text.
MIN_SECRET = 4
#: A name that contains one of these (normalised: see the module's docstring) holds a credential.
CREDENTIAL_WORDS = ("key", "token", "secret", "passw", "passphrase", "pwd", "auth", "sig",
                    "cred", "jwt", "session", "cookie", "bearer")
#: ... and so does a name that is one of these.
CREDENTIAL_NAMES = frozenset({"pass", "code", "pin", "otp", "sid"})

# -- the credential-name rule ----------------------------------------------------


@functools.lru_cache(maxsize=4096)
def credential_name(name: str) -> bool:
    """Whether a parameter named ``name`` (``api_key``, ``X-Amz-Signature``,
    ``api%5Fkey``...) holds a credential, by the rule of the module's
    docstring: for query parameters, and for parameters given before the
    metric that declares its ``secret_params`` is known (a ``--metric``
    spec, a pytest marker)."""
    for _ in range(3):  # percent-encoding, even twice over
        decoded = urllib.parse.unquote_plus(name)
        if decoded == name:
            break
        name = decoded
    normal = re.sub(r"[^0-9a-z]", "", name.lower())
    return normal in CREDENTIAL_NAMES or any(word in normal for word in CREDENTIAL_WORDS)


# -- URLs in text ------------------------------------------------------------------

_SCHEME = r"\b[A-Za-z][A-Za-z0-9+.-]*:"
# A URL's authority: after "scheme://" or a scheme-relative "//" (not inside a
# word or a path), up to the path, query or fragment. Its user information is
# everything up to its last "@": any character a URL may hold there (RFC 3986
# allows "'" and more; urllib and httpx take anything). In free text an
# authority also ends at the characters that delimit quoted text ("<>`), in a
# whole value only at whitespace.
_AUTHORITY_TEXT = re.compile(
    rf"(?P<lead>{_SCHEME}//|(?<![\w:/.@%-])//)(?P<authority>[^\s/?#\"<>`]*)")
_AUTHORITY_WHOLE = re.compile(rf"(?P<lead>{_SCHEME}//|(?<![\w:/.@%-])//)(?P<authority>[^\s/?#]*)")
# A whole value that is "user:password@host..." without a scheme (a DSN, a
# base_url missing its "http://"): the colon says there is a password.
_SCHEMELESS = re.compile(r"(?P<lead>\s*)(?P<authority>[^\s/?#@:]*:[^\s/?#]*@[^\s/?#@]+)"
                         r"(?=[/?#]|\s*$)")
# A query or a fragment (or what is left of one: "&name=value"). In free text
# it also ends at a quote; in a whole value only at whitespace.
_COMPONENT_TEXT = re.compile(r"(?P<lead>[?#&;])(?P<body>[^\s#'\"<>`]+)")
_COMPONENT_WHOLE = re.compile(r"(?P<lead>[?#&;])(?P<body>[^\s#]+)")
_SEPARATORS = re.compile(r"([&;])")


def _masked_authority(match: re.Match[str]) -> str:
    userinfo, at, host = match["authority"].rpartition("@")
    return f"{match['lead']}{MASK}@{host}" if at and userinfo else match[0]


def _items(body: str) -> list[str]:
    return _SEPARATORS.split(body)


def _carries_credentials(items: list[str]) -> bool:
    return any(sep and credential_name(name)
               for name, sep, _ in (item.partition("=") for item in items[::2]))


def _masked_component(match: re.Match[str]) -> str:
    items = _items(match["body"])
    if not _carries_credentials(items):
        return match[0]
    for index in range(0, len(items), 2):
        name, sep, value = items[index].partition("=")
        if sep and value:
            items[index] = f"{name}={MASK}"
    return match["lead"] + "".join(items)


def _stripped_authority(match: re.Match[str]) -> str:
    _, at, host = match["authority"].rpartition("@")
    return f"{match['lead']}{host}" if at else match[0]


def _stripped_component(match: re.Match[str]) -> str:
    """Only the credential-named parameters left out (the others may change a score)."""
    items = _items(match["body"])[::2]
    kept = [item for item in items if not (
        "=" in item and credential_name(item.partition("=")[0]))]
    if len(kept) == len(items):
        return match[0]
    return f"{match['lead']}{'&'.join(kept)}" if kept else ""


def mask_urls(text: str) -> str:
    """``text`` (free text: an error message, a reason) with the credentials of
    its URLs replaced by ``***``: user information (``https://user:key@host``
    becomes ``https://***@host``) and every value of a query or fragment that
    carries a credential-named parameter (``?api_key=...``, ``#access_token=``)."""
    if "=" not in text and "@" not in text:
        return text
    masked = _AUTHORITY_TEXT.sub(_masked_authority, text) if "@" in text else text
    return _COMPONENT_TEXT.sub(_masked_component, masked) if "=" in masked else masked


def mask_value(text: str) -> str:
    """A whole parameter value (a ``base_url``, a DSN) as it may be shown: what
    :func:`mask_urls` masks, with a URL running to the end of the value (a
    quote in its password is part of it), ``user:password@host`` without a
    scheme, and a value that is itself a query (``a=1&token=...``)."""
    if "=" not in text and "@" not in text:
        return text
    return _whole(text, _masked_component)


def strip_credentials(text: str) -> str:
    """A whole parameter value without its credentials, for a cache key: the
    user information of its URLs (with or without a scheme) and the
    credential-named query and fragment parameters left out
    (``https://u:pw@host/v1?api_key=k&model=m`` keys as
    ``https://host/v1?model=m``). Unlike :func:`mask_value`, the other values
    of such a query stay: they may change a score."""
    if "=" not in text and "@" not in text:
        return text
    return _whole(text, _stripped_component, _stripped_authority)


def _bare_query(text: str) -> bool:
    """Whether a whole value is itself a query (``a=1&token=...``): no URL around it."""
    return not _NOT_BARE.search(text)


_NOT_BARE = re.compile(r"[\s?#]|//")


def _whole(text: str, component: Any, authority: Any = _masked_authority) -> str:
    if "@" in text:
        text = _AUTHORITY_WHOLE.sub(authority, text)
        schemeless = _SCHEMELESS.match(text)
        if schemeless is not None:
            text = authority(schemeless) + text[schemeless.end():]
    if "=" in text:
        text = _COMPONENT_WHOLE.sub(component, text)
        if _bare_query(text):
            text = _COMPONENT_WHOLE.sub(component, "&" + text)[1:]
    return text


def _basic(user: str, password: str | None) -> list[str]:
    pair = f"{user}:{password or ''}".encode("utf-8", "surrogatepass")
    encoded = base64.b64encode(pair).decode("ascii")
    return [encoded, encoded.rstrip("=")]


def url_credentials(text: str, *, whole: bool = False) -> list[str]:
    """The credential values inside the URLs of ``text``, as written and
    decoded: the user information and its password (the user name alone
    when there is no password: a key given as the user), its Basic
    ``Authorization`` form (base64 of ``user:password``), and the values of
    credential-named query and fragment parameters: what :func:`scrub`
    should also remove from error text. ``whole``: ``text`` is one parameter
    value (see :func:`mask_value`)."""
    found: list[str] = []
    if "@" in text:
        authorities = list((_AUTHORITY_WHOLE if whole else _AUTHORITY_TEXT).finditer(text))
        if whole:
            schemeless = _SCHEMELESS.match(text)
            if schemeless is not None:
                authorities.append(schemeless)
        for match in authorities:
            userinfo, at, _ = match["authority"].rpartition("@")
            if not (at and userinfo):
                continue
            user, colon, password = userinfo.partition(":")
            parts = [userinfo, password] if colon and password else [userinfo, user]
            for part in parts:
                found += [part, urllib.parse.unquote(part)]
            found += _basic(urllib.parse.unquote(user), urllib.parse.unquote(password)
                            if colon else None)
    if "=" in text:
        pattern = _COMPONENT_WHOLE if whole else _COMPONENT_TEXT
        bodies = [match["body"] for match in pattern.finditer(text)]
        if whole and _bare_query(text):
            bodies.append(text)
        for body in bodies:
            for item in _items(body)[::2]:
                name, sep, value = item.partition("=")
                if sep and value and credential_name(name):
                    found += [value, urllib.parse.unquote_plus(value), urllib.parse.unquote(value)]
    return [value for value in dict.fromkeys(found) if len(value) >= MIN_SECRET]


def mask_tokens(text: str) -> str:
    """``text`` from outside (an API's error body) with everything that looks
    like a credential masked: what :func:`mask_urls` masks, ``Bearer`` tokens,
    the values of credential-named ``name=value`` pairs and keys with a
    provider's prefix (``sk-...``, ``AIza...``, ``AKIA...``)."""

    def pair(match: re.Match[str]) -> str:
        return f"{match['name']}={MASK}" if credential_name(match["name"]) else match[0]

    masked = mask_urls(text)
    if "=" in masked:
        masked = _PAIR.sub(pair, masked)

    def token(match: re.Match[str]) -> str:
        head, sep, _ = match[0].partition(" ")
        if not sep:
            head, sep, _ = match[0].partition("\t")
        return f"{head}{sep}{MASK}" if sep and head.lower() == "bearer" else MASK

    return _TOKENS.sub(token, masked)


_PAIR = re.compile(r"(?<![\w%.-])(?P<name>[A-Za-z][\w.%-]*)=(?!\*\*\*)[^\s&\"',]+")
_TOKENS = re.compile(
    r"\b(?:sk|pk|rk|gsk|xai|hf|sess|AKIA|ASIA|AIza|ya29|ghp|gho|github_pat|xox[abpr])"
    r"[-_.A-Za-z0-9]{8,}"
    r"|(?i:\bbearer)\s+(?!\*\*\*)[^\s'\",]+")
