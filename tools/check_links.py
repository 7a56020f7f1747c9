"""Check the relative links of the documentation: README.md and docs/*.md.

Every Markdown link (``[text](target)``, ``![alt](target)``, ``[text]: target``) whose target
is not a URL must name a file or folder that exists (relative to the page), and a ``#anchor``
into a Markdown page must be one of that page's headings (as GitHub makes them:
lowercase, punctuation dropped, spaces as hyphens, ``-1``, ``-2`` for repeats) or an
``<a id="...">`` / ``<a name="...">`` in it. Links inside code (fenced blocks, inline code
spans) are not links.

Usage (from anywhere; CI runs it, and ``tests/test_check_links.py`` runs it in the tests)::

    python tools/check_links.py          # exit 1 and one line per broken link, or "OK"

"""

from __future__ import annotations

import pathlib
import re
import sys
import unicodedata

ROOT = pathlib.Path(__file__).resolve().parents[1]
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?([^\s<>()]+)>?(?:\s+[\"'(].*)?$")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_HTML_ANCHOR = re.compile(r"<a\s+[^>]*(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
_EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, ...


def pages(root: pathlib.Path = ROOT) -> list[pathlib.Path]:
    """The pages checked: README.md and every docs/*.md."""
    found = [root / "README.md"] if (root / "README.md").exists() else []
    return found + sorted((root / "docs").glob("*.md"))


def _prose(text: str, code: bool = False):
    """``(line number, line)`` of the lines outside fenced code blocks, inline code removed
    (kept with ``code=True``)."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1) == fence:
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        yield number, line if code else _CODE_SPAN.sub("", line)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: markup and punctuation dropped, lowercase, spaces as
    hyphens (letters of any script, digits, ``-`` and ``_`` kept).

    >>> slug("Why was this row changed? `out.anon.explain(df)`")
    'why-was-this-row-changed-outanonexplaindf'
    >>> slug("Attribute disclosure: β-likeness, δ-disclosure, (α,k)-anonymity")
    'attribute-disclosure-β-likeness-δ-disclosure-αk-anonymity'
    """
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    kept = [c for c in text if c in "-_ " or unicodedata.category(c)[0] in "LNM"]
    return "".join(kept).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor a page offers: its headings' slugs (repeats numbered) and HTML ids."""
    found, seen = set(), {}
    for _, line in _prose(text, code=True):
        heading = _HEADING.match(line)
        if heading:
            base = slug(heading.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        found.update(_HTML_ANCHOR.findall(line))
    return found


def links(text: str):
    """``(line number, target)`` of every link of a page outside code."""
    for number, line in _prose(text):
        for target in _INLINE.findall(line):
            yield number, target
        reference = _REFERENCE.match(line)
        if reference:
            yield number, reference.group(1)


def broken(page: pathlib.Path, root: pathlib.Path = ROOT, cache: dict | None = None) -> list:
    """``(page, line, target, why)`` of each broken relative link of ``page``."""
    cache = {} if cache is None else cache
    out = []
    text = page.read_text(encoding="utf-8")
    for number, target in links(text):
        if not target or _EXTERNAL.match(target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page.resolve()
        where = page.relative_to(root) if page.is_relative_to(root) else page
        if path and not dest.exists():
            out.append((where, number, target, "no such file"))
            continue
        if anchor and dest.suffix == ".md":
            if dest not in cache:
                cache[dest] = anchors(dest.read_text(encoding="utf-8"))
            if anchor not in cache[dest]:
                out.append((where, number, target, f"no heading #{anchor} in {dest.name}"))
    return out


def main(argv=None) -> int:
    root = pathlib.Path(argv[0]).resolve() if argv else ROOT
    cache: dict = {}
    problems = [p for page in pages(root) for p in broken(page, root, cache)]
    for where, number, target, why in problems:
        print(f"{where}:{number}: ({target}) {why}")
    print("OK" if not problems else f"{len(problems)} broken link(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
