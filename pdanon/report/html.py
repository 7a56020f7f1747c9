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
.pdanon-report p.pass { border-left: 6px solid #1e7b34; padding-left: 8px; }
.pdanon-report p.fail { border-left: 6px solid #b3261e; padding-left: 8px; }
.pdanon-report .verdict { border: 3px solid #555; border-radius: 6px; padding: 4px 16px 8px;
  margin: 12px 0 20px; }
.pdanon-report .verdict.pass { border-color: #1e7b34; background: #f1f8f2; }
.pdanon-report .verdict.fail { border-color: #b3261e; background: #fcf1f0; }
.pdanon-report .verdict h2 { margin-top: 0.4em; border: none; }
.pdanon-report td.ok { color: #1e5e2b; font-weight: 600; }
.pdanon-report td.bad { color: #8f1d16; font-weight: 700; }
.pdanon-report .internal { background: #fcf1f0; border: 2px dashed #b3261e; padding: 6px 10px;
  font-weight: 600; }
.pdanon-report .headline { font-size: 1.15em; }
.pdanon-report .grid { display: flex; flex-wrap: wrap; gap: 4px 18px; }
.pdanon-report .grid figure { margin: 6px 0 10px; flex: 0 1 auto; min-width: 0;
  max-width: 100%; }
.pdanon-report figure svg { display: block; max-width: 100%; height: auto; }
.pdanon-report .grid figcaption { max-width: 520px; }
.pdanon-report details { margin: 6px 0 14px; }
.pdanon-report summary { cursor: pointer; color: #1f5fa8; }
.pdanon-report .labels { max-width: 1000px; font-size: 0.85em; word-break: break-all; }
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
    if p.get("channels_allowed"):
        asked.append(["columns allowed as channels (published unchanged though they give "
                      "a quasi-identifier back)", ", ".join(p["channels_allowed"])])
    hh = p.get("household") or {}
    if hh:
        asked.append(["household column (rows that belong together)", fmt(
            f"{hh.get('source_column', hh.get('column'))}: ids {hh.get('ids')}, k "
            f"{hh.get('k')}" + (f", {hh.get('linked_households')} households linked, "
                                f"{hh.get('unlinked_households')} unlinked "
                                f"({hh.get('unlinked_rows')} rows)"
                                if "linked_households" in hh else ""))])
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
    if p.get("files"):
        out.append(table([[f["name"], f"{f['bytes']:,}", f["sha256"]] for f in p["files"]],
                         ["file", "bytes", "SHA-256 of its bytes"], numeric=(1,),
                         caption="The files published with this report (pdanon.publish), "
                                 "read back and measured again before this page was written"))
        out.append(_p("Compare: sha256sum FILE (or hashlib.sha256 over the file's bytes) must "
                      "print the value above; rows are named by their place in the file "
                      "(0 is the first row after the header)."))
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


def _folded(summary: str, content: list) -> list:
    """``content`` inside a closed ``<details>`` whose ``<summary>`` reads ``summary``."""
    return ["<details>", f"<summary>{escape(summary)}</summary>", *content, "</details>"]


def _verdict_keys(rep) -> set:
    return {c["criterion"] for c in (rep.verdict or {}).get("criteria", [])}


def _policy_words(v: dict) -> str:
    """The policy checked, in words."""
    criteria = "; ".join(f'{c["criterion"]} {c["rule"]} {fmt(c["threshold"])}'
                         for c in v["criteria"]) or "no criterion"
    if v.get("policy_given"):
        return f"Policy given: {criteria}."
    extra = (" and the default limit on records at risk (the request bounds no class's size)"
             if any(c["criterion"] == "records_at_risk" for c in v["criteria"]) else "")
    return (f"No policy was given: the release's own request is checked{extra}: {criteria}. "
            f"Pass policy=pdanon.Policy(...) to check your own thresholds.")


def _verdict(rep) -> list:
    """The verdict box, first on the page: PASSED / FAILED in words (and a coloured frame
    that is never the only sign), the policy, one row per criterion, the hazards."""
    v = rep.verdict
    if v is None:
        return ['<section class="verdict" aria-label="Verdict">', "<h2>Verdict: none</h2>",
                _p("No policy to check against (see the notes): pass "
                   "policy=pdanon.Policy(k=..., ...)."), "</section>"]
    word = "PASSED" if v["passed"] else "FAILED"
    held = sum(1 for c in v["criteria"] if c["passed"])
    rows = []
    for c in v["criteria"]:
        rows.append(["\u2714 pass" if c["passed"] else "\u2718 FAIL", c["criterion"],
                     fmt(c["measured"]), f'{c["rule"]} {fmt(c["threshold"])}', c["meaning"]])
    out = [f'<section class="verdict {"pass" if v["passed"] else "fail"}" '
           f'aria-label="Verdict">',
           f"<h2>Verdict: {word}</h2>",
           f'<p class="headline"><strong>{word}</strong>: {held} of {len(v["criteria"])} '
           f'criteria hold' + (f'; {len(v["hazards"])} hazard(s) below.' if v["hazards"]
                               else "; no hazard seen.") + "</p>",
           _p(_policy_words(v)),
           _verdict_table(rows)]
    if v["hazards"]:
        out.append("<h3>Hazards</h3>")
        out.append("<ul>" + "".join(f"<li>{escape(h)}</li>" for h in v["hazards"]) + "</ul>")
    if v.get("k_if_known"):
        out.append(_p("k if an attacker also knew a column published unchanged (a figure, not "
                      "a criterion: a weight or a household size is often known, a lab value "
                      "rarely): " + ", ".join(f"{c}: {k}" for c, k in
                                              v["k_if_known"].items()) + "."))
    out.append("</section>")
    return out


def _verdict_table(rows: list) -> str:
    out = ["<table>", "<caption>Criteria, measured on the released table</caption>",
           "<thead><tr>"]
    out += [f'<th scope="col">{h}</th>' for h in
            ("result", "criterion", "measured", "threshold", "meaning")]
    out.append("</tr></thead><tbody>")
    for r in rows:
        cls = "ok" if r[0].endswith("pass") else "bad"
        cells = [f'<td class="{cls}">{escape(r[0])}</td>', f"<td>{escape(r[1])}</td>",
                 f'<td class="num">{escape(r[2])}</td>',
                 *(f"<td>{escape(str(x))}</td>" for x in r[3:])]
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


HEADLINE = "information_loss"


def _headline(rep) -> list:
    u = rep.utility
    loss = u.get("information_loss")
    if loss is None:
        return [_p("The headline loss (generalized information loss) needs the original: "
                   "pass original=<the frame before anonymization>.", "note")]
    return [f'<p class="headline">Information loss: <strong>{escape(fmt(loss, share=True))}'
            f"</strong> (generalized information loss, <code>information_loss</code> "
            f"{escape(fmt(loss))}, as metrics(original=) gives it).</p>",
            _p("Read it as the share of detail taken from an average quasi-identifier cell: "
               "0 % is every cell as it was and present, 100 % every cell blank. A range "
               "costs its width over its column's published range (dates: its days over the "
               "published span in days), a set or range of m of M categories "
               "(m - 1) / (M - 1), a blank cell 100 % - a cell missing from the "
               "start too, since this page never tells a suppressed cell from a missing one "
               "(that would point at the rows suppressed) - and a plain cell 0 % when it is "
               "the original value, else 100 %. Compare releases by this figure; the "
               "per-column table below shows which column paid.")]


def _columns_table(rep) -> list:
    rows = []
    for c in rep.columns:
        width = fmt(c["mean_width"])
        if c["mean_width"] is not None:
            width += f" {c['width_unit']}"
            if c.get("relative_width") is not None:
                width += f" ({fmt(c['relative_width'], share=True)} of the published range)"
        level = "" if c["level"] is None else f"{c['level']} of {fmt(c['height'])}"
        share = (lambda key: "n/a" if c.get(key) is None else fmt(c[key], share=True))
        rows.append([c["column"], c.get("role", "quasi-identifier"), c["kind"],
                     c["distinct_published"], share("changed_share"),
                     share("generalized_share"), share("suppressed_share"), width, level])
    return [table(rows, ["column", "role", "kind", "distinct published values",
                         "cells changed", "generalized", "suppressed", "mean width",
                         "hierarchy level"],
                  caption="How each column was published (shares of the rows)",
                  numeric=(3, 4, 5, 6))]


def _distribution_figures(rep) -> list:
    out = ["<h3>Distributions before and after</h3>",
           _p("Bars: rows per value; histograms: rows per bin of the original's and the "
              "published span. After anonymization each published cell is spread uniformly "
              "over what it covers (a range over its width, a set over its members), so "
              "the after-bars are what an analyst who reads ranges as uniform would see; "
              "blank cells count nowhere, so suppression shows as lower bars.")]
    figs = ['<div class="grid">']
    for d in rep.distributions:
        title = f"{d['column']}: before and after"
        lost = d["original_rows"] - d["published_rows"]
        caption = (f"{d['column']}: {d['original_rows']:,} original values, "
                   f"{d['published_rows']:,} published"
                   + (f" ({lost:,} blank)" if lost > 0 else "")
                   + "; generalized cells spread uniformly over what they cover.")
        numbers = table([[b, x, y] for b, x, y in zip(d["bins"], d["before"], d["after"])],
                        ["bin" if d["chart"] == "histogram" else "value", "before", "after"],
                        caption=f"{d['column']}: rows per bin", numeric=(1, 2))
        figs.append(figure(svg.pair_chart(d["bins"], d["before"], d["after"], title=title,
                                          y_label="rows"), caption)
                    .replace("</figure>", "\n".join(_folded("numbers", [numbers]))
                             + "\n</figure>"))
    figs.append("</div>")
    return out + figs


def _association(rep) -> list:
    if not rep.association:
        return []
    rows = [[" and ".join(a["columns"]), a["before"], a["after"]] for a in rep.association]
    return ["<h3>Association kept</h3>",
            _p("The pairs of columns most associated in the original, by bias-corrected "
               "Cramer's V (0 = independent, 1 = one determines the other) on the bins of "
               "the figures above, before and after (published cells spread uniformly)."),
            table([[r[0], fmt(r[1]), fmt(r[2])] for r in rows],
                  ["columns", "Cramer's V before", "Cramer's V after"],
                  caption="Strongest associations, before and after", numeric=(1, 2))]


def _shares_chart(rep) -> list:
    if not rep.columns:
        return []
    series = {}
    if rep.original_given:
        series["changed"] = [c["changed_share"] or 0.0 for c in rep.columns]
    series["generalized"] = [c["generalized_share"] or 0.0 for c in rep.columns]
    series["suppressed"] = [c["suppressed_share"] or 0.0 for c in rep.columns]
    return [figure(svg.hbar_chart([c["column"] for c in rep.columns], series,
                                  title="Share of cells changed per column",
                                  x_label="share of the rows (1 = every row)", maximum=1.0),
                   "Per column: the share of its cells that were changed, published as a "
                   "range or set, or suppressed.")]


def _ml(rep) -> list:
    u = rep.utility
    if not u["ml"]:
        return []
    from pdanon.metrics import ml

    rows = [_figure_row(k, v)[:2] for k, v in u["ml"].items()]
    return ["<h3>Utility for the target</h3>",
            table(rows, ["measure", "value"],
                  caption="Gradient boosting on the original and the released table",
                  numeric=(1,)),
            _p(f"Bounded work: the utility ratio trains on at most {ml.UTILITY_MAX_ROWS:,} "
               f"rows (sampled, seeded) and tests on {ml.UTILITY_TEST_SHARE:.0%} of them; the "
               f"linkage attack trains on {ml.SECURITY_TRAIN_ROWS:,} sampled rows and scores "
               f"{ml.SECURITY_TEST_ROWS:,} held-out rows against each other.")]


def _lost(rep) -> list:
    """What was lost: the headline loss, the columns, the distributions (internal), the
    association kept (internal), utility for a target, and the other figures folded."""
    out = ["<h2>What was lost</h2>", *_headline(rep), *_columns_table(rep), *_shares_chart(rep)]
    if rep.distributions:
        out += _distribution_figures(rep)
        out += _association(rep)
    elif rep.original_given:
        out.append(_p("Before/after distributions and the association kept compare with "
                      "original values: they are in the internal report "
                      "(report(..., internal=True)), which stays with the publisher.",
                      "note"))
    out += _ml(rep)
    u = rep.utility
    share = u["changed_proportion"]
    rows = [_figure_row("changed_cells", u["changed_cells"]),
            _figure_row("changed_proportion",
                        "n/a" if share is None else fmt(share, share=True)),
            *(_figure_row(key, u[key]) for key in
              ("equivalence_classes", "average_class_size", "normalized_average_class_size",
               "discernibility"))]
    shown = {HEADLINE, "changed_cells", "changed_proportion", "equivalence_classes",
             "average_class_size", "normalized_average_class_size", "discernibility",
             *u["ml"], *_privacy_keys(rep), *_verdict_keys(rep)}
    m = rep.metrics
    rest = m[~m["metric"].isin(shown)]
    rows += [[r["label"], r["value"], r["meaning"]] for r in rest.to_dict(orient="records")]
    folded = [table(rows, ["measure", "value", "meaning"],
                    caption="Other utility figures of the release", numeric=(1,))]
    if rep.left_out:
        from pdanon.metrics.keys import label

        folded.append(_p(f"Left out (computed against the original, they can be solved for "
                         f"the values the release hides): "
                         f"{', '.join(map(label, rep.left_out))}.", "note"))
    out += _folded(f"Other utility figures ({len(rows)})", folded)
    return out


def _privacy_keys(rep) -> list:
    pv = rep.privacy
    keys = ["k_anonymity"]
    if pv["l_diversity_distinct"] is not None:
        keys += ["l_diversity_distinct", "l_diversity_entropy", "t_closeness_emd"]
    return keys + list(pv["risk_summary"])


def _privacy(rep) -> list:
    """The privacy figures the verdict does not show, and the class-size and risk charts."""
    pv = rep.privacy
    in_verdict = _verdict_keys(rep)
    rows = []
    for key in _privacy_keys(rep):
        if key in in_verdict:
            continue
        value = pv["risk_summary"][key] if key in pv["risk_summary"] else pv[key]
        rows.append(_figure_row(key, value, threshold=pv["threshold"]))
    out = ["<h2>Privacy in detail</h2>",
           _p(f"Requested: {fmt(pv['requested'])}; achieved as recorded by the "
              f"anonymizer: {fmt(pv['achieved'])}. Figures of the verdict are not repeated.")]
    if rows:
        out.append(table(rows, ["measure", "value", "meaning"],
                         caption="Other privacy figures of the released table", numeric=(1,)))
    labels, counts = _size_bins(pv["class_sizes"])
    matches = [round(1 / r) for r in pv["prosecutor"] if r > 0]
    if not labels and matches:  # missing cells as wildcards: rows form no classes
        labels, counts = _size_bins(matches)
        chart = figure(svg.bar_chart(labels, counts, title="Rows by the rows that match them",
                                     x_label="rows matching (a missing cell matches any value)",
                                     y_label="rows", width=520, height=240),
                       f"Rows by how many rows match their quasi-identifiers, a missing cell "
                       f"matching any value (the rule the release was made under: it forms "
                       f"no classes); the fewest is {min(matches):,}.")
    elif labels:
        chart = figure(svg.bar_chart(labels, counts, title="Equivalence classes by size",
                                     x_label="class size (rows)", y_label="classes",
                                     width=520, height=240),
                       f"Equivalence classes by size: {len(pv['class_sizes']):,} "
                       f"classes, the smallest of {min(pv['class_sizes']):,} rows.")
    if labels:
        charts = ['<div class="grid">', chart]
        rl, rc = _risk_bins(pv["prosecutor"])
        charts.append(figure(svg.bar_chart(rl, rc, title="Rows by prosecutor risk",
                                           x_label="prosecutor risk (1 / rows matching)"
                                           if matches and not pv["class_sizes"] else
                                           "prosecutor risk (1 / class size)",
                                           y_label="rows", color=svg.PALETTE[1], width=520,
                                           height=240),
                             f"Rows by prosecutor re-identification risk; rows above "
                             f"{pv['threshold']:g} are counted as at risk."))
        charts.append("</div>")
        out += charts
    return out


def _suppressed(rep) -> list:
    from pdanon.report.columns import BLANK_RULE, SHOWN_LABELS

    s = rep.suppressed
    out = ["<h2>Suppressed rows</h2>"]
    if not len(s):
        out.append(_p("No quasi-identifier cell is blank in the release."))
        return out
    out.append(_p(f"{BLANK_RULE}. One line per reason; rows are named by their index label."))
    rows = [[r["reason"], r["rows"], r["blank"], ", ".join(r["columns"])]
            for r in s.to_dict(orient="records")]
    out.append(table(rows, ["why the method blanks them", "rows", "blank", "columns involved"],
                     caption="Rows with blank quasi-identifier cells, by reason",
                     numeric=(1,)))
    for r in s.to_dict(orient="records"):
        labels = r["index"]
        text = ", ".join(map(str, labels[:SHOWN_LABELS]))
        more = (f" ... and {len(labels) - SHOWN_LABELS:,} more (the JSON export lists all)"
                if len(labels) > SHOWN_LABELS else "")
        out += _folded(f"Rows with {r['blank']} blank ({r['rows']:,})",
                       [f'<p class="labels">{escape(text + more)}</p>'])
    return out


#: what each attack's risk means, in words (the report's section on attacks)
ATTACK_WORDS = {
    "singling_out": "Singling out: how much more often than on held-out rows of the same "
                    "population a condition read off the release (a published range, set "
                    "or value per column) fits exactly one real person.",
    "linkability": "Linkability: how much more often than on held-out rows an attacker "
                   "holding two halves of a person's record (the quasi-identifiers split in "
                   "two, as from two other sources) joins them through the same release row.",
    "inference": "Inference: how much more often than on held-out rows an attacker who knows "
                 "a person's quasi-identifiers guesses their sensitive value from the matching "
                 "release rows.",
}


def _attacks(rep) -> list:
    rows = getattr(rep, "attacks", None) or []
    if not rows:
        return []
    out = ["<h2>Singling out, linkability, inference</h2>",
           _p("Three attacks on the release (EU Article 29 Working Party, Opinion 05/2014), "
              "each run against the original and against held-out control rows the release "
              "never saw. The risk is the success the release gives beyond the control, "
              "(main - control) / (1 - control): 0 means the release tells an attacker no "
              "more than any table of the same population would, 1 that every attack "
              "succeeds because of the release. The interval is the risk's at the level "
              "shown; a policy limit (max_singling_out, max_linkability, max_inference) is "
              "held by its upper bound. An attack can only show a risk, never prove its "
              "absence (docs/attacks.md, limits).")]
    table_rows = []
    for r in rows:
        name = r["attack"].replace("_", " ") + (f" of {r['secret']}" if r.get("secret") else "")
        table_rows.append([name, r["risk"], f"[{fmt(r['ci_low'])}, {fmt(r['ci_high'])}] at "
                           f"{fmt(100 * r['level'])} %", r["main_rate"], r["control_rate"],
                           r["baseline_rate"], r["n_attacks"]])
    out.append(table(table_rows, ["attack", "risk", "interval", "success on the original",
                                  "success on the control", "naive attacker", "attacks"],
                     caption="Attack risks beyond the control set", numeric=(1, 3, 4, 5, 6)))
    out.append("<ul>" + "".join(f"<li>{escape(ATTACK_WORDS[a])}</li>" for a in ATTACK_WORDS
                                if any(r["attack"] == a for r in rows)) + "</ul>")
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
           *_folded("Candidates tried (table)",
                    [table(t.values.tolist(), list(t.columns), caption="Candidates tried",
                           numeric=tuple(range(len(t.columns))))])]
    return out


def body(rep) -> str:
    """The report's content (no ``<html>`` shell): what :func:`page` and Jupyter show. The
    verdict comes first; every figure appears once."""
    parts = ['<div class="pdanon-report">', f"<h1>{escape(rep.title)}</h1>"]
    parts += _verdict(rep)
    if rep.internal:
        parts.append(_p("INTERNAL REPORT, for the publisher only: it holds figures computed "
                        "from the original's values (distributions, associations, every "
                        "metric). Never hand it over with the release; build_report(...) "
                        "without internal=True writes the report that may travel.",
                        "internal"))
    else:
        parts.append(_p("This report describes a de-identified release and may travel with "
                        "it. It never holds an original cell value, a seed or a key, nor a "
                        "figure from which a value the release hides could be recomputed: "
                        "figures are counts and summaries of what is published, and rows are "
                        "named by their index label only."))
    for section in (_lost, _privacy, _attacks, _suppressed, _parameters):
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
