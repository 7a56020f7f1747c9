"""``pdanon table --table SPEC ...``: the settings of linked tables (several tables of one
input, protected, audited or perturbed together; :mod:`pdanon.cli.table` runs them).

A ``--table`` spec is ``name=N;index=COLS;columns=COLS`` with any number of
``hierarchy=COL:SPEC`` items, the table's own hierarchy of one of its columns (``SPEC`` as in
``--hierarchy COL=SPEC``: an ARX hierarchy file or a builder such as ``intervals:5,10``). The
column comes first and ends at the first ``:`` after a name of the table's dimensions, so the
spec's own separators (``;`` between items, the first ``=`` of an item) never fall inside it;
a ``SPEC`` that holds a ``;`` (a file name) goes in a config file instead, as
``hierarchies = {COL = "SPEC"}`` in the ``[[tables]]`` entry. A table's own hierarchy wins
over ``--hierarchy`` for its column, in that table only.

Example
-------
>>> table_spec("name=fine;index=region;hierarchy=region:intervals:5,10,start=0")
{'name': 'fine', 'index': ['region'], 'hierarchies': {'region': 'intervals:5,10,start=0'}}
>>> linked_hierarchies({"hierarchy": {"region": "r.csv", "age": "intervals:5"}, "tables": [
...     {"index": ["region"], "hierarchies": {"region": "mask:1"}},
...     {"index": ["region"], "columns": ["age"]}]})
[{'region': 'mask:1'}, {'region': 'r.csv', 'age': 'intervals:5'}]
"""

from __future__ import annotations

import os

from pdanon.cli.config import ConfigError, is_builder, parse_columns

#: the keys of a ``--table`` spec and of a ``[[tables]]`` entry
SPEC_KEYS = ("name", "index", "columns", "hierarchy")
ENTRY_KEYS = ("name", "index", "columns", "hierarchies")


def table_spec(text: str) -> dict:
    """One ``--table`` spec: ``name=N;index=COLS;columns=COLS`` (``name`` optional, one of
    ``index`` and ``columns`` at least; columns comma-separated) and any number of
    ``hierarchy=COL:SPEC`` (module docstring).

    >>> table_spec("name=by_sex; index=region; columns=sex,age")
    {'name': 'by_sex', 'index': ['region'], 'columns': ['sex', 'age']}
    """
    out: dict = {}
    given: list = []
    for part in (p.strip() for p in str(text).split(";") if p.strip()):
        key, eq, value = (x.strip() for x in part.partition("="))
        if not eq or key not in SPEC_KEYS or not value:
            raise ConfigError(f"--table {text!r}: {part!r} is not name=..., index=COLS, "
                              f"columns=COLS or hierarchy=COL:SPEC; write e.g. "
                              f"\"name=by_sex;index=region;columns=sex\"")
        if key == "hierarchy":
            given.append(value)
            continue
        if key in out:
            raise ConfigError(f"--table {text!r}: {key} is given twice; give it once")
        out[key] = value
    out = _spec(out, f"--table {text!r}")
    dims = [*out.get("index", ()), *out.get("columns", ())]
    mine: dict = {}
    for value in given:
        cols = [d for d in dims if value.startswith(f"{d}:") and value[len(d) + 1:].strip()]
        if not cols:
            raise ConfigError(
                f"--table {text!r}: hierarchy={value}: write COL:SPEC with COL one of the "
                f"table's columns ({', '.join(dims)}), e.g. hierarchy={dims[0]}:"
                f"hierarchies/{dims[0]}.csv or hierarchy={dims[0]}:intervals:5,10")
        col = max(cols, key=len)
        if col in mine:
            raise ConfigError(f"--table {text!r}: two hierarchies of {col!r}; give one")
        mine[col] = value[len(col) + 1:].strip()
    if mine:
        out["hierarchies"] = mine
    return out


def tables_of_config(value, path: str) -> list:
    """A config's ``[[tables]]`` array: one spec per table; a ``hierarchies`` file is relative
    to the config's folder, as in ``[hierarchies]``."""
    if not (isinstance(value, list) and value and all(isinstance(t, dict) for t in value)):
        raise ConfigError(f"config {path!r}: tables = {value!r:.60}: expected an array of "
                          f"tables ([[tables]] with index = ..., columns = ..., name = ...)")
    base = os.path.dirname(os.path.abspath(path))
    out = []
    for i, t in enumerate(value):
        odd = sorted(set(t) - set(ENTRY_KEYS))
        if odd:
            raise ConfigError(f"config {path!r}: tables[{i}] has {odd[0]!r}; a table takes "
                              f"{', '.join(ENTRY_KEYS)}")
        where = f"config {path!r}: tables[{i}]"
        spec = _spec({k: v for k, v in t.items() if k != "hierarchies"}, where)
        if "hierarchies" in t:
            h = t["hierarchies"]
            if not (isinstance(h, dict) and h and all(isinstance(v, str) and v.strip()
                                                      for v in h.values())):
                raise ConfigError(f"{where}: hierarchies = {h!r:.60}: expected a table of "
                                  f"COLUMN = \"file or builder\", e.g. hierarchies = "
                                  f"{{region = \"regions.csv\"}}")
            dims = [*spec.get("index", ()), *spec.get("columns", ())]
            odd = [c for c in h if c not in dims]
            if odd:
                raise ConfigError(f"{where}: hierarchies names {odd[0]!r}, which the table "
                                  f"does not use ({', '.join(dims)}); add it to index or "
                                  f"columns, or drop its hierarchy")
            spec["hierarchies"] = {c: s.strip() if is_builder(s) or os.path.isabs(s.strip())
                                   else os.path.join(base, s.strip()) for c, s in h.items()}
        out.append(spec)
    return out


