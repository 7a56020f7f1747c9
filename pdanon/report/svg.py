"""Small, accessible SVG charts for the release report (no matplotlib, no JavaScript).

Each function returns the text of one inline ``<svg>`` element with ``role="img"``, an
``aria-label`` and a ``<title>`` (what a screen reader announces), so the report is one
self-contained HTML file. No ``xmlns`` or other URL is written: inside HTML the parser puts
``<svg>`` in the SVG namespace itself. Every text is escaped.

Example
-------
>>> svg = bar_chart(["1", "2"], [3, 1], title="Classes by size", x_label="size",
...                 y_label="classes")
>>> svg.startswith('<svg role="img" aria-label="Classes by size"')
True
>>> "<title>Classes by size</title>" in svg
True
"""

from __future__ import annotations

import math
from html import escape
from typing import Sequence

__all__ = ["bar_chart", "hbar_chart", "line_chart", "pair_chart", "PALETTE"]

#: fill colours, chosen for contrast on white and for colour-blind readers
PALETTE = ("#1f5fa8", "#c0502b", "#4d8f3a", "#7a4d9c")
_FONT = 'font-family="sans-serif" font-size="12"'


def _num(v: float) -> str:
    """A coordinate with two decimals at most (stable text for deterministic output)."""
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _label(v: float) -> str:
    """A value as an axis or bar label."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if float(v).is_integer() and abs(v) < 1e15:
        return f"{int(v):,}"
    return f"{v:.3g}"


def _open(title: str, width: int, height: int) -> list:
    t = escape(title)
    return [f'<svg role="img" aria-label="{t}" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" {_FONT}>', f"<title>{t}</title>",
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>']


def _nice_top(values: Sequence[float]) -> float:
    finite = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    top = max(finite, default=0.0)
    if top <= 0:
        return 1.0
    mag = 10 ** math.floor(math.log10(top))
    for step in (1, 2, 2.5, 5, 10):
        if step * mag >= top:
            return step * mag
    return 10 * mag  # pragma: no cover - the loop always returns


def bar_chart(labels: Sequence[str], values: Sequence[float], *, title: str, x_label: str,
              y_label: str, width: int = 640, height: int = 300,
              color: str = PALETTE[0]) -> str:
    """Vertical bars, one per label, with the value written above each bar."""
    left, right, top, bottom = 60, 16, 16, 56
    plot_w, plot_h = width - left - right, height - top - bottom
    ymax = _nice_top(values)
    n = max(len(values), 1)
    slot = plot_w / n
    bar = max(slot * 0.7, 1.0)
    parts = _open(title, width, height)
    parts += _axes(left, top, plot_w, plot_h, ymax, x_label, y_label, width, height)
    for i, (lab, v) in enumerate(zip(labels, values)):
        v = 0.0 if v is None or not math.isfinite(float(v)) else float(v)
        h = plot_h * v / ymax
        x = left + i * slot + (slot - bar) / 2
        y = top + plot_h - h
        parts.append(f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(bar)}" '
                     f'height="{_num(h)}" fill="{color}"><title>{escape(str(lab))}: '
                     f'{escape(_label(v))}</title></rect>')
        cx = _num(x + bar / 2)
        if n <= 24:
            parts.append(f'<text x="{cx}" y="{_num(y - 3)}" text-anchor="middle">'
                         f'{escape(_label(v))}</text>')
        parts.append(f'<text x="{cx}" y="{_num(top + plot_h + 15)}" text-anchor="middle">'
                     f'{escape(str(lab))}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def pair_chart(labels: Sequence[str], before: Sequence[float], after: Sequence[float], *,
               title: str, y_label: str, width: int = 340, height: int = 220) -> str:
    """Two bars per label, *before* and *after*, with a legend; labels slanted when they
    would not fit under their bars. Small: several fit side by side on a page."""
    slant = max((len(str(lab)) for lab in labels), default=0) * 6.5 > (width - 64) / max(
        len(labels), 1)
    left, right, top = 66, 8, 26
    bottom = 84 if slant else 40
    plot_w, plot_h = width - left - right, height - top - bottom
    ymax = _nice_top(list(before) + list(after))
    n = max(len(labels), 1)
    slot = plot_w / n
    bar = max(slot * 0.38, 1.0)
    parts = _open(title, width, height)
    parts += _axes(left, top, plot_w, plot_h, ymax, "", y_label, width, height)
    for j, name in enumerate(("before", "after")):
        x = left + j * 90
        parts.append(f'<rect x="{x}" y="6" width="12" height="12" fill="{PALETTE[j]}"/>')
        parts.append(f'<text x="{x + 16}" y="16">{name}</text>')
    for i, lab in enumerate(labels):
        for j, (name, values) in enumerate((("before", before), ("after", after))):
            v = values[i]
            v = 0.0 if v is None or not math.isfinite(float(v)) else float(v)
            h = plot_h * v / ymax
            x = left + i * slot + slot * 0.12 + j * bar
            parts.append(f'<rect x="{_num(x)}" y="{_num(top + plot_h - h)}" '
                         f'width="{_num(bar)}" height="{_num(h)}" fill="{PALETTE[j]}">'
                         f'<title>{escape(str(lab))}, {name}: {escape(_label(v))}</title>'
                         f'</rect>')
        cx, cy = left + (i + 0.5) * slot, top + plot_h + 13
        if slant:
            parts.append(f'<text x="{_num(cx)}" y="{_num(cy)}" text-anchor="end" '
                         f'transform="rotate(-40 {_num(cx)} {_num(cy)})">'
                         f'{escape(str(lab))}</text>')
        else:
            parts.append(f'<text x="{_num(cx)}" y="{_num(cy)}" text-anchor="middle">'
                         f'{escape(str(lab))}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _axes(left, top, plot_w, plot_h, ymax, x_label, y_label, width, height) -> list:
    """The y axis with five gridlines, the x axis and both axis titles."""
    out = []
    for j in range(6):
        v = ymax * j / 5
        y = top + plot_h - plot_h * j / 5
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{_num(y)}" y2="{_num(y)}" '
                   f'stroke="#dddddd"/>')
        out.append(f'<text x="{left - 6}" y="{_num(y + 4)}" text-anchor="end">'
                   f'{escape(_label(v))}</text>')
    out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{top + plot_h}" '
               f'y2="{top + plot_h}" stroke="#333333"/>')
    out.append(f'<text x="{_num(left + plot_w / 2)}" y="{height - 8}" text-anchor="middle">'
               f'{escape(x_label)}</text>')
    out.append(f'<text x="14" y="{_num(top + plot_h / 2)}" text-anchor="middle" '
               f'transform="rotate(-90 14 {_num(top + plot_h / 2)})">{escape(y_label)}</text>')
    return out


def hbar_chart(labels: Sequence[str], series: dict, *, title: str, x_label: str,
               width: int = 640, maximum: float | None = None) -> str:
    """Horizontal grouped bars: one group per label, one bar per series
    (``{name: values}``), with a legend. ``maximum`` fixes the scale (e.g. 1 for shares)."""
    names = list(series)
    row_h = 14 * max(len(names), 1) + 10
    left = min(12 + 7 * max((len(str(lab)) for lab in labels), default=4), 220)
    top, bottom, right = 28, 40, 60
    height = top + bottom + row_h * max(len(labels), 1)
    plot_w = width - left - right
    xmax = maximum or _nice_top([v for s in series.values() for v in s])
    parts = _open(title, width, height)
    for j, name in enumerate(names):
        x = left + j * 170
        parts.append(f'<rect x="{x}" y="6" width="12" height="12" '
                     f'fill="{PALETTE[j % len(PALETTE)]}"/>')
        parts.append(f'<text x="{x + 16}" y="16">{escape(str(name))}</text>')
    for i, lab in enumerate(labels):
        y0 = top + i * row_h
        parts.append(f'<text x="{left - 6}" y="{_num(y0 + row_h / 2 + 2)}" '
                     f'text-anchor="end">{escape(str(lab))}</text>')
        for j, name in enumerate(names):
            v = series[name][i]
            v = 0.0 if v is None or not math.isfinite(float(v)) else float(v)
            w = plot_w * min(v / xmax, 1.0)
            y = y0 + 4 + j * 14
            parts.append(f'<rect x="{left}" y="{_num(y)}" width="{_num(w)}" height="12" '
                         f'fill="{PALETTE[j % len(PALETTE)]}"><title>{escape(str(lab))}, '
                         f'{escape(str(name))}: {escape(_label(v))}</title></rect>')
            parts.append(f'<text x="{_num(left + w + 4)}" y="{_num(y + 10)}">'
                         f'{escape(_label(v))}</text>')
    base = top + row_h * max(len(labels), 1)
    parts.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{base}" stroke="#333333"/>')
    parts.append(f'<text x="{_num(left + plot_w / 2)}" y="{height - 10}" '
                 f'text-anchor="middle">{escape(x_label)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def line_chart(x_labels: Sequence[str], series: dict, *, title: str, x_label: str,
               y_label: str, width: int = 640, height: int = 300) -> str:
    """Lines with markers, one per series (``{name: values}``; a missing value breaks the
    line and is drawn as a cross on the axis), on a shared y axis starting at 0."""
    left, right, top, bottom = 60, 16, 28, 56
    plot_w, plot_h = width - left - right, height - top - bottom
    ymax = _nice_top([v for s in series.values() for v in s])
    n = max(len(x_labels), 1)
    step = plot_w / max(n - 1, 1) if n > 1 else 0.0
    parts = _open(title, width, height)
    parts += _axes(left, top, plot_w, plot_h, ymax, x_label, y_label, width, height)

    def xy(i, v):
        x = left + (i * step if n > 1 else plot_w / 2)
        return x, top + plot_h - plot_h * v / ymax

    for i, lab in enumerate(x_labels):
        parts.append(f'<text x="{_num(xy(i, 0)[0])}" y="{_num(top + plot_h + 15)}" '
                     f'text-anchor="middle">{escape(str(lab))}</text>')
    for j, (name, values) in enumerate(series.items()):
        color = PALETTE[j % len(PALETTE)]
        x0 = left + j * 170
        parts.append(f'<rect x="{x0}" y="6" width="12" height="12" fill="{color}"/>')
        parts.append(f'<text x="{x0 + 16}" y="16">{escape(str(name))}</text>')
        points = []
        for i, v in enumerate(values):
            ok = v is not None and math.isfinite(float(v))
            if ok:
                x, y = xy(i, float(v))
                points.append(f"{_num(x)},{_num(y)}")
                parts.append(f'<circle cx="{_num(x)}" cy="{_num(y)}" r="4" fill="{color}">'
                             f'<title>{escape(str(name))} at {escape(str(x_labels[i]))}: '
                             f'{escape(_label(float(v)))}</title></circle>')
            else:
                if len(points) > 1:
                    parts.append(_polyline(points, color))
                points = []
                x, y = xy(i, 0.0)
                parts.append(f'<text x="{_num(x)}" y="{_num(y + 4)}" text-anchor="middle" '
                             f'fill="{color}">x<title>{escape(str(name))} at '
                             f'{escape(str(x_labels[i]))}: not reachable</title></text>')
        if len(points) > 1:
            parts.append(_polyline(points, color))
    parts.append("</svg>")
    return "\n".join(parts)


def _polyline(points: list, color: str) -> str:
    return (f'<polyline points="{" ".join(points)}" fill="none" stroke="{color}" '
            f'stroke-width="2"/>')
