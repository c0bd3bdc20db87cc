"""The ```console examples of the docs, each run or checked from the repository's root.

Pages: docs/**/*.md, README.md, plugins/README.md and plugins/*/README.md. In a block that has
``$ `` lines, each one is a command with the output it prints below it (stdout
and stderr as a terminal shows them, together) and, when its exit status is
not 0, a last line ``[exit N]``. A block with no ``$ `` line is a list of
commands, one a line, with no output shown (``# ...`` is a comment).

Every command goes to the runner of its program; a program that no runner
knows is a failure, so that no example can go silently unrun:

``agentmetrics ...``
    run in this process (``agentmetrics.cli.main``) from the repository's
    root; the output and the exit status must be the ones shown.
``python ...``
    run as a subprocess from the root, with this interpreter's ``bin``
    directory first on PATH; output and status compared as above.
``pytest ...``
    run by tests/test_docs.py with pytester, in a directory holding the page's
    ```LANG file=NAME blocks; every line shown must appear in order.
``pip install ...`` (also ``python -m pip install``)
    not run (it would need the network, and our names are not published
    yet) but checked: each requirement is a directory of the repository that
    has a pyproject.toml (``-e .``, ``./plugins/agent-tool-metrics-judge``), a
    project the page itself defines, or one of the repository's distributions
    (``agent-tool-metrics``, ``agent-tool-metrics-judge``, ...), and each
    ``[extra]`` is one that its pyproject.toml defines.
``make TARGET``
    checked, not run: the Makefile has the target.

A page may define a project in ```LANG file=DIR/... blocks, one of them
DIR/pyproject.toml (docs/plugins.md's example plugin). Its examples, doctests
included, then run with that project installed into a throwaway directory put
first on sys.path: its packages and a dist-info with the metadata and entry
points its pyproject.toml declares, which is what an installer lays out,
after checking that pyproject.toml: a hatchling [build-system], a dependency
on agent-tool-metrics (never on PyPI's unrelated agentmetrics), and entry
points in ``agentmetrics.metrics`` whose modules are in the packages it
installs. The build backend itself (hatchling) is not run: it is not in the
test environment, and fetching it would take the network.

As a script, from the repository's root::

    python tests/docs_console.py            # print every example whose output differs, exit 1 if any
    python tests/docs_console.py --write    # rewrite the output shown under agentmetrics and python examples
    python tests/docs_console.py docs/cli.md --write   # one page

``--write`` replaces each shown output, and its ``[exit N]`` line, with the one
a real run prints; pip and make examples are checked as in the tests, pytest
examples are left to the test suite.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"

#: The programs a runner knows, and the runners whose output is compared exactly
#: (and rewritten by --write).
RUNNERS = ("agentmetrics", "python", "pytest", "pip", "make")
EXACT = ("agentmetrics", "python")

#: pip options that take no value and change nothing the check looks at.
_PIP_FLAGS = {"-U", "--upgrade", "-q", "--quiet", "--pre", "--no-deps", "--user", "--force-reinstall"}
#: pip options whose next word is a file, a directory or a URL.
_PIP_TAKES_VALUE = {"-r", "--requirement", "-c", "--constraint", "-t", "--target", "-i", "--index-url",
                    "--extra-index-url", "-f", "--find-links", "--prefix", "--root"}
#: Shell syntax that a runner would have to interpret: a pipe, a redirect, a list.
_SHELL = re.compile(r"^(\||\|\||&&?|;|[0-9]*>>?(&[0-9])?|<)$")


def pages() -> list[Path]:
    """Every page whose ```console blocks are run."""
    docs = [page for page in sorted(DOCS.rglob("*.md"))
            if not {"_build", "jupyter_execute"} & set(page.relative_to(DOCS).parts)]
    plugins = REPO / "plugins"
    return docs + [REPO / "README.md", plugins / "README.md"] + sorted(plugins.glob("*/README.md"))


def shown(path: Path) -> str:
    """A path as the docs and messages name it: from the repository's root."""
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class Example:
    """One command of a ```console block and what the page shows it printing."""

    page: Path
    line: int  # of the command, 1-based
    command: str  # without the prompt
    expected: str | None  # None in a block of commands without output
    status: int
    span: tuple[int, int]  # where the output, [exit N] line included, is in the page's text

    @property
    def where(self) -> str:
        return f"{shown(self.page)}:{self.line}"

    @property
    def argv(self) -> list[str]:
        return shlex.split(self.command, comments=True)

    @property
    def runner(self) -> str | None:
        """The runner that takes this command, or None when no runner knows it."""
        argv = self.argv
        if not argv:
            return None
        program = argv[0]
        if program in ("python", "python3"):
            module = argv[2] if len(argv) > 2 and argv[1] == "-m" else None
            return module if module in ("pip", "pytest") else "python"
        return program if program in RUNNERS else None


_BLOCK = re.compile(r"^```console[ \t]*\n(.*?)^```", re.M | re.S)
_EXIT = re.compile(r"^\[exit (\d+)\]\n?\Z", re.M)


def examples(page: Path, text: str | None = None) -> list[Example]:
    """The page's console examples, in the order they appear."""
    if text is None:
        text = page.read_text(encoding="utf-8")

    def line_of(offset: int) -> int:
        return text.count("\n", 0, offset) + 1

    found = []
    for block in _BLOCK.finditer(text):
        body, start = block.group(1), block.start(1)
        if not re.search(r"^\$ ", body, flags=re.M):
            offset = start
            for line in body.splitlines(keepends=True):
                if line.strip() and not line.lstrip().startswith("#"):
                    end = offset + len(line)
                    found.append(Example(page, line_of(offset), line.strip(), None, 0, (end, end)))
                offset += len(line)
            continue
        if not body.startswith("$ "):
            raise ValueError(f"{shown(page)}:{line_of(start)}: a console block with `$ ` commands "
                             f"must start with one; the lines before it belong to no command")
        offset = start
        for chunk in re.split(r"^(?=\$ )", body, flags=re.M):
            if not chunk:
                continue
            command, _, expected = chunk.partition("\n")
            status = 0
            match = _EXIT.search(expected)
            if match:
                status = int(match.group(1))
                expected = expected[: match.start()]
            output_start = offset + len(command) + 1
            found.append(Example(page, line_of(offset), command[2:].strip(), expected, status,
                                 (output_start, offset + len(chunk))))
            offset += len(chunk)
    return found


