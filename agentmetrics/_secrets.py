"""Secrets never leave: credentials masked in what is shown, scrubbed from what is said.

Three tools, used wherever a metric's parameters or an error's text can reach
a person or a file:

- :func:`mask_urls` masks the credentials of the URLs in a text: the user
  information (``https://user:key@host`` becomes ``https://***@host``) and
  credential query parameters (``?api_key=...``, ``&key=...``, ``token``,
  ``password``, ``sig``...). :func:`mask_tokens`, for text from outside (an
  API's error body), also masks what merely *looks* like a credential:
  ``Bearer`` tokens and keys with a provider's prefix (``sk-...``, ``AIza...``).
- :func:`secret_variants` and :func:`scrub` remove *known* secret values (the
  API key a metric holds) from a text in every form an error may quote them:
  as given, stripped, escaped as in a repr (``sk-abc\\n``), percent-encoded.
- :func:`scrub_exception` does that to an exception and every exception
  chained to it (arguments and notes), so a traceback printed later shows
  nothing either.

Values shorter than :data:`MIN_SECRET` characters are not searched for in
text (they would mask ordinary words); they are still never shown as
parameters.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable

__all__ = [
    "MASK",
    "MIN_SECRET",
    "credential_name",
    "shown_items",
    "mask_tokens",
    "mask_urls",
    "scrub",
    "scrub_exception",
    "secret_variants",
    "url_credentials",
]

#: What a secret is replaced by.
MASK = "***"
#: The shortest secret value searched for in text.
MIN_SECRET = 4

_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/\s?#'\"<>]*)@")
_QUERY_NAMES = (r"(?:x-)?(?:goog-)?api[_-]?key|apikey|key|access[_-]?token|auth[_-]?token|token"
                r"|id[_-]?token|refresh[_-]?token|client[_-]?secret|secret|password|passwd|pwd"
                r"|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|auth|code")
_QUERY = re.compile(rf"(?P<lead>[?&;](?i:{_QUERY_NAMES})=)(?P<value>[^&#\s'\"<>]+)")
_TOKENS = re.compile(
    r"\b(?:sk|pk|rk|gsk|xai|hf|sess|AKIA|ASIA|AIza|ya29|ghp|gho|github_pat|xox[abpr])"
    r"[-_.A-Za-z0-9]{8,}"
    r"|(?i:\bbearer)\s+[^\s'\",]+"
    r"|(?i:\b(?:api[_-]?)?key|\btoken|\bsecret|\bpassword)=[^\s&\"',]+")


def mask_urls(text: str) -> str:
    """``text`` with the credentials of its URLs replaced by ``***``: user
    information (``https://user:key@host`` becomes ``https://***@host``) and
    credential query parameters (``?api_key=...``, ``&key=...``, ``token``,
    ``password``, ``sig``...)."""
    if "=" not in text and "@" not in text:
        return text
    masked = _USERINFO.sub(lambda m: f"{m['scheme']}{MASK}@" if m["userinfo"] else m[0], text)
    return _QUERY.sub(lambda m: f"{m['lead']}{MASK}", masked)


def mask_tokens(text: str) -> str:
    """``text`` from outside (an API's error body) with everything that looks
    like a credential masked: what :func:`mask_urls` masks, ``Bearer`` tokens,
    ``key=``/``token=``/``secret=``/``password=`` values and keys with a
    provider's prefix (``sk-...``, ``AIza...``, ``AKIA...``)."""

    def token(match: re.Match[str]) -> str:
        found = match[0]
        for separator in ("=", " ", "\t"):
            head, sep, _ = found.partition(separator)
            if sep and (head.lower() == "bearer" or separator == "="):
                return f"{head}{sep}{MASK}"
        return MASK

    return _TOKENS.sub(token, mask_urls(text))


#: Words that make a parameter's name say it holds a credential.
_CREDENTIAL_WORDS = ("key", "token", "secret", "password", "passwd", "credential", "auth")


def credential_name(name: str) -> bool:
    """Whether a parameter named ``name`` (``api_key``, ``token``...) holds a
    credential, for parameters given before the metric that declares its
    ``secret_params`` is known (a ``--metric`` spec, a pytest marker)."""
    lowered = name.lower()
    return any(word in lowered for word in _CREDENTIAL_WORDS)


def shown_items(params: Iterable[tuple[str, object]]) -> tuple[list[str], tuple[str, ...]]:
    """``key=value`` texts for parameters given by name, as they may be shown
    (credential-named values ``***``, URL credentials masked), and the variants
    of the secrets among them, for :func:`scrub`."""
    texts: list[str] = []
    hidden: list[object] = []
    for key, value in params:
        if credential_name(key) and value is not None:
            texts.append(f"{key}={MASK!r}")
            hidden.append(value if isinstance(value, (str, bytes)) else repr(value))
        else:
            texts.append(f"{key}={mask_urls(repr(value))}")
            if isinstance(value, str):
                hidden.extend(url_credentials(value))
    return texts, secret_variants(hidden)


def url_credentials(text: str) -> list[str]:
    """The credential values inside the URLs of ``text`` (user, password,
    credential query values), decoded and as written: what :func:`scrub`
    should also remove from error text."""
    found: list[str] = []
    for match in _USERINFO.finditer(text):
        userinfo = match["userinfo"]
        for part in (userinfo, *userinfo.split(":", 1)):
            found += [part, urllib.parse.unquote(part)]
    for match in _QUERY.finditer(text):
        found += [match["value"], urllib.parse.unquote_plus(match["value"])]
    return [value for value in dict.fromkeys(found) if len(value) >= MIN_SECRET]


def secret_variants(values: Iterable[object]) -> tuple[str, ...]:
    """Every form in which an error's text may quote one of ``values`` (str or
    bytes), longest first, so a longer form is replaced before a part of it."""
    forms: set[str] = set()
    for value in values:
        if isinstance(value, bytes):
            value = value.decode("utf-8", "backslashreplace")
        if not isinstance(value, str):
            continue
        for form in (value, value.strip()):
            if len(form) < MIN_SECRET:
                continue
            forms.add(form)
            forms.add(repr(form)[1:-1])  # escaped: a newline as \n
            forms.add(repr(form.encode("utf-8"))[2:-1])  # as in b'...'
            forms.add(form.encode("unicode_escape").decode("ascii"))
            forms.add(urllib.parse.quote(form, safe=""))
            forms.add(urllib.parse.quote_plus(form))
    return tuple(sorted((form for form in forms if len(form) >= MIN_SECRET),
                        key=lambda form: (-len(form), form)))


def scrub(text: str, variants: tuple[str, ...]) -> str:
    """``text`` with every one of ``variants`` (from :func:`secret_variants`)
    replaced by ``***``, and the credentials of its URLs masked."""
    for form in variants:
        if form in text:
            text = text.replace(form, MASK)
    return mask_urls(text)


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


def scrub_exception(error: BaseException, variants: tuple[str, ...]) -> BaseException:
    """Scrub ``error`` and every exception chained to it, in place: their
    arguments and notes. An exception whose text still shows a secret after
    that (a ``__str__`` of its own) is cut out of the chain; if that is
    ``error`` itself, a plain copy of its class with the scrubbed text is
    returned instead (or a RuntimeError, if the class cannot be built so).
    Returns the exception to raise."""
    seen: set[int] = set()
    link: BaseException | None = error
    parent: BaseException | None = None
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        try:
            link.args = tuple(_scrub_value(arg, variants) for arg in link.args)
        except (AttributeError, TypeError):  # pragma: no cover - args is always settable
            pass
        notes = getattr(link, "__notes__", None)
        if isinstance(notes, list):
            notes[:] = [_scrub_value(note, variants) for note in notes]
        if _leaks(link, variants) and parent is not None:
            parent.__cause__ = None
            parent.__context__ = None
            parent.__suppress_context__ = True
            break
        parent = link
        link = link.__cause__ if link.__cause__ is not None else link.__context__
    if not _leaks(error, variants):
        return error
    text = scrub(str(error), variants)
    try:
        replacement = type(error)(text)
    except Exception:
        replacement = RuntimeError(f"{type(error).__name__}: {text}")
    if str(replacement) != text:
        replacement = RuntimeError(f"{type(error).__name__}: {text}")
    # The chain under ``error`` was cut above every link that still leaked: its
    # cause can stay.
    replacement.__cause__ = error.__cause__
    replacement.__suppress_context__ = True
    replacement.__traceback__ = error.__traceback__
    return replacement
