"""``pdanon anonymize --attacks CONTROL``: the attacks of :mod:`pdanon.attacks` in the
command line's verdict (kept apart from :mod:`pdanon.cli.anonymize`, near its size limit).

``CONTROL`` is a held-out file (CSV or Parquet, the input's columns): rows of the same
population that are **not** in the input (split them off before, e.g. with
``pdanon.attacks.holdout`` in Python). Its role columns are read and converted as the input's.
The release is then attacked (singling out, linkability, inference:
:mod:`pdanon.checks.attack_risks`) against the input and the control: the policy's
``max_singling_out=``, ``max_linkability=``, ``max_inference=`` become criteria (exit code 3
when one fails), the closing lines show the three risks, and ``--report`` gains the section
"Singling out, linkability, inference". A policy setting them without ``--attacks`` is
refused (exit code 2), saying why. ``--attacks auto`` (splitting the input before
anonymizing) is not offered: it would anonymize fewer rows than the input holds.

Example
-------
>>> risk_line({})
[]
"""

from __future__ import annotations

__all__ = ["CONFIG", "add_arguments", "read_control", "risk_line"]

#: the config file's key of the flag: section -> settings
CONFIG = {"": ("attacks",)}


def add_arguments(files) -> None:
    """Add ``--attacks CONTROL``."""
    files.add_argument("--attacks", metavar="CONTROL",
                       help="a held-out file of rows of the same population, not in the input "
                            "(CSV or Parquet): attack the release (singling out, linkability, "
                            "inference) against the input and it; --policy max_singling_out=, "
                            "max_linkability=, max_inference= read the upper bound of each "
                            "risk's 95%% interval")


def read_control(s: dict, df, qi: dict, sens: dict, read_input, convert_column):
    """The control file of ``--attacks`` with the input's role columns, converted to their
    kinds as the input's were (None without ``--attacks``)."""
    path = s.get("attacks")
    if path is None:
        return None
    from pdanon._errors import InvalidInputError
    from pdanon.cli import survey as cli_survey

    control = read_input(path, s, [*qi, *sens])
    lacking = [c for c in [*qi, *sens] if c not in control.columns]
    if lacking:
        raise InvalidInputError(f"--attacks {path!r} lacks the column(s) {lacking}: the control file "
                       f"holds rows of the input's kind, with its columns")
    control = cli_survey.prepare(control[[c for c in df.columns if c in control.columns]].copy(),
                                 dict(qi), dict(sens), s)
    for roles in (qi, sens):
        for col, kind in roles.items():
            control[col] = convert_column(control[col], col, kind)[0]
    return control


def risk_line(verdict) -> list:
    """The closing line of the attacks: ``[("attacks", "singling out 0.010 [0.000, ...")]``."""
    found = getattr(verdict, "attacks", None)
    if not found:
        return []
    from pdanon.checks.attack_risks import lines

    return [("attacks", "; ".join(lines(found)) + " (risk beyond the control, 95% interval)")]
