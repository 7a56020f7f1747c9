"""The words of ``pdanon anonymize``: column lists with kinds (``age:real,zip5``), hierarchy
specs (``zip5=mask:1,2,3``), policies (``k=5,max_records_at_risk=0.05``) and the release
config file (TOML) that records every choice of a run so that it can be re-run exactly.

Each parser raises :class:`ConfigError` with a message that names the text it could not read
and shows the form it expects.

Examples
--------
>>> parse_columns("age:real,zip5, admission_date:date", "--qi")
{'age': 'real', 'zip5': None, 'admission_date': 'date'}
>>> hierarchy_spec("age=intervals:5,10,20")
('age', 'intervals:5,10,20')
>>> parse_policy("k=5,l=2,max_records_at_risk=0.05")
Policy(k=5, l=2, max_records_at_risk=0.05)
>>> print(to_toml({"input": "in.csv", "model": {"k": 5, "t": 0.2}}), end="")
input = "in.csv"
<BLANKLINE>
[model]
k = 5
t = 0.2
"""

from __future__ import annotations

import json
import math
import os

from pdanon.sidefiles import HIERARCHY_LIMIT, MIB, TEXT_LIMIT, read_side_bytes, read_side_text

#: the kinds a column may be given on the command line: pdanon's three, and ``date`` (text
#: parsed as dates; an ``ordered`` quasi-identifier, as pandas datetimes are in Python)
CLI_KINDS = ("real", "ordered", "unordered", "date")
#: the hierarchy builders a spec may name (``name[:arguments]``)
BUILDERS = ("mask", "intervals", "dates")


class ConfigError(ValueError):
    """A flag, spec or config file pdanon anonymize cannot read (exit code 2)."""


# ============================================================================ columns


def parse_columns(text, flag: str) -> dict:
    """``"age:real,zip5"`` -> ``{"age": "real", "zip5": None}`` (``None``: the kind is
    inferred). A name may hold a colon when what follows it is not a kind (``a:b`` is the
    column ``a:b``), and a comma when it is in double quotes, as in a CSV header
    (``'"Last, First",age'``); a list (from a config file) is read item by item.

    Example
    -------
    >>> parse_columns('"Last, First",age:real', "--qi")
    {'Last, First': None, 'age': 'real'}
    """
    import csv

    items = text if isinstance(text, (list, tuple)) else next(
        csv.reader([str(text)], skipinitialspace=True), [])
    out: dict = {}
    for item in items:
        item = str(item).strip()
        if not item:
            continue
        name, kind = item, None
        if ":" in item:
            head, tail = item.rsplit(":", 1)
            if tail.strip().lower() in CLI_KINDS:
                name, kind = head.strip(), tail.strip().lower()
        if name in out:
            raise ConfigError(f"{flag} names {name!r} twice")
        out[name] = kind
    return out


# ============================================================================ hierarchies


def is_builder(spec) -> bool:
    """Whether a hierarchy spec names a builder (``mask:1,2``) rather than a file.

    Example
    -------
    >>> is_builder("mask:1,2"), is_builder("hierarchies/age.csv")
    (True, False)
    """
    return str(spec).partition(":")[0].strip().lower() in BUILDERS


def hierarchy_spec(text: str) -> tuple:
    """``"col=spec"`` -> ``("col", "spec")``."""
    if "=" not in str(text):
        raise ConfigError(
            f"--hierarchy {text!r}: write COLUMN=SPEC, e.g. zip5=mask:1,2,3, "
            f"age=intervals:5,10,20, admission_date=dates:month,quarter,year, or "
            f"age=hierarchies/age.csv (an ARX hierarchy file)")
    col, spec = str(text).split("=", 1)
    if not col.strip() or not spec.strip():
        raise ConfigError(f"--hierarchy {text!r}: both the column and the spec are needed "
                          f"(COLUMN=SPEC)")
    return col.strip(), spec.strip()


