"""``depersonalize``: the reference's command line, over pdanon's classic classes.

::

    depersonalize -i INPUT [-f] [-o OUTPUT] [-a ALGORITHM] [-m {k,l,t}] [-r {s,g,a}]
                  [-k K] [-l L] [-t T] [--qi_ids IDS] [--i_ids IDS] [--s_ids IDS]
                  [--types TYPES] [--s_types TYPES] [-s SEED] [--k_suppressed_lines N]
                  [--scale SCALE] [--cols2shuffle IDS] [--progress {auto,always,never}]
                  [--key-file PATH] [--hash-context column] [--no-csv-escape]
                  [--report PATH]

The input is a CSV file (``-f``: its first line is a header) or a Parquet file (by extension);
columns are named by position (0 = first). The result goes to ``-o`` (CSV, or Parquet for a
``.parquet`` / ``.pq`` name) or to standard output as CSV; with ``-o``, standard error gets
a summary line and the run's figures as ``key value`` lines (:func:`summary_figures`). Generalized cells are written in
pdanon's text form (``[20, 29]``, ``{a, b}``), suppressed cells as empty fields. In CSV
output, text cells beginning with ``=``, ``+``, ``-``, ``@``, tab or carriage return get a
leading ``'`` so that spreadsheets do not run them as formulas, as does a formula after a
line break inside a cell, and every cell holding a line break is quoted (``--no-csv-escape``
turns the ``'`` off; see :func:`pdanon.io.csvsafe.write_csv`). Every line of a CSV input must
have as many fields as the header (:func:`pdanon.io.check_field_counts`). Column numbers
outside the table, negative, repeated or in two roles, outputs that would overwrite an
input (:func:`check_outputs`, :func:`check_columns`) and key files over
:data:`MAX_KEY_FILE_BYTES` are refused. ``-a hasher`` writes the
reference's unkeyed SHA-256 (with a warning: reversible for small identifier spaces) or, with
``--key-file``, keyed HMAC-SHA-256 pseudonyms. ``--report PATH`` also writes the release
report (:mod:`pdanon.report`: one self-contained HTML page; the input table is the original).
Every anonymizing algorithm enforces the model ``-m`` asks for (``datafly`` and ``greedy``
too, through their ``with_model(l=..., t=...)``); a model or ``-k`` / ``-l`` / ``-t`` the algorithm would ignore
is an error (:func:`check_model_flags`). Columns in none of ``--qi_ids`` / ``--i_ids`` /
``--s_ids`` are kept unchanged. Without ``-f``, a first line that looks like a header
(:func:`header_like_first_row`) gives a warning.
Wrong or missing arguments, unreadable files and infeasible requests end with a one-line
``depersonalize: error: ...`` on standard error and exit code 2, in the flags' words
(:func:`flag_names`). The anonymizing algorithms (``-a group_join``, ``time_optimal``,
``baseline``, ``datafly``, ``greedy``) show a progress bar on standard error (tqdm, a
dependency of pdanon): with ``--progress auto`` once a run on a terminal has lasted two
seconds, always with ``--progress always``; the others (hasher, randomization, shufflers: they
take seconds at most), and every algorithm in an installation without tqdm, show a spinner
with the elapsed time instead (after a second). ``--progress never`` shows neither.
docs/cli.md has examples.

Example
-------
>>> main(["-i", "missing.csv", "-k", "2"])  # doctest: +SKIP
depersonalize: error: cannot read 'missing.csv': file not found
2
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import threading
import time
import warnings

from pdanon import progress
from pdanon.cli.common import (LEADING_ZERO, is_parquet, numbers_column, one_line, read_error,
                               same_file, unreadable, warning_lines)

PROG = "depersonalize"
ALGORITHMS = ("baseline", "time_optimal", "datafly", "greedy", "group_join", "hasher",
              "randomization", "shuffler", "batch_shuffler")
_KIND_LETTERS = {"r": "real", "o": "ordered", "u": "unordered"}
#: the algorithms that enforce each privacy model (-m); the others enforce none
MODEL_ALGORITHMS = {
    "k": ("baseline", "time_optimal", "datafly", "greedy", "group_join"),
    "l": ("baseline", "time_optimal", "datafly", "greedy", "group_join"),
    "t": ("baseline", "datafly", "greedy", "group_join"),
}
#: Python parameter names in the classic classes' messages -> the flags that set them
_FLAG_NAMES = (("quasi_identifiers_types", "--types"), ("sensitives_types", "--s_types"),
               ("quasi_identifiers_ids", "--qi_ids"), ("sensitives_ids", "--s_ids"),
               ("identifiers_ids", "--i_ids"), ("columns_ids_to_shuffle", "--cols2shuffle"),
               ("k_suppressed_lines", "--k_suppressed_lines"))
#: the largest key file read, in bytes (a 256-bit key in hex is 64, plus a newline)
MAX_KEY_FILE_BYTES = 4096


class CliError(Exception):
    """A problem to report in one line (exit code 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit code 2 (argparse's own code), no usage block
        raise CliError(f"{message} (see {PROG} -h)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (flags and defaults of the reference's ``depersonalize``)."""
    p = _Parser(prog=PROG, description="Depersonalize (anonymize) a CSV or Parquet table with "
                "the classic algorithms of pdanon (the cp2025 command line).")
    p.add_argument("-i", "--input", required=True,
                   help="input CSV file (or .parquet / .pq) with the dataset")
    p.add_argument("-f", "--header", action="store_true",
                   help="the input CSV has a header line (kept in the output)")
    p.add_argument("-o", "--output",
                   help="output file: CSV, or Parquet for .parquet / .pq (default: CSV on the "
                   "console)")
    p.add_argument("-a", "--algorithm", default="group_join", choices=ALGORITHMS,
                   metavar="ALGORITHM",
                   help="one of: " + ", ".join(ALGORITHMS) + " (default group_join)")
    p.add_argument("-m", "--metric", choices=["k", "l", "t"], default="k",
                   help="k-anonymity, l-diversity or t-closeness (default k)")
    p.add_argument("-r", "--method", choices=["s", "g", "a"], default="s",
                   help="suppression, generalization or aggregation (default s)")
    p.add_argument("-k", help="k for k-anonymity (also required with l and t)")
    p.add_argument("-l", help="l for l-diversity")
    p.add_argument("-t", help="t for t-closeness")
    p.add_argument("--qi_ids",
                   help='quasi-identifier column numbers ("1,3,5") or "left" (default: the '
                   "columns no other flag names, each examined first: one that looks like "
                   "an identifier, free text or a date of birth is refused)")
    p.add_argument("--i_ids", help='identifier column numbers ("1,3,5") or "left"')
    p.add_argument("--s_ids", help='sensitive column numbers ("1,3,5") or "left"')
    p.add_argument("--insensitive_ids",
                   help='column numbers ("1,3,5") published unchanged on purpose (a column no '
                   "flag names is examined first, as with --qi_ids)")
    p.add_argument("--types", help='quasi-identifier kinds as letters, e.g. "rour" for real, '
                   "ordered, unordered, real (default: all unordered)")
    p.add_argument("--s_types", help='sensitive column kinds as letters (t-closeness), e.g. "ru"')
    p.add_argument("-s", "--seed", help="random seed")
    p.add_argument("--k_suppressed_lines",
                   help="the most rows Datafly may suppress (default k - 1)")
    p.add_argument("--scale", help="scale of the randomization (default 1)")
    p.add_argument("--cols2shuffle", help='shufflers: column numbers to shuffle ("1,3,5"; '
                   "default all)")
    p.add_argument("--progress", choices=["auto", "always", "never"], default="auto",
                   help="progress bar (group_join, time_optimal, baseline, datafly, greedy) "
                   "or spinner (the other algorithms) on standard error for long runs (auto: "
                   "when it is a terminal)")
    p.add_argument("--key-file", metavar="PATH",
                   help="-a hasher: file holding the secret key bytes (at most "
                   f"{MAX_KEY_FILE_BYTES}; a trailing newline is stripped); writes keyed "
                   "HMAC-SHA-256 pseudonyms instead of unkeyed SHA-256")
    p.add_argument("--hash-context", choices=["column"],
                   help="with --key-file: mix each column's name (its number without -f) into "
                   "the hash, so equal values in two columns get different pseudonyms")
    p.add_argument("--report", metavar="PATH",
                   help="also write the release report (one self-contained HTML page) to PATH")
    p.add_argument("--row-order", choices=["random", "input"], default="random",
                   help="random (default): rows written in a random order from the operating "
                   "system's CSPRNG, so a sorted input's order cannot give hidden cells back; "
                   "input: the reference's order (the input's)")
    p.add_argument("--no-csv-escape", action="store_true",
                   help="write text cells beginning with = + - @ (or tab, CR) as they are; by "
                   "default CSV output prefixes them with ' so spreadsheets do not run them "
                   "as formulas")
    return p


# ============================================================================ argument values


def _int(value, flag: str, low: int | None = None) -> int:
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise CliError(f"{flag} must be an integer, got {value!r}") from None
    if low is not None and v < low:
        raise CliError(f"{flag} must be >= {low}, got {v}")
    return v


def _float(value, flag: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise CliError(f"{flag} must be a number, got {value!r}") from None
    if v != v:
        raise CliError(f"{flag} must be a number, got {value!r}")
    return v


def _ids(value, flag: str, allow_left: bool = True):
    if value is None:
        return None
    text = value.strip()
    if allow_left and text == "left":
        return "left"
    if not text:
        return []
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part.lstrip("-").isdigit():
            raise CliError(f"{flag} must be column numbers separated by commas (\"1,3,5\")"
                           + (' or "left"' if allow_left else "") + f", got {value!r}")
        if part.startswith("-"):  # Python's -1 (the last column) is no column number here
            raise CliError(f"{flag}: column numbers are 0 (the first column) or more, "
                           f"got {int(part)}")
        out.append(int(part))
    return out


#: the column flags, in the order their problems are reported
_ROLE_FLAGS = (("i_ids", "--i_ids"), ("qi_ids", "--qi_ids"), ("s_ids", "--s_ids"),
               ("insensitive_ids", "--insensitive_ids"))


def check_columns(args, ncols: int) -> None:
    """Refuse column numbers outside the table (0..ncols-1), a column named twice in one
    list, a column given two roles (in two of --i_ids, --qi_ids, --s_ids) and --cols2shuffle
    columns the shuffler would not see; one line each (:class:`CliError`).

    Example
    -------
    >>> check_columns(build_parser().parse_args(["-i", "x", "--i_ids", "0", "--s_ids", "0"]),
    ...               3)
    Traceback (most recent call last):
    ...
    pdanon.cli.depersonalize.CliError: column 0 is given two roles, in --i_ids and in --s_ids; give each column one role
    """
    lists = {flag: _ids(getattr(args, attr), flag, allow_left=flag != "--insensitive_ids")
             for attr, flag in _ROLE_FLAGS}
    if lists["--qi_ids"] is None and "left" not in lists.values():
        lists["--qi_ids"] = "left"  # the default
    shuffle = _ids(args.cols2shuffle, "--cols2shuffle", allow_left=False)
    if sum(v == "left" for v in lists.values()) > 1:
        raise CliError("only one of --i_ids, --qi_ids, --s_ids may be \"left\" (the columns "
                       "the other two do not name)")
    width = f"{ncols} column{'' if ncols == 1 else 's'} (0..{ncols - 1})"
    for flag, ids in [*lists.items(), ("--cols2shuffle", shuffle)]:
        if ids is None or ids == "left":
            continue
        for i in ids:
            if i >= ncols:
                raise CliError(f"{flag} names column {i}, but the table has {width}")
        twice = next((i for n, i in enumerate(ids) if i in ids[:n]), None)
        if twice is not None:
            raise CliError(f"{flag} names column {twice} twice")
    named: dict = {}
    for flag, ids in lists.items():
        for i in ids if isinstance(ids, list) else ():
            named.setdefault(i, []).append(flag)
    both = sorted(i for i, flags in named.items() if len(flags) > 1)
    if both:
        first, second = named[both[0]][:2]
        raise CliError(f"column {both[0]} is given two roles, in {first} and in {second}; "
                       "give each column one role")
    if shuffle:
        left = [i for i in range(ncols) if i not in named]
        roles = set(named) | (set(left) if "left" in lists.values() else set())
        alone = next((i for i in shuffle if i not in roles), None)
        if alone is not None:
            raise CliError(f"--cols2shuffle names column {alone}, which has no role (--i_ids, "
                           "--qi_ids, --s_ids), so it would be written unchanged; give it a "
                           "role or leave it out")


def _role_lists(args, ncols: int):
    """``(identifiers, quasi-identifiers, sensitive, insensitive, inferred)`` column numbers:
    the flags' lists with "left" expanded (``--qi_ids`` defaults to "left" when no flag is
    "left"), and the columns whose role no flag decided (the default --qi_ids, and columns
    no flag names: published unchanged)."""
    from pdanon.algorithms._base import resolve_ids

    i_ids, s_ids = _ids(args.i_ids, "--i_ids"), _ids(args.s_ids, "--s_ids")
    qi_ids = _ids(args.qi_ids, "--qi_ids")
    keep = _ids(args.insensitive_ids, "--insensitive_ids", allow_left=False) or []
    default_qi = qi_ids is None
    if default_qi:
        qi_ids = None if "left" in (i_ids, s_ids) else "left"
    ids, qis, sens = resolve_ids(ncols, i_ids, qi_ids, s_ids)
    if default_qi and qi_ids == "left":
        qis = [i for i in qis if i not in keep]
    named = set(ids) | set(qis) | set(sens) | set(keep)
    inferred = sorted((set(qis) if default_qi else set()) | (set(range(ncols)) - named))
    return ids, qis, sens, keep, inferred


def screen_columns(args, df) -> str | None:
    """Examine the columns whose role no flag decided (:mod:`pdanon.screening`): refuse, in
    one line, those that look like they identify people (column number and name, the
    evidence, the flags that decide); return the note (printed on standard error once the
    release is written) of the roles chosen for the others, or None."""
    from pdanon import screening

    ids, qis, sens, keep, inferred = _role_lists(args, df.shape[1])
    if not inferred:
        return None
    names = {i: df.columns[i] for i in inferred}
    found = screening.suspects(df, [names[i] for i in inferred])
    if found:
        pos = {names[i]: i for i in inferred}
        nums = ",".join(str(pos[f.column]) for f in found)
        listed = "; ".join(f"column {pos[f.column]}{_label(args, f.column)}: {f.evidence}"
                           for f in found)
        raise CliError(f"column(s) without a decided role look like they identify people: "
                       f"{listed}. Drop them with --i_ids {nums}, or publish them unchanged on "
                       f"purpose with --insensitive_ids {nums}")
    chosen = []
    qi_inferred = [i for i in qis if i in set(inferred)]
    if qi_inferred:
        chosen.append("quasi-identifiers " + ", ".join(
            f"{i}{_label(args, names[i])}" for i in qi_inferred))
    unchanged = [i for i in inferred if i not in set(qis)]
    if unchanged:
        chosen.append("published unchanged " + ", ".join(
            f"{i}{_label(args, names[i])}" for i in unchanged))
    return (f"{PROG}: note: roles chosen for the columns no flag names: {'; '.join(chosen)} "
            "(decide with --qi_ids / --i_ids / --s_ids / --insensitive_ids)")


def _label(args, name) -> str:
    return f" ({name})" if args.header else ""


def _kinds(value, flag: str):
    if value is None:
        return None
    out = []
    for ch in value.strip():
        if ch not in _KIND_LETTERS:
            raise CliError(f"{flag}: unknown kind letter {ch!r} in {value!r}; use r (real), "
                           "o (ordered), u (unordered), e.g. \"rour\"")
        out.append(_KIND_LETTERS[ch])
    return out


# ============================================================================ files


UNKEYED_HASHER_WARNING = (
    f"{PROG}: warning: -a hasher without --key-file writes unkeyed SHA-256 hashes; hashes of "
    "identifiers from small spaces (phone numbers, ids, names) are reversed by hashing every "
    "candidate. Use --key-file PATH for keyed HMAC-SHA-256 pseudonyms."
)


def read_key_file(path: str) -> bytes:
    """The key bytes in ``path``; one trailing newline (``\\n`` or ``\\r\\n``) of a text file
    is stripped. A missing, unreadable or empty file, or one holding more than
    :data:`MAX_KEY_FILE_BYTES` bytes, is a :class:`CliError`; at most that many bytes plus
    one are read, so ``/dev/zero`` or a pipe that never ends is refused at once, and a FIFO
    nobody writes to reads as empty instead of waiting."""
    if not os.path.exists(path):
        raise CliError(f"cannot read key file {path!r}: file not found")
    if os.path.isdir(path):
        raise CliError(f"cannot read key file {path!r}: it is a directory")
    too_big = CliError(f"key file {path!r} holds more than {MAX_KEY_FILE_BYTES} bytes; a key "
                       "is a short secret (e.g. 64 hex digits): is it the right file?")
    try:
        # non-blocking open: a FIFO without a writer opens (and reads as empty) at once
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            info = os.fstat(fd)
            if stat.S_ISREG(info.st_mode) and info.st_size > MAX_KEY_FILE_BYTES:
                raise too_big
            if hasattr(os, "set_blocking"):
                os.set_blocking(fd, True)  # a writer that is there: wait for its bytes
            chunks, size = [], 0
            while size <= MAX_KEY_FILE_BYTES:
                chunk = os.read(fd, MAX_KEY_FILE_BYTES + 1 - size)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        finally:
            os.close(fd)
    except OSError as exc:
        raise CliError(f"cannot read key file {path!r}: {one_line(exc)}") from None
    if size > MAX_KEY_FILE_BYTES:
        raise too_big
    data = b"".join(chunks)
    if data.endswith(b"\r\n"):
        data = data[:-2]
    elif data.endswith(b"\n"):
        data = data[:-1]
    if not data:
        raise CliError(f"key file {path!r} is empty; put a random secret in it, e.g. "
                       "python -c \"import secrets; print(secrets.token_hex(32))\" > KEYFILE")
    return data


_FILE_ROLES = {"-i": "the input", "--key-file": "the key file", "-o": "the output",
               "--report": "the report"}


def check_outputs(args) -> None:
    """Refuse an output (``-o``, ``--report``) that would overwrite an input (``-i``,
    ``--key-file``) or the other output, whatever the spelling: symlinks are resolved and
    hard links compared (:class:`CliError`, before anything is read or written).

    Example
    -------
    >>> check_outputs(build_parser().parse_args(["-i", "a.csv", "-o", "./a.csv"]))
    Traceback (most recent call last):
    ...
    pdanon.cli.depersonalize.CliError: -o './a.csv' would overwrite the input -i 'a.csv'; write the output to another file
    """
    files = [("-i", args.input), ("--key-file", args.key_file)]
    for flag, path in (("-o", args.output), ("--report", args.report)):
        if path is None:
            continue
        for other, existing in files:
            if existing is not None and same_file(path, existing):
                raise CliError(f"{flag} {path!r} would overwrite {_FILE_ROLES[other]} {other} "
                               f"{existing!r}; write {_FILE_ROLES[flag]} to another file")
        files.append((flag, path))


def read_table(path: str, header: bool, text_columns=None):
    """The input table as a DataFrame (CSV with or without a header line, or Parquet). A CSV
    line with more or fewer fields than the header (the first line without ``-f``) is an
    error naming it (:func:`pdanon.io.check_field_counts`): pandas would otherwise take
    the first columns as the index and shift every column.

    ``text_columns(width)`` gives the numbers of the CSV columns read as text, so that codes
    keep their form (ZIP ``04777``, ICD ``E11.9``, ``007``): the identifiers, quasi-identifiers
    and sensitive columns (:func:`text_positions`; :func:`numbers_where_needed` then makes
    numbers where a kind needs them). The other columns, published unchanged, are read as
    pandas reads them."""
    import pandas as pd

    reason = unreadable(path)
    if reason:
        raise CliError(reason)
    try:
        if is_parquet(path):
            df = pd.read_parquet(path)
        else:  # pdanon.read_csv: a line with more or fewer fields than the first is an error
            from pdanon.io import read_csv

            h = 0 if header else None
            labels = list(pd.read_csv(path, header=h, nrows=0 if header else 1,
                                      skipinitialspace=True).columns)
            text = text_columns(len(labels)) if text_columns is not None else ()
            df = _integer_codes(read_csv(path, header=h, skipinitialspace=True,
                                         dtype_backend="numpy_nullable",
                                         dtype={labels[i]: str for i in text}))
    except CliError:
        raise
    except pd.errors.EmptyDataError:
        raise CliError(f"cannot read {path!r}: the file is empty") from None
    except Exception as exc:  # parser, encoding, permission, Arrow errors
        raise CliError(read_error(path, exc, flag=None)) from None
    if df.shape[1] == 0:
        raise CliError(f"cannot read {path!r}: no columns found")
    return df


def _integer_codes(df):
    """A CSV read with nullable dtypes, back to pandas' usual dtypes except that a column of
    integers with blank cells stays integers (``Int64``): numbers such as counts keep their
    text (``10001``, not ``10001.0``) when some are missing. Text columns hold str cells and
    NaN."""
    import numpy as np
    import pandas as pd

    out = {}
    for i in range(df.shape[1]):
        s = df.iloc[:, i]
        blanks = bool(s.isna().any())
        if pd.api.types.is_integer_dtype(s.dtype):
            out[i] = s if blanks else s.astype(s.dtype.numpy_dtype)
        elif pd.api.types.is_float_dtype(s.dtype):
            out[i] = s.astype("float64")
        elif pd.api.types.is_bool_dtype(s.dtype) and not blanks:
            out[i] = s.astype(bool)
        else:  # text, and booleans with blanks: objects with NaN, as pandas reads them
            out[i] = s.astype(object).where(s.notna().to_numpy(), np.nan).infer_objects()
    frame = pd.DataFrame(out, index=df.index)
    frame.columns = df.columns
    return frame


def text_positions(args, ncols: int) -> list:
    """The column numbers the CLI reads as text: identifiers, quasi-identifiers and
    sensitive columns (after checking the column flags against the table's width)."""
    check_columns(args, ncols)
    ids, qis, sens, _, _ = _role_lists(args, ncols)
    return sorted(set(ids) | set(qis) | set(sens))


def column_kinds(args, ncols: int) -> dict:
    """``{column number: kind}`` of the quasi-identifiers (``--types``) and sensitive
    columns (``--s_types``) whose kind the flags give as ``r`` or ``o``."""
    _, qis, sens, _, _ = _role_lists(args, ncols)
    out: dict = {}
    for cols, letters, flag in ((qis, args.types, "--types"), (sens, args.s_types, "--s_types")):
        kinds = _kinds(letters, flag) or []
        if len(kinds) == len(cols):  # a list of another length is refused by the algorithm
            out.update({i: k for i, k in zip(cols, kinds) if k != "unordered"})
    return out


def numbers_where_needed(df, kinds: dict):
    """``df`` (read as text) with the columns that need numbers converted: ``kinds`` maps a
    column number to its kind; a ``real`` column must hold numbers (a cell that is not one
    is an error naming the column, the row and the cell), an ``ordered`` one becomes numbers
    when every cell is a plain number without a leading zero (else its text order is kept).
    Whole numbers stay integers (``Int64`` with blanks), so ``30`` is written back as ``30``.
    Every other column stays text.

    Example
    -------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"zip": ["04777", None], "age": ["30", None], "lvl": ["2", "10"]})
    >>> out = numbers_where_needed(df, {1: "real", 2: "ordered"})
    >>> out["zip"].tolist(), out["age"].tolist(), out["lvl"].tolist()
    (['04777', nan], [30, <NA>], [2, 10])
    """
    import pandas as pd

    out = df.copy()
    for i, kind in sorted(kinds.items()):
        if kind not in ("real", "ordered") or not 0 <= i < df.shape[1]:
            continue
        s = df.iloc[:, i]
        present = s.notna().to_numpy()
        text = s[present].astype(str).str.strip()
        number = pd.to_numeric(text, errors="coerce")
        if kind == "ordered" and (number.isna().any() or text.str.match(LEADING_ZERO).any()):
            continue  # codes, or a leading zero to keep: ordered as text
        if number.isna().any():
            row = int((~number.notna()).to_numpy().argmax())
            name = f"column {i}" + (f" ({df.columns[i]!r})" if isinstance(df.columns[i], str)
                                    else "")
            raise CliError(
                f"{name} is real (--types / --s_types r) but holds "
                f"{text.iloc[row]!r} (data row {text.index[row] + 1}): a real column holds "
                f"numbers; give it the kind u or o, or fix the cell")
        out.isetitem(i, numbers_column(s, present, text, number))
    return out


def _for_parquet(df):
    """Object columns holding generalized cells become the generalization dtype; other object
    columns get their natural dtype; labels become strings."""
    import pandas as pd

    from pdanon.dtype import GeneralizationRange

    out = {}
    for c in df.columns:
        s = df[c]
        # only object columns hold cells as objects (a second call finds none to convert)
        ranges = [v for v in s if isinstance(v, GeneralizationRange)] if s.dtype == object \
            else []
        if ranges:
            s = pd.Series(pd.array(s.to_numpy(dtype=object),
                                   dtype=f"generalization[{ranges[0].kind}]"), index=s.index)
        else:
            s = s.infer_objects()
        out[str(c)] = s
    return pd.DataFrame(out, index=df.index)


def write_table(df, path: str | None, header: bool, *, csv_escape: bool = True) -> None:
    """CSV (or Parquet by extension) to ``path``, or CSV on standard output. CSV cells holding
    a line break are quoted, and text cells that a spreadsheet would run as formulas are
    guarded unless ``csv_escape`` is False (:func:`pdanon.io.csvsafe.write_csv`); Parquet is
    written as is."""
    from pdanon.io.csvsafe import write_csv

    if path is None:
        write_csv(df, sys.stdout, header=header, escape_formulas=csv_escape)
        sys.stdout.flush()
        return
    try:
        if is_parquet(path):
            frame = _for_parquet(df)
            frame.attrs = dict(getattr(df, "attrs", {}))  # roles and info of release_frame
            frame.to_parquet(path, index=False)
        else:
            write_csv(df, path, header=header, escape_formulas=csv_escape)
    except Exception as exc:
        raise CliError(f"cannot write {path!r}: {one_line(exc)}") from None


# ============================================================================ the algorithm


def make_algorithm(args):
    """The classic algorithm object the flags ask for, and a short description of it."""
    from pdanon import algorithms as A

    name = args.algorithm
    metric = args.metric
    if args.key_file is not None and name != "hasher":
        raise CliError(f"--key-file applies to -a hasher, not {name!r}")
    if args.hash_context is not None and args.key_file is None:
        raise CliError("--hash-context needs --key-file (keyed pseudonyms)")
    if args.cols2shuffle is not None and name not in ("shuffler", "batch_shuffler"):
        raise CliError(f"--cols2shuffle applies to -a shuffler and -a batch_shuffler, not {name!r}")
    method = args.method
    types = _kinds(args.types, "--types")
    s_types = _kinds(args.s_types, "--s_types")
    seed = _int(args.seed, "-s/--seed", 0) if args.seed is not None else None
    check_model_flags(args)
    needs_k = name in MODEL_ALGORITHMS["k"]
    k = l = t = None
    if needs_k:
        if args.k is None:
            raise CliError(f"-k is required for algorithm {name!r}")
        k = _int(args.k, "-k", 1)
        if metric == "l":
            if args.l is None:
                raise CliError("-l is required for l-diversity (-m l)")
            l = _int(args.l, "-l", 1)
        if metric == "t":
            if args.t is None:
                raise CliError("-t is required for t-closeness (-m t)")
            t = _float(args.t, "-t")
            if t < 0:
                raise CliError(f"-t must be >= 0, got {t}")
            if t == 0:
                raise CliError("-t 0 asks every class to repeat the whole table's distribution "
                               "exactly, which almost no table allows: pass a bound in (0, 1], "
                               "such as -t 0.2")
    label = f"{name}"
    if name == "baseline":
        label += f" ({metric}, exact suppression)"
        if metric == "k":
            return A.SuppressionKAnonymityBaseline(k), label
        if metric == "l":
            return A.SuppressionLDiversityBaseline(k, l), label
        return A.SuppressionTClosenessBaseline(k, t, sensitives_types=s_types), label
    if name == "time_optimal":
        label += f" ({metric}, {dict(s='suppression', g='generalization', a='aggregation')[method]})"
        classes = {
            ("k", "s"): lambda: A.SuppressionKAnonymityTimeOptimal(k),
            ("k", "g"): lambda: A.GeneralizationKAnonymityTimeOptimal(k, types),
            ("k", "a"): lambda: A.AggregationKAnonymityTimeOptimal(k, types),
            ("l", "s"): lambda: A.SuppressionLDiversityTimeOptimal(k, l),
            ("l", "g"): lambda: A.GeneralizationLDiversityTimeOptimal(k, l, types),
            ("l", "a"): lambda: A.AggregationLDiversityTimeOptimal(k, l, types),
        }
        return classes[(metric, method)](), label
    if name == "datafly":
        lines = (_int(args.k_suppressed_lines, "--k_suppressed_lines", 0)
                 if args.k_suppressed_lines is not None else None)
        label += f" ({metric})"
        return A.Datafly(k, types, k_suppressed_lines=lines).with_model(
            l=l, t=t, sensitives_types=s_types), label
    if name == "greedy":
        label += f" ({metric})"
        return A.GeneralizationGreedyByOneEqualSizedGroups(k, types).with_model(
            l=l, t=t, sensitives_types=s_types), label
    if name == "group_join":
        label += f" ({metric}, {dict(s='suppression', g='generalization', a='aggregation')[method]})"
        gj_method = {"s": lambda: A.GroupJoinSuppression(),
                     "g": lambda: A.GroupJoinGeneralization(types),
                     "a": lambda: A.GroupJoinAggregation(types)}[method]()
        if metric == "k":
            gj_metric = A.GroupJoinKAnonymity(k, seed=seed)
        elif metric == "l":
            gj_metric = A.GroupJoinLDiversity(k, l, seed=seed)
        else:
            gj_metric = A.GroupJoinTCloseness(k, t, sensitives_types=s_types, seed=seed)
        return A.GroupJoinDepersonalizator(gj_method, gj_metric), label
    if name == "hasher":
        if args.key_file is not None:
            from pdanon.algorithms._perturbation import KeyedIdentifierHasher

            key = read_key_file(args.key_file)
            hasher = KeyedIdentifierHasher(key, context=args.hash_context)
            return hasher, label + " (HMAC-SHA-256)"
        print(UNKEYED_HASHER_WARNING, file=sys.stderr)
        return A.IdentifierHasher(), label
    if name == "randomization":
        scale = _float(args.scale, "--scale") if args.scale is not None else 1
        if scale < 0:
            raise CliError(f"--scale must be >= 0, got {scale}")
        return A.RandomizationBaselineDepersonalizator(quasi_identifiers_types=types, seed=seed,
                                                       scale=scale), label
    cols = _ids(args.cols2shuffle, "--cols2shuffle", allow_left=False)
    if name == "shuffler":
        return A.Shuffler(seed=seed, columns_ids_to_shuffle=cols), label
    return A.ShufflerInBatches(seed=seed, columns_ids_to_shuffle=cols), label


def _warn_kept_identifiers(args) -> None:
    """The shufflers keep the identifier columns as they are (the reference's semantics):
    say so, since the release then holds them in clear."""
    if args.algorithm in ("shuffler", "batch_shuffler") and args.i_ids not in (None, ""):
        import warnings

        warnings.warn(
            f"-a {args.algorithm} keeps the identifier columns (--i_ids {args.i_ids}) as they "
            f"are, as the reference does: the release holds them in clear; drop them from "
            f"the input, or hash them first (-a hasher --key-file)", UserWarning)


def check_model_flags(args) -> None:
    """Refuse a privacy flag the requested algorithm would ignore (one line naming the
    combinations that exist)."""
    name, metric = args.algorithm, args.metric
    if args.l is not None and metric != "l":
        raise CliError(f"-l is the l of l-diversity: add -m l (got -m {metric})")
    if args.t is not None and metric != "t":
        raise CliError(f"-t is the t of t-closeness: add -m t (got -m {metric})")
    if name in MODEL_ALGORITHMS[metric]:
        return
    given = [f for f, v in (("-k", args.k), ("-l", args.l), ("-t", args.t)) if v is not None]
    if metric == "k" and not given:
        return
    what = f"-m {metric}" if metric != "k" else "/".join(given)
    raise CliError(
        f"-a {name} does not enforce {what}; -m k works with -a "
        f"{', '.join(MODEL_ALGORITHMS['k'])}; -m l with {', '.join(MODEL_ALGORITHMS['l'])}; "
        f"-m t with {', '.join(MODEL_ALGORITHMS['t'])}")


def flag_names(text: str) -> str:
    """A message of the classic classes with their parameter names replaced by the flags
    (``quasi_identifiers_types`` -> ``--types``).

    Example
    -------
    >>> flag_names("quasi_identifiers_types has 2 entries")
    '--types has 2 entries'
    """
    for param, flag in _FLAG_NAMES:
        text = text.replace(param, flag)
    return text


# ============================================================================ progress


class Progress:
    """A spinner with the elapsed time on standard error, shown once a run has lasted
    ``delay`` seconds (a background thread; the work itself is not interrupted)."""

    FRAMES = "|/-\\"

    def __init__(self, label: str, enabled: bool, delay: float = 1.0, stream=None):
        self.label = label
        self.enabled = enabled
        self.delay = delay
        self.stream = stream or sys.stderr
        self._stop = threading.Event()
        self._thread = None
        self.shown = False
        self.started = 0.0

    def __enter__(self):
        self.started = time.perf_counter()
        if self.enabled:
            self._thread = threading.Thread(target=self._spin, daemon=True)
            self._thread.start()
        return self

    def _spin(self) -> None:
        if self._stop.wait(self.delay):
            return
        self.shown = True
        i = 0
        while not self._stop.is_set():
            elapsed = time.perf_counter() - self.started
            self.stream.write(f"\r{PROG}: {self.label} {self.FRAMES[i % 4]} {elapsed:5.1f} s")
            self.stream.flush()
            i += 1
            self._stop.wait(0.1)

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.shown:
            elapsed = time.perf_counter() - self.started
            self.stream.write(f"\r{PROG}: {self.label} done in {elapsed:.1f} s\n")
            self.stream.flush()
        return False


#: the algorithms whose loops draw a progress bar (pdanon.progress; the others get the spinner)
BAR_ALGORITHMS = ("group_join", "time_optimal", "baseline", "datafly", "greedy")


def _progress_enabled(mode: str) -> bool:
    if mode == "always":
        return True
    if mode == "never":
        return False
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


# ============================================================================ main


def header_like_first_row(df) -> bool:
    """Whether the first row of a table read without a header looks like one: every cell is
    a non-empty text that is not a number, and below it at least one column holds only
    numbers (missing cells aside).

    Example
    -------
    >>> import pandas as pd
    >>> header_like_first_row(pd.DataFrame([["name", "age"], ["ann", "30"], ["bob", "41"]]))
    True
    >>> header_like_first_row(pd.DataFrame([["ann", "x"], ["bob", "y"]]))
    False
    """
    import pandas as pd

    if len(df) < 2:
        return False
    for v in df.iloc[0]:
        if not isinstance(v, str) or not v.strip() or pd.notna(pd.to_numeric(v, errors="coerce")):
            return False
    for c in df.columns:
        below = df[c].iloc[1:].dropna()
        if len(below) and pd.to_numeric(below, errors="coerce").notna().all():
            return True
    return False


def _header_warning(df) -> str:
    cells = [str(v) for v in df.iloc[0]]
    shown = ", ".join(cells[:5]) + (", ..." if len(cells) > 5 else "")
    return (f"{PROG}: warning: the first line ({shown}) looks like a header (text above "
            "numeric columns) but -f/--header was not given, so it is anonymized as a data "
            "row; add -f if it is a header")


def _with_unnamed(df, table, unnamed: list):
    """The output with the columns that have no role (``unnamed`` positions) put back
    unchanged, in file order."""
    import pandas as pd

    cols = {}
    for i, label in enumerate(df.columns):
        if i in unnamed:
            cols[label] = df[label].reset_index(drop=True)
        elif table is not None and label in table.columns:
            cols[label] = table[label].reset_index(drop=True)
    return pd.DataFrame(cols)


def run(argv=None) -> int:
    """Parse ``argv``, anonymize, write; raises :class:`CliError` for user errors."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return _run(argv, caught)
        finally:  # what was not printed before the closing lines (a run that failed)
            for line in warning_lines(PROG, caught):
                print(line, file=sys.stderr)


def _run(argv, caught: list) -> int:
    args = build_parser().parse_args(argv)
    check_outputs(args)
    algorithm, label = make_algorithm(args)
    df = read_table(args.input, args.header, lambda width: text_positions(args, width))
    check_columns(args, df.shape[1])
    _warn_kept_identifiers(args)
    suspect = (not args.header and not is_parquet(args.input)
               and header_like_first_row(df))
    try:
        if not is_parquet(args.input):  # codes read as text: numbers where a kind needs them
            df = numbers_where_needed(df, column_kinds(args, df.shape[1]))
        note = screen_columns(args, df)
        table, counts = _anonymize(args, algorithm, label, df)
    except Exception as exc:  # noqa: BLE001 - one line, in the flags' words
        message = flag_names(one_line(exc))
        if suspect:
            message += " (the first line looks like a header: add -f if it is one)"
        raise CliError(message) from None
    # rows in a random order (unless --row-order input): the file, and the report naming its
    # rows by their places in it, carry nothing of the input's order
    from pdanon.dp.mechanism import RandomSource

    order = (None if args.row_order == "input"
             else RandomSource(None).permutation(len(table)))
    if args.output is not None and is_parquet(args.output):
        # Parquet keeps the roles and info, so a recipient measures the release as written
        written = release_frame(args, df, table, label, order)[0]
    else:
        written = table if order is None else table.iloc[order].reset_index(drop=True)
    write_table(written, args.output, args.header, csv_escape=not args.no_csv_escape)
    if args.report is not None:
        write_report(args, df, table, label, order)
    if suspect:
        print(_header_warning(df), file=sys.stderr)
    for line in warning_lines(PROG, caught):  # before the closing lines, each once
        print(line, file=sys.stderr)
    caught.clear()
    if note:
        print(note, file=sys.stderr)
    if args.output is not None:
        print(f"{PROG}: {label} -> {args.output}", file=sys.stderr)
        for key, value in summary_figures(args.algorithm, table, counts).items():
            print(f"{key} {value}", file=sys.stderr)
    return 0


#: the key (:data:`pdanon.metrics.FIGURES`) of the count an algorithm returns: the group
#: size for ``greedy``, the changed quasi-identifier cells for the others that count
COUNT_KEYS = {"greedy": "group_size"}


def summary_figures(algorithm: str, table, counts) -> dict:
    """The figures printed after a run with ``-o``, one ``key value`` line each: ``rows``
    and the algorithm's count (``changed_cells``, or ``group_size`` for ``greedy``; none for
    the hasher, the randomization and the shufflers).

    Example
    -------
    >>> summary_figures("datafly", [[1], [2]], (2,))
    {'rows': 2, 'changed_cells': 2}
    >>> summary_figures("shuffler", [[1], [2]], ())
    {'rows': 2}
    """
    out = {"rows": len(table)}
    if counts:
        out[COUNT_KEYS.get(algorithm, "changed_cells")] = counts[0]
    return out


def _anonymize(args, algorithm, label: str, df):
    """The output table (columns without a role put back) and the algorithm's counts."""
    ids, qis, sens, _, _ = _role_lists(args, df.shape[1])
    i_ids, qi_ids, s_ids = ids or None, qis, sens or None
    named = set(ids) | set(qis) | set(sens)
    unnamed = [i for i in range(df.shape[1]) if i not in named]
    delay = float(os.environ.get("PDANON_PROGRESS_DELAY", "1.0"))
    if args.algorithm in BAR_ALGORITHMS and progress.tqdm_available():
        # a real bar: the partitioner's own (pdanon.progress), auto / forced / silenced
        show = progress.setting({"auto": None, "always": True, "never": False}[args.progress])
    else:
        show = Progress(label, _progress_enabled(args.progress), delay)
    with show:
        result = algorithm.depersonalize(df, identifiers_ids=i_ids, quasi_identifiers_ids=qi_ids,
                                         sensitives_ids=s_ids)
    table, counts = result[0], result[1:]
    if counts and counts[0] is None:
        k = getattr(algorithm, "k", None) or getattr(
            getattr(algorithm, "group_join_metric", None), "k", None)
        if k is not None and len(df) < k:
            raise CliError(f"cannot reach k={k}: the table has only {len(df)} row(s)")
        raise CliError("the privacy model cannot be met on this table (e.g. fewer distinct "
                       "sensitive values than l); relax the parameters")
    if unnamed:
        table = _with_unnamed(df, table, unnamed)
    if table is None:
        raise CliError("nothing to write: every column was dropped (check --i_ids / --qi_ids / "
                       "--s_ids)")
    return table, counts


def release_frame(args, df, table, label: str, order=None):
    """``(released, original, roles)``: the output table as a frame that carries what a
    Python release carries in its attrs (the roles from the column flags, and ``info``:
    algorithm, model and parameters, method, dropped identifiers, how randomness was
    seeded - never the seed), the input with the same column names (None when rows were
    dropped, so rows cannot be matched), and the role keywords. With ``order`` (a
    permutation of the output's rows) both are in that order under a fresh index
    (:func:`pdanon.checks.row_order.fresh_index`: ``r0`` is the file's first row)."""
    from pdanon.roles import resolve_roles, with_roles
    from pdanon.checks.row_order import fresh_index

    ids, qis, sens, _, _ = _role_lists(args, df.shape[1])
    names = [str(c) for c in df.columns]
    original = df.set_axis(names, axis=1)
    released = _for_parquet(table)
    if order is not None:
        released = released.iloc[order].set_axis(fresh_index(len(released), original.index))
    if len(released) == len(original):
        original = (original if order is None
                    else original.iloc[order].set_axis(released.index))
        released.index = original.index
    else:  # rows dropped: they cannot be matched to the input, which is left out
        original = None
    kinds = dict(zip([names[i] for i in qis], _kinds(args.types, "--types") or []))
    s_kinds = dict(zip([names[i] for i in sens], _kinds(args.s_types, "--s_types") or []))
    params = {f: getattr(args, f) for f in ("k", "l", "t") if getattr(args, f) is not None}
    info = {
        "algorithm": label, "model": {"k": "k-anonymity", "l": "l-diversity",
                                      "t": "t-closeness"}[args.metric] if params else None,
        "params": {f: float(v) if f == "t" else int(v) for f, v in params.items()},
        "method": {"s": "suppress", "g": "generalize", "a": "aggregate"}[args.method],
        "dropped_identifiers": [names[i] for i in ids if names[i] not in released.columns],
        "random_source": "seed given" if args.seed is not None else "not recorded",
        "row_order": "input" if order is None else "random"}
    qi_names = [names[i] for i in qis if names[i] in released.columns]
    roles = dict(quasi_identifiers={c: kinds.get(c) or _kind_guess(
                     released[c], None if original is None else original[c]) for c in qi_names},
                 sensitive={c: s_kinds.get(c) or _kind_guess(
                     released[c], None if original is None else original[c])
                     for c in (names[i] for i in sens) if c in released.columns},
                 identifiers=[names[i] for i in ids if names[i] in released.columns])
    resolved = resolve_roles(released, screen="ignore", **roles)
    with_roles(released, resolved)
    released.attrs["pdanon"]["info"] = info
    return released, original, roles


def write_report(args, df, table, label: str, order=None) -> None:
    """The release report of ``table`` (the input ``df`` is the original) to ``args.report``,
    rows in the written ``order``; roles come from the column flags, the parameters from the
    flags (never the seed)."""
    from pdanon.report import build_report

    released, original, roles = release_frame(args, df, table, label, order)
    if not roles["quasi_identifiers"]:
        raise CliError("--report needs at least one quasi-identifier column (--qi_ids)")
    roles = {**roles, "sensitive": list(roles["sensitive"]), "identifiers": []}
    try:
        build_report(released, original, title=f"{PROG}: {os.path.basename(args.input)}",
                     **roles).save(args.report)
    except OSError as exc:
        raise CliError(f"cannot write {args.report!r}: {one_line(exc)}") from None


def _kind_guess(released, original) -> str:
    """A quasi-identifier's kind for the report: the generalized dtype's, else guessed from
    the input column (from the released one when rows were dropped and the input is left
    out)."""
    from pdanon.roles import infer_kind

    return (getattr(released.dtype, "column_type", None)
            or infer_kind(released if original is None else original))


def main(argv=None) -> int:
    """Entry point of the ``depersonalize`` console script; returns the exit code. Every
    warning the run raises is printed once, on standard error, as ``depersonalize: warning:
    text (Category)`` (:func:`pdanon.cli.common.warning_lines`), never as a raw Python
    warning."""
    try:
        return run(argv)
    except CliError as exc:
        print(f"{PROG}: error: {flag_names(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except SystemExit as exc:  # -h / --help
        return exc.code if isinstance(exc.code, int) else 0
    except Exception as exc:  # noqa: BLE001 - a command line never shows a traceback
        print(f"{PROG}: error: {flag_names(one_line(exc))}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
