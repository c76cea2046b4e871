"""Sphinx configuration of the evstat documentation site.

Build (offline, warnings as errors), from the repository root::

    pip install ".[docs]"
    sphinx-build -W --keep-going -b html docs docs/_build/html

Choices (docs/developers/docs.md says why): pydata-sphinx-theme, numpydoc for the NumPy-style
docstrings, myst-parser for the Markdown pages, autosummary for the API reference, and the local
extension ``_ext/evstat_docs.py`` that renders the vignettes, the reproductions and the
command-line help at build time. Nothing is fetched from the network while building, nor while
reading the site: MathJax comes from the sphinx-mathjax-offline package into ``_static/mathjax``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))
# The checkout's evstat when building from a source tree without installing it (the installed
# copy is used otherwise: CI installs the checkout, so both are the same code).
if os.environ.get("EVSTAT_DOCS_USE_CHECKOUT", "1") == "1":
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")

import evstat  # noqa: E402

project = "evstat"
author = "evstat developers"
copyright = "2026, evstat developers"
release = evstat.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # MathJax 3 bundled in a PyPI package and copied into _static/mathjax: the formulas render
    # offline, with no CDN (issue 39 item 5)
    "sphinx-mathjax-offline",
    "numpydoc",
    "myst_parser",
    "evstat_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_generated", "README.md", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

# -- autodoc / autosummary / numpydoc ---------------------------------------------------------
autosummary_generate = True  # the API pages; docs/_ext/evstat_docs.py lists them
autosummary_imported_members = True
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # the numpydoc Parameters sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# -- MyST --------------------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
# Vignettes and the reproductions' READMEs are written for GitHub, where a page may go from
# its title (#) straight to ### headings.
suppress_warnings = ["myst.header"]

# -- HTML --------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"evstat {release}"
html_static_path = ["_static"]
# code blocks wrap inside the column (docs/_static/evstat.css)
html_css_files = ["evstat.css"]
# the local MathJax copied by sphinx-mathjax-offline (relative to _static); no network at view time
mathjax_path = "mathjax/tex-chtml.js"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 8,
}
html_sidebars = {"index": []}
html_last_updated_fmt = None
