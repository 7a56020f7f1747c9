"""``pdanon anonymize``: the modern command line, the same engine and checks as Python.

::

    pdanon anonymize IN -o OUT --qi age:real,zip5,admission_date --sensitive diagnosis
                     --identifiers patient_id,name,note -k 5 [-l 2] [-t 0.2] [...]
                     [--hierarchy zip5=mask:1,2,3 ...] [--policy k=5,max_records_at_risk=0.05]
                     [--report report.html] [--explain explain.csv] [--config release.toml]
                     [--write-config release.toml]

Columns are named (a header line is required in CSV), kinds written after a colon
(``age:real``; ``date`` parses ISO dates). The run is ``df.anon.anonymize(model, ...)`` with
the model the flags ask for (:func:`build_model`), so the release, its ``info``, its verdict and
its report are the Python call's. Codes stay text: identifier, quasi-identifier and sensitive
columns are read as text, and a column becomes numbers only when its kind is ``real`` or,
without a kind, when every cell is a plain number without a leading zero
(:func:`convert_column`). Parquet output keeps the roles and ``info`` (pandas' attrs);
``--schema`` writes the YAML schema that reads a CSV release back exactly
(``pdanon.read_csv(path, schema=pdanon.schema_from_yaml(...))``).

Exit codes: 0 released, 2 bad input or an infeasible request (one line ``pdanon anonymize:
error: ...`` naming the flag or column and the fix), 3 the ``--policy`` failed (nothing is
written to ``-o``; the report and the explanation are, for the publisher), 130 interrupted.
Every warning is one line ``pdanon anonymize: warning: text (Category)``; the closing lines
are labeled (``rows``, ``classes``, ``achieved``, ``changed cells``, ``policy``, ...).

A config file (TOML, ``--config``) holds every choice of a run; flags given beside it win.
``--write-config PATH`` writes the config of the run just made, with the resolved algorithm
and kinds, so ``pdanon anonymize --config PATH`` repeats it exactly (it warns when the input
file or the pdanon version differs from the one recorded). See docs/cli.md.

Example
-------
>>> main(["anonymize", "missing.csv", "-k", "5"])  # doctest: +SKIP
pdanon anonymize: error: cannot read 'missing.csv': file not found
2
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys
import time
import warnings

from pdanon.cli.common import (EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_POLICY_FAILED,
                               LEADING_ZERO, is_parquet, numbers_column, one_line, read_error,
                               overwrite_clash, unreadable, warning_lines)
from pdanon.cli.config import (CLI_KINDS, ConfigError, build_hierarchy, check_config_values,
                               hierarchy_spec, is_builder,
                               parse_columns, parse_policy, policy_table, read_config, side_limit,
                               to_toml)
from pdanon._errors import InvalidInputError
from pdanon.roles import looks_like_codes
from pdanon.cli import household as cli_household, plan as cli_plan, survey as cli_survey
from pdanon.cli import attacks as cli_attacks
from pdanon.cli.words import cli_words
from pdanon.sidefiles import HIERARCHY_LIMIT, read_side_text
from pdanon.io import ISO_DATE as _ISO_DATE  # one rule for dates written as text

PROG = "pdanon anonymize"
ALGORITHMS = ("auto", "mondrian", "nearest", "datafly", "equal_groups", "group_join", "exact",
              "optimal", "safepub")
METHODS = ("generalize", "suppress", "aggregate")

#: config file layout: section -> the settings (argparse destinations) it holds
SECTIONS = {
    "": ("input", "output", "report", "internal_report", "explain", "schema", "recoding",
         "save_recoding", "sep", "encoding", "csv_escape", "row_order"),
    "columns": ("identifiers", "insensitive", "allow_channels", "household", "household_ids"),
    "model": ("k", "l", "l_variant", "c", "t", "distance", "beta", "beta_variant", "delta",
              "alpha", "alpha_value", "k_map", "population", "population_size",
              "sampling_fraction", "max_risk", "average_risk", "epsilon", "dp_delta",
              "missing_sensitive"),
    "anonymize": ("algorithm", "method", "labels", "max_suppressed", "objective", "seed",
                  "progress", "quality", "target", "steps"),
}
for _section, _keys in [*cli_survey.CONFIG.items(), *cli_attacks.CONFIG.items()]:
    SECTIONS[_section] += _keys  # --date-format, --weights, --levels; --attacks
#: settings that are file names (a config file's are relative to its folder)
PATH_KEYS = ("input", "output", "report", "internal_report", "explain", "schema",
             "recoding", "save_recoding", "population", "attacks")
DEFAULTS = {"sep": ",", "encoding": "utf-8", "csv_escape": True, "row_order": "random",
            "algorithm": "auto",
            "method": "generalize", "labels": False, "progress": "auto"}
_PLAIN_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


#: each flag's argparse action by its setting's name (filled by add_parser; a config file's
#: values are checked against them)
_ACTIONS: dict = {}


class CliError(Exception):
    """A user error: printed as one line, exit code 2."""


# ============================================================================ flags


_HELP_SAVE_RECODING = ("also write the release's recoding (JSON: its published cells, model "
                       "and sensitive columns) for later batches")
_HELP_RECODING = ("publish with a kept recoding instead of anonymizing afresh: the JSON of an "
                  "earlier --save-recoding; the model is verified again (the recorded one, or "
                  "the model flags)")


def add_parser(sub) -> argparse.ArgumentParser:
    """The ``anonymize`` subcommand on ``pdanon``'s subparsers."""
    p = sub.add_parser(
        "anonymize", help="anonymize a CSV or Parquet table (named columns, every model)",
        description="Anonymize a table with pdanon's engine: named columns, every algorithm "
                    "and privacy model, hierarchies, a policy, a report, a config file. "
                    "docs/cli.md has examples.", argument_default=None)
    a = p.add_argument
    files = p.add_argument_group("files")
    files.add_argument("input", nargs="?", help="the table: CSV with a header line, or Parquet "
                       "(.parquet, .pq); may come from --config")
    files.add_argument("-o", "--output", help="the release: CSV, or Parquet by extension "
                       "(keeps roles and info); without it, CSV on standard output")
    files.add_argument("--report", metavar="PATH", help="also write the release report (HTML; "
                       "it may travel with the release)")
    files.add_argument("--internal-report", metavar="PATH", dest="internal_report",
                       help="also write the internal report (HTML; with every column's "
                       "distribution before and after: keep it private)")
    files.add_argument("--explain", metavar="PATH", help="also write, per input row, why it "
                       "changed (CSV or Parquet; holds original values: keep it private)")
    files.add_argument("--schema", metavar="PATH", help="also write the release's schema "
                       "(YAML), which reads a CSV release back exactly")
    files.add_argument("--save-recoding", metavar="PATH", dest="save_recoding",
                       help=_HELP_SAVE_RECODING)
    files.add_argument("--recoding", metavar="PATH", help=_HELP_RECODING)
    files.add_argument("--config", metavar="PATH", help="read every choice from a TOML file; "
                       "flags given too win")
    files.add_argument("--max-side-file-mib", type=int, metavar="MIB",
                       help="the largest config, policy, recoding or hierarchy file read, in "
                       "MiB (default 64, hierarchies 256)")
    files.add_argument("--write-config", metavar="PATH", help="write the config of this run "
                       "(resolved algorithm and kinds) to re-run it exactly")
    files.add_argument("--sep", help="CSV field separator (default ,)")
    files.add_argument("--encoding", help="CSV encoding (default utf-8)")
    files.add_argument("--no-csv-escape", dest="csv_escape", action="store_const",
                       const=False, help="write CSV cells starting with = + - @ as they are")
    files.add_argument("--row-order", dest="row_order", choices=("random", "input"),
                       help="the order of the release's rows: random (default; the input's "
                            "order shows hidden cells when it was sorted on a "
                            "quasi-identifier) or input")
    cols = p.add_argument_group("columns (comma-separated names; a kind after a colon: real, "
                                "ordered, unordered, date)")
    cols.add_argument("--qi", help="quasi-identifiers, e.g. age:real,zip5,admission_date:date")
    cols.add_argument("--sensitive", help="sensitive columns, e.g. diagnosis")
    cols.add_argument("--identifiers", help="direct identifiers: dropped from the release")
    cols.add_argument("--insensitive", help="published unchanged, on purpose")
    cols.add_argument("--allow-channels", dest="allow_channels",
                      help="columns published unchanged that you have judged safe although "
                           "they determine a quasi-identifier the release hides (refused "
                           "otherwise; docs/security.md)")
    cli_household.add_arguments(cols)
    m = p.add_argument_group("privacy model (any combination)")
    m.add_argument("-k", type=int, help="k-anonymity")
    m.add_argument("-l", type=_number, help="l-diversity (distinct unless --l-variant)")
    m.add_argument("--l-variant", choices=["distinct", "entropy", "recursive"])
    m.add_argument("--c", type=float, help="c of recursive (c, l)-diversity")
    m.add_argument("-t", type=float, help="t-closeness, a fraction in (0, 1]")
    m.add_argument("--distance", help="t-closeness distance: emd (default), hierarchical, "
                   "jensen_shannon, wasserstein, reference")
    m.add_argument("--beta", type=float, help="β-likeness")
    m.add_argument("--beta-variant", choices=["basic", "enhanced"])
    m.add_argument("--delta", type=float, help="δ-disclosure privacy")
    m.add_argument("--missing-sensitive", choices=["unknown", "value"],
                   help="a blank sensitive cell for -l, -t, --beta, --delta: unknown (default: "
                   "no value) or value (one more value)")
    m.add_argument("--alpha", type=float, help="(α, k)-anonymity, with -k")
    m.add_argument("--alpha-value", help="(α, k): only this sensitive value")
    m.add_argument("--k-map", type=int, help="k-map against --population (or an estimate: "
                   "--population-size / --sampling-fraction)")
    m.add_argument("--population", metavar="PATH", help="the population table of --k-map")
    m.add_argument("--population-size", type=int)
    m.add_argument("--sampling-fraction", type=float)
    m.add_argument("--max-risk", type=float, help="highest prosecutor risk (ARX)")
    m.add_argument("--average-risk", type=float, help="average prosecutor risk (ARX)")
    d = p.add_argument_group("differential privacy (SafePub; a model of its own: every column "
                             "but the identifiers is published through it)")
    d.add_argument("--epsilon", type=float, help="(epsilon, delta)-differential privacy: the "
                   "budget of this release")
    d.add_argument("--dp-delta", type=float, dest="dp_delta", help="its delta, well below "
                   "1 / rows (e.g. 1e-5)")
    d.add_argument("--quality", choices=["loss", "precision", "discernibility", "group_size",
                                         "classification"],
                   help="the score the private search maximizes (default loss)")
    d.add_argument("--target", help="the column --quality classification predicts")
    d.add_argument("--steps", type=int,
                   help="draws of SafePub's walk (default 100; giving it chooses the walk)")
    r = p.add_argument_group("how")
    r.add_argument("-a", "--algorithm", choices=ALGORITHMS, help="default auto, as in Python")
    r.add_argument("--method", choices=METHODS, help="default generalize")
    r.add_argument("--hierarchy", action="append", metavar="COL=SPEC",
                   help="zip5=mask:1,2,3, age=intervals:5,10,20, "
                        "admission_date=dates:month,quarter,year, or COL=arx_file.csv "
                        "(repeat the flag)")
    r.add_argument("--labels", action="store_const", const=True,
                   help="publish hierarchy labels (2024Q4, 100XX) instead of ranges")
    r.add_argument("--max-suppressed", metavar="N", help="suppression budget: rows (10) or a "
                   "fraction (0.02, 2%%)")
    r.add_argument("--objective", choices=["loss", "precision", "discernibility", "entropy"])
    r.add_argument("--seed", type=int, help="for group_join (default: the fixed seed 0)")
    r.add_argument("--calendar", action="append", metavar="COLUMN=UNIT",
                   help="cut a date quasi-identifier on whole calendar units and publish "
                        "them: admission_date=month (month, quarter, year, decade)")
    r.add_argument("--option", action="append", metavar="KEY=VALUE",
                   help="an algorithm's own knob, e.g. unordered_split=frequency")
    r.add_argument("--progress", choices=["auto", "always", "never"])
    cli_survey.add_arguments(files, cols, r)
    cli_attacks.add_arguments(files)
    cli_plan.add_arguments(files)
    a("--policy", help="criteria the release must meet, e.g. k=5,l=2,max_records_at_risk=0.05 "
      "(or a TOML/JSON file); exit code 3 when one fails")
    _ACTIONS.update({action.dest: action for action in p._actions})
    return p


