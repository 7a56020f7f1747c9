"""``pdanon table``: a protected (or cell-key perturbed) table from a CSV or Parquet file.

::

    pdanon table IN -o OUT --index region --columns sex,age [--values income]
                 [--aggfunc count|sum] --rule min_frequency=3 [--rule p_percent=10 ...]
                 [--method optimal|fast] [--hierarchy region=regions.csv ...]
                 [--contributor firm] [--pivot pivot.csv] [--marker x]
                 [--report report.html|report.json] [--config table.toml]
    pdanon table IN -o OUT --index region --cell-key --ptable D=3,V=2,js=2
                 --record-keys record_key
    pdanon table IN --index region --columns sex --rule min_frequency=3
                 --audit-only --suppressed pattern.csv
    pdanon table IN -o FOLDER --table "name=by_sex;index=region;columns=sex"
                 --table "index=region;columns=age;hierarchy=region:regions.csv"
                 --rule min_frequency=3 [--formats csv,parquet] [--pivots] [--marker x]
    pdanon table IN --table SPEC --table SPEC --rule min_frequency=3
                 --audit-only --suppressed by_sex.csv --suppressed table_2.csv
    pdanon table IN -o FOLDER --table SPEC --table SPEC --cell-key --ptable D=3,V=2
                 --record-keys record_key

The run is ``df.anon.table(...)`` then ``.protect(rules, method=...)`` (or ``.cell_key``), and
the files are written by :func:`pdanon.release.tables.publish_table_files`, from the
allow-list of :func:`pdanon.report.tables.public`: ``-o`` the tidy cells (CSV, or Parquet by
extension), ``--pivot`` the pivot (CSV), ``--report`` the report (HTML, or JSON by extension).
Withheld values are empty (or ``--marker``); a ``status`` column says published or withheld.

**Linked tables.** ``--table SPEC`` (repeated; ``SPEC`` is ``name=N;index=COLS;columns=COLS``,
``name`` optional, and any number of ``hierarchy=COL:SPEC``, the table's own hierarchy of one
of its columns, :mod:`pdanon.cli.table_linked`) gives several tables of the input, protected
together (``pdanon.tables.link(...).protect(...)``) with the shared ``--values``,
``--aggfunc``, ``--contributor``, ``--hierarchy`` (applied to the tables that use its column
and give it no hierarchy of their own) and rules; ``-o`` is then a folder, which gets what
``pdanon.publish(protected, FOLDER, names=..., formats=..., pivot=...)`` writes
(:func:`pdanon.release.tables.publish_tables`): ``NAME.csv`` (``--formats csv,parquet`` for
Parquet too), ``NAME_pivot.csv`` with ``--pivots``, and one ``report.html`` /
``report.json`` over all of them. A config file gives the same as a ``[[tables]]`` array
(``name``, ``index``, ``columns``, ``hierarchies``). ``--audit-only`` takes one
``--suppressed`` per table, in order, and runs the linked audit (every table at once);
``--cell-key`` perturbs every table with the same keys and p-table (a shared cell gets one
value) and writes ``NAME.csv`` / ``NAME.parquet`` / ``NAME_pivot.csv`` into the folder, no
report (:func:`pdanon.release.tables.publish_perturbed_tables_files`).

``--audit-only --suppressed PATTERN`` audits a pattern made elsewhere: ``PATTERN`` (CSV) has
the dimension columns and either a ``status`` column (``withheld``, ``primary`` or
``secondary`` mark a withheld cell) or one row per withheld cell. Nothing is written; the
closing lines count the unsafe cells and name them by their labels.

Exit codes: 0 written (or the audited pattern is safe), 2 bad input (one line ``pdanon table:
error: ...`` naming the flag or column and the fix), 3 the audit finds an unsafe cell (nothing
is written), 130 interrupted. A config file (TOML, ``--config``) holds the same settings as the
flags (``[rules]`` and ``[hierarchies]`` tables); flags given beside it win.

Example
-------
>>> rules_of(["min_frequency=3", "dominance=1,80", "dominance=2,90", "p_percent=10"])
{'min_frequency': 3, 'p_percent': 10, 'dominance': [(1, 80), (2, 90)]}
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

from pdanon.cli.common import (EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_POLICY_FAILED,
                               is_parquet, one_line, overwrite_clash, warning_lines)
from pdanon.cli.config import (ConfigError, build_hierarchy, check_config_values,
                               hierarchy_spec, is_builder, parse_columns, read_config,
                               side_limit)
from pdanon.cli.table_linked import (check_linked, linked_hierarchies, table_names, table_spec,
                                     tables_of_config)

PROG = "pdanon table"
#: config file layout: section -> the settings it holds ([rules] and [hierarchies] apart)
SECTIONS = {"": ("input", "output", "pivot", "report", "marker", "index", "columns", "values",
                 "aggfunc", "contributor", "margins", "margins_name", "method", "cost",
                 "time_limit",
                 "full_audit", "formats", "pivots",
                 "cell_key", "ptable", "record_keys", "noise_share", "sep", "encoding")}
PATH_KEYS = ("input", "output", "pivot", "report", "ptable", "suppressed")
DEFAULTS = {"sep": ",", "encoding": "utf-8", "method": "optimal", "cost": "value",
            "time_limit": 60.0, "margins": True, "full_audit": "auto"}
#: the rules whose value is a pair (``dominance=1,80``)
PAIR_RULES = ("dominance", "pq")
_ACTIONS: dict = {}

EXAMPLE = """example:
  pdanon table people.csv -o table.csv --index region --columns sex \\
      --rule min_frequency=3 --report report.html
  pdanon table firms.csv -o table.csv --index region --columns industry \\
      --values turnover --contributor firm --rule min_frequency=3 --rule p_percent=10 \\
      --hierarchy industry=sectors.csv --method fast --pivot pivot.csv --marker x
  pdanon table people.csv -o tables/ --table "name=by_sex;index=region;columns=sex" \\
      --table "name=by_age;index=region;columns=age;hierarchy=region:regions.csv" \\
      --rule min_frequency=3 --pivots
