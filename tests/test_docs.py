"""The documentation works: the tutorial runs, the docstring examples run, every relative link and anchor
of README.md and docs/ resolves, every "SPEC n" citation names a section of docs/math.md, and nothing
depends on a file outside the repository.  (The site build itself, `mkdocs build --strict`, is in .ci/run.)"""
import doctest
import importlib
import os
import pkgutil
import re
from pathlib import Path

import pytest

import cogo

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md")) + [ROOT / "README.md"]


# --------------------------------------------------------------------------- tutorial
def python_blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(), re.S | re.M)


def test_tutorial_runs(tmp_path, monkeypatch):
    """Every ```python block of docs/tutorial.md, in order, in one namespace (the blocks assert their claims)."""
    import torch

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    threads = torch.get_num_threads()
    blocks = python_blocks(DOCS / "tutorial.md")
    assert len(blocks) >= 6
    ns: dict = {"__name__": "tutorial"}
    try:
        for i, block in enumerate(blocks):
            exec(compile(block, f"docs/tutorial.md block {i + 1}", "exec"), ns)
    finally:
        torch.set_num_threads(threads)
    assert sorted(p.name for p in Path(ns["work"]).glob("*.png"))[-1] == "curves.png"


# --------------------------------------------------------------------------- doctests
def _modules():
    for info in pkgutil.walk_packages(cogo.__path__, "cogo."):
        yield info.name


def _with_examples():
    out = []
    for name in _modules():
        path = ROOT / (name.replace(".", "/") + ".py")
        if not path.is_file():
            path = ROOT / name.replace(".", "/") / "__init__.py"
        if path.is_file() and ">>>" in path.read_text():
            out.append(name)
    return out


@pytest.mark.parametrize("name", _with_examples())
def test_docstring_examples_run(name):
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert res.attempted > 0
    assert res.failed == 0, f"{res.failed} of {res.attempted} examples in {name} failed (run python -m doctest -v)"


# --------------------------------------------------------------------------- links and anchors
def slug(heading: str) -> str:
    """The anchor of a Markdown heading, as Python-Markdown's toc (and, for these headings, GitHub) makes it."""
    text = re.sub(r"`|\*\*?|\$", "", heading).strip()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.S | re.M)
    return {slug(h) for h in re.findall(r"^#{1,6}\s+(.*?)\s*#*\s*$", text, re.M)}


def links(path: Path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans are not links
    text = re.sub(r"\$\$.*?\$\$|\$[^$\n]*\$", "", text, flags=re.S)  # nor is r[k1,k2,k](z) in a formula
    return re.findall(r"\]\(([^)\s]+)\)", text)


def test_slug_matches_known_anchors():
    assert slug("7.3 Order-4 blocks and one corrected order-6 block: z_F4/6") == \
        "73-order-4-blocks-and-one-corrected-order-6-block-z_f46"
    assert slug("`cogo experiment` and `cogo demo`") == "cogo-experiment-and-cogo-demo"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_and_anchors_resolve(page):
    bad = []
    for link in links(page):
        if re.match(r"^[a-z]+:", link):  # http(s), mailto: not checked (no internet in CI)
            continue
        target, _, anchor = link.partition("#")
        dest = (page.parent / target).resolve() if target else page
        if not dest.exists():
            bad.append(f"{link}: {target} does not exist")
            continue
        if ROOT not in dest.parents and dest != ROOT:
            bad.append(f"{link}: points outside the repository")
            continue
        if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{link}: no heading with anchor #{anchor} in {dest.relative_to(ROOT)}")
    assert not bad, f"{page.relative_to(ROOT)}: " + "; ".join(bad)


def test_nothing_depends_on_files_outside_the_repository():
    offenders = []
    for path in [*PAGES, *ROOT.joinpath("cogo").rglob("*.py"), ROOT / "pyproject.toml", ROOT / ".ci" / "run"]:
        if "../shared" in path.read_text() or "shared/SPEC" in path.read_text():
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders


# --------------------------------------------------------------------------- SPEC citations
def test_math_page_has_sections_1_to_9():
    heads = re.findall(r"^## (\d+)\. ", (DOCS / "math.md").read_text(), re.M)
    assert heads == [str(i) for i in range(1, 10)]


def test_every_spec_citation_names_a_section_of_the_math_page():
    text = (DOCS / "math.md").read_text()
    sections = set(re.findall(r"^##+ (\d+(?:\.\d+)?)\.? ", text, re.M))
    cited = {}
    files = [*ROOT.joinpath("cogo").rglob("*.py"), *PAGES]
    for path in files:
        for m in re.finditer(r"SPEC (\d+(?:\.\d+)?)(?:\s*-\s*(\d+))?", path.read_text()):
            lo = m.group(1)
            nums = [lo]
            if m.group(2) and "." not in lo:
                nums = [str(i) for i in range(int(lo), int(m.group(2)) + 1)]
            for n in nums:
                cited.setdefault(n, str(path.relative_to(ROOT)))
    missing = {n: where for n, where in cited.items() if n not in sections}
    assert not missing, f"cited but not a section of docs/math.md: {missing}"
    assert {"1", "5", "7.3", "8.4"} <= set(cited)  # the check sees the citations


def test_every_module_has_an_api_page():
    """A new module must be added to one of docs/api/*.md (mkdocstrings `::: module`), so the site documents it.

    A command module (``cogo/commands/<name>.py``, found by the command registry) is documented where users read
    about commands, docs/cli.md (:func:`test_every_command_is_documented`); the API page may list it too.
    """
    documented = set()
    for page in (DOCS / "api").glob("*.md"):
        documented |= set(re.findall(r"^::: ([\w.]+)\s*$", page.read_text(), re.M))
    modules = {m for m in _modules() if not m.rsplit(".", 1)[-1].startswith("_") and m.count(".") >= 1}
    packages = {m for m in modules if (ROOT / m.replace(".", "/")).is_dir()}  # documented through their modules
    commands = {m for m in modules if m.count(".") == 2 and m.startswith("cogo.commands.")} - packages
    assert not (modules - packages - commands - documented), sorted(modules - packages - commands - documented)
    assert not (documented - modules), sorted(documented - modules)


def command_names_in_cli_page(text: str) -> set[str]:
    """Every ``cogo <name>`` that docs/cli.md gives a section or a line of its "on their topic pages" list."""
    heads = set(re.findall(r"^## `cogo ([a-z0-9-]+)`(?: and `cogo ([a-z0-9-]+)`)?", text, re.M))
    listed = set(re.findall(r"^- `cogo ([a-z0-9-]+)`", text, re.M))
    return {n for pair in heads for n in pair if n} | listed


def test_every_command_is_documented():
    """Each command of the registry has its section in docs/cli.md: adding a command is its module and that page."""
    from cogo import commands

    text = (DOCS / "cli.md").read_text()
    assert command_names_in_cli_page("## `cogo a` and `cogo b`\n- `cogo c`: x\n") == {"a", "b", "c"}
    assert not set(commands.names()) - command_names_in_cli_page(text), sorted(set(commands.names())
                                                                             - command_names_in_cli_page(text))
