"""The documentation site (docs/), checked without building it.

The full build (``sphinx-build -W``, warnings as errors) runs in ``.ci/run``; it takes minutes.
These tests take seconds and check what a build cannot: that the API reference lists every
public name, that the code of the user guide runs and prints what the pages show, and the small
promises of the README and the command line (issue 27).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import pkgutil
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

import evstat

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: A ```python block and the ```text block under it (the vignettes' convention).
PATTERN = re.compile(r"```python\n(.*?)```\n(?:\n?```text\n(.*?)```\n)?", re.S)


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def ext() -> ModuleType:
    """The site's local Sphinx extension (importable without Sphinx)."""
    return _load(DOCS / "_ext" / "evstat_docs.py", "evstat_docs")


def _public_modules() -> list[str]:
    """evstat, its public modules, and those of a public subpackage that has no ``__all__``."""
    out, todo = [], ["evstat"]
    while todo:
        name = todo.pop()
        out.append(name)
        mod = importlib.import_module(name)
        if name == "evstat" or (hasattr(mod, "__path__") and not hasattr(mod, "__all__")):
            todo += [f"{name}.{m.name}" for m in pkgutil.iter_modules(mod.__path__) if not m.name.startswith("_")]
    return sorted(out)


def _entries(rst: str) -> list[str]:
    """The entries of the autosummary tables of an API page."""
    out, inside = [], False
    for line in rst.splitlines():
        if line.startswith(".. autosummary::"):
            inside = True
        elif inside and line.startswith("   ") and not line.strip().startswith(":"):
            out.append(line.strip())
        elif inside and line and not line.startswith(" "):
            inside = False
    return out


# -- API reference ----------------------------------------------------------------------------


def test_every_public_name_is_in_the_reference(ext: ModuleType) -> None:
    pages = ext.api_pages()
    modules = _public_modules()
    assert set(pages) == set(modules), f"API pages missing for {sorted(set(modules) - set(pages))}"
    missing = []
    for name in modules:
        mod = importlib.import_module(name)
        public = getattr(mod, "__all__", None)
        if public is None:  # a package of modules: each public module is listed
            assert hasattr(mod, "__path__"), f"{name} has no __all__"
            public = [m.rsplit(".", 1)[1] for m in modules if m.rsplit(".", 1)[0] == name]
        entries = _entries(pages[name])
        shown = {e.removeprefix("~").rsplit(".", 1)[-1]: e.removeprefix("~") for e in entries}
        for n in public or []:
            if n == "__version__":
                continue
            if n not in shown:
                missing.append(f"{name}.{n}")
                continue
            target = shown[n]
            home, _, attr = target.rpartition(".")
            obj = getattr(importlib.import_module(home), attr) if home else getattr(mod, n)
            expected = getattr(mod, n) if hasattr(mod, n) else importlib.import_module(f"{name}.{n}")
            if home and obj is not expected:
                missing.append(f"{name}.{n} links to {target}, a different object")
    assert not missing, f"public names without an entry in the API reference: {missing}"


def test_reference_documents_each_object_once(ext: ModuleType) -> None:
    """An object exported by several modules gets one page (a second one would be a duplicate
    object description, an error under -W); the others link to it."""
    pages = ext.api_pages()
    with_page: dict[int, str] = {}
    for name, rst in pages.items():
        blocks = re.findall(r"\.\. autosummary::\n   :toctree: generated/\n\n((?:   \S+\n)+)", rst + "\n")
        mod = importlib.import_module(name)
        for block in blocks:
            for n in block.split():
                obj = getattr(mod, n)
                if callable(obj):
                    assert id(obj) not in with_page, f"{name}.{n} and {with_page[id(obj)]} both have a page"
                    with_page[id(obj)] = f"{name}.{n}"
    assert "evstat.calibration.evlogit" in with_page.values()
    assert "evstat.evlogit" not in with_page.values()


def test_entries_parser_reads_both_tables() -> None:
    rst = ".. autosummary::\n   :toctree: generated/\n\n   a\n   b\n\n.. autosummary::\n\n   ~x.y.c\n\nText\n   d\n"
    assert _entries(rst) == ["a", "b", "~x.y.c"]


# -- tidy namespaces ----------------------------------------------------------------------------


def test_dir_evstat_is_its_public_names() -> None:
    """``dir(evstat)``: ``__all__`` and the subpackages, nothing of the file's own machinery
    (``annotations`` of ``from __future__``, ``TYPE_CHECKING``, ...)."""
    public = {n for n in dir(evstat) if not n.startswith("_")}
    modules = {m.name for m in pkgutil.iter_modules(evstat.__path__) if not m.name.startswith("_")}
    assert public == {n for n in evstat.__all__ if not n.startswith("_")} | modules
    assert "annotations" not in dir(evstat) and "TYPE_CHECKING" not in dir(evstat)
    for name in evstat.__all__:
        assert hasattr(evstat, name), name