exit codes: 0 written, 2 bad input, 3 the audit finds an unsafe cell (nothing written)"""


class CliError(Exception):
    """A user error: printed as one line, exit code 2."""


def add_parser(sub) -> argparse.ArgumentParser:
    """The ``table`` subcommand on ``pdanon``'s subparsers."""
    from pdanon.tables.suppress import COSTS, METHODS

    p = sub.add_parser(
        "table", help="publish a protected table of counts or sums (suppression or noise)",
        description="Build a table of counts or sums from a CSV or Parquet file, protect it "
                    "(primary rules, secondary suppression, the audit) or add cell-key "
                    "noise, and write it with its report. docs/tables.md has the details.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter,
        argument_default=None)
    files = p.add_argument_group("files")
    files.add_argument("input", nargs="?", help="the microdata: CSV with a header line, or "
                       "Parquet (.parquet, .pq); may come from --config")
    files.add_argument("-o", "--output", help="the table's cells, one row each (CSV, or "
                       "Parquet by extension): dimensions, value, status")
    files.add_argument("--pivot", metavar="PATH", help="also write the pivot (CSV)")
    files.add_argument("--report", metavar="PATH", help="also write the report (HTML, or JSON "
                       "when PATH ends in .json); it may travel with the table")
    files.add_argument("--marker", help="write withheld values as this text (e.g. x) in CSV "
                       "files; default an empty cell")
    files.add_argument("--config", metavar="PATH", help="read the settings from a TOML file "
                       "(keys as the flags, [rules] and [hierarchies] tables); flags win")
    files.add_argument("--sep", help="the CSV separator (default ,)")
    files.add_argument("--encoding", help="the CSV encoding (default utf-8)")
    files.add_argument("--max-side-file-mib", type=int, dest="max_side_file_mib",
                       help="the largest config or hierarchy file read, in MiB")
    linked = p.add_argument_group("linked tables (several tables protected together)")
    linked.add_argument("--table", action="append", metavar="SPEC",
                        help="a table of the input, e.g. \"name=by_sex;index=region;"
                             "columns=sex;hierarchy=region:regions.csv\" (hierarchy=COL:SPEC "
                             "its own, repeatable; repeat --table for each table; then -o is "
                             "a folder and --index/--columns are not given)")
    linked.add_argument("--formats", metavar="csv[,parquet]", help="with --table: the "
                        "files of each table (default csv)")
    linked.add_argument("--pivots", action="store_true", default=None, help="with --table: "
                        "also write each table's pivot (NAME_pivot.csv)")
    table = p.add_argument_group("table")
    table.add_argument("--index", help="the dimensions down (comma-separated columns)")
    table.add_argument("--columns", help="the dimensions across (comma-separated columns)")
    table.add_argument("--values", help="the numeric column to sum (then --aggfunc sum is "
                       "the default)")
    table.add_argument("--aggfunc", choices=("count", "sum"), help="count rows (default) or "
                       "sum --values")
    table.add_argument("--contributor", help="the holder of each row (an enterprise id): "
                       "frequencies count holders, the p%% and dominance rules pool them")
    table.add_argument("--hierarchy", action="append", metavar="COL=SPEC",
                       help="sub-totals of a dimension: an ARX hierarchy file "
                            "(region=regions.csv) or a builder (age=intervals:5,10)")
    table.add_argument("--no-margins", dest="margins", action="store_false", default=None,
                       help="no grand totals")
    table.add_argument("--margins-name", dest="margins_name", metavar="TEXT",
                       help="the grand totals' label (default Total; give another when a "
                            "category is named Total)")
    protect = p.add_argument_group("protection")
    protect.add_argument("--rule", action="append", metavar="NAME=VALUE",
                         help="a primary rule: min_frequency=3, p_percent=10, "
                              "dominance=1,80 (n,k), pq=20,50, zeros=primary, group=true, "
                              "protection=10 (repeat the flag for several)")
    protect.add_argument("--method", choices=METHODS, help="secondary suppression "
                         f"(default optimal; one of {', '.join(METHODS)})")
    protect.add_argument("--cost", choices=COSTS, help="minimize the withheld value "
                         "(default) or the withheld cells")
    protect.add_argument("--no-full-audit", dest="full_audit", action="store_false",
                         default=None, help="check the pattern by its certificates (each "
                         "primary cell's stored proof, under a second on 20,000 cells) instead "
                         "of the full audit (two linear programs per withheld cell); by default "
                         "the full audit runs up to 2,000 withheld cells")
    protect.add_argument("--time-limit", type=float, dest="time_limit", metavar="SECONDS",
                         help="the optimal search's limit (default 60); past it the fast "
                              "method's audited pattern is written, with a warning")
    noise = p.add_argument_group("cell-key noise (instead of suppression)")
    noise.add_argument("--cell-key", dest="cell_key", action="store_true", default=None,
                       help="perturb the counts (or sums) by the cell-key method")
    noise.add_argument("--ptable", metavar="FILE|D=,V=",
                       help="the p-table: a file in ONS's format (pcv,ckey,pvalue) or "
                            "parameters D=3,V=2[,js=2][,modulus=65536]")
    noise.add_argument("--record-keys", dest="record_keys", metavar="COL",
                       help="the input's column of record keys (drawn once with "
                            "pdanon.tables.record_keys and kept with the microdata)")
    noise.add_argument("--noise-share", dest="noise_share", type=float, metavar="M",
                       help="for sums: the noise as a share of a cell's largest "
                            "contribution (cellKey's m, e.g. 0.05)")
    audit = p.add_argument_group("audit a pattern made elsewhere")
    audit.add_argument("--audit-only", dest="audit_only", action="store_true", default=None,
                       help="audit --suppressed instead of protecting; exit code 3 when a "
                            "cell is unsafe")
    audit.add_argument("--suppressed", action="append", metavar="PATTERN",
                       help="the pattern (CSV): the dimension columns and a status column, "
                            "or one row per withheld cell (with --table: once per table, in "
                            "the order of the --table flags)")
    _ACTIONS.update({a.dest: a for a in p._actions})
    return p