_FILE_BLOCK = re.compile(r"^```\w+[ \t]+file=(\S+)[ \t]*\n(.*?)^```", re.M | re.S)


def page_files(text: str) -> dict[str, str]:
    """The page's ```LANG file=NAME blocks: the files its examples use, by path."""
    return dict(_FILE_BLOCK.findall(text))


def write_files(files: dict[str, str], root: Path) -> None:
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")


def _normalize(name: str) -> str:
    """A distribution's name as PEP 503 spells it."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _read_toml(path: Path) -> dict:
    with path.open("rb") as handle:
        return tomllib.load(handle)


def distributions() -> dict[str, Path]:
    """The repository's own distributions: their names, PEP 503-normalised, and pyproject.toml."""
    found = {}
    for pyproject in [REPO / "pyproject.toml", *sorted((REPO / "plugins").glob("*/pyproject.toml"))]:
        found[_normalize(_read_toml(pyproject)["project"]["name"])] = pyproject
    return found


def makefile_targets() -> set[str]:
    targets = set()
    for line in (REPO / "Makefile").read_text(encoding="utf-8").splitlines():
        match = re.match(r"^([^\s#:=][^:=]*?)\s*::?(?!=)", line)
        if match:
            targets.update(name for name in match.group(1).split() if "$" not in name)
    return targets - {".PHONY"}