def build_hierarchy(column: str, spec: str, *, base_dir: str = ".",
                    max_bytes: int = HIERARCHY_LIMIT):
    """The :mod:`pdanon.hierarchy` object a spec names:

    * ``mask`` / ``mask:1,2,3`` (characters masked per level), ``char=X`` as an item;
    * ``intervals:5,10,20`` (band widths), ``start=1900`` as an item;
    * ``dates`` / ``dates:month,quarter,year`` (an increasing subset of month, quarter,
      year, decade);
    * anything else is the path of an ARX hierarchy CSV file (``;``-separated), relative to
      ``base_dir``, a regular file of at most ``max_bytes`` bytes
      (:mod:`pdanon.sidefiles`); ``top=none`` as an item of a builder drops the top level
      ``*``.

    Example
    -------
    >>> build_hierarchy("zip5", "mask:2,3,char=X").levels_table(["04777", "10001"])
       value level1 level2 level3
    0  04777  047XX  04XXX      *
    1  10001  100XX  10XXX      *
    """
    from pdanon import hierarchy as H

    name, _, rest = spec.partition(":")
    name = name.strip().lower()
    if not is_builder(spec):
        path = spec if os.path.isabs(spec) else os.path.join(base_dir, spec)
        if not os.path.exists(path):
            raise ConfigError(
                f"--hierarchy {column}={spec}: no builder {name!r} (one of "
                f"{', '.join(BUILDERS)}) and no hierarchy file {path!r}")
        try:
            return H.read_arx_csv(path, max_bytes=max_bytes)
        except Exception as exc:  # noqa: BLE001 - one line, naming the file
            raise ConfigError(f"--hierarchy {column}={spec}: cannot read {path!r}: "
                              f"{' '.join(str(exc).split())}") from None
    args, options = [], {}
    for item in (p.strip() for p in rest.split(",") if p.strip()):
        if "=" in item:
            key, value = (x.strip() for x in item.split("=", 1))
            options[key.lower()] = value
        else:
            args.append(item)
    allowed = {"mask": {"char", "top"}, "intervals": {"start", "top"}, "dates": {"top"}}[name]
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise ConfigError(f"--hierarchy {column}={spec}: {name} takes "
                          f"{', '.join(sorted(allowed))}=..., not {unknown[0]}=")
    top = {}
    if "top" in options:
        top = {"top": None if options["top"].lower() == "none" else options["top"]}
    try:
        if name == "mask":
            steps = [_number(a, column, spec, int) for a in args] or None
            return H.masking(char=options.get("char", "*"), steps=steps, **top)
        if name == "intervals":
            if not args:
                raise ConfigError(f"--hierarchy {column}={spec}: intervals needs band widths, "
                                  f"e.g. {column}=intervals:5,10,20")
            widths = [_number(a, column, spec, float) for a in args]
            widths = [int(w) if float(w).is_integer() else w for w in widths]
            start = _number(options.get("start", "0"), column, spec, float)
            return H.intervals(widths, start=int(start) if start.is_integer() else start,
                               **top)
        return H.dates(args or ("month", "year"), **top)
    except ConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 - the builder's own check, in the spec's words
        raise ConfigError(f"--hierarchy {column}={spec}: {' '.join(str(exc).split())}") \
            from None


def _number(text, column, spec, cast):
    try:
        value = cast(text)
    except (TypeError, ValueError):
        raise ConfigError(f"--hierarchy {column}={spec}: {text!r} is not a number") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"--hierarchy {column}={spec}: {text!r} is not a finite number")
    return value


# ============================================================================ policy