# ============================================================================ settings


def rules_of(items) -> dict:
    """``["min_frequency=3", "dominance=1,80"]`` (or a config's ``[rules]`` table) -> the
    rules dict of :meth:`pdanon.tables.Table.protect`; ``dominance`` given twice is a list."""
    if isinstance(items, dict):
        listed = []
        for k, v in items.items():
            pairs = v if isinstance(v, list) and v and isinstance(v[0], list) else [v]
            listed += [f"{k}={','.join(map(str, p)) if isinstance(p, list) else p}"
                       for p in pairs]
        items = listed
    out: dict = {}
    dominance: list = []
    for item in items or ():
        if "=" not in str(item):
            raise ConfigError(f"--rule {item!r}: write NAME=VALUE, e.g. min_frequency=3, "
                              f"p_percent=10 or dominance=1,80")
        name, value = (x.strip() for x in str(item).split("=", 1))
        if name in PAIR_RULES:
            parts = [v.strip() for v in value.split(",")]
            if len(parts) != 2:
                raise ConfigError(f"--rule {item!r}: {name} takes two numbers, e.g. "
                                  f"{name}={'1,80' if name == 'dominance' else '20,50'}")
            pair = tuple(_num(v, item) for v in parts)
            if name == "dominance":
                dominance.append(pair)
                continue
            value = pair
        elif name == "group":
            flag = value.lower()
            if flag not in ("true", "false", "yes", "no", "1", "0"):
                raise ConfigError(f"--rule {item!r}: group takes true or false")
            value = flag in ("true", "yes", "1")
        elif name != "zeros":
            value = _num(value, item)
        if name in out:
            raise ConfigError(f"--rule {name} is given twice; give it once")
        out[name] = value
    if dominance:
        out["dominance"] = dominance[0] if len(dominance) == 1 else dominance
    return out


def _num(text: str, item):
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"--rule {item!r}: {text!r} is not a number") from None
    return int(value) if value.is_integer() and "." not in text else value