@contextlib.contextmanager
def _cwd(path: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


class Session:
    """Where one page's examples run: from the repository's root, with the
    projects the page defines installed (see the module's docstring).

    ``with Session(page) as session:`` installs them and ``problems`` says
    what kept one from installing; leaving it uninstalls them.
    """

    def __init__(self, page: Path, text: str | None = None):
        self.page = page
        self.text = page.read_text(encoding="utf-8") if text is None else text
        self.examples = examples(page, self.text)
        self.files = page_files(self.text)
        #: The page's projects: the directory (as the page names it) of each pyproject.toml.
        self.projects = sorted(str(Path(name).parent) for name in self.files
                               if Path(name).name == "pyproject.toml")
        self.problems: list[str] = []
        self._tmp: Path | None = None
        self._site: str | None = None

    # -- setting up --------------------------------------------------------------

    def __enter__(self) -> Session:
        from agentmetrics import registry

        if self.projects:
            self._tmp = Path(tempfile.mkdtemp(prefix="docs-console-"))
            write_files(self.files, self._tmp / "work")
            site = self._tmp / "site"
            site.mkdir()
            for project in self.projects:
                self.problems += [f"{shown(self.page)}: project {project}/: {problem}"
                                  for problem in install_project(self._tmp / "work" / project, site)]
            self._site = str(site)
            sys.path.insert(0, self._site)
            importlib.invalidate_caches()
        registry.refresh()
        return self

    def __exit__(self, *exc_info: object) -> None:
        from agentmetrics import registry

        if self._site is not None:
            with contextlib.suppress(ValueError):
                sys.path.remove(self._site)
            sys.path_importer_cache.pop(self._site, None)
            for name, module in list(sys.modules.items()):
                if (getattr(module, "__file__", None) or "").startswith(self._site + os.sep):
                    del sys.modules[name]
            self._site = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None
        registry.refresh()

    def project_dir(self, path: str) -> Path | None:
        """The installed copy of the page's project at ``path``, if the page defines it."""
        wanted = os.path.normpath(path)
        for project in self.projects:
            if os.path.normpath(project) == wanted and self._tmp is not None:
                return self._tmp / "work" / project
        return None

    # -- running -----------------------------------------------------------------

    def run(self, example: Example) -> tuple[str, int]:
        """Run an agentmetrics or python example for real: (output, exit status).
        A last line without its newline is given one, as a page shows it."""
        argv = example.argv
        if example.runner == "agentmetrics":
            output, status = _run_agentmetrics(argv[1:])
        elif example.runner == "python":
            env = dict(os.environ)
            env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
            if self._site is not None:
                env["PYTHONPATH"] = os.pathsep.join(filter(None, [self._site, env.get("PYTHONPATH")]))
            done = subprocess.run(argv, cwd=REPO, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, timeout=300)
            output, status = done.stdout, done.returncode
        else:
            raise ValueError(f"{example.where}: {example.runner} examples are checked, not run")
        if output and not output.endswith("\n"):
            output += "\n"
        return output, status

    def check(self, example: Example) -> list[str]:
        """What is wrong with one example: [] when it runs as shown or passes its check.
        pytest examples are tests/test_docs.py's (they need pytester): [] here."""
        label = f"{example.where}: `{example.command}`"
        try:
            argv, runner = example.argv, example.runner
        except ValueError as error:  # shlex: an unclosed quote
            return [f"{label}: cannot be split into words as a shell would: {error}"]
        shell = [token for token in argv if _SHELL.match(token)] or [
            token for token in argv[:1] if re.match(r"^\w+=", token)]  # VAR=value command
        if shell:
            return [f"{label}: shell syntax ({' '.join(shell)}) that the docs runners do not "
                    f"interpret. Fix: keep the example to one command."]
        if runner is None:
            program = (argv or [""])[0]
            return [f"{label}: no runner knows `{program}`; the docs tests run or check "
                    f"{', '.join(RUNNERS)} commands. Fix: show the example as one of those, or "
                    f"teach tests/docs_console.py to run it."]
        if runner == "pytest":
            return []
        if runner == "pip":
            return [f"{label}: {problem}" for problem in self._check_pip(example.argv)]
        if runner == "make":
            return [f"{label}: {problem}" for problem in _check_make(example.argv)]
        if example.expected is None:
            return [f"{label}: shown without its output. Fix: write it as `$ {example.command}` "
                    f"with what it prints below it."]
        output, status = self.run(example)
        problems = []
        if output != example.expected:
            diff = difflib.unified_diff(example.expected.splitlines(keepends=True),
                                        output.splitlines(keepends=True), "shown", "printed")
            problems.append(f"{label}: prints something else than the page shows "
                            f"(python tests/docs_console.py --write rewrites it):\n{''.join(diff)}")
        if status != example.status:
            problems.append(f"{label}: exits {status}, the page shows {example.status}"
                            + (f" ([exit {example.status}])" if example.status else " (no [exit N] line)"))
        return problems

    def _check_pip(self, argv: list[str]) -> list[str]:
        args = argv[3:] if argv[0].startswith("python") else argv[1:]
        if not args or args[0] != "install":
            return ["only `pip install` is checked. Fix: show the install, or teach "
                    "tests/docs_console.py to check this."]
        requirements, problems = [], []
        rest = iter(args[1:])
        for arg in rest:
            if arg in ("-e", "--editable"):
                value = next(rest, None)
                if value is None:
                    problems.append(f"{arg} without a path")
                else:
                    requirements.append((value, True))
            elif arg.startswith("--editable="):
                requirements.append((arg.partition("=")[2], True))
            elif arg in _PIP_FLAGS:
                continue
            elif arg.startswith("-"):
                if arg in _PIP_TAKES_VALUE:
                    next(rest, None)  # a file, directory or URL: not a requirement
                problems.append(f"pip option {arg} is not one the docs check knows "
                                f"({', '.join(sorted(_PIP_FLAGS | {'-e'}))})")
            else:
                requirements.append((arg, False))
        if not requirements and not problems:
            problems.append("installs nothing")
        for requirement, editable in requirements:
            problems += self._check_requirement(requirement, editable)
        return problems

    def _check_requirement(self, requirement: str, editable: bool = False) -> list[str]:
        """One requirement of a pip install line; ``editable`` (after -e) is always a path."""
        if editable or requirement.startswith((".", "/", "~")) or "/" in requirement.partition("[")[0]:
            match = re.fullmatch(r"([^\[\]]+?)(?:\[([^\]]*)\])?", requirement)
            if not match:
                return [f"{requirement!r}: expected PATH or PATH[extra,...]"]
            path, extras = match.group(1), _extras(match.group(2))
            project = self.project_dir(path)
            if project is None:
                target = (REPO / path).resolve()
                if not target.is_relative_to(REPO.resolve()):
                    return [f"{path}: outside the repository, from whose root the examples run"]
                if not target.is_dir():
                    return [f"{path}: no such directory in the repository (the examples run from "
                            f"its root)"]
                project = target
            if not (project / "pyproject.toml").is_file():
                return [f"{path}: has no pyproject.toml, so pip cannot install it"]
            return _check_extras(requirement, project / "pyproject.toml", extras)
        from packaging.requirements import InvalidRequirement, Requirement

        try:
            parsed = Requirement(requirement)
        except InvalidRequirement as error:
            return [f"{requirement!r} is not a requirement pip reads: {error}"]
        name, ours = _normalize(parsed.name), distributions()
        if name == "agentmetrics":
            return [f"{requirement!r}: `agentmetrics` on PyPI is an unrelated project, not this "
                    f"library, whose distribution is `agent-tool-metrics` (the import package is "
                    f"still `agentmetrics`). Fix: pip install agent-tool-metrics, or -e . from a clone"]
        if parsed.url or name not in ours:
            return [f"{requirement!r}: not one of this repository's distributions "
                    f"({', '.join(sorted(ours))}), and the docs install no other"]
        return _check_extras(requirement, ours[name], set(parsed.extras))


def _extras(text: str | None) -> set[str]:
    return {extra.strip() for extra in (text or "").split(",") if extra.strip()}


def _check_extras(requirement: str, pyproject: Path, extras: set[str]) -> list[str]:
    try:
        project = _read_toml(pyproject)["project"]
    except (tomllib.TOMLDecodeError, KeyError) as error:
        return [f"{shown(pyproject)}: no readable [project] table ({error})"]
    defined = {_normalize(extra) for extra in project.get("optional-dependencies", {})}
    return [f"{requirement!r}: {project['name']} has no extra {extra!r} (its extras: "
            f"{', '.join(sorted(defined)) or 'none'})"
            for extra in sorted(extras) if _normalize(extra) not in defined]


def _check_make(argv: list[str]) -> list[str]:
    targets = [arg for arg in argv[1:] if "=" not in arg]
    options = [arg for arg in targets if arg.startswith("-")]
    if options:
        return [f"make options ({' '.join(options)}) are not checked. Fix: show `make TARGET`"]
    if not targets:
        return ["`make` without a target. Fix: name the target"]
    known = makefile_targets()
    return [f"the Makefile has no target {target!r} (its targets: {', '.join(sorted(known))})"
            for target in targets if target not in known]


def _run_agentmetrics(args: list[str]) -> tuple[str, int]:
    from agentmetrics.cli import main

    buffer = io.StringIO()
    with _cwd(REPO), _as_typed(), contextlib.redirect_stdout(buffer), \
            contextlib.redirect_stderr(buffer):
        try:
            status = main(args)
        except SystemExit as stop:  # argparse's usage errors and --help
            status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    return buffer.getvalue(), status


@contextlib.contextmanager
def _as_typed():
    """The process as a shell that runs ``agentmetrics`` has it: the program is
    the environment's ``agentmetrics`` script, found first on PATH (a page that
    shows ``$ agentmetrics ...`` has it on PATH)."""
    folder = str(Path(sys.executable).parent)
    saved = sys.argv[:], os.environ.get("PATH")
    sys.argv[:] = [os.path.join(folder, "agentmetrics"), *sys.argv[1:]]
    os.environ["PATH"] = os.pathsep.join([folder, saved[1] or ""])
    try:
        yield
    finally:
        sys.argv[:] = saved[0]
        if saved[1] is None:
            del os.environ["PATH"]
        else:
            os.environ["PATH"] = saved[1]


def install_project(root: Path, site: Path) -> list[str]:
    """Lay the project at ``root`` out in ``site`` as an installer would: its
    packages, and a dist-info with the metadata and entry points of its
    pyproject.toml. Returns what is wrong with the project ([] when installed)."""
    try:
        data = _read_toml(root / "pyproject.toml")
    except tomllib.TOMLDecodeError as error:
        return [f"pyproject.toml is not valid TOML: {error}"]
    from packaging.requirements import InvalidRequirement, Requirement

    problems = []
    build = data.get("build-system", {})
    try:
        backends = {_normalize(Requirement(item).name) for item in build.get("requires", [])}
    except InvalidRequirement as error:
        return [f"[build-system] requires: {error}"]
    if build.get("build-backend") != "hatchling.build" or "hatchling" not in backends:
        problems.append("expected a [build-system] with requires = [\"hatchling...\"] and "
                        "build-backend = \"hatchling.build\", as this repository's plugins have")
    project = data.get("project", {})
    name, version = project.get("name"), project.get("version")
    if not name or not version:
        return problems + ["[project] needs a name and a version"]
    depends = [_normalize(Requirement(item).name) for item in project.get("dependencies", [])]
    if "agentmetrics" in depends:
        problems.append("depends on `agentmetrics`, an unrelated project on PyPI; this library's "
                        "distribution is `agent-tool-metrics`")
    if "agent-tool-metrics" not in depends:
        problems.append("does not depend on agent-tool-metrics")
    entry_points = project.get("entry-points", {}).get("agentmetrics.metrics", {})
    if not entry_points:
        problems.append('no [project.entry-points."agentmetrics.metrics"] table: the registry '
                        "would find no metric")
    wheel = data.get("tool", {}).get("hatch", {}).get("build", {}).get("targets", {}).get("wheel", {})
    default = re.sub(r"[-.]+", "_", name).lower()
    packages = wheel.get("packages") or [
        path for path in (default, f"src/{default}") if (root / path / "__init__.py").is_file()][:1]
    for package in packages:
        if not (root / package / "__init__.py").is_file():
            problems.append(f"no package {package}/ (with an __init__.py) to install")
    installed = {Path(package).name for package in packages}
    for entry, target in entry_points.items():
        if target.partition(":")[0].split(".")[0].strip() not in installed:
            problems.append(f"entry point {entry} = {target!r}: its module is in no package that "
                            f"the project installs ({', '.join(sorted(installed)) or 'none'})")
    if problems:
        return problems
    for package in packages:
        shutil.copytree(root / package, site / Path(package).name)
    dist_info = site / f"{re.sub(r'[-_.]+', '_', name)}-{version}.dist-info"
    dist_info.mkdir()
    metadata = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    metadata += [f"Requires-Dist: {item}" for item in project.get("dependencies", [])]
    (dist_info / "METADATA").write_text("\n".join(metadata) + "\n", encoding="utf-8")
    groups = project.get("entry-points", {})
    (dist_info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in entries.items()) + "\n"
        for group, entries in groups.items()), encoding="utf-8")
    (dist_info / "RECORD").write_text("", encoding="utf-8")
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tests/docs_console.py",
        description="Run the docs' console examples from the repository's root and print those "
                    "that differ from what the page shows; --write rewrites the shown output.")
    parser.add_argument("--write", action="store_true",
                        help="rewrite the output shown under each agentmetrics and python example "
                             "with the output of a real run")
    parser.add_argument("pages", nargs="*", type=Path, help="pages (default: every page)")
    args = parser.parse_args(argv)
    chosen = [page.resolve() for page in args.pages] or pages()
    problems: list[str] = []
    left_to_pytest = 0
    for page in chosen:
        text = page.read_text(encoding="utf-8")
        edits = []
        with Session(page, text) as session:
            problems += session.problems
            for example in session.examples:
                if args.write and example.runner in EXACT and example.expected is not None:
                    output, status = session.run(example)
                    new = output + (f"[exit {status}]\n" if status else "")
                    if text[slice(*example.span)] != new:
                        edits.append((example.span, new))
                    continue
                left_to_pytest += example.runner == "pytest"
                problems += session.check(example)
        for (start, end), new in sorted(edits, reverse=True):
            text = text[:start] + new + text[end:]
        if edits:
            page.write_text(text, encoding="utf-8")
            print(f"{shown(page)}: rewrote the output of {len(edits)} example(s)")
    for problem in problems:
        print(problem, end="\n\n")
    if left_to_pytest:
        print(f"({left_to_pytest} pytest example(s) not run here: tests/test_docs.py runs them)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