def parse_policy(spec, *, max_bytes: int = TEXT_LIMIT):
    """A :class:`pdanon.Policy` from ``"k=5,l=2,max_records_at_risk=0.05"``, a mapping (a
    config file's ``[policy]`` table), or the path of a TOML / JSON file holding one (a
    regular file of at most ``max_bytes`` bytes, :mod:`pdanon.sidefiles`)."""
    from dataclasses import fields

    from pdanon.checks.policy import Policy

    names = {f.name: f for f in fields(Policy)}
    if isinstance(spec, dict):
        given = dict(spec)
    elif os.path.exists(str(spec)):
        given = read_config(str(spec), max_bytes=max_bytes, what="--policy") if not str(
            spec).lower().endswith(".json") else _read_json(str(spec), max_bytes)
        if not isinstance(given, dict):
            raise ConfigError(f"--policy {str(spec)!r}: the file holds a "
                              f"{type(given).__name__}; write a table of criteria, e.g. "
                              '{"k": 5, "max_records_at_risk": 0.05}')
        given = given.get("policy", given)
        if not isinstance(given, dict):
            raise ConfigError(f"--policy {str(spec)!r}: policy is a {type(given).__name__}; "
                              "write a table of criteria ([policy] with k = 5, ...)")
    else:
        given = {}
        for item in (p.strip() for p in str(spec).split(",") if p.strip()):
            if "=" not in item:
                raise ConfigError(f"--policy {spec!r}: write NAME=VALUE pairs, e.g. "
                                  f"k=5,l=2,max_records_at_risk=0.05 (or a policy file)")
            key, value = (x.strip() for x in item.split("=", 1))
            given[key] = _policy_value(key, value, names)
    unknown = [key for key in given if key not in names]
    if unknown:
        raise ConfigError(f"--policy: unknown criterion {unknown[0]!r}; the criteria are "
                          f"{', '.join(names)}")
    try:
        return Policy(**given)
    except Exception as exc:  # noqa: BLE001 - Policy's own check, one line
        raise ConfigError(f"--policy: {' '.join(str(exc).split())}") from None


def _policy_value(key, value, names):
    if key in ("l_variant", "t_distance", "missing_sensitive", "weights"):
        return value
    if key in ("random_order", "channels"):  # yes/no criteria
        words = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}
        if value.lower() not in words:
            raise ConfigError(f"--policy {key}={value}: write {key}=1 or {key}=0")
        return words[value.lower()]
    try:
        number = float(value)
    except ValueError:
        raise ConfigError(f"--policy {key}={value}: {value!r} is not a number") from None
    whole = ("k", "l", "household_k", "max_difference_disclosed")
    return int(number) if key in whole and number.is_integer() else number


def policy_table(policy) -> dict:
    """The criteria of a :class:`pdanon.Policy` that differ from its defaults (a config
    file's ``[policy]`` table)."""
    from dataclasses import fields

    return {f.name: getattr(policy, f.name) for f in fields(policy)
            if getattr(policy, f.name) != f.default}


def side_limit(s: dict, default: int = TEXT_LIMIT) -> int:
    """The most bytes of a side file (:mod:`pdanon.sidefiles`): ``--max-side-file-mib`` of
    the settings ``s`` in bytes, else ``default``.

    >>> side_limit({"max_side_file_mib": 2}), side_limit({}) == TEXT_LIMIT
    (2097152, True)
    """
    mib = s.get("max_side_file_mib")
    if mib is None:
        return default
    if isinstance(mib, bool) or not isinstance(mib, int) or mib < 1:
        raise ConfigError(f"--max-side-file-mib {mib!r}: give a whole number of MiB, >= 1")
    return mib * MIB


def _read_json(path: str, max_bytes: int = TEXT_LIMIT) -> dict:
    try:
        return json.loads(read_side_text(path, what="--policy", max_bytes=max_bytes))
    except ValueError as exc:  # the side file's refusal (named) or the JSON's error
        raise ConfigError(f"cannot read {path!r}: {' '.join(str(exc).split())}") from None


# ============================================================================ config files


def read_config(path: str, *, max_bytes: int = TEXT_LIMIT, what: str = "--config") -> dict:
    """A TOML config file as a dict (:mod:`tomllib`), or a ConfigError naming the line. Only
    a regular file of at most ``max_bytes`` bytes is read (:mod:`pdanon.sidefiles`)."""
    import tomllib

    try:
        data = read_side_bytes(path, what=what, max_bytes=max_bytes)
    except ValueError as exc:
        raise ConfigError(" ".join(str(exc).split())) from None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config {path!r}: {' '.join(str(exc).split())}") \
            from None