def _subpackages() -> list[str]:
    """evstat's public subpackages, found on disk: parametrizing by :func:`_public_modules` would
    import every module of evstat (and scikit-learn with evstat.sklearn) at collection (issue 26;
    ``test_subpackages_are_the_public_packages`` checks that the two agree)."""
    return sorted(f"evstat.{m.name}" for m in pkgutil.iter_modules(evstat.__path__) if m.ispkg and not m.name.startswith("_"))


def test_subpackages_are_the_public_packages() -> None:
    assert _subpackages() == [m for m in _public_modules() if m != "evstat" and hasattr(importlib.import_module(m), "__path__")]
    assert "evstat.report" in _subpackages()


@pytest.mark.parametrize("name", _subpackages())
def test_no_future_annotations_in_subpackage_namespace(name: str) -> None:
    """``from __future__ import annotations`` binds the name ``annotations`` in the module: the
    packages' ``__init__`` files do without it, so it does not show in ``dir()``."""
    mod = importlib.import_module(name)
    assert "annotations" not in dir(mod)
    assert "annotations" not in getattr(mod, "__all__", [])
    for n in getattr(mod, "__all__", []):
        assert hasattr(mod, n), f"{name}.__all__ names {n!r}, which it does not define"


# -- small promises ---------------------------------------------------------------------------


def test_datasets_list_is_names() -> None:
    assert evstat.datasets.list() == evstat.datasets.names()
    assert "sonar_scores" in evstat.datasets.list()
    assert "list" in evstat.datasets.__all__
    assert evstat.datasets.list.__doc__ and "names" in evstat.datasets.list.__doc__
    assert list((1, 2)) == [1, 2]  # the builtin is untouched outside evstat.datasets


def _subcommands() -> dict[str, object]:
    import argparse

    from evstat import cli

    def subs(parser: argparse.ArgumentParser) -> dict[str, object]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                return dict(action.choices)
        raise AssertionError("evstat has no subcommands")

    # each command's full parser (evstat builds only the parser of the command being run)
    return {name: subs(cli._build_parser(name))[name] for name in subs(cli._build_parser())}


def test_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    from evstat import cli

    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    subs = _subcommands()
    assert {"report", "reproduce", "query", "predict"} <= set(subs)
    listing, _, epilog = out.partition("options:")
    for name in subs:
        assert re.search(rf"^\s+{name}\b", listing, re.M), f"'evstat --help' does not list {name}"
        assert f"'evstat {name} --help'" in " ".join(epilog.split()), f"the epilog does not point to {name}"
    assert cli.main([]) == 2
    assert "choose a command: report, reproduce, query or predict" in capsys.readouterr().err


def test_readme_lists_every_vignette() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"\(vignettes/([^)#]+\.md)\)", readme))
    shipped = {p.name for p in (ROOT / "vignettes").glob("*.md")}
    assert shipped == listed, f"README lists {sorted(listed - shipped)} extra, misses {sorted(shipped - listed)}"


def test_readme_states_the_docs_build() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = 'sphinx-build -W --keep-going -b html docs docs/_build/html'
    assert command in readme
    assert command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r'^docs = \[', (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M)


# -- generated pages --------------------------------------------------------------------------


def test_cli_page_has_every_subcommand_and_option(ext: ModuleType) -> None:
    text = ext.cli_markdown()
    for name, sub in _subcommands().items():
        assert f"## `evstat {name}`" in text
        section = text.split(f"## `evstat {name}`", 1)[1].split("\n## ", 1)[0]
        for action in sub._actions:  # type: ignore[attr-defined]
            for opt in action.option_strings:
                assert opt in section, f"evstat {name} {opt} missing from the command-line page"


def test_vignettes_and_papers_become_pages(ext: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ext, "DOCS", tmp_path)
    vignettes = ext.generate_vignettes()
    papers = ext.generate_papers()
    assert vignettes == sorted(p.name for p in (ROOT / "vignettes").glob("*.md"))
    assert papers == sorted(p.parent.name + ".md" for p in (ROOT / "reports").glob("*/README.md"))
    for page in [tmp_path / "vignettes" / v for v in vignettes] + [tmp_path / "papers" / p for p in papers]:
        text = page.read_text(encoding="utf-8")
        assert text.startswith("# "), page.name
        for target in re.findall(r"\]\(([^)\s]+)\)", text):  # links left are web or site pages
            if not re.match(r"^[a-z]+:|#", target):
                assert (page.parent / target.partition("#")[0]).resolve().name.endswith(".md"), (page.name, target)


