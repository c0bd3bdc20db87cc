"""Secrets never leave: credentials masked in what is shown, scrubbed from what is said.

The tools, used wherever a metric's parameters or an error's text can reach
a person or a file:

- :func:`mask_urls` masks the credentials of the URLs in a text: their user
  information (``https://user:key@host`` becomes ``https://***@host``, and so
  does the scheme-relative ``//user:key@host``), and the values of a query or
  a fragment that carries a credential (``?api_key=...``: see the rule
  below). :func:`mask_value` does the same to a whole parameter value, where
  a URL runs to the end of the value (so a quote inside its user information
  or its query is part of it) and ``user:password@host`` without a scheme is
  recognised too. :func:`mask_tokens`, for text from outside (an API's error
  body), also masks what merely *looks* like a credential: ``Bearer`` tokens
  and keys with a provider's prefix (``sk-...``, ``AIza...``).
- :func:`secret_variants` and :func:`scrub` remove *known* secret values (the
  API key a metric holds, the password in its URL) from a text in every form
  an error may quote them: as given, stripped, escaped as in a repr
  (``sk-abc\\n``) or in JSON (``\\u00e9``, ``\\"``), as bytes, percent-encoded
  (upper- or lower-case hex), as the credentials of an ``Authorization``
  header (``Bearer <key>``; ``Basic`` base64 of ``user:password``). A
  declared secret that is not text (a dict of headers, a list, a number) is
  scrubbed by every string and number inside it.
- :func:`scrub_exception` does that to an exception and every exception
  linked to it: each ``__cause__`` and ``__context__``, and the
  sub-exceptions of an ExceptionGroup, all the way down (arguments, notes,
  and a replacement for one whose own ``__str__`` still shows a secret).
- :func:`strip_credentials` takes the credentials out of a parameter's value
  for the cache key: a credential never changes a score, so it is never part
  of a key (from which it could be guessed offline).

**The credential-name rule.** A name (of a parameter given by name, or of a
query or fragment parameter) holds a credential when, lower-cased, decoded
from percent-encoding and stripped of everything but letters and digits
(``X-Api_Key``, ``api%5Fkey`` and ``apiKey`` are all ``apikey``), it
contains one of :data:`CREDENTIAL_WORDS` or is one of
:data:`CREDENTIAL_NAMES`. The rule is conservative: ``?author=`` is masked
too. A query (or fragment) with one such name is shown with *every* value
masked (``?model=***&api_token=***``): a credential next to one is often
under a name no rule knows.

**What cannot be scrubbed.** Values shorter than :data:`MIN_SECRET`
characters are not searched for in free text (they would mask ordinary
words and numbers); they are still never shown as parameters. A secret that
is an ordinary word (a password ``within``) is masked wherever the word
appears, so the masks themselves can give it away by context; a user name
in a URL that also has a password is not searched for (``judge`` in
``https://judge:pw@host`` is a name, the password is the secret). Use long,
random credentials.
"""

from __future__ import annotations

import base64
import binascii
import builtins
import functools
import json
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

