"""Installing the hooks: lazily, on the first capture, for libraries already
imported, and for the others at the moment they are imported (a finder on
``sys.meta_path`` that runs the hook after the module's own code). Importing
agentmetrics installs nothing and imports none of these libraries.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from importlib.machinery import ModuleSpec

__all__ = ["HOOKS", "ensure", "entered", "exited"]

#: Each hook by name: the modules it wraps, each with the function (in this
#: package) that installs it.
HOOKS: dict[str, tuple[tuple[str, str], ...]] = {
    "httpx": (("httpx", "_http"), ("httpx2", "_http")),
    "aiohttp": (("aiohttp.client", "_aiohttp"),),
    "botocore": (("botocore.client", "_aws"),),
    "langchain": (("langchain_core.tracers.context", "_langchain"),),
    "openai_agents": (("agents.tracing", "_agents"),),
    "otel": (("opentelemetry.sdk.trace", "_otel"),),
}

_LOCK = threading.RLock()
#: The modules hooked so far, with the helper module that hooked each.
_INSTALLED: dict[str, str] = {}
_WATCHED: dict[str, str] = {}
_ENABLED: set[str] = set()


def _installer(helper: str) -> Any:
    return importlib.import_module(f"agentmetrics.capture.{helper}")


def _install(module_name: str, helper: str, module: ModuleType) -> None:
    with _LOCK:
        if module_name in _INSTALLED:
            return
        _installer(helper).install(module)
        _INSTALLED[module_name] = helper


class _Loader:
    """The module's own loader, then the hook (a loader: ``create_module`` and
    ``exec_module``; importlib.abc, which would say so, costs 15 ms to import)."""

    def __init__(self, loader: Any, name: str, helper: str) -> None:
        self._loader = loader
        self._name = name
        self._helper = helper

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        create: Callable[..., ModuleType | None] | None = getattr(
            self._loader, "create_module", None)
        return None if create is None else create(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        _install(self._name, self._helper, module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


class _Finder:
    """Finds nothing itself: wraps the loader of a watched module (a meta path finder)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        helper = _WATCHED.get(fullname)
        if helper is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader, fullname, helper)  # type: ignore[assignment]
                return spec
        return None


_FINDER = _Finder()


def ensure(names: Sequence[str]) -> None:
    """Install the named hooks: now for modules already imported, on import for the rest."""
    with _LOCK:
        for name in names:
            if name in _ENABLED:
                continue
            _ENABLED.add(name)
            for module_name, helper in HOOKS[name]:
                module = sys.modules.get(module_name)
                if module is not None:
                    _install(module_name, helper, module)
                else:
                    _WATCHED[module_name] = helper
        if _WATCHED and _FINDER not in sys.meta_path:
            sys.meta_path.insert(0, _FINDER)


def _each(action: str) -> None:
    for helper in set(_INSTALLED.values()):
        function = getattr(_installer(helper), action, None)
        if function is not None:
            function()


def entered() -> None:
    """A capture opened in this context (a hook that keeps per-context state updates it)."""
    _each("entered")


def exited() -> None:
    _each("exited")