def test_link_rewriting(ext: ModuleType) -> None:
    src = ROOT / "reports" / "examples"
    pages = {(ROOT / "vignettes" / "01-evlogit-sonar.md").resolve(): "../vignettes/01-evlogit-sonar.md"}
    text = "[a](sonar.html) [b](../../vignettes/01-evlogit-sonar.md#x) [c](https://x.org) ![d](fig.png)"
    out = ext._rewrite_links(text, src, pages)
    assert out == ("a (`reports/examples/sonar.html` in the repository) [b](../vignettes/01-evlogit-sonar.md#x) "
                   "[c](https://x.org) d (`reports/examples/fig.png` in the repository)")


# -- the code of the guide runs ---------------------------------------------------------------

#: Hand-written pages whose ```python blocks run (each page in one namespace, in a temporary
#: folder) and whose ```text blocks under them are what the code prints. Code that should not
#: run (a shell command, a fragment) goes in a ```text or ```console block.
GUIDE_PAGES = sorted([DOCS / "index.md", *DOCS.glob("*.md"), *(DOCS / "guide").glob("*.md")])
GUIDE_PAGES = sorted(set(GUIDE_PAGES))


def _compare_output() -> object:
    return _load(ROOT / "tests" / "test_vignettes.py", "_evstat_test_vignettes").compare_output


@pytest.mark.slow
@pytest.mark.parametrize("path", GUIDE_PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_guide_code_runs_and_prints_what_the_page_shows(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    compare = _compare_output()
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for i, m in enumerate(PATTERN.finditer(path.read_text(encoding="utf-8"))):
        code, text = m.group(1), m.group(2)
        where = f"{path.relative_to(DOCS)} block {i + 1}"
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                exec(compile(code, where, "exec"), namespace)
        finally:
            plt.close("all")
        compare(buf.getvalue(), text or "", where)  # type: ignore[operator]


def test_guide_toctree_globs_new_pages() -> None:
    """Engineers drop pages into docs/guide/: the guide's toctree must list them without an edit."""
    index = (DOCS / "guide" / "index.md").read_text(encoding="utf-8")
    toctree = index.split("```{toctree}", 1)[1].split("```", 1)[0]
    assert ":glob:" in toctree and re.search(r"^\*$", toctree, re.M)
    explicit = [line for line in toctree.splitlines() if line and not line.startswith(":") and line != "*"]
    for name in explicit:
        assert (DOCS / "guide" / f"{name}.md").exists(), name
    # at least one page is left for the glob (an empty glob is a warning, an error under -W)
    assert {p.stem for p in (DOCS / "guide").glob("*.md")} - set(explicit) - {"index"}


# -- what a reader meets (issue 39 item 5) ---------------------------------------------------------


def test_plumbing_modules_are_under_internals(ext: ModuleType) -> None:
    """io.atomic, io.forked, io.workers, lazy and deferred have their pages in docs/api/internals/,
    under the reference's "Internals" heading, not among the user's modules."""
    assert set(ext.INTERNAL_MODULES) == {"evstat.io.atomic", "evstat.io.forked", "evstat.io.workers",
                                         "evstat.lazy", "evstat.deferred"}
    for name in ext.public_modules():
        path = ext.api_page_path(name)
        assert path.startswith("internals/") == (name in ext.INTERNAL_MODULES), (name, path)
    index = (DOCS / "api" / "index.md").read_text(encoding="utf-8")
    assert "## Internals" in index and "internals/*" in index


def test_install_and_mathematics_need_no_index_or_network() -> None:
    """The index installs from a checkout as the README does; MathJax is served from the site
    itself (the sphinx-mathjax-offline package of the docs extra), so formulas render offline."""
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    assert "pip install ." in index and "Install with `pip install evstat`" not in index
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert "sphinx-mathjax-offline" in conf and 'mathjax_path = "mathjax/tex-chtml.js"' in conf
    assert "sphinx-mathjax-offline" in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    css = (DOCS / "_static" / "evstat.css").read_text(encoding="utf-8")
    assert "pre-wrap" in css and "evstat.css" in conf


def test_the_scikit_learn_wrapper_is_documented_for_k_classes() -> None:
    from evstat.sklearn import EvidentialCalibratedClassifierCV

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(x for x in readme.splitlines() if "EvidentialCalibratedClassifierCV" in x and "`evstat.sklearn`" in x)
    assert "binary" not in line and "K classes" in line
    doc = EvidentialCalibratedClassifierCV.decision_function.__doc__ or ""
    assert "Two classes only" in doc and "K > 2" in doc
    assert "K classes" in (EvidentialCalibratedClassifierCV.__doc__ or "")