__all__ = [
    "CREDENTIAL_NAMES",
    "CREDENTIAL_WORDS",
    "MASK",
    "MIN_SECRET",
    "credential_name",
    "mask_tokens",
    "mask_urls",
    "mask_value",
    "scrub",
    "scrub_exception",
    "scrub_reason",
    "secret_leaves",
    "secret_variants",
    "shown_items",
    "shown_value",
    "strip_credentials",
    "url_credentials",
    "value_texts",
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

# -- values of parameters ----------------------------------------------------------


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


# -- known secrets in text -------------------------------------------------------------

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


# -- exceptions -----------------------------------------------------------------------

#: Links followed from an exception (causes, contexts, sub-exceptions) before the rest is cut.
_MAX_DEPTH = 200
_GROUP: Any = getattr(builtins, "BaseExceptionGroup", None)  # Python 3.11+


def _scrub_value(value: object, variants: tuple[str, ...]) -> object:
    if isinstance(value, str):
        return scrub(value, variants)
    if isinstance(value, bytes):
        text = value.decode("utf-8", "backslashreplace")
        cleaned = scrub(text, variants)
        return value if cleaned == text else cleaned.encode("utf-8", "backslashreplace")
    return value


def _leaks(error: BaseException, variants: tuple[str, ...]) -> bool:
    try:
        text = str(error)
    except Exception:  # an exception whose __str__ fails shows nothing
        return False
    return scrub(text, variants) != text


def _carry(source: BaseException, target: BaseException) -> BaseException:
    """``target`` with ``source``'s links, traceback and notes."""
    target.__cause__ = source.__cause__
    target.__context__ = source.__context__
    target.__suppress_context__ = source.__suppress_context__
    target.__traceback__ = source.__traceback__
    notes = getattr(source, "__notes__", None)
    if isinstance(notes, list):
        target.__notes__ = list(notes)
    return target


class _Scrubber:
    """One walk over an exception's graph: every exception reached is
    scrubbed once (a cycle leads back to it unchanged)."""

    def __init__(self, variants: tuple[str, ...]) -> None:
        self.variants = variants
        self.done: dict[int, BaseException] = {}
        self.kept: list[BaseException] = []  # ids stay valid while the walk lasts

    def clean(self, error: BaseException, depth: int = 0) -> BaseException:
        known = self.done.get(id(error))
        if known is not None:
            return known
        self.done[id(error)] = error  # in progress
        self.kept.append(error)
        variants = self.variants
        try:
            error.args = tuple(_scrub_value(arg, variants) for arg in error.args)
        except (AttributeError, TypeError):  # pragma: no cover - args is always settable
            pass
        notes = getattr(error, "__notes__", None)
        if isinstance(notes, list):
            notes[:] = [_scrub_value(note, variants) for note in notes]
        suppress = error.__suppress_context__
        for link in ("__cause__", "__context__"):
            linked = getattr(error, link)
            if linked is None:
                continue
            cleaned = None if depth >= _MAX_DEPTH else self.clean(linked, depth + 1)
            if cleaned is not linked:
                setattr(error, link, cleaned)
        error.__suppress_context__ = suppress
        result = error
        if _GROUP is not None and isinstance(error, _GROUP):
            result = self._group(error, depth)
        if _leaks(result, variants):
            result = self._replacement(result)
        self.done[id(error)] = result
        return result

    def _group(self, group: Any, depth: int) -> BaseException:
        members = group.exceptions
        cleaned = tuple(member if depth >= _MAX_DEPTH else self.clean(member, depth + 1)
                        for member in members)
        message = scrub(group.message, self.variants)
        if message == group.message and all(a is b for a, b in zip(cleaned, members)):
            return group  # type: ignore[no-any-return]
        try:
            rebuilt = type(group)(message, cleaned)
        except Exception:
            rebuilt = _GROUP(message, cleaned)
        return _carry(group, rebuilt)

    def _replacement(self, error: BaseException) -> BaseException:
        """A plain copy of ``error``'s class with its text scrubbed (or a
        RuntimeError, if the class cannot be built so), in its place."""
        text = scrub(str(error), self.variants)
        try:
            replacement = type(error)(text)
        except Exception:
            replacement = RuntimeError(f"{type(error).__name__}: {text}")
        if str(replacement) != text:
            replacement = RuntimeError(f"{type(error).__name__}: {text}")
        return _carry(error, replacement)


def scrub_exception(error: BaseException, variants: tuple[str, ...]) -> BaseException:
    """Scrub ``error`` and every exception linked to it, in place: each one's
    arguments and notes, through every ``__cause__`` and ``__context__`` (a
    context hidden behind a cause included) and the sub-exceptions of an
    ExceptionGroup. An exception whose text still shows a secret after that
    (a ``__str__`` of its own) is replaced, where it is linked, by a plain
    copy of its class with the scrubbed text (or a RuntimeError, if the class
    cannot be built so); a group whose members changed is rebuilt. Returns
    the exception to raise: ``error`` itself, or its replacement."""
    return _Scrubber(variants).clean(error)