# ============================================================================ settings


def settings(args: argparse.Namespace) -> dict:
    """The run's settings: pdanon's defaults, then the ``--config`` file, then the flags."""
    given = {key: value for key, value in vars(args).items()
             if value is not None and key not in ("command", "config", "write_config")}
    out = dict(DEFAULTS)
    if args.config is not None:  # its paths are relative to the config file's folder
        config = read_config(args.config, max_bytes=side_limit(vars(args)))
        check_config_values(config, args.config, SECTIONS, _ACTIONS)
        base = os.path.dirname(os.path.abspath(args.config))
        from_file = _from_config(config, args.config)
        for key in PATH_KEYS:
            if from_file.get(key) is not None:
                from_file[key] = _relative(from_file[key], base)
        if isinstance(from_file.get("hierarchy"), dict):
            from_file["hierarchy"] = {c: spec if is_builder(spec) else _relative(spec, base)
                                      for c, spec in from_file["hierarchy"].items()}
        out.update(from_file)
        out["_recorded"] = {k: config.get(k) for k in ("pdanon_version", "input_sha256")}
    out.update(given)
    for key in ("qi", "sensitive"):
        if isinstance(out.get(key), str):
            out[key] = parse_columns(out[key], f"--{key}")
    for key in ("identifiers", "insensitive", "allow_channels"):
        if isinstance(out.get(key), str):
            out[key] = list(parse_columns(out[key], f"--{key}"))
    if isinstance(out.get("hierarchy"), list):
        out["hierarchy"] = dict(hierarchy_spec(h) for h in out["hierarchy"])
    if isinstance(out.get("option"), list):
        out["option"] = dict(_option(o) for o in out["option"])
    if isinstance(out.get("calendar"), list):
        out["calendar"] = dict(_calendar(c) for c in out["calendar"])
    return out