def settings(args: argparse.Namespace) -> dict:
    """Defaults, then ``--config``, then the flags."""
    given = {k: v for k, v in vars(args).items()
             if v is not None and k not in ("command", "config")}
    out = dict(DEFAULTS)
    if args.config is not None:
        config = read_config(args.config, max_bytes=side_limit(vars(args)))
        lists = {"index", "columns", "formats"}  # text or a list of names, checked here
        check_config_values(config, args.config, {"": SECTIONS[""]},
                            {k: a for k, a in _ACTIONS.items() if k not in lists})
        for key in lists & set(config):
            value = config[key]
            if not (isinstance(value, str) or (isinstance(value, list) and all(
                    isinstance(v, str) for v in value))):
                raise ConfigError(f"config {args.config!r}: {key} = {value!r:.60}: expected "
                                  f"a column name or a list of them; correct it in the file")
        unknown = sorted(set(config) - set(SECTIONS[""]) - {"rules", "hierarchies",
                                                            "suppressed", "audit_only",
                                                            "tables"})
        if unknown:
            raise ConfigError(f"config {args.config!r}: unknown key or table {unknown[0]!r}; "
                              f"it takes {', '.join(SECTIONS[''])}, [rules], [hierarchies]")
        base = os.path.dirname(os.path.abspath(args.config))
        for key, value in config.items():
            if key in PATH_KEYS and isinstance(value, str) and not os.path.isabs(value) \
                    and not (key == "ptable" and "=" in value):
                value = os.path.join(base, value)
            out[key] = value
        if "suppressed" in config:  # a path, or one per table: a list
            value = config["suppressed"]
            if not (isinstance(value, str) or (isinstance(value, list) and value and all(
                    isinstance(v, str) for v in value))):
                raise ConfigError(f"config {args.config!r}: suppressed = {value!r:.60}: "
                                  f"expected a pattern file or a list of them (one per table)")
            out["suppressed"] = [v if os.path.isabs(v) else os.path.join(base, v)
                                 for v in ([value] if isinstance(value, str) else value)]
        if isinstance(config.get("rules"), dict):
            out["rule"] = config["rules"]
        if "tables" in config:
            out["table"] = tables_of_config(config["tables"], args.config)
        if isinstance(config.get("hierarchies"), dict):
            out["hierarchy"] = {c: s if is_builder(s) else os.path.join(base, s)
                                for c, s in config["hierarchies"].items()}
    out.update(given)  # --rule flags replace the config's [rules] as a whole
    for key in ("index", "columns"):
        if isinstance(out.get(key), (str, list)):
            named = parse_columns(out[key], f"--{key}")
            kinds = [c for c, k in named.items() if k is not None]
            if kinds:
                raise ConfigError(f"--{key}: {kinds[0]!r} has a kind; a table's dimensions "
                                  f"are read as text (drop ':{named[kinds[0]]}')")
            out[key] = list(named)
    if isinstance(out.get("hierarchy"), list):
        out["hierarchy"] = dict(hierarchy_spec(h) for h in out["hierarchy"])
    if out.get("table"):
        out["tables"] = [t if isinstance(t, dict) else table_spec(t) for t in out["table"]]
    if isinstance(out.get("formats"), str):
        out["formats"] = [f.strip() for f in out["formats"].split(",") if f.strip()]
    out["rules"] = rules_of(out.get("rule")) if out.get("rule") else None
    return out


def check_settings(s: dict) -> None:
    """Refuse contradictory or missing flags before reading anything."""
    if s.get("input") is None:
        raise CliError("no input table: pdanon table IN -o OUT --index COL ... (or input = "
                       "... in --config)")
    if s.get("tables"):
        check_linked(s)
    elif s.get("formats") or s.get("pivots"):
        raise CliError(f"{'--formats' if s.get('formats') else '--pivots'} is for several "
                       f"tables (--table); one table's format follows -o's extension, its "
                       f"pivot is --pivot PATH")
    elif not (s.get("index") or s.get("columns")):
        raise CliError("--index and/or --columns: name the table's dimensions (columns of "
                       "the input), e.g. --index region --columns sex")
    if s.get("audit_only"):
        if not s.get("suppressed"):
            raise CliError("--audit-only needs --suppressed PATTERN (a CSV of the withheld "
                           "cells)")
        if not s.get("tables") and len(s["suppressed"]) > 1:
            raise CliError(f"--suppressed is given {len(s['suppressed'])} times for one "
                           f"table; give one pattern (several are for --table, one each)")
        if s.get("cell_key"):
            raise CliError("--audit-only audits a suppression pattern; drop --cell-key")
        extra = [f for f, k in (("-o", "output"), ("--pivot", "pivot"), ("--report", "report"))
                 if s.get(k)]
        if extra:
            raise CliError(f"--audit-only writes nothing; drop {', '.join(extra)}")
    elif not s.get("tables"):
        if s.get("suppressed"):
            raise CliError("--suppressed is the pattern --audit-only audits; add --audit-only "
                           "(or drop --suppressed to protect the table afresh)")
        if s.get("output") is None:
            raise CliError("-o OUT: say where the table goes (CSV, or Parquet by extension)")
    if s.get("cell_key"):
        if s.get("ptable") is None or s.get("record_keys") is None:
            raise CliError("--cell-key needs --ptable (a file or D=3,V=2) and --record-keys "
                           "COL (the input's column of record keys)")
        if s.get("rules"):
            raise CliError("--rule is for suppression; --cell-key adds noise instead: drop "
                           "one of them")
    else:
        for flag, key in (("--ptable", "ptable"), ("--record-keys", "record_keys"),
                          ("--noise-share", "noise_share")):
            if s.get(key) is not None:
                raise CliError(f"{flag} is for --cell-key; add --cell-key or drop {flag}")
    ins = [("the input", s.get("input")), ("--config", s.get("_config"))]
    ins += [("--suppressed", p) for p in s.get("suppressed") or ()]
    ins += [(f"--hierarchy {c}", v) for c, v in (s.get("hierarchy") or {}).items()
            if not is_builder(v)]
    ins += [(f"--table {n} hierarchy={c}", v) for n, t in zip(table_names(
        s.get("tables") or []), s.get("tables") or []) for c, v in (
        t.get("hierarchies") or {}).items() if not is_builder(v)]
    if s.get("ptable") and "=" not in str(s["ptable"]):
        ins.append(("--ptable", s["ptable"]))
    clash = overwrite_clash(ins, [(flag, s.get(key)) for flag, key in (
        ("-o", "output"), ("--pivot", "pivot"), ("--report", "report"))])
    if clash:
        raise CliError(clash)


