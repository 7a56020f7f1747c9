"""The survey publisher's flags of ``pdanon anonymize`` (kept apart from
:mod:`pdanon.cli.anonymize`, which is near the size limit):

* ``--date-format FMT`` / ``--dayfirst``: how the input's dates are written (``%m/%d/%Y`` for
  ``08/15/1971``, ``--dayfirst`` for ``15/08/1971``); a quasi-identifier or sensitive column
  given the kind ``date`` — or, with ``--date-format``, without a kind, when every cell is a
  date in that format — is parsed so (``pandas.to_datetime(format=, dayfirst=)``), and a cell
  that is not such a date is refused naming the column, the row and the cell;
* ``--weights COL``: the column of sampling weights (people per row). It is published as it
  is (``insensitive`` unless named otherwise) and is never matched on; the policy's weighted
  criteria (``max_global_risk``, ``max_expected_reidentifications``, ``max_individual_risk``)
  read it, and the report shows the global risk and the expected re-identifications. Named
  also with ``--identifiers`` it is withheld from every file written, and those figures are
  measured from the input's weights (stratum weights are a channel that gives a generalized
  ZIP back: withholding them is the fix);
* ``--levels COL=N`` or ``COL=MIN:MAX`` (repeat or comma-separate): Python's ``levels=``, the
  hierarchy levels ``optimal`` may choose for a column.

Example
-------
>>> levels(["age=1:3,zip=2"])
{'age': (1, 3), 'zip': 2}
>>> import pandas as pd
>>> s = {"date_format": "%m/%d/%Y", "dayfirst": None}
>>> dates(pd.Series(["08/15/1971", None]), "dob", s).dt.year.tolist()
[1971.0, nan]
"""

from __future__ import annotations

import re

from pdanon._errors import InvalidInputError

__all__ = ["CONFIG", "add_arguments", "dates", "flag_words", "levels", "levels_text",
           "policy_with_weights", "prepare", "report_keywords", "survey_lines",
           "text_columns", "with_weights"]

#: the config file's keys of these flags: section -> settings
CONFIG = {"": ("date_format", "dayfirst"), "columns": ("weights",), "anonymize": ("levels",)}


def add_arguments(files, cols, how) -> None:
    """Add ``--date-format``, ``--dayfirst``, ``--weights`` and ``--levels``."""
    files.add_argument("--date-format", dest="date_format", metavar="FMT",
                       help="how the dates are written, e.g. %%m/%%d/%%Y for 08/15/1971 "
                            "(default: ISO 8601, 1971-08-15)")
    files.add_argument("--dayfirst", action="store_const", const=True,
                       help="dates are written day first (15/08/1971)")
    cols.add_argument("--weights", metavar="COL",
                      help="the column of sampling weights (people per row): published as "
                           "it is, read by the weighted risk (report, --policy "
                           "max_global_risk=, max_expected_reidentifications=, "
                           "max_individual_risk=); also in --identifiers: withheld, the "
                           "weighted risk read from the input")
    how.add_argument("--levels", action="append", metavar="COL=N|COL=MIN:MAX",
                     help="the hierarchy levels -a optimal may choose for a column, e.g. "
                          "age=1:3,zip=2 (Python's levels=)")


def levels(given) -> dict | None:
    """``--levels`` (a list of ``COL=N`` / ``COL=MIN:MAX`` texts, one such text, or a
    config's table) as Python's ``levels=``."""
    if given is None or isinstance(given, dict):
        return {c: tuple(v) if isinstance(v, list) else v for c, v in given.items()} \
            if given else given
    out = {}
    texts = [given] if isinstance(given, str) else given
    for item in (p.strip() for text in texts for p in str(text).split(",") if p.strip()):
        match = re.fullmatch(r"(.+?)=\s*(\d+)\s*(?::\s*(\d+))?", item)
        if match is None:
            raise InvalidInputError(f"--levels {item!r}: write COL=N or COL=MIN:MAX, e.g. "
                                    f"age=1:3")
        low, high = int(match.group(2)), match.group(3)
        out[match.group(1).strip()] = low if high is None else (low, int(high))
    return out


def levels_text(given) -> str | None:
    """``--levels`` checked and written as one text (a config file records it so).

    >>> levels_text(["age=1:3", "zip=2"])
    'age=1:3,zip=2'
    """
    parsed = levels(given)
    if not parsed:
        return None
    return ",".join(f"{c}={v[0]}:{v[1]}" if isinstance(v, tuple) else f"{c}={v}"
                    for c, v in parsed.items())


def with_weights(s: dict) -> None:
    """Settings with ``--weights`` published as it is (``insensitive``) unless named."""
    w = s.get("weights")
    if w is None:
        return
    named = [c for key in ("qi", "sensitive") for c in (s.get(key) or {})]
    named += [c for key in ("identifiers", "insensitive") for c in (s.get(key) or [])]
    if w not in named:
        s["insensitive"] = [*(s.get("insensitive") or []), w]