def _from_config(config: dict, path: str) -> dict:
    known = {"pdanon_version", "input_sha256", "quasi_identifiers", "sensitive", "hierarchies",
             "options", "calendar", "policy", *SECTIONS}
    known |= set(SECTIONS[""])
    unknown = sorted(set(config) - known)
    if unknown:
        raise ConfigError(f"config {path!r}: unknown key or table {unknown[0]!r}")
    out: dict = {}
    for section, keys in SECTIONS.items():
        table = config if section == "" else config.get(section, {})
        extra = sorted(set(table) - set(keys)) if section else []
        if extra:
            raise ConfigError(f"config {path!r}: [{section}] has no key {extra[0]!r} (it "
                              f"takes {', '.join(keys)})")
        out.update({key: table[key] for key in keys if key in table})
    for section, key in (("quasi_identifiers", "qi"), ("sensitive", "sensitive")):
        if section in config:
            table = config[section]
            bad = [c for c, kind in table.items() if kind not in CLI_KINDS]
            if bad:
                raise ConfigError(f"config {path!r}: [{section}] {bad[0]} = "
                                  f"{table[bad[0]]!r}; a kind is one of {', '.join(CLI_KINDS)}")
            out[key] = dict(table)
    if "hierarchies" in config:
        out["hierarchy"] = dict(config["hierarchies"])
    if "options" in config:
        out["option"] = dict(config["options"])
    if "calendar" in config:
        out["calendar"] = dict(config["calendar"])
    if "policy" in config:
        out["policy"] = dict(config["policy"])
    return out


def _relative(path, base_dir: str):
    return path if path is None or os.path.isabs(path) else os.path.join(base_dir, path)


def _portable(path, config_path):
    """``path`` as the config at ``config_path`` records it: relative to its folder."""
    if path is None or config_path is None:
        return path
    folder = os.path.dirname(os.path.abspath(config_path))
    return os.path.relpath(os.path.abspath(path), folder)


def _calendar(text: str) -> tuple:
    if "=" not in text:
        raise ConfigError(f"--calendar {text!r}: write COLUMN=UNIT, e.g. admission_date=month")
    column, unit = (x.strip() for x in text.split("=", 1))
    return column, unit


def _option(text: str) -> tuple:
    if "=" not in text:
        raise ConfigError(f"--option {text!r}: write KEY=VALUE, e.g. unordered_split=frequency")
    key, value = (x.strip() for x in text.split("=", 1))
    for cast in (int, float):
        try:
            return key, cast(value)
        except ValueError:
            pass
    return key, {"true": True, "false": False}.get(value.lower(), value)


def _budget(value):
    """``--max-suppressed``: a row count, a fraction, or a percentage."""
    if value is None or isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    text = str(value).strip()
    try:
        if text.endswith("%"):
            return float(text[:-1]) / 100
        number = float(text)
    except ValueError:
        raise CliError(f"--max-suppressed {value!r}: give a row count (10), a fraction (0.02) "
                       f"or a percentage (2%)") from None
    return int(number) if number.is_integer() and number >= 1 else number


# ============================================================================ reading


def check_files(s: dict) -> None:
    """Refuse an output that would overwrite an input or another output."""
    inputs = [("the input", s.get("input")), ("--population", s.get("population")),
              ("--config", s.get("_config")), ("--recoding", s.get("recoding"))]
    inputs += [(f"--hierarchy {c}", spec) for c, spec in (s.get("hierarchy") or {}).items()
               if not is_builder(spec)]
    outputs = [(f, s.get(k)) for f, k in (("-o", "output"), ("--report", "report"),
                                         ("--internal-report", "internal_report"),
                                         ("--explain", "explain"), ("--schema", "schema"),
                                         ("--save-recoding", "save_recoding"),
                                         ("--write-config", "write_config"))]
    clash = overwrite_clash(inputs, outputs)
    if clash:
        raise CliError(clash)


def read_input(path: str, s: dict, text_columns) -> "pd.DataFrame":
    """The table: Parquet as stored (its index dropped: rows are numbered by position), CSV
    with the named role columns read as text."""
    import pandas as pd

    if path is None:
        raise CliError("no input table: pdanon anonymize IN -o OUT (or input = ... in --config)")
    reason = unreadable(path)
    if reason:
        raise CliError(reason)
    try:
        if is_parquet(path):
            df = pd.read_parquet(path)
            _check_names(list(df.columns), path)
            # the rows are numbered by their position: the release never writes an index, and
            # the report and --explain name rows by it (a stored index may hold record ids)
            return df.reset_index(drop=True)
        from pdanon.io import read_csv

        names = _header(path, s)
        text = {c: str for c in text_columns if c in names}
        return read_csv(path, sep=s["sep"], encoding=s["encoding"], dtype=text)
    except CliError:
        raise
    except pd.errors.EmptyDataError:
        raise CliError(f"cannot read {path!r}: the file is empty") from None
    except Exception as exc:  # noqa: BLE001 - parser, encoding, permission, Arrow errors
        raise CliError(read_error(path, exc, s["encoding"])) from None


