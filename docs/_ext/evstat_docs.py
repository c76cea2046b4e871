"""Local Sphinx extension of the evstat site: pages generated from the repository at build time.

On ``config-inited`` (before Sphinx looks for source files, so that a clean checkout builds in
one pass) it writes, under the docs source folder (all three are ignored by git):

* ``vignettes/<name>.md``: each ``vignettes/*.md`` of the repository (the tutorials that
  ``tests/test_vignettes.py`` executes), unchanged apart from a note under the title; a glob
  toctree in ``tutorials.md`` lists them, so a new vignette appears without editing the site;
* ``papers/<name>.md``: each ``reports/<name>/README.md`` (the reproductions of the papers);
  relative links to files that are not pages of the site become the file's path in the
  repository (the site is built offline and does not copy the reports' data);
* ``api/<module>.rst``: the API reference page of ``evstat`` and of every public module
  (:func:`public_modules`), an ``autosummary`` table of each name of the module's ``__all__``,
  grouped into functions, classes, constants and modules; an object exported by several modules
  (``ev.evlogit`` is ``evstat.calibration.evlogit``) gets its page once, in the first module of
  :data:`OWNER_ORDER` that exports it, and the other tables link there;
* ``_generated/cli.md``: ``evstat --help`` and the help of every subcommand, read from the
  argparse parser of :mod:`evstat.cli`, so a new subcommand or option appears in
  ``guide/command-line.md`` (which includes this file) without editing it.

Files are rewritten only when their text changes, so incremental builds stay incremental.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import pkgutil
import re
import types
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
#: Markdown links and images: ``[text](target)`` / ``![alt](target)``.
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")
#: Width of the rendered help (argparse reads $COLUMNS): fixed, so the page does not depend on
#: the terminal that runs the build.
HELP_COLUMNS = "100"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _prune(folder: Path, keep: set[str]) -> None:
    """Remove generated pages whose source disappeared (a renamed vignette)."""
    if folder.is_dir():
        for p in folder.glob("*.md"):
            if p.name not in keep:
                p.unlink()


def _after_title(text: str, note: str) -> str:
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("# "):
            return "".join(lines[: i + 1]) + "\n" + note + "\n" + "".join(lines[i + 1 :])
    return note + "\n\n" + text


def _rewrite_links(text: str, source_dir: Path, pages: dict[Path, str]) -> str:
    """Relative links to repository files: a link to the page of the site that renders the file,
    else the file's repository path in backquotes (images too: the site is offline)."""

    def repl(m: re.Match[str]) -> str:
        bang, label, target = m.groups()
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return m.group(0)
        path, _, anchor = target.partition("#")
        resolved = (source_dir / path).resolve()
        if resolved in pages:
            return f"{bang}[{label}]({pages[resolved]}{'#' + anchor if anchor else ''})"
        try:
            shown = resolved.relative_to(ROOT).as_posix()
        except ValueError:
            shown = path
        return f"{label} (`{shown}` in the repository)" if label and label != shown else f"`{shown}`"

    return LINK.sub(repl, text)


def generate_vignettes() -> list[str]:
    out = DOCS / "vignettes"
    names = []
    for src in sorted((ROOT / "vignettes").glob("*.md")):
        note = (
            f"*This tutorial is `vignettes/{src.name}` of the repository. Its code runs in the test "
            "suite (`tests/test_vignettes.py`), which checks that every printed output below is "
            "what the code prints today.*\n"
        )
        text = _rewrite_links(src.read_text(encoding="utf-8"), src.parent, _page_map("vignettes"))
        _write(out / src.name, _after_title(text, note))
        names.append(src.name)
    _prune(out, set(names))
    return names


def _page_map(here: str) -> dict[Path, str]:
    """Repository files rendered as pages, and the link to each from a page in folder ``here``."""
    pages: dict[Path, str] = {}
    for src in (ROOT / "vignettes").glob("*.md"):
        pages[src.resolve()] = (src.name if here == "vignettes" else f"../vignettes/{src.name}")
    for src in (ROOT / "reports").glob("*/README.md"):
        name = src.parent.name + ".md"
        pages[src.resolve()] = (name if here == "papers" else f"../papers/{name}")
        pages[src.parent.resolve()] = pages[src.resolve()]
    for src in (DOCS).glob("*.md"):
        pages[src.resolve()] = f"../{src.name}"
    return pages


def generate_papers() -> list[str]:
    out = DOCS / "papers"
    names = []
    for src in sorted((ROOT / "reports").glob("*/README.md")):
        name = src.parent.name + ".md"
        note = (
            f"*This page is `reports/{src.parent.name}/README.md` of the repository; the data, "
            "tables and HTML reports it mentions are in that folder.*\n"
        )
        text = _rewrite_links(src.read_text(encoding="utf-8"), src.parent, _page_map("papers"))
        _write(out / name, _after_title(text, note))
        names.append(name)
    _prune(out, set(names))
    return names


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def cli_markdown() -> str:
    """The help of ``evstat`` and of each subcommand, as Markdown sections."""
    from evstat import cli

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_COLUMNS
    try:
        parser = cli._build_parser()
        parts = ["## `evstat`\n", "```text\n" + parser.format_help().rstrip() + "\n```\n"]
        # The parser builds the full parser of the command it is asked for only (the others are
        # listed with their one-line help, so that `evstat --help` stays fast).
        for name in _subcommands(parser):
            sub = _subcommands(cli._build_parser(name))[name]
            parts.append(f"## `evstat {name}`\n")
            parts.append("```text\n" + sub.format_help().rstrip() + "\n```\n")
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    return "\n".join(parts)


