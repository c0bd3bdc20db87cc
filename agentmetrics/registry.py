"""Finding metrics by name: installed plugins and in-process registrations.

Installed metrics are entry points of the group ``agentmetrics.metrics``
(name = the metric's registry name, object = a Metric subclass); the built-in
metrics are registered there by agentmetrics' own packaging, exactly like a
third-party plugin. The scan is lazy, happens once, and imports nothing:
a plugin module is imported only when its metric is asked for.

Names resolve in this order: ``"distribution/name"`` (picks one of several
distributions claiming a name), a name registered in this process, an
installed registry name, then a class name.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar, overload

import attrs

from agentmetrics._base._discovery import (
    ENTRY_POINT_GROUP,
    EntryPointSpec,
    normalize_distribution,
    scan,
)
from agentmetrics._base._version import __version__
from agentmetrics._secrets import MASK, credential_name, scrub, shown_items, shown_value
from agentmetrics.errors import (
    DuplicateMetricError,
    InvalidMetricError,
    InvalidParameterError,
    MetricLoadError,
    MetricNameError,
    MetricNotFoundError,
)
from agentmetrics.metric._inputs import Input
from agentmetrics.metric._metric import METRIC_NAME_PATTERN, Metric, check_metric_class, declared_name

__all__ = [
    "DISABLE_AUTOLOAD_ENV",
    "ENTRY_POINT_GROUP",
    "MetricDescription",
    "MetricInfo",
    "ParameterDescription",
    "describe_metric",
    "describe_metrics",
    "get_metric",
    "get_metric_class",
    "isolated",
    "list_metrics",
    "refresh",
    "register_metric",
    "resolve_metric",
    "source_of",
    "unregister_metric",
]

#: Set to 1 to ignore every third-party entry point (built-ins stay).
DISABLE_AUTOLOAD_ENV = "AGENTMETRICS_DISABLE_PLUGIN_AUTOLOAD"
#: This library's own distribution, which provides the built-in metrics.
OWN_DISTRIBUTION = "agent-tool-metrics"
# Used only when agentmetrics runs from a source tree without being installed,
# so that its own entry points cannot be found; tests check it matches pyproject.
_BUILTIN_TARGETS = {
    "tool_selection_accuracy": "agentmetrics.metrics._tool_selection:ToolSelectionAccuracy",
    "per_turn": "agentmetrics.metrics._per_turn:PerTurn",
    "expectation_match": "agentmetrics.metrics._expectation_match:ExpectationMatch",
    "answer_match": "agentmetrics.metrics._answer_match:AnswerMatch",
    "latency": "agentmetrics.metrics._latency:Latency",
    "cost": "agentmetrics.metrics._cost:Cost",
    "tool_call_micro_f1": "agentmetrics.metrics._micro_f1:ToolCallMicroF1",
    "weighted": "agentmetrics.metrics._weighted:Weighted",
}

M = TypeVar("M", bound=type[Metric])


@attrs.frozen(slots=True)
class MetricInfo:
    """What the registry knows about a metric without importing it.

    ``distribution`` and ``version`` are ``None`` for a metric registered in
    this process with :func:`register_metric`. ``error`` holds why the metric
    cannot be used, once known (a malformed entry point, or a failed load).
    """

    name: str
    target: str
    distribution: str | None
    version: str | None
    error: str | None = None
    #: For a metric registered in this process over an installed one: the
    #: ``distribution/name`` it shadows. For that installed one: the class
    #: that shadows it (``module:Class``); plain-name lookups find that class.
    shadows: str | None = None
    shadowed_by: str | None = None

    @property
    def class_name(self) -> str:
        return self.target.partition(":")[2].rpartition(".")[2]

    @property
    def qualified_name(self) -> str:
        """``distribution/name``, the spelling that picks this one among duplicates."""
        return f"{self.distribution}/{self.name}" if self.distribution else self.name


@attrs.frozen(slots=True)
class ParameterDescription:
    """One constructor parameter of a metric, as ``describe`` shows it.

    ``type`` is its annotation as written (``"float | None"``), else the type
    its docstring gives, else None. ``default`` is the default as it may be
    shown: ``'***'`` for a secret one (named in the class's ``secret_params``,
    or by a credential's name such as ``api_key``) that is not None, and any
    other with the credentials of its URLs masked; ``threshold``'s None is
    shown as the class's ``default_threshold``, which it stands for.
    ``required`` says it has no default (``default`` is then None). ``doc`` is
    one line from the class's or ``__init__``'s docstring, "" when there is
    none (see docs/registry.md for the conventions read).
    """

    name: str
    type: str | None
    default: Any
    required: bool = False
    doc: str = ""
    secret: bool = False

    def text(self) -> str:
        """``name: type = default``, as ``agentmetrics describe`` shows it."""
        typed = self.name if self.type is None else f"{self.name}: {self.type}"
        shown = " (required)" if self.required else f" = {self.default!r}"
        return typed + shown + (" (secret)" if self.secret else "")

    def to_json(self) -> dict[str, Any]:
        """The parameter as ``describe --json`` and ``list --json`` show it (a
        default that is no JSON scalar as its repr)."""
        default = self.default
        if not (default is None or isinstance(default, (str, int, float, bool))):
            default = repr(default)
        return {"name": self.name, "type": self.type, "default": default,
                "required": self.required, "secret": self.secret, "doc": self.doc}


@attrs.frozen(slots=True)
class MetricDescription:
    """A metric's registry entry and, once its class is loaded, its metadata.

    The metadata fields are ``None`` when the class could not be loaded;
    ``error`` then says why.
    """

    info: MetricInfo
    requires_llm_judge: bool | None = None
    higher_is_better: bool | None = None
    required_fields: tuple[str, ...] | None = None
    description: str | None = None
    default_threshold: float | None = None
    #: Each constructor parameter's default, by name, as it may be shown
    #: (see :class:`ParameterDescription`; a required one's is None).
    parameters: dict[str, Any] | None = None
    error: str | None = None
    #: Constructor parameters without a default: the metric is built only with them.
    needs: tuple[str, ...] = ()
    #: The values the metric can take, ``(low, high)``; an end may be infinite.
    value_range: tuple[float, float] | None = None
    #: The values' unit ("s", "USD", "tokens"); None for a share or score.
    unit: str | None = None
    #: The class's ``version`` (cached scores are kept per version).
    metric_version: str | None = None
    #: Each constructor parameter with its type, default and one-line doc.
    parameter_details: tuple[ParameterDescription, ...] | None = None
    #: What the metric reads: ``Metric.declared_inputs()``.
    inputs: tuple[Input, ...] | None = None
    #: The names of the corpus-level aggregates the metric declares.
    aggregates: tuple[str, ...] = ()

    @classmethod
    def of(cls, info: MetricInfo, metric_cls: type[Metric]) -> MetricDescription:
        """Describe a loaded class, and try to build it as ``get_metric(name)``
        would: a metric that cannot be built with its defaults is broken."""
        details = _parameter_details(metric_cls)
        parameters = {detail.name: detail.default for detail in details}
        needs = tuple(detail.name for detail in details if detail.required)
        error = None
        try:
            inputs: tuple[Input, ...] | None = metric_cls.declared_inputs()
        except InvalidMetricError as failure:
            inputs, error = None, str(failure)
        if not needs and error is None:
            try:
                metric_cls()
            except Exception as failure:
                # Its message may quote a secret default: scrubbed like any other.
                error = scrub(f"it cannot be built with its defaults: {metric_cls.__qualname__}() "
                              f"raised {type(failure).__name__}: {failure}",
                              _secret_defaults(metric_cls))
        return cls(
            info=info,
            requires_llm_judge=metric_cls.requires_llm_judge,
            higher_is_better=metric_cls.higher_is_better,
            required_fields=tuple(metric_cls.required_fields),
            description=metric_cls.description,
            default_threshold=metric_cls.default_threshold,
            parameters=parameters,
            error=error,
            needs=needs,
            value_range=_declared_range(metric_cls),
            unit=metric_cls.unit if isinstance(metric_cls.unit, str) else None,
            metric_version=str(metric_cls.version),
            parameter_details=details,
            inputs=inputs,
            aggregates=_aggregates_of(metric_cls),
        )


def _aggregates_of(metric_cls: type[Metric]) -> tuple[str, ...]:
    """The names of the corpus-level aggregates ``metric_cls`` declares: the
    keys of its ``aggregates`` class attribute (a mapping of name to reducer),
    in order; none when it declares none. Checking the declaration is the
    class's business, not the description's: anything but a mapping shows none."""
    declared = getattr(metric_cls, "aggregates", {})
    if not isinstance(declared, Mapping):
        return ()
    return tuple(str(name) for name in declared)


def _secret_params(metric_cls: type[Metric]) -> tuple[str, ...]:
    declared = getattr(metric_cls, "secret_params", ())
    return tuple(name for name in declared if isinstance(name, str)) if isinstance(
        declared, tuple) else ()


def _usable_parameters(metric_cls: type[Metric]) -> list[inspect.Parameter]:
    signature = inspect.signature(metric_cls)
    return [p for p in signature.parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _secret_defaults(metric_cls: type[Metric]) -> tuple[str, ...]:
    """Every form of the secrets among the class's defaults, for :func:`scrub`."""
    defaults = [(p.name, p.default) for p in _usable_parameters(metric_cls)
                if p.default is not p.empty]
    return shown_items(defaults, _secret_params(metric_cls))[1]


def _annotation_text(annotation: Any) -> str | None:
    if annotation is inspect.Parameter.empty:
        return None
    if isinstance(annotation, str):
        return annotation  # as written, under ``from __future__ import annotations``
    return inspect.formatannotation(annotation).replace("typing.", "")


def _parameter_details(metric_cls: type[Metric]) -> tuple[ParameterDescription, ...]:
    usable = _usable_parameters(metric_cls)
    documented = _parameter_docs(metric_cls, [p.name for p in usable])
    secrets = _secret_params(metric_cls)
    details = []
    for parameter in usable:
        doc_type, doc = documented.get(parameter.name, (None, ""))
        required = parameter.default is parameter.empty
        default = None if required else parameter.default
        secret = parameter.name in secrets or credential_name(parameter.name)
        if parameter.name == "threshold":
            if default is None and not required:
                default = metric_cls.default_threshold  # what None stands for
            if not doc:
                side = "above" if metric_cls.higher_is_better else "below"
                doc = f"a case passes at or {side} it (None: the default threshold)"
        shown = (MASK if default is not None else None) if secret else shown_value(default)
        details.append(ParameterDescription(
            name=parameter.name, type=_annotation_text(parameter.annotation) or doc_type,
            default=shown, required=required, doc=doc, secret=secret))
    return tuple(details)


# -- parameter docs, read from docstrings -------------------------------------------

#: Section headers that list parameters (numpydoc underlines them, Google ends them with ":").
_PARAMETER_SECTIONS = frozenset({"parameters", "params", "args", "arguments", "keyword args",
                                 "keyword arguments", "other parameters"})
_SPHINX_PARAM = re.compile(r"\s*:param\s+(?:(?P<type>[^:]*?)\s+)?\**(?P<name>\w+)\s*:(?P<text>.*)$")
_SPHINX_TYPE = re.compile(r"\s*:type\s+\**(?P<name>\w+)\s*:(?P<type>.*)$")
_UNDERLINE = re.compile(r"\s*-{3,}\s*$")
_NAMES = r"(?P<names>[`*\w]+(?:\s*,\s*[`*\w]+)*)"
_NUMPY_ENTRY = re.compile(_NAMES + r"\s*(?::\s*(?P<type>.*))?$")
_GOOGLE_ENTRY = re.compile(_NAMES + r"\s*(?:\((?P<type>[^)]*)\))?\s*:(?P<text>.*)$")
_INIT_LINE = re.compile(r"\s*`{0,2}(?P<name>\w+)`{0,2}\s*(?::|--|\s-\s)\s*(?P<text>\S.*)$")
#: A sentence's end: not the stop of "e.g." or "i.e.", and followed by a new sentence.
_SENTENCE_END = re.compile(r"(?<!e\.g)(?<!i\.e)[.!?](?=\s+[A-Z(`\"'])")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _paragraph(lines: list[str], start: int, deeper_than: int) -> list[str]:
    """The lines from ``start`` indented more than ``deeper_than``, up to a blank line."""
    taken = []
    for line in lines[start:]:
        if not line.strip() or _indent(line) <= deeper_than:
            break
        taken.append(line)
    return taken


def _one_line(parts: list[str]) -> str:
    """A description's lines as one line, cut after its first sentence."""
    text = " ".join(" ".join(part.split()) for part in parts).strip()
    end = _SENTENCE_END.search(text)
    return text[:end.end()] if end else text


def _entry_names(names: str) -> list[str]:
    return [name.strip("`* ") for name in names.split(",")]


def _section_entries(lines: list[str], at: int, found: dict[str, tuple[str | None, str]]) -> None:
    """Read the parameter section whose header is ``lines[at]``, if it is one:
    numpydoc (the header underlined, ``name : type`` then an indented
    description) or Google (``Args:``, then ``name (type): description``)."""
    header = lines[at].strip()
    numpy = at + 1 < len(lines) and bool(_UNDERLINE.match(lines[at + 1]))
    google = header.endswith(":")
    if header.rstrip(":").strip().lower() not in _PARAMETER_SECTIONS or not (numpy or google):
        return
    base = _indent(lines[at])
    start = at + (2 if numpy else 1)
    body = [index for index in range(start, len(lines)) if lines[index].strip()]
    if not body:
        return
    entry = _indent(lines[body[0]])
    if entry < base or (google and not numpy and entry == base):
        return
    for index in body:
        line = lines[index]
        if _indent(line) < entry or (index + 1 < len(lines) and _UNDERLINE.match(lines[index + 1])):
            break  # the section ended; a numpydoc section's header is underlined
        if _indent(line) > entry:
            continue  # a description line, read with its entry
        match = (_NUMPY_ENTRY if numpy else _GOOGLE_ENTRY).match(line.strip())
        if match is None:
            continue
        text = [] if numpy else [match["text"]]
        doc = _one_line(text + _paragraph(lines, index + 1, entry))
        doc_type = (match["type"] or "").strip() or None
        for name in _entry_names(match["names"]):
            found.setdefault(name, (doc_type, doc))


def _docstring_params(doc: str, names: list[str], init: bool
                      ) -> dict[str, tuple[str | None, str]]:
    lines = inspect.cleandoc(doc).splitlines()
    found: dict[str, tuple[str | None, str]] = {}
    types = {match["name"]: match["type"].strip() for match in map(_SPHINX_TYPE.match, lines)
             if match is not None}
    for index, line in enumerate(lines):
        sphinx = _SPHINX_PARAM.match(line)
        if sphinx is not None:
            doc_type = (sphinx["type"] or "").strip() or types.get(sphinx["name"]) or None
            found.setdefault(sphinx["name"], (doc_type, _one_line(
                [sphinx["text"]] + _paragraph(lines, index + 1, _indent(line)))))
        else:
            _section_entries(lines, index, found)
    if init:  # an __init__ docstring may simply say "name: what it is" on a line
        for index, line in enumerate(lines):
            plain = _INIT_LINE.match(line)
            if plain is not None and plain["name"] in names:
                found.setdefault(plain["name"], (None, _one_line(
                    [plain["text"]] + _paragraph(lines, index + 1, _indent(line)))))
    return {name: value for name, value in found.items() if name in names and value[1]}


def _parameter_docs(metric_cls: type, names: list[str]) -> dict[str, tuple[str | None, str]]:
    """Each of ``names`` that a docstring documents, with the type it gives
    (or None) and its description as one line (its first sentence): read from
    the class's docstring, then its ``__init__``'s, then each base class's
    (``Metric`` excluded). The conventions read are numpydoc (a ``Parameters``
    section underlined), Google (``Args:``) and Sphinx (``:param name:`` with
    ``:type name:``), and in an ``__init__`` docstring a line ``name: text``."""
    found: dict[str, tuple[str | None, str]] = {}
    for klass in metric_cls.__mro__:
        if klass is Metric or klass is object:
            continue
        init = klass.__dict__.get("__init__")
        for doc, is_init in ((klass.__dict__.get("__doc__"), False),
                             (getattr(init, "__doc__", None), True)):
            if isinstance(doc, str):
                for name, value in _docstring_params(doc, names, is_init).items():
                    found.setdefault(name, value)
    return found


def _declared_range(metric_cls: type[Metric]) -> tuple[float, float] | None:
    """The class's ``value_range`` as floats, or None if it declares none usable
    (building the class then says why: see ``error``)."""
    try:
        low, high = (float(bound) for bound in metric_cls.value_range)
    except (TypeError, ValueError):
        return None
    return (low, high)


def _autoload_disabled() -> bool:
    value = os.environ.get(DISABLE_AUTOLOAD_ENV, "").strip().lower()
    return value not in ("", "0", "false", "no", "off")


def _is_builtin(spec: EntryPointSpec) -> bool:
    return spec.distribution is not None and (
        normalize_distribution(spec.distribution) == OWN_DISTRIBUTION
    )


def _describe_source(spec: EntryPointSpec) -> str:
    version = f" {spec.version}" if spec.version else ""
    return f"distribution {spec.distribution}{version} (entry point {spec.name} = {spec.target})"


def _names(spec: EntryPointSpec, name: str) -> bool:
    """Whether ``name`` (registry, class or ``distribution/name``) means ``spec``."""
    if "/" in name:
        distribution, _, metric = name.partition("/")
        return spec.name == metric and spec.distribution is not None and (
            normalize_distribution(spec.distribution) == normalize_distribution(distribution)
        )
    return name in (spec.name, spec.class_name)


class _Registry:
    """The process-wide state behind the module functions."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._specs: list[EntryPointSpec] | None = None
        self._classes: dict[EntryPointSpec, type[Metric]] = {}
        self._errors: dict[EntryPointSpec, str] = {}
        self._local: dict[str, type[Metric]] = {}
        self._shadows: dict[str, str] = {}  # local name -> the installed metric it shadows

    # -- discovery ---------------------------------------------------------

    def specs(self) -> list[EntryPointSpec]:
        with self._lock:
            if self._specs is None:
                found = scan()
                if not any(_is_builtin(spec) for spec in found):

                    found += [
                        EntryPointSpec(name, target, OWN_DISTRIBUTION, __version__)
                        for name, target in _BUILTIN_TARGETS.items()
                    ]
                if _autoload_disabled():
                    found = [spec for spec in found if _is_builtin(spec)]
                self._specs = found
            return self._specs

    def refresh(self) -> None:
        with self._lock:
            self._specs = None
            self._classes.clear()
            self._errors.clear()

    # -- in-process registrations -------------------------------------------

    def register(self, cls: type[Metric], replace: bool | str) -> None:
        if not (isinstance(cls, type) and issubclass(cls, Metric)):
            raise InvalidMetricError(
                f"register_metric expects a Metric subclass, got {cls!r}. "
                f"Fix: subclass agentmetrics.Metric and decorate the class."
            )
        if not isinstance(replace, (bool, str)):
            raise InvalidParameterError(
                f"register_metric: replace must be True, False or 'distribution/name', got "
                f"{type(replace).__name__} {replace!r}."
            )
        name = declared_name(cls)
        check_metric_class(cls)  # a wrong class attribute is the class's error, at once
        with self._lock:
            if name in self._local and self._local[name] is not cls and not replace:
                taken_by = f"{self._local[name].__module__}.{self._local[name].__qualname__}"
                raise DuplicateMetricError(
                    f"metric name {name!r} is already registered in this process "
                    f"by {taken_by}. Fix: pick another name, or pass replace=True.",
                    metric=name,
                )
            installed = [spec for spec in self.specs() if spec.name == name]
            shadows = self._shadows.get(name) if name in self._local else None
            if installed and shadows is None:
                # Shadowing an installed metric takes naming it: a plugin's
                # import-time registration must not silently take over another's.
                named = [spec for spec in installed
                         if isinstance(replace, str) and _names(spec, replace) and "/" in replace]
                if not named:
                    spec = installed[0]
                    qualified = f"{spec.distribution}/{name}" if spec.distribution else name
                    raise DuplicateMetricError(
                        f"metric name {name!r} is already provided by {_describe_source(spec)}. "
                        f"Fix: pick another name, or pass replace={qualified!r} to shadow that "
                        f"metric in this process (replace=True replaces only in-process "
                        f"registrations).",
                        metric=name, candidates=(qualified,),
                    )
                shadows = f"{named[0].distribution}/{name}"
            self._local[name] = cls
            if shadows is not None:
                self._shadows[name] = shadows

    def unregister(self, name: str) -> None:
        with self._lock:
            self._shadows.pop(name, None)
            if self._local.pop(name, None) is None:
                raise MetricNotFoundError(
                    f"no metric named {name!r} was registered in this process with "
                    f"register_metric; installed metrics cannot be unregistered.",
                    metric=name,
                )

    # -- lookup --------------------------------------------------------------

    def _local_info(self, name: str, cls: type[Metric]) -> MetricInfo:
        return MetricInfo(name, _target(cls), None, None, shadows=self._shadows.get(name))

    def _spec_info(self, spec: EntryPointSpec) -> MetricInfo:
        shadow = self._local.get(spec.name)
        return MetricInfo(
            name=spec.name,
            target=spec.target,
            distribution=spec.distribution,
            version=spec.version,
            error=spec.problem or self._errors.get(spec),
            shadowed_by=None if shadow is None else _target(shadow),
        )

    def infos(self) -> list[MetricInfo]:
        """Every metric, installed and in-process; a shadowed installed metric
        stays listed, marked with what shadows it."""
        with self._lock:
            infos = [self._spec_info(spec) for spec in self.specs()]
            infos += [self._local_info(name, cls) for name, cls in self._local.items()]
        return sorted(infos, key=lambda info: (info.name, info.distribution or ""))

    def source_of(self, cls: type[Metric]) -> str:
        """Where a metric class comes from, in words, for result metadata."""
        with self._lock:
            for name, local in self._local.items():
                if local is cls:
                    shadows = self._shadows.get(name)
                    return (f"registered in this process ({_target(cls)})"
                            + (f", shadowing {shadows}" if shadows else ""))
            for spec, loaded in self._classes.items():
                if loaded is cls:
                    version = f" {spec.version}" if spec.version else ""
                    return f"{spec.distribution}{version} ({spec.target})"
        return f"{_target(cls)} (not registered)"

    def describe(self, name: str | None = None) -> list[MetricDescription]:
        """Load every metric (or those matching ``name``) and describe it."""
        with self._lock:
            described = []
            for spec in self.specs():
                if name is not None and not _names(spec, name):
                    continue
                if name is not None and "/" not in name and spec.name in self._local:
                    continue  # a plain name means the class that shadows it
                info = attrs.evolve(self._spec_info(spec), error=None)
                try:
                    loaded = self._load(spec)
                except MetricLoadError as error:
                    failed = attrs.evolve(info, error=spec.problem or self._errors.get(spec))
                    described.append(MetricDescription(info=failed, error=str(error)))
                else:
                    described.append(MetricDescription.of(info, loaded))
            for local_name, cls in self._local.items():
                if name is None or name in (local_name, cls.__name__):
                    described.append(MetricDescription.of(self._local_info(local_name, cls), cls))
        return sorted(described, key=lambda d: (d.info.name, d.info.distribution or ""))

    def find(self, name: str) -> type[Metric]:
        if not isinstance(name, str):
            raise MetricNameError(
                f"a metric name must be a str, got {type(name).__name__} {name!r}. Fix: pass "
                f"the metric's name, e.g. 'tool_selection_accuracy', or use resolve_metric "
                f"for classes and instances."
            )
        with self._lock:
            if "/" in name:
                return self._find_qualified(name)
            if name in self._local:
                return self._local[name]
            specs = self.specs()
            by_name = [spec for spec in specs if spec.name == name]
            if by_name:
                return self._load_one(name, by_name)
            by_class = [
                spec for spec in specs
                if spec.class_name == name and spec.name not in self._local
            ]
            local_by_class = [cls for cls in self._local.values() if cls.__name__ == name]
            registry_names = sorted({spec.name for spec in by_class} | {
                cls.name for cls in local_by_class
            })
            if len(registry_names) > 1:
                raise DuplicateMetricError(
                    f"class name {name!r} is ambiguous: metrics {registry_names} all use "
                    f"it. Fix: ask for one of them by its registry name instead.",
                    metric=name, candidates=tuple(registry_names),
                )
            if local_by_class:
                return local_by_class[0]
            if by_class:
                return self._load_one(name, by_class)
            raise self._not_found(name)

    def find_class_name(self, class_name: str) -> type[Metric] | None:
        """Load the metric whose class is called ``class_name``, if any."""
        with self._lock:
            candidates = [spec for spec in self.specs() if spec.class_name == class_name]
            local = [cls for cls in self._local.values() if cls.__name__ == class_name]
            if not candidates and not local:
                return None
            return self.find(class_name)

    def _find_qualified(self, qualified: str) -> type[Metric]:
        distribution, _, name = qualified.partition("/")
        wanted = normalize_distribution(distribution)
        specs = [
            spec
            for spec in self.specs()
            if spec.name == name
            and spec.distribution is not None
            and normalize_distribution(spec.distribution) == wanted
        ]
        if not specs:
            raise self._not_found(qualified)
        return self._load_one(qualified, specs)

    def _load_one(self, asked: str, specs: list[EntryPointSpec]) -> type[Metric]:
        distributions = {normalize_distribution(s.distribution or "") for s in specs}
        if len(distributions) > 1:
            specs = sorted(specs, key=lambda spec: normalize_distribution(spec.distribution or ""))
            listed = "; ".join(_describe_source(spec) for spec in specs)
            choices = " or ".join(
                repr(MetricInfo(s.name, s.target, s.distribution, s.version).qualified_name)
                for s in specs
            )
            qualified = tuple(MetricInfo(s.name, s.target, s.distribution, s.version).qualified_name
                              for s in specs)
            raise DuplicateMetricError(
                f"metric {asked!r} is provided by more than one distribution: {listed}. "
                f"Fix: ask for {choices}, or uninstall one of them.",
                metric=asked, candidates=qualified,
            )
        return self._load(specs[0])

    def _load(self, spec: EntryPointSpec) -> type[Metric]:
        if spec in self._classes:
            return self._classes[spec]
        source = _describe_source(spec)
        fix = (
            f"Fix: reinstall or upgrade {spec.distribution}, or uninstall it; "
            f"other metrics are unaffected."
        )

        def failed(problem: str) -> MetricLoadError:
            return MetricLoadError(
                f"cannot load metric {spec.name!r} from {source}: {problem}. {fix}",
                metric=spec.name, distribution=spec.distribution, target=spec.target,
                problem=problem)

        if spec.problem:
            raise failed(spec.problem)
        if not METRIC_NAME_PATTERN.match(spec.name):
            problem = f"its name does not match {METRIC_NAME_PATTERN.pattern}"
            self._errors[spec] = problem
            raise failed(problem)
        import importlib

        try:
            loaded: object = importlib.import_module(spec.module)
            for part in spec.attribute.split("."):
                loaded = getattr(loaded, part)
        except Exception as error:
            problem = f"importing it raised {type(error).__name__}: {error}"
            self._errors[spec] = problem
            raise failed(problem) from error
        mismatch = None
        if not (isinstance(loaded, type) and issubclass(loaded, Metric)):
            mismatch = f"it points to {loaded!r}, which is not a subclass of agentmetrics.Metric"
        elif getattr(loaded, "name", None) != spec.name:
            mismatch = (
                f"the class declares name = {getattr(loaded, 'name', None)!r}, but the entry "
                f"point registers it as {spec.name!r}; the two must be equal"
            )
        if mismatch:
            self._errors[spec] = mismatch
            raise failed(mismatch)
        self._classes[spec] = loaded  # type: ignore[assignment]
        return loaded  # type: ignore[return-value]

    def _not_found(self, name: str) -> MetricNotFoundError:
        import difflib

        # Map every spelling (registry and class name, lower-cased) to the
        # registry name, so a metric is suggested once, by the name to use.
        known: dict[str, str] = {}
        for spec in self.specs():
            known.setdefault(spec.name.lower(), spec.name)
            if spec.class_name:
                known.setdefault(spec.class_name.lower(), spec.name)
        for local_name, cls in self._local.items():
            known[local_name.lower()] = local_name
            known.setdefault(cls.__name__.lower(), local_name)
        close = difflib.get_close_matches(name.lower(), list(known), n=6, cutoff=0.6)
        suggestions = list(dict.fromkeys(known[c] for c in close))[:3]
        hint = f" Did you mean {', '.join(map(repr, suggestions))}?" if suggestions else ""
        disabled = (
            f" Third-party plugins are disabled by {DISABLE_AUTOLOAD_ENV}."
            if _autoload_disabled()
            else ""
        )
        return MetricNotFoundError(
            f"no metric named {name!r}.{hint}{disabled} Run `agentmetrics list` to see "
            f"the installed metrics, or install the package that provides it.",
            metric=name, suggestions=tuple(suggestions),
        )


def _target(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


_registry = _Registry()


def list_metrics() -> list[MetricInfo]:
    """Every known metric, sorted by name, without importing any plugin."""
    return _registry.infos()


def describe_metrics() -> list[MetricDescription]:
    """Every known metric with its metadata. Unlike :func:`list_metrics`, this
    imports each plugin; one that fails to load is described with its error."""
    return _registry.describe()


def describe_metric(name: str) -> MetricDescription:
    """One metric's metadata, by registry name, class name or ``distribution/name``.

    Raises MetricNotFoundError (with close matches) for an unknown name and
    DuplicateMetricError when several distributions provide it.
    """
    found = _registry.describe(name)
    if not found:
        raise _registry._not_found(name)
    if len(found) > 1:
        sources = " and ".join(repr(d.info.qualified_name) for d in found)
        raise DuplicateMetricError(
            f"{name!r} names several metrics: {sources}. Fix: ask for one of those names.",
            metric=name, candidates=tuple(d.info.qualified_name for d in found),
        )
    return found[0]


def get_metric_class(name: str) -> type[Metric]:
    """The Metric subclass for a registry name, class name or ``distribution/name``.

    Imports only the plugin that provides it. Raises MetricNotFoundError
    (with close matches), DuplicateMetricError or MetricLoadError.
    """
    return _registry.find(name)


def get_metric(name: str, /, **params: Any) -> Metric:
    """A configured instance of the metric called ``name``.

    >>> get_metric("tool_selection_accuracy", threshold=0.9)
    ToolSelectionAccuracy(threshold=0.9, order_matters=False)
    """
    return _instantiate(get_metric_class(name), params)


def resolve_metric(
    spec: Metric | type[Metric] | str, /, threshold: float | None = None, **params: Any
) -> Metric:
    """A Metric from an instance, a class or a name, with an optional new threshold.

    ``resolve_metric(ToolSelectionAccuracy(), threshold=0.9)`` copies the
    instance with the new threshold; a class or a name is built with
    ``threshold`` and ``params``. An instance takes no other parameters.
    """
    if isinstance(spec, Metric):
        if params:
            raise InvalidParameterError(
                f"{spec!r} is already configured; parameters {sorted(params)} can only "
                f"be given with a metric class or name."
            )
        if threshold is None:
            return spec
        return type(spec)(**{**spec.get_params(), "threshold": threshold})
    if isinstance(spec, str):
        cls = get_metric_class(spec)
    elif isinstance(spec, type) and issubclass(spec, Metric):
        cls = spec
    else:
        raise InvalidParameterError(
            f"expected a Metric instance, a Metric class or a registry name, got "
            f"{type(spec).__name__} {spec!r}."
        )
    if threshold is not None:
        params["threshold"] = threshold
    return _instantiate(cls, params)


def _instantiate(cls: type[Metric], params: dict[str, Any]) -> Metric:
    try:
        return cls(**params)
    except TypeError as error:
        import inspect

        try:
            inspect.signature(cls).bind(**params)
        except TypeError:
            import difflib

            accepted = [p for p in inspect.signature(cls).parameters if p != "self"]
            unknown = sorted(key for key in params if key not in accepted)
            takes = f"It takes: {', '.join(accepted) or 'no parameters'}."
            if not unknown:  # known names, wrongly given (a missing required one, say)
                raise InvalidParameterError(
                    f"metric {cls.name!r}: {error}. {takes}") from None
            hints = [
                f"{key!r} -> {close[0]!r}"
                for key in unknown
                for close in [difflib.get_close_matches(key, accepted, n=1)]
                if close and close[0] not in params
            ]
            fix = (f"Fix: rename {', '.join(hints)}." if hints else
                   f"Fix: drop {', '.join(map(repr, unknown))}.")
            raise InvalidParameterError(
                f"metric {cls.name!r} got unknown parameter{'s' if len(unknown) > 1 else ''} "
                f"{unknown}; expected some of {accepted}. {fix}"
            ) from None
        raise


@overload
def register_metric(cls: M, /, *, replace: bool | str = False) -> M: ...
@overload
def register_metric(*, replace: bool | str = False) -> Callable[[M], M]: ...


def register_metric(
    cls: M | None = None, /, *, replace: bool | str = False
) -> M | Callable[[M], M]:
    """Make a Metric subclass available by its ``name`` in this process.

    Use it as ``@register_metric``, ``@register_metric(replace=True)`` or
    ``register_metric(MyMetric)``. A name already registered in this process
    raises DuplicateMetricError unless ``replace=True``. A name an installed
    distribution provides can be shadowed only by naming it:
    ``replace="distribution/name"``; shadowing then shows in
    :func:`list_metrics` (``shadows``, ``shadowed_by``), in ``agentmetrics
    list`` and ``describe``, and in each EvaluationResult's ``sources``.
    """

    def decorate(metric_cls: M) -> M:
        _registry.register(metric_cls, replace)
        return metric_cls

    return decorate if cls is None else decorate(cls)


def unregister_metric(name: str) -> None:
    """Remove a metric registered in this process (installed ones stay)."""
    _registry.unregister(name)


@contextlib.contextmanager
def isolated() -> Iterator[None]:
    """Undo, on leaving, every registration made inside: for tests and plugin
    authors who register metrics without leaking them into other tests::

        with registry.isolated():
            register_metric(MyMetric)
            ...  # MyMetric is known here, and only here

    The metrics registered before are restored as they were (replaced ones
    included), and installed plugins are rescanned on the next lookup."""
    with _registry._lock:
        local, shadows = dict(_registry._local), dict(_registry._shadows)
    try:
        yield
    finally:
        with _registry._lock:
            _registry._local.clear()
            _registry._local.update(local)
            _registry._shadows.clear()
            _registry._shadows.update(shadows)
        refresh()


def refresh() -> None:
    """Forget the scan and loaded classes; the next lookup rescans entry points.

    Call it after installing a plugin in a running process. In-process
    registrations are kept.
    """
    _registry.refresh()


def find_by_class_name(class_name: str) -> type[Metric] | None:
    return _registry.find_class_name(class_name)


def source_of(cls: type[Metric]) -> str:
    """Where a metric class comes from: its distribution and version, or that it
    was registered in this process (and what it shadows)."""
    return _registry.source_of(cls)

