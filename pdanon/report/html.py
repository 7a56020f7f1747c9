"""The release report as one self-contained HTML page: inline CSS, inline SVG figures, no
script, no URL. Semantic headings (one ``h1``, then ``h2`` / ``h3``), tables with captions
and ``<th scope="col">`` headers, figures with captions; every text is escaped. The page
reads the same without its style sheet.

Example
-------
>>> table([["a", 1]], ["name", "value"], caption="Demo").startswith("<table>")
True
"""

from __future__ import annotations

from html import escape

from pdanon.report import svg

CSS = """
.pdanon-report { font-family: system-ui, sans-serif; color: #1a1a1a; max-width: 1100px;
  margin: 0 auto; padding: 0 16px 32px; line-height: 1.45; }
.pdanon-report h1 { font-size: 1.7em; border-bottom: 3px solid #1f5fa8; padding-bottom: 4px; }
.pdanon-report h2 { font-size: 1.3em; margin-top: 1.8em; border-bottom: 1px solid #ccc; }
.pdanon-report h3 { font-size: 1.05em; margin-top: 1.2em; }
.pdanon-report table { border-collapse: collapse; margin: 8px 0 16px; font-size: 0.92em; }
.pdanon-report caption { text-align: left; font-weight: 600; padding: 4px 0; }
.pdanon-report th, .pdanon-report td { border: 1px solid #ccc; padding: 3px 8px;
  text-align: left; vertical-align: top; }
.pdanon-report th { background: #eef3f9; }
.pdanon-report td.num { text-align: right; font-variant-numeric: tabular-nums; }
.pdanon-report figure { margin: 12px 0 20px; }
.pdanon-report figcaption { font-size: 0.9em; color: #444; max-width: 640px; }
.pdanon-report .note { background: #fff8e1; border-left: 4px solid #e0a800; padding: 6px 10px; }
.pdanon-report code { background: #f3f3f3; padding: 0 3px; }
"""


def fmt(v, share: bool = False) -> str:
    """A value as text: n/a for missing, thousands separators, 4 significant digits, or a
    percentage with ``share``."""
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if v != v:
            return "n/a"
        if share:
            return f"{100 * v:.3g} %"
        return f"{int(v):,}" if v.is_integer() and abs(v) < 1e15 else f"{v:.4g}"
    if isinstance(v, dict):
        return ", ".join(f"{k}={fmt(x)}" for k, x in v.items()) or "none"
    if isinstance(v, list):
        return ", ".join(fmt(x) for x in v) or "none"
    return str(v)


