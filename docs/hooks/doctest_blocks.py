"""mkdocs hook: show docstring examples (``>>>`` lines and their output) as Python console code blocks.

Docstrings write examples as plain doctest blocks (they run in CI, tests/test_docs.py); Markdown would
read them as paragraphs, and their output (``[(2, 6, 'generic')]``) as link references.  This adds a
Markdown preprocessor, to the pages and to mkdocstrings alike, that fences every such block as ``pycon``.
"""
from __future__ import annotations

import re

from markdown import Extension
from markdown.preprocessors import Preprocessor

_FENCE = re.compile(r"^\s*(```|~~~)")


class _DoctestFence(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        in_fence = False
        i = 0
        while i < len(lines):
            line = lines[i]
            if _FENCE.match(line):
                in_fence = not in_fence
            if not in_fence and line.lstrip().startswith(">>>"):
                indent = line[: len(line) - len(line.lstrip())]
                block = []
                while i < len(lines) and lines[i].strip() and lines[i].startswith(indent):
                    block.append(lines[i][len(indent):])
                    i += 1
                out += ["", indent + "```pycon", *[indent + b for b in block], indent + "```", ""]
                continue
            out.append(line)
            i += 1
        return out


class DoctestFenceExtension(Extension):
    def extendMarkdown(self, md):  # noqa: N802 (Markdown's API)
        md.preprocessors.register(_DoctestFence(md), "cogo_doctest_fence", 40)  # before fenced code (25)


def on_config(config, **kwargs):
    config.markdown_extensions.append(DoctestFenceExtension())
    return config