#: the tables of a config file that map a column (or a criterion) to a value
COLUMN_TABLES = ("quasi_identifiers", "sensitive", "hierarchies", "options", "calendar",
                 "policy")


def check_config_values(config: dict, path: str, sections: dict, actions: dict) -> None:
    """Refuse a config whose tables are not tables or whose values have the wrong type for
    their flag (``actions``: the argparse action of each setting), naming the field
    (``model.k``) and the fix, before any value is used.

    >>> import argparse
    >>> k = argparse.ArgumentParser().add_argument("-k", type=int)
    >>> check_config_values({"model": {"k": "five"}}, "c.toml", {"model": ("k",)}, {"k": k})
    Traceback (most recent call last):
    ...
    pdanon.cli.config.ConfigError: config 'c.toml': model.k = 'five': expected an integer; correct it in the file (or give -k on the command line)
    """
    def fail(field: str, value, expected: str, flag: str | None = None):
        given = f" (or give {flag} on the command line)" if flag else ""
        raise ConfigError(f"config {path!r}: {field} = {value!r:.60}: expected {expected}; "
                          f"correct it in the file{given}")

    for name in [*(n for n in sections if n), *COLUMN_TABLES]:
        if name in config and not isinstance(config[name], dict):
            fail(name, config[name], f"a table ([{name}] with one key = value a line)")
    for section, keys in sections.items():
        table = config.get(section, {}) if section else config
        for key in (k for k in keys if k in table):
            action, value = actions.get(key), table[key]
            field = f"{section}.{key}" if section else key
            if action is None:
                continue
            flag = action.option_strings[-1] if action.option_strings else None
            if action.nargs == 0:  # a switch
                if not isinstance(value, bool):
                    fail(field, value, "true or false", flag)
            elif action.choices is not None:
                if value not in action.choices:
                    fail(field, value, f"one of {', '.join(map(str, action.choices))}", flag)
            elif action.type is int:
                if isinstance(value, bool) or not isinstance(value, int):
                    fail(field, value, "an integer", flag)
            elif action.type is not None:  # numbers (float, or a number as text)
                if isinstance(value, bool) or not isinstance(value, (int, float, str)):
                    fail(field, value, "a number", flag)
            elif key in ("identifiers", "insensitive"):
                if not (isinstance(value, str) or (isinstance(value, list) and all(
                        isinstance(v, str) for v in value))):
                    fail(field, value, "a list of column names", flag)
            elif isinstance(value, (bool, list, dict)) or (key in PATH_SETTINGS
                                                           and not isinstance(value, str)):
                fail(field, value, "text", flag)
    for name in ("quasi_identifiers", "sensitive", "hierarchies", "calendar"):
        for column, value in (config.get(name) or {}).items():
            if not isinstance(value, str):
                fail(f"{name}.{column}", value, "text (a kind, a spec or a unit)")


#: the settings that must be text: file names and the CSV format
PATH_SETTINGS = ("input", "output", "report", "internal_report", "explain", "schema",
                 "recoding", "save_recoding", "population", "sep", "encoding")


def to_toml(config: dict, *, header: str = "") -> str:
    """``config`` as TOML: top-level scalars first, then one ``[table]`` per nested dict
    (``None`` values are left out; keys that are not bare words are quoted). Enough TOML for
    a config: strings, booleans, integers, floats, lists of them and one level of tables."""
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    scalars = {k: v for k, v in config.items() if not isinstance(v, dict) and v is not None}
    tables = {k: v for k, v in config.items() if isinstance(v, dict)}
    lines += [f"{_key(k)} = {_value(v)}" for k, v in scalars.items()]
    for name, table in tables.items():
        body = [f"{_key(k)} = {_value(v)}" for k, v in table.items() if v is not None]
        if body:
            lines += ["", f"[{_key(name)}]", *body]
    return "\n".join(lines) + "\n"


def _key(key) -> str:
    key = str(key)
    if key and all(ch.isalnum() or ch in "_-" for ch in key) and key.isascii():
        return key
    return json.dumps(key)


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ConfigError(f"cannot write {value!r} in a config file")
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)  # TOML basic strings escape like JSON
