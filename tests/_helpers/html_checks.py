"""Accessibility basics and self-containment of an HTML page, with the standard library's
parser: used by tests/test_report.py and tests/test_report_browser.py."""

from __future__ import annotations

import re
from html.parser import HTMLParser


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lang = None
        self.charset = False
        self.headings = []
        self.tables = []  # per table: [has caption, th count, th with scope]
        self.graphics = []  # (tag, has label) for svg / img
        self.urls = []
        self._svg = None
        self._title_in_svg = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("href", "src", "action", "xlink:href", "poster", "data"):
            if a.get(key):
                self.urls.append(a[key])
        if tag == "html":
            self.lang = a.get("lang")
        elif tag == "meta" and (a.get("charset") or "").lower() == "utf-8":
            self.charset = True
        elif re.fullmatch(r"h[1-6]", tag):
            self.headings.append(int(tag[1]))
        elif tag == "table":
            self.tables.append([False, 0, 0])
        elif tag == "caption" and self.tables:
            self.tables[-1][0] = True
        elif tag == "th" and self.tables:
            self.tables[-1][1] += 1
            self.tables[-1][2] += a.get("scope") in ("col", "row")
        elif tag == "img":
            self.graphics.append(("img", bool(a.get("alt"))))
        elif tag == "svg" and self._svg is None:
            self._svg = bool(a.get("aria-label")) and a.get("role") == "img"
            self._title_in_svg = False
        elif tag == "title" and self._svg is not None:
            self._title_in_svg = True

    def handle_endtag(self, tag):
        if tag == "svg" and self._svg is not None:
            self.graphics.append(("svg", self._svg and self._title_in_svg))
            self._svg = None


def accessibility_problems(page: str) -> list:
    """What a page lacks among: a lang attribute, a UTF-8 charset, exactly one h1, heading
    levels that never skip one, tables with a caption and scoped header cells, figures
    (svg / img) with a text alternative."""
    p = _Page()
    p.feed(page)
    problems = []
    if not p.lang:
        problems.append("no lang attribute on <html>")
    if not p.charset:
        problems.append("no <meta charset='utf-8'>")
    if p.headings.count(1) != 1 or (p.headings and p.headings[0] != 1):
        problems.append(f"expected one h1 first, got levels {p.headings[:5]}...")
    for a, b in zip(p.headings, p.headings[1:]):
        if b > a + 1:
            problems.append(f"heading level skips from h{a} to h{b}")
    for i, (caption, th, scoped) in enumerate(p.tables):
        if not caption:
            problems.append(f"table {i} has no caption")
        if not th or scoped != th:
            problems.append(f"table {i}: {th} header cells, {scoped} with scope")
    for i, (tag, labelled) in enumerate(p.graphics):
        if not labelled:
            problems.append(f"{tag} {i} has no text alternative")
    return problems


def external_urls(page: str) -> list:
    """Every URL of the page that is not inline (data:) or a fragment, plus any http(s)://
    text anywhere (a CSS url(), an xmlns)."""
    p = _Page()
    p.feed(page)
    out = [u for u in p.urls if not u.startswith(("data:", "#"))]
    out += re.findall(r"(?:https?|ftp)://[^\s\"'<>)]+", page)
    out += re.findall(r"url\(\s*['\"]?(?!data:)[^)]+\)", page)
    out += re.findall(r"@import", page)
    return out


def count_graphics(page: str) -> int:
    p = _Page()
    p.feed(page)
    return len(p.graphics)