def text_columns(columns: list, s: dict) -> list:
    """The role columns a CSV is read with as text, without the ``--weights`` column (read as
    numbers also when withheld with ``--identifiers``: the weighted risk reads it)."""
    return [c for c in columns if c != s.get("weights")]


def prepare(df, qi: dict, sens: dict, s: dict):
    """``df`` with the date columns parsed by ``--date-format`` / ``--dayfirst`` (the others
    as read): a column given the kind date, or, with ``--date-format``, a column without a kind
    whose every cell is a date in that format (then given the kind date)."""
    import pandas as pd

    if s.get("date_format") is None and not s.get("dayfirst"):
        return df
    for roles in (qi, sens):
        for col, kind in list(roles.items()):
            series = df[col]
            if not (series.dtype == object or pd.api.types.is_string_dtype(series.dtype)):
                continue
            if kind == "date":
                df[col] = dates(series, col, s)
            elif kind is None and s.get("date_format") is not None:
                text = series.dropna().astype(str).str.strip()
                parsed = pd.to_datetime(text, format=s["date_format"], errors="coerce")
                if len(text) and parsed.notna().all():
                    df[col], roles[col] = dates(series, col, s), "date"
    return df


def dates(series, name: str, s: dict):
    """The dates of a column read as text, as ``--date-format`` / ``--dayfirst`` write them."""
    import pandas as pd

    fmt, dayfirst = s.get("date_format"), bool(s.get("dayfirst"))
    present = series.notna()
    text = series[present].astype(str).str.strip()
    kw = {"format": fmt} if fmt is not None else {}
    parsed = pd.to_datetime(text, errors="coerce", dayfirst=dayfirst, **kw)
    if parsed.isna().any():
        at = int(parsed.isna().to_numpy().argmax())
        how = f"--date-format {fmt}" if fmt is not None else "--dayfirst"
        raise InvalidInputError(
            f"column {name!r} is date but holds {text.iloc[at]!r} (data row "
            f"{text.index[at] + 1}), which is not a date as {how} writes them: fix the "
            f"cell, or give the format the file uses (e.g. --date-format %m/%d/%Y)")
    out = pd.Series(pd.NaT, index=series.index, dtype=parsed.dtype)
    out[present] = parsed
    return out


def report_keywords(s: dict) -> dict:
    """The survey keywords of the report: the weights and the household column (kept)."""
    out = {}
    if s.get("weights") is not None:
        out["weights"] = s["weights"]
    if s.get("household") is not None and s.get("household_ids") != "drop":
        out["household"] = s["household"]
    return out


def policy_with_weights(policy, s: dict):
    """The policy with ``--weights`` as the column its weighted criteria read."""
    from dataclasses import replace

    if policy is None or s.get("weights") is None or policy.weights is not None:
        return policy
    return replace(policy, weights=s["weights"])


def survey_lines(out, qi, s: dict, original=None) -> list:
    """The closing line of the weighted risk (with ``--weights``; a weight column withheld
    from the release, e.g. ``--identifiers wt``, is read from ``original``, the input)."""
    from pdanon.metrics.survey import with_input_weights

    w = s.get("weights")
    if w is None or not len(out):
        return []
    out = with_input_weights(out, w, original)
    if w not in out.columns and original is None:
        return []  # (a DP release, a sample: no row-by-row way back to the input's weights)
    from pdanon.metrics.reidentification import record_risk

    missing = out.anon.info.get("missing", "value")
    r = record_risk(out, list(qi), weights=s["weights"], missing=missing)["individual"]
    return [("weighted risk", f"global {r.mean():.4g}, expected re-identifications "
                              f"{r.sum():.4g}, highest individual {r.max():.4g} "
                              f"(weights {s['weights']})")]


def flag_words(text: str) -> str:
    """A library message about dates and weights in the flags' words."""
    text = re.sub(r"publish the year instead, df\[('[^']*'|\"[^\"]*\")\]\.dt\.year, or a "
                  r"quasi-identifier with a dates\(\) hierarchy and algorithm='optimal'",
                  lambda m: (f"publish the year instead (--qi {m.group(1)[1:-1]}:date "
                             f"--calendar {m.group(1)[1:-1]}=year), or a quasi-identifier with "
                             f"--hierarchy {m.group(1)[1:-1]}=dates:month,year and -a optimal"),
                  text)
    text = re.sub(r"check\(\.\.\., weights=('[^']*'|\"[^\"]*\"), original=df\) still "
                  r"measures the weighted risk from the input, never writing them",
                  lambda m: f"--weights {m.group(1)[1:-1]} still measures the weighted risk "
                            f"(--policy, the report) from the input, never writing them", text)
    # withheld weights with no way back to the input's rows: only a DP release here
    text = re.sub(r"are read from the original it was made from: pass original=<that frame> "
                  r"\(check\(.*\)\)",
                  "are read from the input row by row, which a differentially private "
                  "release (--epsilon: a random sample) does not allow: publish the weights "
                  "or leave the weighted criteria out", text)
    return text.replace("(check(..., weights='w') or Policy(..., weights='w'))",
                        "(--weights COL)")