def _spec(raw: dict, where: str) -> dict:
    out: dict = {}
    if "name" in raw:
        if not isinstance(raw["name"], str):
            raise ConfigError(f"{where}: name must be text")
        out["name"] = raw["name"]
    for key in ("index", "columns"):
        if key not in raw:
            continue
        value = raw[key]
        if not (isinstance(value, str) or (isinstance(value, list) and all(
                isinstance(v, str) for v in value))):
            raise ConfigError(f"{where}: {key} = {value!r:.60}: expected a column name or a "
                              f"list of them")
        named = parse_columns(value, f"{where} {key}")
        if any(k is not None for k in named.values()):
            raise ConfigError(f"{where}: {key}: a table's dimensions are read as text (drop "
                              f"the ':kind')")
        out[key] = list(named)
    if not (out.get("index") or out.get("columns")):
        raise ConfigError(f"{where}: name the table's dimensions, e.g. "
                          f"\"index=region;columns=sex\"")
    return out


def table_names(tables: list) -> list:
    """Each table's name: its ``name``, else ``table_1``, ``table_2``, ..."""
    return [t.get("name") or f"table_{i + 1}" for i, t in enumerate(tables)]


def linked_hierarchies(s: dict) -> list:
    """Per table, ``{column: spec}``: the table's own hierarchies, then the ``--hierarchy``
    of each other column it uses. A ``--hierarchy`` that no table would take is refused."""
    shared = s.get("hierarchy") or {}
    dims = [[*(t.get("index") or ()), *(t.get("columns") or ())] for t in s["tables"]]
    out = []
    taken = set()
    for t, mine_dims in zip(s["tables"], dims):
        own = t.get("hierarchies") or {}
        given = {c: h for c, h in shared.items() if c in mine_dims and c not in own}
        taken |= set(given)
        out.append({**own, **given})
    for col in (c for c in shared if c not in taken):
        used = any(col in d for d in dims)
        raise ConfigError(
            f"--hierarchy {col}: " + (
                f"every --table using {col!r} gives its own hierarchy; drop --hierarchy {col} "
                f"(or the tables' own)" if used else
                f"no --table uses the column {col!r}; drop it or add the column to a table"))
    return out


def check_linked(s: dict) -> None:
    """``--table`` given: refuse what a set of tables cannot take, naming the fix."""
    clash = [f for f, k in (("--index", "index"), ("--columns", "columns"),
                            ("--pivot", "pivot"), ("--report", "report")) if s.get(k)]
    if clash:
        why = {"--index": "each --table names its dimensions",
               "--columns": "each --table names its dimensions",
               "--pivot": "use --pivots (each table's pivot goes into the folder)",
               "--report": "the one report goes into the folder (report.html, report.json)"}
        raise ConfigError(f"{clash[0]} cannot go with --table: {why[clash[0]]}")
    odd = [f for f in s.get("formats") or () if f not in ("csv", "parquet")]
    if odd or s.get("formats") == []:
        raise ConfigError(f"--formats {','.join(s.get('formats') or [])!r}: give csv, parquet "
                          f"or csv,parquet")
    if s.get("audit_only"):
        extra = [f for f, k in (("-o", "output"), ("--formats", "formats"),
                                ("--pivots", "pivots")) if s.get(k)]
        if extra:
            raise ConfigError(f"--audit-only writes nothing; drop {', '.join(extra)}")
        n, given = len(s["tables"]), len(s.get("suppressed") or ())
        if given != n:
            raise ConfigError(
                f"--audit-only with {n} --table needs one --suppressed PATTERN per table, in "
                f"the order of the --table flags; {given} given")
        return
    if s.get("suppressed"):
        raise ConfigError("--suppressed is the pattern --audit-only audits; add --audit-only "
                          "(or drop --suppressed to protect the tables afresh)")
    if s.get("output") is None:
        raise ConfigError("-o FOLDER: say where the tables go (a folder, made when missing)")
    if os.path.isfile(s["output"]):
        raise ConfigError(f"-o {s['output']!r} is a file: with --table, -o is a folder")