def generate_cli() -> None:
    _write(DOCS / "_generated" / "cli.md", cli_markdown())


#: Modules whose page holds an object's documentation when several modules export it (the
#: subpackage that defines it first; the top-level ``evstat`` namespace last).
OWNER_ORDER = (
    "evstat.results", "evstat.calibration", "evstat.multiclass", "evstat.classifiers", "evstat.results",
    "evstat.belief", "evstat.likelihood", "evstat.formula", "evstat.metrics", "evstat.datasets",
)
GROUPS = ("Functions", "Classes", "Constants", "Modules")


def _submodules(package: str) -> list[str]:
    """The modules and subpackages of ``package`` whose names do not start with an underscore."""
    mod = importlib.import_module(package)
    return sorted(f"{package}.{m.name}" for m in pkgutil.iter_modules(mod.__path__) if not m.name.startswith("_"))


def public_modules() -> list[str]:
    """``evstat``, its public modules and subpackages, and the public modules of a subpackage
    without ``__all__`` (``evstat.io``: its names live in ``evstat.io.atomic``, ...)."""
    out = ["evstat"]
    todo = _submodules("evstat")
    while todo:
        name = todo.pop(0)
        out.append(name)
        mod = importlib.import_module(name)
        if not hasattr(mod, "__all__") and hasattr(mod, "__path__"):
            todo[:0] = _submodules(name)
    return out


def _group(obj: Any) -> str:
    if isinstance(obj, types.ModuleType):
        return "Modules"
    if inspect.isclass(obj):
        return "Classes"
    if callable(obj):
        return "Functions"
    return "Constants"


def api_pages() -> dict[str, str]:
    """The reStructuredText of every API page, by module name."""
    modules = public_modules()
    order = ([m for m in OWNER_ORDER if m in modules]
             + [m for m in modules if m not in OWNER_ORDER and m != "evstat"] + ["evstat"])
    owner: dict[int, str] = {}
    for name in order:
        mod = importlib.import_module(name)
        for n in getattr(mod, "__all__", []):
            obj = getattr(mod, n)
            if _group(obj) in ("Functions", "Classes"):
                owner.setdefault(id(obj), f"{name}.{n}")
    pages = {}
    for name in modules:
        mod = importlib.import_module(name)
        title = f"``{name}``"
        lines = [title, "=" * len(title), "", f".. automodule:: {name}", "   :no-members:", "",
                 f".. currentmodule:: {name}", ""]
        if hasattr(mod, "__all__"):
            names = [n for n in mod.__all__ if n != "__version__"]
            objects = {n: getattr(mod, n) for n in names}
        else:  # a package whose public names are in its modules
            objects = {m.rsplit(".", 1)[1]: importlib.import_module(m) for m in modules
                       if m.rsplit(".", 1)[0] == name}
            names = list(objects)
        for group in GROUPS:
            here, elsewhere = [], []
            for n in names:
                obj = objects[n]
                if _group(obj) != group:
                    continue
                home = owner.get(id(obj), f"{name}.{n}")
                if group == "Modules":
                    elsewhere.append(f"~{obj.__name__}")
                elif home == f"{name}.{n}":
                    here.append(n)
                else:
                    elsewhere.append(f"~{home}")
            if not here and not elsewhere:
                continue
            lines += [group, "-" * len(group), ""]
            if here:
                lines += [".. autosummary::", "   :toctree: generated/", ""] + [f"   {n}" for n in here] + [""]
            if elsewhere:  # full names, outside the current module (autosummary asks for that)
                lines += [".. currentmodule:: None", "", ".. autosummary::", ""]
                lines += [f"   {n}" for n in elsewhere] + ["", f".. currentmodule:: {name}", ""]
        pages[name] = "\n".join(lines)
    return pages


#: plumbing that evstat's own subpackages share (atomic writes, forked calls, worker pools, lazy
#: imports, deferred computations): public across evstat's packages, not part of the user's API,
#: so their pages sit under the reference's "Internals" heading (docs/api/internals/)
INTERNAL_MODULES = ("evstat.io.atomic", "evstat.io.forked", "evstat.io.workers", "evstat.lazy", "evstat.deferred")


def api_page_path(name: str) -> str:
    """The API page of module ``name``, relative to docs/api/ (internals in their own folder)."""
    short = name.removeprefix("evstat.") if name != "evstat" else "evstat"
    return f"internals/{short}.rst" if name in INTERNAL_MODULES else f"{short}.rst"


def generate_api() -> list[str]:
    """Write the API pages; returns their paths relative to docs/."""
    pages = api_pages()
    for name, text in pages.items():
        _write(DOCS / "api" / api_page_path(name), text)
    keep = {api_page_path(n) for n in pages}
    for p in [*(DOCS / "api").glob("*.rst"), *(DOCS / "api" / "internals").glob("*.rst")]:
        if p.relative_to(DOCS / "api").as_posix() not in keep:
            p.unlink()
    return sorted(f"api/{k}" for k in keep)


def _skip_member(app: Any, what: str, name: str, obj: Any, skip: bool, options: Any) -> bool | None:
    """scikit-learn's generated ``set_<method>_request`` methods are not evstat's to document."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def _config_inited(app: Any, config: Any) -> None:
    # autosummary writes the pages of single objects from the tables of these files (by
    # default it scans the documents of the previous build, which misses a new module's page).
    config.autosummary_generate = generate_api()
    generate_vignettes()
    generate_papers()
    generate_cli()


def setup(app: Any) -> dict[str, Any]:
    # Before Sphinx lists the source files and autosummary (builder-inited) reads the API pages.
    app.connect("config-inited", _config_inited)
    app.connect("autodoc-skip-member", _skip_member)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