def _header(path: str, s: dict) -> list:
    import pandas as pd

    first = pd.read_csv(path, sep=s["sep"], encoding=s["encoding"], header=None, nrows=1,
                        dtype=str, keep_default_na=False)
    names = [str(v) for v in first.iloc[0]] if len(first) else []
    _check_names(names, path)
    return names


def _check_names(names: list, path: str) -> None:
    seen, dup = set(), []
    for n in names:
        (dup.append(n) if n in seen else seen.add(n))
    if dup:
        raise CliError(f"{path!r} has the column name {dup[0]!r} twice; give every column its "
                       f"own name in the header")


def check_named(df, s: dict) -> None:
    """Every column a flag names exists (else the closest names are suggested)."""
    import difflib

    names = [str(c) for c in df.columns]
    roles: dict = {}
    for flag, key in (("--qi", "qi"), ("--sensitive", "sensitive"),
                      ("--identifiers", "identifiers"), ("--insensitive", "insensitive"),
                      ("--hierarchy", "hierarchy")):
        for col in s.get(key) or ():
            if col not in names:
                close = difflib.get_close_matches(col, names, n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                raise CliError(f"{flag}: no column {col!r} in the input; {hint}its columns "
                               f"are {', '.join(names[:20])}{', ...' if len(names) > 20 else ''}")
            if key == "hierarchy":
                continue
            if col in roles:
                raise CliError(f"column {col!r} is in both {roles[col]} and {flag}; give it "
                               f"one role")
            roles[col] = flag


def convert_column(series, name: str, kind):
    """``(column, kind)``: a column read as text, converted as its kind needs, and the kind it
    is given (``date`` for dates). ``real``: numbers (a cell that is not one is an error);
    ``date``: ISO dates (time zone kept; mixed offsets become UTC); ``ordered``: numbers when
    every cell is a plain number without a leading zero, dates when every cell is an ISO
    date, else text; ``unordered``: text. Without a kind: numbers (``real``) or dates when
    every cell is one, else text (``unordered``), and small whole-number codes (race 1-4:
    :func:`pdanon.roles.looks_like_codes`) ``unordered``, as Python infers; a leading zero
    keeps a column text, and so do
    two spellings of one number (``250.0``, ``250.00``) and, without a kind, an integer
    beyond 2**53.

    Example
    -------
    >>> import pandas as pd
    >>> s = pd.Series(["04777", "10001", None])
    >>> convert_column(s, "zip", None)[0].tolist(), convert_column(s, "zip", None)[1]
    (['04777', '10001', nan], 'unordered')
    >>> col, kind = convert_column(pd.Series(["30", "41", None]), "age", None)
    >>> col.tolist(), kind
    ([30, 41, <NA>], 'real')
    """
    import pandas as pd

    if series.dtype != object and not pd.api.types.is_string_dtype(series.dtype):
        if kind == "date" and not pd.api.types.is_datetime64_any_dtype(series.dtype):
            raise CliError(f"column {name!r} is given the kind date but holds "
                           f"{series.dtype} values, not dates")
        return series, kind  # Parquet: typed as stored
    if kind == "unordered":
        return series, kind
    present = series.notna().to_numpy()
    text = series[present].astype(str).str.strip()
    if kind == "real":
        return _numbers(series, present, text, name), kind
    if kind == "date":
        return _dates(series, present, text, name), kind
    distinct = pd.Series(pd.unique(text.to_numpy(dtype=object)), dtype=object)  # codes repeat
    if len(distinct) and distinct.str.match(_PLAIN_NUMBER).all() and not distinct.str.match(
            LEADING_ZERO).any() and not _codes_of_numbers(distinct, kind):
        column = _numbers(series, present, text, name)
        return column, kind or ("unordered" if looks_like_codes(column) else "real")
    if len(distinct) and distinct.str.match(_ISO_DATE).all():
        return _dates(series, present, text, name), kind or "date"
    return series, kind or "unordered"


def _codes_of_numbers(distinct, kind) -> bool:
    """Plain numbers that are codes all the same: two spellings of one number (``250.0`` and
    ``250.00``, ``1E3`` and ``1000``: as numbers they would merge), or, unless the kind is
    ``ordered``, an integer beyond 2**53 (a float would round it; an account number)."""
    import pandas as pd

    values = pd.to_numeric(distinct, errors="coerce")
    if values.nunique() < len(distinct):
        return True
    if kind == "ordered":
        return False
    whole = distinct[~distinct.str.contains(r"[.eE]")]
    return bool(whole.str.lstrip("+-").str.len().gt(15).any() and any(
        abs(int(t)) >= 2 ** 53 for t in whole if len(t.lstrip("+-")) > 15))


def _numbers(series, present, text, name):
    import pandas as pd

    number = pd.to_numeric(text, errors="coerce")
    zeros = text[text.str.match(LEADING_ZERO)]
    if len(zeros) and not number.isna().any():
        warnings.warn(f"column {name!r} is real, so its codes with leading zeros become numbers "
                      f"({zeros.iloc[0]!r} -> {number[zeros.index[0]]:g}); if they are codes "
                      f"(ZIP, ICD), give it the kind unordered ({name}:unordered)",
                      UserWarning)
    if number.isna().any():
        at = int(number.isna().to_numpy().argmax())
        hint = " (dates? give it the kind date)" if _ISO_DATE.match(text.iloc[at]) else ""
        raise CliError(f"column {name!r} is real but holds {text.iloc[at]!r} (data row "
                       f"{text.index[at] + 1}){hint}: a real column holds numbers; give it "
                       f"another kind ({name}:unordered) or fix the cell")
    return numbers_column(series, present, text, number)


def _dates(series, present, text, name):
    from pdanon.io import iso_dates

    parsed = iso_dates(series)
    if parsed is None:
        from pdanon.io.csvcodes import first_bad_date

        row, bad = first_bad_date(series) or (text.index[0], text.iloc[0])
        raise CliError(f"column {name!r} is date but holds {bad!r} (data row {row + 1}): "
                       f"write dates as ISO 8601 (2024-12-31, 2024-12-31T08:30) naming a "
                       f"real day, say how they are written (--date-format %m/%d/%Y, "
                       f"--dayfirst), or give it another kind")
    return parsed


# ============================================================================ the model


def build_model(s: dict, population=None, sensitive_hierarchies=None):
    """The privacy model the settings ask for: k-anonymity / l-diversity / t-closeness and
    ARX's risk thresholds as in ``k_anonymize`` (:func:`pdanon.models.request.request`),
    with β-likeness, δ-disclosure, (α, k)-anonymity and k-map added (all must hold).

    Example
    -------
    >>> build_model({"k": 5, "beta": 1.0})
    AllOf(KAnonymity(k=5), BetaLikeness(beta=1))
    """
    from pdanon import models
    from pdanon.models.request import request

    g = s.get
    if g("epsilon") is not None or g("dp_delta") is not None:
        return _dp_model(s)
    for key in ("quality", "target", "steps"):
        if g(key) is not None:
            raise CliError(f"--{key} is an option of differential privacy: give --epsilon and "
                           f"--dp-delta too")
    parts = []
    rule = g("missing_sensitive")
    if rule is not None and all(g(key) is None for key in ("l", "t", "beta", "delta",
                                                            "alpha")):
        raise CliError("--missing-sensitive says how -l, -t, --beta, --delta and --alpha "
                       "read a blank sensitive cell: give one of them too")
    if any(g(key) is not None for key in ("k", "l", "t", "max_risk", "average_risk")) and not (
            g("alpha") is not None and g("l") is None and g("t") is None
            and g("max_risk") is None and g("average_risk") is None):
        parts.append(request(k=g("k") or 1, l=_whole(g("l")), variant=g("l_variant"),
                             c=g("c"), t=g("t"), distance=g("distance"),
                             sensitive_hierarchies=sensitive_hierarchies,
                             max_risk=g("max_risk"), average_risk=g("average_risk"),
                             always_k=False, missing_sensitive=rule if g("l") is not None
                             or g("t") is not None else None))
    if g("alpha") is not None:
        if g("k") is None:
            raise CliError("--alpha is (α, k)-anonymity: give -k too (e.g. -k 5 --alpha 0.5)")
        parts.append(models.AlphaKAnonymity(g("alpha"), g("k"), value=g("alpha_value"),
                                            missing_sensitive=rule or "unknown"))
    elif g("alpha_value") is not None:
        raise CliError("--alpha-value is an option of (α, k)-anonymity: give --alpha too")
    if g("beta") is not None:
        parts.append(models.BetaLikeness(g("beta"), variant=g("beta_variant") or "basic",
                                         missing_sensitive=rule or "unknown"))
    elif g("beta_variant") is not None:
        raise CliError("--beta-variant is an option of β-likeness: give --beta too")
    if g("delta") is not None:
        parts.append(models.DeltaDisclosure(g("delta"), missing_sensitive=rule or "unknown"))
    estimate = {key: g(key) for key in ("population_size", "sampling_fraction")
                if g(key) is not None}
    if g("k_map") is not None:
        if population is None and not estimate:
            raise CliError("--k-map needs the population: --population FILE, or an estimate "
                           "(--population-size N or --sampling-fraction F)")
        parts.append(models.KMap(g("k_map"), population=population, **estimate))
    elif population is not None or estimate:
        raise CliError("--population / --population-size / --sampling-fraction belong to "
                       "--k-map K: give it too")
    if not parts:
        raise CliError("no privacy model: give -k K (and -l, -t, --beta, --delta, --alpha, "
                       "--k-map, --max-risk as needed)")
    return parts[0] if len(parts) == 1 else models.AllOf(*parts)


#: flags that have no meaning under --epsilon (SafePub samples, searches and withholds)
_NOT_WITH_DP = (("k", "-k"), ("l", "-l"), ("t", "-t"), ("beta", "--beta"), ("delta", "--delta"),
                ("alpha", "--alpha"), ("k_map", "--k-map"), ("max_risk", "--max-risk"),
                ("average_risk", "--average-risk"), ("sensitive", "--sensitive"),
                ("insensitive", "--insensitive"), ("labels", "--labels"),
                ("max_suppressed", "--max-suppressed"), ("objective", "--objective"),
                ("calendar", "--calendar"), ("option", "--option"), ("explain", "--explain"),
                ("save_recoding", "--save-recoding"), ("recoding", "--recoding"),
                ("population", "--population"))


def _dp_model(s: dict):
    """``EDDifferentialPrivacy`` from --epsilon / --dp-delta, refusing the flags that do not
    apply to it (docs/differential_privacy.md)."""
    from pdanon.models import EDDifferentialPrivacy

    g = s.get
    if g("epsilon") is None or g("dp_delta") is None:
        raise CliError("differential privacy needs both --epsilon and --dp-delta (e.g. "
                       "--epsilon 1 --dp-delta 1e-5)")
    extra = [flag for key, flag in _NOT_WITH_DP if g(key) not in (None, False, {}, [])]
    if extra:
        raise CliError(f"{', '.join(extra)} cannot be used with --epsilon: a differentially "
                       f"private release publishes every column but the identifiers through "
                       f"SafePub (sampling, a private search, classes under its own k left "
                       f"out); name the columns with --qi and --identifiers only")
    if g("seed") is not None:
        raise CliError("--seed cannot be used with --epsilon: whoever knows the seed can "
                       "replay the release; the command line draws from the operating "
                       "system's CSPRNG (seeds are for tests, in Python)")
    if g("method") not in (None, "generalize"):
        raise CliError("--epsilon publishes generalized cells: --method generalize only")
    if g("algorithm") not in (None, "auto", "safepub"):
        raise CliError(f"--algorithm {g('algorithm')} cannot publish under differential "
                       f"privacy: leave it out (or --algorithm safepub)")
    try:
        return EDDifferentialPrivacy(g("epsilon"), g("dp_delta"))
    except InvalidInputError as exc:  # the reason, in one line, in the flags' words
        raise CliError(str(exc).replace("delta must", "--dp-delta must").replace(
            "epsilon must", "--epsilon must")) from None


def _dp_options(s: dict) -> dict:
    """SafePub's own options from --quality / --target / --steps."""
    return {key: s[key] for key in ("quality", "target", "steps") if s.get(key) is not None}


def _whole(value):
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _number(text: str):
    """An argparse type: ``2`` -> 2, ``1.5`` -> 1.5."""
    try:
        return _whole(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


# ============================================================================ the run


def run(args: argparse.Namespace, caught: list) -> int:
    """Read, anonymize, check, write; returns the exit code (raises CliError / ConfigError)."""
    from pdanon.checks.policy import Policy

    started = time.perf_counter()
    s = settings(args)
    s["_config"], s["write_config"] = args.config, args.write_config
    cli_survey.with_weights(s)
    cli_plan.refuse_beside(s)
    s["levels"] = cli_survey.levels_text(s.get("levels"))
    check_files(s)
    qi, sens = dict(s.get("qi") or {}), dict(s.get("sensitive") or {})
    ids, keep = list(s.get("identifiers") or []), list(s.get("insensitive") or [])
    recoding = _kept_recoding(s, args)
    if recoding is not None:  # the recoding names the quasi-identifiers and their kinds
        qi = qi or recoding_kinds(recoding)
        sens = sens or dict(recoding.sensitive)
    df = read_input(s.get("input"), s, cli_survey.text_columns([*ids, *qi, *sens], s))
    recorded = s.get("_recorded") or {}
    if recorded.get("input_sha256"):  # a config written by an earlier pdanon
        s["_input_sha256"] = file_digest(s["input"])
    _recorded_warnings(s)
    check_named(df, s)
    if not qi:
        raise CliError("no quasi-identifiers: name them with --qi (e.g. --qi age:real,zip5)")
    df = cli_survey.prepare(df.copy(), qi, sens, s)
    for roles in (qi, sens):
        for col, kind in list(roles.items()):
            column, roles[col] = convert_column(df[col], col, kind)
            df[col] = column
    hierarchies = {col: build_hierarchy(col, spec, max_bytes=side_limit(s, HIERARCHY_LIMIT))
                   for col, spec in (s.get("hierarchy") or {}).items()}
    population = None
    if s.get("population") is not None:
        population = read_input(s["population"], s, list(qi))
        for col in qi:
            if col in population.columns:
                population[col] = convert_column(population[col], col, qi[col])[0]
    policy = cli_survey.policy_with_weights(parse_policy(s["policy"], max_bytes=side_limit(
        s)) if s.get("policy") is not None else None, s)
    progress = {"auto": None, "always": True, "never": False}[s["progress"]]
    if recoding is not None:
        model = build_model(s) if any(s.get(key) is not None for key in MODEL_KEYS) else None
        out = df.anon.apply_recoding(
            recoding, model=model, max_suppressed_rows=_budget(s.get("max_suppressed")),
            row_order=s["row_order"], identifiers=ids,
            sensitive={c: _kind(k) for c, k in sens.items()}, insensitive=keep,
            **cli_household.keywords(s))
    elif s.get("epsilon") is not None or s.get("dp_delta") is not None:
        dp = build_model(s)
        unnamed = [c for c in df.columns if c not in qi and c not in ids]
        if unnamed:
            raise CliError(f"under --epsilon every column is published through SafePub: name "
                           f"{', '.join(map(str, unnamed))} with --qi (and a --hierarchy), or "
                           f"drop it with --identifiers")
        out = df.anon.anonymize(
            dp, hierarchies=hierarchies or None, options=_dp_options(s) or None,
            progress=progress, identifiers=ids,
            quasi_identifiers={c: _kind(k) for c, k in qi.items()})
    else:
        model = build_model(s, population,
                            {c: h for c, h in hierarchies.items() if c in sens})
        fresh = dict(
            method=s["method"], algorithm=s["algorithm"],
            max_suppressed_rows=_budget(s.get("max_suppressed")),
            hierarchies=hierarchies or None, labels=bool(s["labels"]),
            levels=cli_survey.levels(s.get("levels")),
            objective=s.get("objective"), seed=s.get("seed"), progress=progress,
            options={**(s.get("option") or {}), **({"calendar": dict(s["calendar"])}
                                                     if s.get("calendar") else {})} or None,
            row_order=s["row_order"], identifiers=ids,
            quasi_identifiers={c: _kind(k) for c, k in qi.items()},
            sensitive={c: _kind(k) for c, k in sens.items()}, insensitive=keep,
            allow_channels=list(s.get("allow_channels") or []) or None,
            **cli_household.keywords(s))
        if s.get("dry_run"):  # the plan of this run, nothing written
            return cli_plan.show(df, model, fresh, PROG, caught)
        out = df.anon.anonymize(model, **fresh)
    # a DP release is a shuffled sample: nothing compares it with the input row by row. The
    # others come in a random order (unless --row-order input) with the way back to the
    # input's rows kept in this process only: checked and reported against the input, and
    # written as they are
    original = None if "dp" in out.anon.info else df
    control = cli_attacks.read_control(s, df, qi, sens, read_input, convert_column)
    verdict = None if policy is None and control is None and \
        Policy.of_release(out.anon.info) == Policy() else out.anon.check(
            policy, original=original if control is None else df, control=control)
    passed = verdict is None or bool(verdict.passed)
    written = []
    title = f"{PROG}: {os.path.basename(str(s['input']))}"
    published_with = set()
    regular = s.get("output") is not None and (not os.path.lexists(s["output"])
                                                or os.path.isfile(s["output"]))
    if passed and regular and verdict is not None:
        # the one way out (pdanon.release.publish_files): the data, the schema, the report
        # and the recoding together; the data read back and checked again; the report made
        # from the file, with the digests of its bytes and rows named by their place in it
        published_with = _publish(out, s, verdict, original, title)
        written += [(label, s[key]) for key, label in _PUBLISHED.items() if key in published_with]
    elif passed and s.get("output") is not None:
        write_release(out, s["output"], csv_escape=s["csv_escape"])
        written.append(("release", s["output"]))
    elif passed:
        from pdanon.io.csvsafe import write_csv

        write_csv(out, sys.stdout, escape_formulas=s["csv_escape"])
        sys.stdout.flush()
    if s.get("save_recoding") is not None and passed and "save_recoding" not in published_with:
        _write_text(s["save_recoding"], out.anon.recoding.to_json(indent=1) + "\n")
        written.append(("recoding", s["save_recoding"]))
    if s.get("schema") is not None and passed and "schema" not in published_with:
        from pdanon import schema_to_yaml

        sch = out.anon.schema  # the rows as written (their order included)
        if s.get("output") is not None and not is_parquet(s["output"]) and s["csv_escape"]:
            # the CSV's cells that would start a formula carry a guard quote: the schema says
            # so, and pdanon.read_csv with it removes the guard (the file reads back exactly)
            sch.metadata["pdanon"]["csv"] = {"formulas_guarded": True}
        _write_text(s["schema"], schema_to_yaml(sch))
        written.append(("schema", s["schema"]))
    if s.get("report") is not None and "report" not in published_with:
        out.anon.report(original, s["report"], policy=policy, title=title,
                        attacks=verdict.attacks if verdict is not None else None,
                        **cli_survey.report_keywords(s))
        written.append(("report", s["report"]))
    if s.get("internal_report") is not None:
        out.anon.report(original, s["internal_report"], policy=policy, internal=True,
                        attacks=verdict.attacks if verdict is not None else None,
                        **cli_survey.report_keywords(s),
                        title=f"{PROG}: {os.path.basename(str(s['input']))} (internal)")
        written.append(("internal report", s["internal_report"]))
    if s.get("explain") is not None:
        # the file is the publisher's (--explain says so); pandas' warning still reminds
        write_release(out.anon.explain(df), s["explain"], csv_escape=s["csv_escape"],
                      index=True, publisher_only=True)
        written.append(("explain", s["explain"]))
    if args.write_config is not None:
        _write_text(args.write_config, config_text(s, out, qi, sens, policy))
        written.append(("config", args.write_config))
    for line in warning_lines(PROG, caught):  # before the closing lines, each once
        print(cli_words(line), file=sys.stderr)
    caught.clear()
    closing = closing_lines(s, df, out, qi, verdict, policy, written,
                            time.perf_counter() - started)
    for label, value in closing + cli_survey.survey_lines(out, qi, s, original) + \
            cli_attacks.risk_line(verdict):
        print(f"{label:<16}{value}", file=sys.stderr)
    if not passed:
        print(f"{PROG}: error: the release fails the policy ({_failed(verdict)}); nothing was "
              f"written to {s.get('output') or 'standard output'}", file=sys.stderr)
        return EXIT_POLICY_FAILED
    return EXIT_OK


#: the settings that ask for a privacy model
MODEL_KEYS = ("k", "l", "t", "beta", "delta", "alpha", "k_map", "max_risk", "average_risk",
              "epsilon", "dp_delta")
#: the flags that choose how to anonymize afresh, which a kept recoding replaces
_FRESH_ONLY = (("algorithm", "--algorithm"), ("method", "--method"),
               ("hierarchy", "--hierarchy"), ("labels", "--labels"),
               ("objective", "--objective"), ("calendar", "--calendar"),
               ("option", "--option"), ("seed", "--seed"), ("population", "--population"),
               ("save_recoding", "--save-recoding"), ("epsilon", "--epsilon"),
               ("dp_delta", "--dp-delta"), ("quality", "--quality"), ("target", "--target"),
               ("steps", "--steps"), ("levels", "--levels"))


def _kept_recoding(s: dict, args):
    """The recoding of ``--recoding``, read and checked against the other flags (or None)."""
    if s.get("recoding") is None:
        return None
    from pdanon.republication.recoding import Recoding

    given = [flag for key, flag in _FRESH_ONLY if getattr(args, key, None) is not None]
    if given:
        raise CliError(f"--recoding publishes with a kept recoding; {given[0]} chooses how "
                       "to anonymize afresh: drop it (or drop --recoding)")
    try:
        text = read_side_text(s["recoding"], what="--recoding", max_bytes=side_limit(s))
    except InvalidInputError as exc:
        raise CliError(str(exc)) from None
    return Recoding.from_json(text)


def recoding_kinds(recoding) -> dict:
    """The command-line kind of each recoded column: ``date`` for date ranges (so text dates
    are parsed), else the recoding's kind.

    Example
    -------
    >>> import pandas as pd, pdanon
    >>> from pdanon.hierarchy import intervals
    >>> out = pd.DataFrame({"age": [31, 36]}).anon.generalize(
    ...     {"age": 1}, hierarchies={"age": intervals([5])})
    >>> recoding_kinds(out.anon.recoding)
    {'age': 'real'}
    """
    out = {}
    for col in recoding.columns.values():
        cats = col.spec.get("categories")
        dated = col.form == "ranges" and cats is not None and cats["dtype"].startswith(
            "datetime64")
        out[col.name] = "date" if dated else col.kind
    return out


def _kind(kind):
    return "ordered" if kind == "date" else kind


def _failed(verdict) -> str:
    rows = verdict.criteria[~verdict.criteria["passed"]]
    return "; ".join(f"{r.criterion} {r.measured} (threshold {r.rule} {r.threshold})"
                     for r in rows.itertuples(index=False))


def _recorded_warnings(s: dict) -> None:
    import pdanon

    recorded = s.get("_recorded") or {}
    version = recorded.get("pdanon_version")
    if version and version != pdanon.__version__:
        warnings.warn(f"the config was written by pdanon {version}; this is "
                      f"{pdanon.__version__}: the release may differ", UserWarning)
    digest = recorded.get("input_sha256")
    if digest and digest != s["_input_sha256"]:
        warnings.warn(f"{s['input']!r} is not the input the config was written for (its "
                      f"SHA-256 differs): the release will differ", UserWarning)


def file_digest(path: str) -> str:
    """SHA-256 of a file, in hex (read in blocks)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


#: the files :func:`_publish` writes: setting -> (publish_files key, closing-line label)
_PUBLISHED = {"output": "release", "schema": "schema", "report": "report",
              "save_recoding": "recoding"}


def _publish(published, s, verdict, original, title: str) -> set:
    """Write the release and the side files asked for through
    :func:`pdanon.release.publish_files`; the settings it wrote."""
    from pdanon.release import publish_files

    keys = {"output": "parquet" if is_parquet(s["output"]) else "csv", "schema": "schema",
            "report": "report", "save_recoding": "recoding"}
    paths = {keys[k]: s[k] for k in _PUBLISHED if s.get(k) is not None}
    try:
        publish_files(published, paths, policy=verdict.policy, original=original,
                      overwrite=True, csv_escape=s["csv_escape"], title=title,
                      verdict=verdict, survey=cli_survey.report_keywords(s))
    except OSError as exc:
        raise CliError(f"cannot write the release: {one_line(exc)}") from None
    return {k for k in _PUBLISHED if s.get(k) is not None}


def write_release(frame, path: str, *, csv_escape: bool = True, index: bool = False,
                  publisher_only: bool = False) -> None:
    """CSV (formula-guarded, :func:`pdanon.io.csvsafe.write_csv`) or Parquet by extension; a
    Parquet release keeps the roles and ``info`` in its metadata (pandas' attrs). A frame
    holding an explanation's columns is refused unless ``publisher_only`` (``--explain``'s
    file, which stays with the publisher)."""
    from pdanon.io.csvsafe import write_csv
    from pdanon.publisher_only import refuse_explanation

    try:
        refuse_explanation(frame, f"writing {path!r}", publisher_only=publisher_only)
        if is_parquet(path):
            frame.to_parquet(path, index=index)
        else:
            write_csv(frame.reset_index() if index else frame, path,
                      escape_formulas=csv_escape, publisher_only=publisher_only)
    except Exception as exc:  # noqa: BLE001 - one line, naming the file
        raise CliError(f"cannot write {path!r}: {one_line(exc)}") from None


def _write_text(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise CliError(f"cannot write {path!r}: {one_line(exc)}") from None


def closing_lines(s, df, out, qi, verdict, policy, written, seconds) -> list:
    """``(label, value)`` pairs printed after a run, one labeled line each."""
    info = out.anon.info
    cells = len(df) * len(qi)
    asked = info.get("requested_algorithm")
    achieved = ", ".join(f"{k}={_short(v)}" for k, v in (info.get("achieved") or {}).items())
    lines = [("input", f"{s['input']} ({len(df):,} rows, {df.shape[1]} columns)"),
             ("algorithm", info["algorithm"] + (f" ({asked})" if asked and asked !=
                                                info["algorithm"] else "")),
             ("model", f"{info.get('model')} ("
                       + ", ".join(f"{k}={_short(v)}"
                                   for k, v in (info.get("params") or {}).items())
                       + ")"),
             ("kinds", ", ".join(f"{c} {k}" for c, k in qi.items())),
             ("rows", f"{len(out):,} published, {info.get('suppressed_rows', 0):,} suppressed"),
             ("classes", f"{info.get('groups', 0):,}"),
             ("achieved", achieved or "n/a"),
             ("changed cells", f"{info.get('changed_cells', 0):,} of {cells:,} "
                               f"quasi-identifier cells ({info.get('changed_cells', 0) / max(cells, 1):.1%})"),
             ("policy", "none to check beyond the models the anonymizer verified"
              if verdict is None else ("PASSED" if verdict.passed else "FAILED")
              + f": {int(verdict.criteria['passed'].sum())} of {len(verdict.criteria)} "
                f"criteria hold" + ("" if policy is not None else
                                    " (the release's own request and the default risk limit)"
                                    if "records_at_risk" in set(verdict.criteria["criterion"])
                                    else " (the release's own request)"))]
    dp = info.get("dp")
    if dp:  # a sample was published: rows and cells do not match the input's one by one
        lines[4] = ("rows", f"{len(out):,} published: a random sample, the input's other rows "
                            f"and the classes under k={dp['k']} withheld")
        lines[7] = ("changed cells", "n/a (the release is a sample in a random order)")
        lines.insert(5, ("privacy", f"epsilon={_short(dp['epsilon_spent'])} spent, "
                                    f"delta={dp['delta']:g}, sampling "
                                    f"{dp['sampling_probability']:.4f}, k={dp['k']}; another "
                                    f"release of the same people spends its own"))
        if not len(out):
            lines.insert(6, ("empty", f"nothing was published: every class had fewer than "
                                      f"k={dp['k']} sampled rows (coarser hierarchies or a "
                                      f"larger table publish more)"))
    if info.get("dropped_identifiers"):
        lines.append(("dropped", ", ".join(info["dropped_identifiers"])))
    lines += [(label, path) for label, path in written]
    lines.append(("seconds", f"{seconds:.2f}"))
    return lines


def _short(value):
    """A figure for a closing line: floats to 4 significant digits (``0.4977``)."""
    return f"{value:.4g}" if isinstance(value, float) else value


def config_text(s: dict, out, qi: dict, sens: dict, policy) -> str:
    """The TOML config of a run: every setting, with the algorithm that ran and the kinds
    the columns were given (so a re-run does not depend on pdanon's defaults) and the pdanon
    version (a re-run warns when it differs). It holds no digest of the input: anyone with
    the release and an unkeyed digest could test guesses of the cells the release hides
    until the digest matches."""
    import pdanon

    info = out.anon.info
    flat = {key: s.get(key) for keys in SECTIONS.values() for key in keys}
    flat["algorithm"] = info.get("algorithm", s["algorithm"])
    base = {"pdanon_version": pdanon.__version__}
    where = s.get("write_config")
    for key in PATH_KEYS:
        flat[key] = _portable(flat[key], where)
    config: dict = {**base, **{k: flat[k] for k in SECTIONS[""]}}
    config["columns"] = {k: flat[k] for k in SECTIONS["columns"]}
    config["quasi_identifiers"] = dict(qi)
    config["sensitive"] = dict(sens)
    for section in ("model", "anonymize"):
        config[section] = {k: flat[k] for k in SECTIONS[section]}
    config["hierarchies"] = {c: spec if is_builder(spec) else _portable(spec, where)
                             for c, spec in (s.get("hierarchy") or {}).items()}
    config["options"] = dict(s.get("option") or {})
    config["calendar"] = dict(s.get("calendar") or {})
    config["policy"] = policy_table(policy) if policy is not None else {}
    header = (f"pdanon anonymize config, written by pdanon {pdanon.__version__}\n"
              f"re-run exactly: pdanon anonymize --config {os.path.basename(str(s.get('write_config') or 'release.toml'))}")
    if s.get("seed") is not None:
        header += ("\nit holds the seed: keep this file with the publisher, never with the "
                   "release")
    if s.get("epsilon") is not None:
        header += ("\na differentially private release: a re-run draws a new sample and "
                   "search, and spends epsilon again")
    return to_toml(config, header=header)


# ============================================================================ entry point


def main(args: argparse.Namespace) -> int:
    """Run ``pdanon anonymize`` with parsed arguments; returns the exit code."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return run(args, caught)
        except (CliError, ConfigError) as exc:
            code, message = EXIT_BAD_INPUT, str(exc)
        except KeyboardInterrupt:
            code, message = EXIT_INTERRUPTED, "interrupted"
        except Exception as exc:  # noqa: BLE001 - a command line never shows a traceback
            code, message = EXIT_BAD_INPUT, cli_words(str(exc).strip() or type(exc).__name__)
        for line in warning_lines(PROG, caught):
            print(cli_words(line), file=sys.stderr)
    lines = [ln for ln in message.splitlines() if ln.strip()] or [message]
    print(f"{PROG}: error: {lines[0]}", file=sys.stderr)
    for line in lines[1:]:
        print(f"  {line.strip()}", file=sys.stderr)
    return code