def table(rows, header, *, caption: str, numeric=()) -> str:
    """A ``<table>`` with a caption, column headers and escaped cells (``numeric``: the
    positions of right-aligned columns)."""
    out = ["<table>", f"<caption>{escape(caption)}</caption>", "<thead><tr>"]
    out += [f'<th scope="col">{escape(str(h))}</th>' for h in header]
    out.append("</tr></thead><tbody>")
    for row in rows:
        cells = []
        for j, v in enumerate(row):
            cls = ' class="num"' if j in numeric else ""
            cells.append(f"<td{cls}>{escape(v if isinstance(v, str) else fmt(v))}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def figure(svg_text: str, caption: str) -> str:
    return f"<figure>\n{svg_text}\n<figcaption>{escape(caption)}</figcaption>\n</figure>"


def _p(text: str, cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<p{attr}>{escape(text)}</p>"


def _size_bins(sizes: list) -> tuple:
    """(labels, classes per bin) of the class sizes: one bin per size up to 20, else
    bands."""
    if not sizes:
        return [], []
    lo, hi = min(sizes), max(sizes)
    if hi <= 20:
        labels = [str(s) for s in range(lo, hi + 1)]
        counts = [0] * len(labels)
        for s in sizes:
            counts[s - lo] += 1
        return labels, counts
    edges = [1, 2, 3, 4, 5, 10, 20, 50, 100, 500, 1000, 10_000]
    edges = [e for e in edges if e <= hi] + [hi + 1]
    labels, counts = [], []
    for a, b in zip(edges[:-1], edges[1:]):
        labels.append(str(a) if b == a + 1 else f"{a}-{b - 1}")
        counts.append(sum(1 for s in sizes if a <= s < b))
    keep = [i for i, c in enumerate(counts) if c or lo <= int(labels[i].split("-")[0])]
    return [labels[i] for i in keep], [counts[i] for i in keep]


RISK_BINS = ((0.0, 0.01), (0.01, 0.05), (0.05, 0.1), (0.1, 0.2), (0.2, 0.5), (0.5, 1.0))


def _risk_bins(prosecutor: list) -> tuple:
    import numpy as np

    p = np.asarray(prosecutor, dtype=np.float64)
    labels = [f"{a:g}-{b:g}" if a else f"up to {b:g}" for a, b in RISK_BINS]
    counts = [int(((p > a) & (p <= b)).sum()) for a, b in RISK_BINS]
    return labels, counts


def _parameters(rep) -> list:
    p = rep.parameters
    out = ["<h2>Parameters of the release</h2>",
           _p(f"{p['rows']:,} rows and {p['columns']} columns were published by pdanon "
              f"{p['pdanon_version']}.")]
    out.append(table([[r["column"], r["role"], r["kind"], r["dtype"]] for r in p["roles"]],
                     ["column", "role", "kind", "published dtype"],
                     caption="Columns, their roles and kinds"))
    asked = [["operation (algorithm)", fmt(p["operation"])], ["method", fmt(p["method"])],
             ["privacy model", fmt(p["model"])],
             ["model parameters", fmt(p["model_params"])]]
    asked += [[f"option: {k}", fmt(v)] for k, v in p["options"].items()]
    asked.append(["randomness", fmt(p["randomness"])])
    out.append("<h3>What was asked</h3>")
    out.append(table(asked, ["setting", "value"], caption="Algorithm, model and options"))
    if p["hierarchy_levels"]:
        out.append("<h3>Hierarchy levels</h3>")
        out.append(table([[h["column"], h["level"], h["height"]] for h in p["hierarchy_levels"]],
                         ["column", "level chosen", "levels in the hierarchy"],
                         caption="Generalization levels (0 = unchanged)", numeric=(1, 2)))
    out.append("<h3>Digests</h3>")
    keyed = p.get("digest_original")
    out.append(table([["released table", "SHA-256", p["digest_anonymized"]],
                      ["original table", "HMAC-SHA-256 (keyed)" if keyed else "none",
                       keyed or "not recorded: pass digest_key= for a keyed digest"]],
                     ["frame", "digest", "value"], caption="Digests of the input and the output"))
    out.append(_p(f"Serialization: {p['digest_rule']}."))
    if keyed:
        out.append(_p(f"Original: {p['digest_original_rule']}. Only the holder of the key can "
                      f"recompute or check it."))
    else:
        out.append(_p("No unkeyed digest of the original is given: the release publishes its "
                      "other cells, so the few values it hides could be enumerated against "
                      "one."))
    return out


def _figure_row(key: str, value, **values) -> list:
    """[label, value, meaning] of a figure of :data:`pdanon.metrics.FIGURES` (its meaning
    without the "risk: " / "utility: " prefix)."""
    from pdanon.metrics.keys import FIGURES, figure

    if key not in FIGURES:
        return [key, value, ""]
    f = figure(key)
    return [f.label, value, f.describe(**values).split(": ", 1)[1]]


def _privacy(rep) -> list:
    pv = rep.privacy
    rows = [_figure_row("k_anonymity", pv["k_anonymity"])]
    if pv["l_diversity_distinct"] is not None:
        rows += [_figure_row(key, pv[key]) for key in
                 ("l_diversity_distinct", "l_diversity_entropy", "t_closeness_emd")]
    for key, value in pv["risk_summary"].items():
        rows.append(_figure_row(key, value, threshold=pv["threshold"]))
    out = ["<h2>Privacy achieved</h2>",
           _p(f"Requested: {fmt(pv['requested'])}; achieved as recorded by the "
              f"anonymizer: {fmt(pv['achieved'])}."),
           table(rows, ["measure", "value", "meaning"],
                 caption="Privacy measured on the released table", numeric=(1,))]
    labels, counts = _size_bins(pv["class_sizes"])
    if labels:
        out.append(figure(svg.bar_chart(labels, counts, title="Equivalence classes by size",
                                        x_label="class size (rows)", y_label="classes"),
                          f"Equivalence classes by size: {len(pv['class_sizes']):,} classes, "
                          f"the smallest of {min(pv['class_sizes']):,} rows."))
        rl, rc = _risk_bins(pv["prosecutor"])
        out.append(figure(svg.bar_chart(rl, rc, title="Rows by prosecutor risk",
                                        x_label="prosecutor risk (1 / class size)",
                                        y_label="rows", color=svg.PALETTE[1]),
                          f"Rows by prosecutor re-identification risk; rows above "
                          f"{pv['threshold']:g} are counted as at risk."))
    return out


def _utility(rep) -> list:
    u = rep.utility
    share = u["changed_proportion"]
    rows = [_figure_row("changed_cells", u["changed_cells"]),
            _figure_row("changed_proportion",
                        "n/a" if share is None else fmt(share, share=True)),
            *(_figure_row(key, u[key]) for key in
              ("equivalence_classes", "average_class_size", "normalized_average_class_size",
               "discernibility")),
            _figure_row("information_loss", u["information_loss"])]
    rows[-1][2] += " (needs original)"
    out = ["<h2>Utility</h2>",
           table(rows, ["measure", "value", "meaning"], caption="Utility of the release",
                 numeric=(1,))]
    if u["ml"]:
        out.append("<h3>Machine-learning utility</h3>")
        out.append(table([_figure_row(k, v)[:2] for k, v in u["ml"].items()],
                         ["measure", "value"],
                         caption="Gradient boosting on the original and the released table",
                         numeric=(1,)))
    m = rep.metrics
    out.append("<h3>All metrics</h3>")
    out.append(table(m[["label", "metric", "value", "better", "meaning"]].values.tolist(),
                     ["metric", "key", "value", "better", "meaning"],
                     caption="The metrics of df.anon.metrics() a report may carry",
                     numeric=(2,)))
    if rep.left_out:
        from pdanon.metrics.keys import label

        out.append(_p(f"Left out (computed against the original, they can be solved for the "
                      f"values the release hides): {', '.join(map(label, rep.left_out))}.",
                      "note"))
    return out


def _columns(rep) -> list:
    rows = []
    for c in rep.columns:
        width = fmt(c["mean_width"])
        if c["mean_width"] is not None:
            width += f" {c['width_unit']}"
            if c.get("relative_width") is not None:
                width += f" ({fmt(c['relative_width'], share=True)} of the published range)"
        level = "" if c["level"] is None else f"{c['level']} of {fmt(c['height'])}"
        rows.append([c["column"], c["kind"], c["published_dtype"], c["distinct_published"],
                     c["changed_cells"], c["generalized_cells"], c["suppressed_cells"],
                     width, level])
    out = ["<h2>How each quasi-identifier was published</h2>",
           table(rows, ["column", "kind", "published dtype", "distinct published values",
                        "changed cells", "generalized cells", "suppressed cells",
                        "mean width", "hierarchy level"],
                 caption="Generalization per quasi-identifier", numeric=(3, 4, 5, 6))]
    if rep.columns:
        series = {}
        if rep.original_given:
            series["changed"] = [c["changed_share"] or 0.0 for c in rep.columns]
        series["generalized"] = [c["generalized_share"] or 0.0 for c in rep.columns]
        series["suppressed"] = [c["suppressed_share"] or 0.0 for c in rep.columns]
        out.append(figure(svg.hbar_chart([c["column"] for c in rep.columns], series,
                                         title="Share of cells changed per column",
                                         x_label="share of the rows (1 = every row)",
                                         maximum=1.0),
                          "Per quasi-identifier: the share of its cells that were changed, "
                          "published as a range or set, or suppressed."))
    return out


def _suppressed(rep) -> list:
    from pdanon.report.columns import BLANK_RULE, SHOWN_PATTERNS

    s = rep.suppressed
    out = ["<h2>Suppressed rows</h2>"]
    if not len(s):
        out.append(_p("No quasi-identifier cell is blank in the release."))
        return out
    whole = int(s.loc[s["blank"] == "every quasi-identifier", "rows"].sum())
    partial = int(s["rows"].sum()) - whole
    out.append(_p(f"{whole:,} rows are published with every quasi-identifier blank and "
                  f"{partial:,} with some. {BLANK_RULE}. Rows are named by their index "
                  f"label, a few per pattern."))
    shown = s.head(SHOWN_PATTERNS)
    if len(s) > SHOWN_PATTERNS:
        out.append(_p(f"The {SHOWN_PATTERNS} largest of {len(s):,} patterns are shown; the "
                      f"JSON export (to_json) lists them all.", "note"))
    rows = [[r["blank"], r["rows"], r["reason"], ", ".join(map(str, r["sample"]))]
            for r in shown.to_dict(orient="records")]
    out.append(table(rows, ["blank quasi-identifiers", "rows", "why the method blanks them",
                            "sample rows"],
                     caption="Rows with blank quasi-identifier cells, by pattern",
                     numeric=(1,)))
    return out


def _tradeoff(rep) -> list:
    t = rep.tradeoff
    name = t.columns[0]
    series = {"information loss": t["information_loss"].tolist()}
    if "suppressed_fraction" in t.columns:
        series["rows suppressed (share)"] = t["suppressed_fraction"].tolist()
    labels = [fmt(v) for v in t[name].tolist()]
    out = ["<h2>Privacy and utility trade-off</h2>",
           figure(svg.line_chart(labels, series, title=f"Information loss against {name}",
                                 x_label=name, y_label="share"),
                  f"Candidates tried: information loss and suppressed rows for each {name} "
                  f"(x: not reachable)."),
           table(t.values.tolist(), list(t.columns), caption="Candidates tried",
                 numeric=tuple(range(len(t.columns))))]
    return out


def body(rep) -> str:
    """The report's content (no ``<html>`` shell): what :func:`page` and Jupyter show."""
    parts = ['<div class="pdanon-report">', f"<h1>{escape(rep.title)}</h1>",
             _p("This report describes a de-identified release and may travel with it. It "
                "never holds an original cell value, a seed or a key, nor a figure from "
                "which a value the release hides could be recomputed: figures are counts "
                "and summaries of what is published, and rows are named by their index "
                "label only.")]
    for section in (_parameters, _privacy, _utility, _columns, _suppressed):
        parts += section(rep)
    if rep.tradeoff is not None:
        parts += _tradeoff(rep)
    parts.append("<h2>Notes</h2>")
    parts.append("<ul>" + "".join(f"<li>{escape(n)}</li>" for n in rep.notes) + "</ul>")
    parts.append("</div>")
    return "\n".join(parts)


def page(rep) -> str:
    """The whole self-contained HTML document."""
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<link rel="icon" href="data:,">',
        f"<title>{escape(rep.title)}</title>", f"<style>{CSS}</style>", "</head>", "<body>",
        "<main>", body(rep), "</main>", "</body>", "</html>", ""])
