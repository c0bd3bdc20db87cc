"""Secrets never leave: credentials masked in what is shown, scrubbed from what is said.

The tools, used wherever a metric's parameters or an error's text can reach
a person or a file:

- :func:`mask_urls` masks the credentials of the URLs in a text: their user
  information (``https://user:key@host`` becomes ``https://***@host``, and so
  does the scheme-relative ``//user:key@host``), and the values of a query or
  a fragment that carries a credential (``?api_key=...``: see the rule
  in ``_urls``). :func:`mask_value` does the same to a whole parameter
  value, where a URL runs to the end of the value (so a quote inside its
  user information or its query is part of it) and ``user:password@host``
  without a scheme is recognised too. :func:`mask_tokens`, for text from
  outside (an API's error body), also masks what merely *looks* like a
  credential: ``Bearer`` tokens and keys with a provider's prefix
  (``sk-...``, ``AIza...``).
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

**The credential-name rule** (which names hold a credential) is in the docstring
of ``_urls``, where :func:`credential_name` applies it.

**What cannot be scrubbed.** Values shorter than ``_urls.MIN_SECRET``
characters are not searched for in free text (they would mask ordinary
words and numbers); they are still never shown as parameters. A secret that
is an ordinary word (a password ``within``) is masked wherever the word
appears, so the masks themselves can give it away by context; a user name
in a URL that also has a password is not searched for (``judge`` in
``https://judge:pw@host`` is a name, the password is the secret). Use long,
random credentials.

The parts, one module each; each imports only those listed before it:

- ``_urls``: what a secret is replaced by (:data:`MASK`), the credential-name
  rule, and the credentials of URLs masked, stripped and found; tokens that
  look like credentials masked.
- ``_scrub``: known secrets in text: their variants, :func:`scrub`,
  :func:`scrub_reason`.
- ``_shown``: parameter values as they may be shown (:func:`shown_value`,
  :func:`shown_items`, :func:`value_texts`).
- ``_exceptions``: an exception and every exception linked to it scrubbed.
"""

from __future__ import annotations

from agentmetrics._secrets._exceptions import scrub_exception
from agentmetrics._secrets._scrub import scrub, scrub_reason, secret_variants
from agentmetrics._secrets._shown import _Shown, shown_items, shown_value, value_texts
from agentmetrics._secrets._urls import (
    MASK,
    credential_name,
    mask_tokens,
    mask_urls,
    mask_value,
    strip_credentials,
    url_credentials,
)

__all__ = [
    "MASK",
    "credential_name",
    "mask_tokens",
    "mask_urls",
    "mask_value",
    "scrub",
    "scrub_exception",
    "scrub_reason",
    "secret_variants",
    "shown_items",
    "shown_value",
    "strip_credentials",
    "url_credentials",
    "value_texts",
]

# A shown value (a parameter's repr with its URL credentials masked) may be
# pickled with a run's provenance: it keeps the path it had before this module
# became a package, so pickles written before and after load alike.
_Shown.__module__ = __name__