# ============================================================================ running


def read_frame(s: dict):
    """The input, the dimension and contributor columns read as text."""
    from pdanon.cli.anonymize import CliError as AnonymizeError
    from pdanon.cli.anonymize import read_input

    dims = [("--index", s.get("index")), ("--columns", s.get("columns"))]
    for t in s.get("tables") or ():
        dims += [(f"--table {t.get('name', '')} {k}".replace("  ", " "), t.get(k))
                 for k in ("index", "columns")]
    text = [c for _, cols in dims for c in cols or ()]
    if s.get("contributor"):
        text.append(s["contributor"])
    try:
        df = read_input(s["input"], s, text)
    except AnonymizeError as exc:
        raise CliError(str(exc).replace("pdanon anonymize", "pdanon table")) from None
    names = [str(c) for c in df.columns]
    for flag, cols in (*dims, ("--values", [s["values"]] if s.get("values") else []),
                       ("--contributor", [s["contributor"]] if s.get("contributor") else []),
                       ("--record-keys", [s["record_keys"]] if s.get("record_keys") else []),
                       ("--hierarchy", list(s.get("hierarchy") or {}))):
        for col in cols or ():
            if col not in names:
                import difflib

                close = difflib.get_close_matches(str(col), names, n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                raise CliError(f"{flag}: no column {col!r} in the input; {hint}its columns "
                               f"are {', '.join(names[:20])}{', ...' if len(names) > 20 else ''}")
    if s.get("values"):
        import pandas as pd

        col = df[s["values"]]
        if col.dtype == object:
            number = pd.to_numeric(col, errors="coerce")
            bad = col.notna() & number.isna()
            if bad.any():
                raise CliError(f"--values {s['values']!r}: {int(bad.sum())} cells are not "
                               f"numbers (first {col[bad].iloc[0]!r} at row "
                               f"{int(bad.to_numpy().argmax())}); fix them in the file")
            df[s["values"]] = number
    return df


def build_table(df, s: dict):
    from pdanon.sidefiles import HIERARCHY_LIMIT

    hierarchies = {col: build_hierarchy(col, spec, max_bytes=side_limit(s, HIERARCHY_LIMIT))
                   for col, spec in (s.get("hierarchy") or {}).items()}
    aggfunc = s.get("aggfunc") or ("sum" if s.get("values") else "count")
    return df.anon.table(index=s.get("index"), columns=s.get("columns"),
                         values=s.get("values"), aggfunc=aggfunc,
                         hierarchies=hierarchies or None, margins=bool(s.get("margins", True)),
                         contributor=s.get("contributor"),
                         **({"margins_name": s["margins_name"]} if s.get("margins_name")
                            else {}))


def build_tables(df, s: dict) -> list:
    """One table per ``--table``, each with its own hierarchies and the ``--hierarchy`` of
    its other columns; an error names the table."""
    out = []
    for name, t, mine in zip(table_names(s["tables"]), s["tables"], linked_hierarchies(s)):
        own = t.get("hierarchies") or {}
        try:
            out.append(build_table(df, {**s, "index": t.get("index"),
                                        "columns": t.get("columns"), "hierarchy": mine}))
        except ConfigError as exc:
            bad = [c for c in own if str(exc).startswith(f"--hierarchy {c}=")]
            if not bad:
                raise
            rest = str(exc).split(": ", 1)[-1]
            raise CliError(f"--table {name}: hierarchy={bad[0]}:{own[bad[0]]}: {rest}; give "
                           f"an ARX hierarchy file or a builder (mask:..., intervals:..., "
                           f"dates:...)") from None
        except (CliError, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - the library's words, with the table's name
            raise CliError(f"--table {name}: {flag_words(one_line(exc))}") from None
    return out


def run_linked(s: dict, df, lines: list, caught: list, started: float) -> int:
    """``--table`` given: the tables protected (or perturbed, or their patterns audited)
    together, written into the folder ``-o``."""
    from pdanon.release.publish import PublishError
    from pdanon.release.tables import publish_tables
    from pdanon.tables import link

    tables = build_tables(df, s)
    names = table_names(s["tables"])
    lines += [("table", f"{n}: {t!r}") for n, t in zip(names, tables)]
    linked = link(*tables)
    if s.get("audit_only"):
        return audit_linked(linked, names, s, lines, caught, started)
    if s.get("cell_key"):
        return cell_key_linked(linked, names, df, s, lines, caught, started)
    p = linked.protect(s.get("rules"), method=s["method"], cost=s["cost"],
                       time_limit=float(s["time_limit"]))
    try:
        done = publish_tables(p, s["output"], names=names, formats=s.get("formats") or "csv",
                              pivot=bool(s.get("pivots")), marker=s.get("marker"),
                              overwrite=True, audit=s["full_audit"])
    except PublishError as exc:
        if "audit" in str(exc):
            _close(lines, caught, started)
            print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
            return EXIT_POLICY_FAILED
        raise
    for n, m in zip(names, p.tables):
        st = m.cells["status"].value_counts()
        lines.append(("cells", f"{n}: {len(m.cells):,}, {int(st.get('primary', 0)):,} "
                               f"primary, {int(st.get('secondary', 0)):,} secondary"))
    lines += [("distinct", f"{len(p.cells):,} cells in {len(tables)} linked tables"),
              ("method", _method_words(p.info)),
              ("audit", _audit_words(done) + " (linked: every table at once)"),
              ("written", ", ".join(f["path"] for f in done.files.values()))]
    _close(lines, caught, started)
    return EXIT_OK


def audit_linked(linked, names: list, s: dict, lines: list, caught: list,
                 started: float) -> int:
    """``--audit-only`` with ``--table``: each table's pattern (``--suppressed``, in order)
    audited against the attacker who sees every table; exit 3 when a cell is unsafe."""
    import numpy as np

    from pdanon.tables import audit, primary

    masks = []
    for i, (name, path, t) in enumerate(zip(names, s["suppressed"], linked.tables)):
        try:
            masks.append(read_pattern(path, t, s))
        except CliError as exc:
            raise CliError(f"table {name} (--table {i + 1}): {exc}; the --suppressed patterns "
                           f"go in the order of the --table flags") from None
    levels = [primary(t, s.get("rules")) for t in linked.tables]
    result = audit(linked, masks, levels=levels)
    row_in = np.full((len(linked.tables), len(linked.union.cells)), -1, dtype=np.int64)
    for i, ids in enumerate(linked.union.ids):  # distinct cell -> its row in each table
        row_in[i, np.asarray(ids)] = np.arange(len(ids))
    bad = []
    for pos, row in result.unsafe.iterrows():  # the distinct cell's labels in each table
        at = linked.union.cells.index.get_loc(pos)
        held = [(i, int(row_in[i, at])) for i in row["tables"]]
        i, k = held[0]
        t = linked.tables[i]
        labels = ", ".join(f"{d}={t.cells[d].iloc[k]}" for d in t.dimensions)
        why = "narrower than its protection" if row["withheld"] else (
            "primary but published in " + ", ".join(names[j] for j in row["published_in"]))
        also = [names[j] for j, _ in held[1:]]
        bad.append(f"{names[i]}: {labels} ({why}" + (f"; also in {', '.join(also)})"
                                                      if also else ")"))
    lines += [("withheld", ", ".join(f"{n}: {int(m.sum()):,}" for n, m in zip(names, masks)))]
    verdict = "PASSED" if not bad else "FAILED"
    lines += [("audit", f"{verdict}: {len(bad):,} unsafe (linked: every table at once)")]
    lines += [("unsafe", b) for b in bad[:20]]
    _close(lines, caught, started)
    return EXIT_POLICY_FAILED if bad else EXIT_OK


def cell_key_linked(linked, names: list, df, s: dict, lines: list, caught: list,
                    started: float) -> int:
    """``--cell-key`` with ``--table``: every table perturbed with the same record keys and
    p-table (a cell two tables share covers the same rows: the same cell key, the same
    noise), checked to agree on every shared cell, and written into the folder ``-o``."""
    import numpy as np

    from pdanon.release.tables import publish_perturbed_tables_files, tables_files

    pt = ptable_of(s)
    done = [cell_key_table(t, df, s, pt) for t in linked.tables]
    value = np.full(len(linked.union.cells), np.nan)
    for ids, obj in zip(linked.union.ids, done):
        mine = obj.cells["value"].to_numpy(dtype=np.float64)
        seen = ~np.isnan(value[ids])
        if not np.allclose(value[ids][seen], mine[seen], rtol=1e-12, atol=0):
            raise CliError("the perturbed tables disagree on a cell they share: nothing was "
                           "written. This is a bug: please report it")
        value[ids] = mine
    paths = tables_files(s["output"], names, s.get("formats") or ["csv"], bool(s.get("pivots")))
    out = publish_perturbed_tables_files(done, paths, marker=s.get("marker"), overwrite=True)
    shared = int((linked.union.cells["tables"].map(len) > 1).sum())
    lines += [("noise", f"{n}: {o.info['changed']:,} of {len(o.cells):,} cells changed")
              for n, o in zip(names, done)]
    lines += [("shared", f"{shared:,} cells in several tables, one perturbed value each"),
              ("written", ", ".join(f["path"] for f in out.files.values()))]
    _close(lines, caught, started)
    return EXIT_OK


def _method_words(info: dict) -> str:
    return f"{info['method']}" + (
        " (proven optimal)" if info.get("optimal") else
        " (not proven optimal)" if info["method"] == "optimal" else "")


def read_pattern(path: str, table, s: dict):
    """The withheld mask of ``table`` that the pattern file gives."""
    import numpy as np
    import pandas as pd

    from pdanon.cli.common import unreadable

    reason = unreadable(path)
    if reason:
        raise CliError(reason.replace("cannot read", "--suppressed: cannot read"))
    try:
        pat = pd.read_csv(path, dtype=str, keep_default_na=False, sep=s["sep"],
                          encoding=s["encoding"])
    except Exception as exc:  # noqa: BLE001 - parser, encoding
        raise CliError(f"--suppressed: cannot read {path!r}: {one_line(exc)}") from None
    dims = [str(d) for d in table.dimensions]
    lacking = [d for d in dims if d not in pat.columns]
    if lacking:
        raise CliError(f"--suppressed {path!r} lacks the dimension column(s) {lacking}; it "
                       f"needs {dims} (and optionally status)")
    if "status" in pat.columns:
        status = pat["status"].str.strip().str.lower()
        known = {"withheld", "primary", "secondary", "published", "safe", "suppressed"}
        odd = sorted(set(status) - known)
        if odd:
            raise CliError(f"--suppressed: status {odd[0]!r} is not one of "
                           f"{', '.join(sorted(known))}")
        pat = pat[status.isin(["withheld", "primary", "secondary", "suppressed"])]

    def key(frame):
        return pd.Series(list(zip(*[frame[d].map(lambda v: "" if v is None or v != v else
                                                 str(v)) for d in dims])), index=frame.index)

    cells = key(table.cells.rename(columns=str))
    where = {k: i for i, k in enumerate(cells)}
    mask = np.zeros(len(cells), dtype=bool)
    for row, k in key(pat).items():
        if k not in where:
            raise CliError(f"--suppressed: row {int(row) + 2} names the cell "
                           f"{dict(zip(dims, k))}, which the table does not have; its labels "
                           f"are the input's values and {table.cells[dims[0]].iloc[-1]!r}")
        mask[where[k]] = True
    return mask


def ptable_of(s: dict):
    """The p-table ``--ptable`` gives: a file in ONS's format or ``D=3,V=2[,js=2]``."""
    from pdanon.tables import ptable, read_ptable

    spec = str(s["ptable"])
    try:
        if "=" in spec and not os.path.exists(spec):
            params = {}
            for item in (p.strip() for p in spec.split(",") if p.strip()):
                name, _, value = item.partition("=")
                params[name.strip()] = float(value) if name.strip() == "V" else int(value)
            return ptable(**params)
        from pdanon.cli.common import unreadable

        reason = unreadable(spec)
        if reason:
            raise CliError(reason.replace("cannot read", "--ptable: cannot read"))
        return read_ptable(spec)
    except (TypeError, ValueError) as exc:
        raise CliError(f"--ptable {spec!r}: {one_line(exc)}; write D=3,V=2[,js=2]"
                       f"[,modulus=65536] or give a file in ONS's format (pcv,ckey,pvalue)") \
            from None


def cell_key_table(t, df, s: dict, pt=None):
    extra = {} if t.is_count else {"m": s.get("noise_share")}
    if not t.is_count and s.get("noise_share") is None:
        raise CliError("--cell-key on a sum needs --noise-share M (the noise as a share of a "
                       "cell's largest contribution, e.g. 0.05)")
    if t.is_count and s.get("noise_share") is not None:
        raise CliError("--noise-share is for sums (--values); a count takes its noise from "
                       "the p-table alone")
    return t.cell_key(ptable_of(s) if pt is None else pt, df[s["record_keys"]], **extra)


def run(args: argparse.Namespace, caught: list) -> int:
    from pdanon.release.tables import publish_table_files

    started = time.perf_counter()
    s = settings(args)
    s["_config"] = args.config
    check_settings(s)
    df = read_frame(s)
    if s.get("tables"):
        return run_linked(s, df, [("input", f"{s['input']} ({len(df):,} rows)")], caught,
                          started)
    t = build_table(df, s)
    lines = [("input", f"{s['input']} ({len(df):,} rows)"), ("table", repr(t))]
    if s.get("audit_only"):
        from pdanon.tables import audit, primary

        mask = read_pattern(s["suppressed"][0], t, s)
        levels = primary(t, s.get("rules"))
        result = audit(t, mask, levels=levels)
        bad = [(row, "narrower than its protection" if row["withheld"] else
                "primary but published") for _, row in result.unsafe.iterrows()]
        ok = not bad
        lines += [("withheld", f"{int(mask.sum()):,} cells"),
                  ("audit", f"{'PASSED' if ok else 'FAILED'}: {len(bad):,} unsafe")]
        for row, why in bad[:20]:
            lines.append(("unsafe", ", ".join(f"{d}={row[d]}" for d in t.dimensions) +
                          f" ({why})"))
        _close(lines, caught, started)
        return EXIT_OK if ok else EXIT_POLICY_FAILED
    if s.get("cell_key"):
        obj = cell_key_table(t, df, s)
    else:
        obj = t.protect(s.get("rules"), method=s["method"], cost=s["cost"],
                        time_limit=float(s["time_limit"]))
    paths = {"parquet" if is_parquet(s["output"]) else "csv": s["output"]}
    if s.get("pivot"):
        paths["pivot"] = s["pivot"]
    if s.get("report"):
        paths["report_json" if str(s["report"]).lower().endswith(".json") else "report"] = \
            s["report"]
    from pdanon.release.publish import PublishError

    try:
        done = publish_table_files(obj, paths, marker=s.get("marker"), overwrite=True,
                                   audit=s["full_audit"])
    except PublishError as exc:
        if "audit" in str(exc):
            _close(lines, caught, started)
            print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
            return EXIT_POLICY_FAILED
        raise
    if s.get("cell_key"):
        lines.append(("noise", f"{obj.info['changed']:,} of {len(obj.cells):,} cells changed"))
    else:
        st = obj.cells["status"].value_counts()
        lines += [("cells", f"{len(obj.cells):,}: {int(st.get('primary', 0)):,} primary, "
                            f"{int(st.get('secondary', 0)):,} secondary"),
                  ("method", _method_words(obj.info)),
                  ("audit", _audit_words(done))]
    lines += [("written", ", ".join(f["path"] for f in done.files.values()))]
    _close(lines, caught, started)
    return EXIT_OK


def _close(lines: list, caught: list, started: float) -> None:
    for line in warning_lines(PROG, caught):
        print(flag_words(line), file=sys.stderr)
    caught.clear()
    for label, value in lines + [("seconds", f"{time.perf_counter() - started:.2f}")]:
        print(f"{label:<12}{value}", file=sys.stderr)


#: the library's keywords in a message, as the flags that set them
_FLAG_WORDS = (("build it with values=..., aggfunc='sum'", "give --values COL"),
               ("values=", "--values "), ("aggfunc=", "--aggfunc "),
               ("contributor=", "--contributor "), ("time_limit=", "--time-limit "),
               ("hierarchies name", "--hierarchy names"), ("method=", "--method "),
               ("cell_key: m=", "--noise-share "), ("rule ", "--rule "),
               ("names=: ", "--table name: "))


def flag_words(text: str) -> str:
    """A library message in the flags' words.

    >>> flag_words("rule p_percent=120 is outside (0, 100)")
    '--rule p_percent=120 is outside (0, 100)'
    """
    for old, new in _FLAG_WORDS:
        text = text.replace(old, new)
    return text.replace("----", "--")


def _attempt(args: argparse.Namespace, caught: list) -> tuple:
    """``(exit code, error line or None)`` of a run: no traceback for a command-line user."""
    try:
        return run(args, caught), None
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED, "interrupted"
    except (CliError, ConfigError) as exc:
        return EXIT_BAD_INPUT, one_line(exc)
    except Exception as exc:  # noqa: BLE001 - library errors, in the flags' words
        return EXIT_BAD_INPUT, flag_words(one_line(exc))


def main(args: argparse.Namespace) -> int:
    """Run ``pdanon table`` with parsed arguments; returns the exit code."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, message = _attempt(args, caught)
        for line in warning_lines(PROG, caught):
            print(flag_words(line), file=sys.stderr)
    if message is not None:
        print(f"{PROG}: error: {message}", file=sys.stderr)
    return code


def _audit_words(done) -> str:
    """The closing line's audit: passed or failed, and by which check."""
    how = {"full": "full audit", "certificates": "certificates"}.get(done.audit_check, "")
    return ("PASSED" if done.audit_ok else "FAILED") + (f" ({how})" if how else "")
