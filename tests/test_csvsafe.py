"""Tests of pdanon.io.csvsafe.neutralize_formulas (CSV formula injection)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import pdanon  # noqa: F401  (registers the generalization dtype)
from pdanon._errors import InvalidInputError
from pdanon.io.csvsafe import FORMULA_PREFIXES, neutralize_formulas
from pdanon.dtype import GeneralizationRange


def test_every_owasp_prefix_is_quoted_and_nothing_else():
    cells = ["=1+2", "+7900", "-x", "@SUM(A1)", "\tTAB", "\rCR", "a=b", " =1", "'=x", "", "[1, 2]",
             "-2+3+cmd|' /C calc'!A0", "+1e5", "-0.5", "-5-", "+ 1"]
    df = pd.DataFrame({"t": cells})
    out = neutralize_formulas(df)
    # a plain number written as text (+7900, +1e5, -0.5: a code or a figure) runs nothing
    assert out["t"].tolist() == ["'=1+2", "+7900", "'-x", "'@SUM(A1)", "'\tTAB", "'\rCR",
                                 "a=b", " =1", "''=x", "", "[1, 2]",
                                 "'-2+3+cmd|' /C calc'!A0", "+1e5", "-0.5", "'-5-", "'+ 1"]
    assert FORMULA_PREFIXES == ("=", "+", "-", "@", "\t", "\r")
    assert df["t"].tolist() == cells  # input not modified
    # the same cells in an object column (all text, one missing): same result, still object
    obj = pd.DataFrame({"t": pd.Series(cells + [None], dtype=object)})
    got = neutralize_formulas(obj)["t"]
    assert got.dtype == object and got.tolist() == out["t"].tolist() + [None]


def test_numbers_are_never_touched():
    df = pd.DataFrame({
        "i": [-5, 3, -1],
        "f": [-0.5, np.nan, 2.0],
        "nullable": pd.array([-1, None, 4], dtype="Int64"),
        "b": [True, False, True],
        "d": pd.to_datetime(["2024-01-01", "2024-01-02", None]),
    })
    out = neutralize_formulas(df)
    pd.testing.assert_frame_equal(out, df)
    assert out.to_csv(index=False) == df.to_csv(index=False)


def test_object_columns_only_str_cells_change():
    mixed = pd.Series([-5, "-5", None, 2.5, "=A1", GeneralizationRange(-3, 4, "real")],
                      dtype=object)
    df = pd.DataFrame({"m": mixed, "s": pd.Series(["-1", None, "ok", "@x", "x", "+"],
                                                     dtype="str")})
    out = neutralize_formulas(df)
    got = out["m"].tolist()
    assert got[0] == -5 and got[1] == "-5" and got[2] is None and got[3] == 2.5
    assert got[4] == "'=A1" and isinstance(got[5], GeneralizationRange)
    assert out["m"].dtype == object
    assert out["s"].dtype == df["s"].dtype
    assert out["s"].isna().tolist() == [False, True, False, False, False, False]
    assert out["s"].dropna().tolist() == ["-1", "ok", "'@x", "x", "'+"]
    # written text: the generalized range keeps its own text
    text = out.to_csv(index=False).splitlines()
    assert text[1:] == ["-5,-1", "-5,", ",ok", "2.5,'@x", "'=A1,x", "\"[-3, 4]\",'+"]


def test_integer_object_column_is_skipped():
    df = pd.DataFrame({"n": pd.Series([-1, -2], dtype=object)})
    assert neutralize_formulas(df)["n"].tolist() == [-1, -2]


def test_categorical_string_categories():
    cat = pd.Categorical(["-a", "b", "-a", None], categories=["b", "-a"], ordered=True)
    out = neutralize_formulas(pd.DataFrame({"c": cat}))
    assert out["c"].dtype.ordered
    assert list(out["c"].cat.categories) == ["b", "'-a"]
    assert out["c"].tolist()[:3] == ["'-a", "b", "'-a"] and pd.isna(out["c"][3])
    # a category that begins with a guard quote and a formula is guarded once more: the
    # guard is one-to-one (restore_formulas undoes it), so categories never collide
    clash = pd.Categorical(["=x", "'=x"])
    out = neutralize_formulas(pd.DataFrame({"c": clash}))
    assert out["c"].tolist() == ["'=x", "''=x"] and isinstance(out["c"].dtype,
                                                                 pd.CategoricalDtype)
    # numeric categories are numbers
    nums = pd.Categorical([-1, 2])
    assert neutralize_formulas(pd.DataFrame({"c": nums}))["c"].tolist() == [-1, 2]


def test_generalized_columns():
    real = pd.Series(pd.array([-5, GeneralizationRange(-9, -6, "real"), None],
                              dtype="generalization[real]"))
    unordered = pd.Series(pd.array(["-b", GeneralizationRange(None, None, "unordered",
                                                              ["-b", "c"]), "c"],
                                   dtype="generalization[unordered]"))
    df = pd.DataFrame({"age": real, "grp": unordered})
    out = neutralize_formulas(df)
    assert out["age"].dtype == df["age"].dtype  # numbers: untouched, dtype kept
    assert out.to_csv(index=False).splitlines() == [
        "age,grp", "-5,'-b", "\"[-9, -6]\",\"{-b, c}\"", ",c"]
    # a generalized column without a formula-like text cell keeps its dtype
    safe = pd.DataFrame({"grp": pd.Series(pd.array(["a", "b"], dtype="generalization[unordered]"))})
    assert neutralize_formulas(safe)["grp"].dtype == safe["grp"].dtype


def test_header_labels_and_duplicate_columns():
    df = pd.DataFrame([["=1", 1], ["x", 2]], columns=["=cmd", "=cmd"])
    out = neutralize_formulas(df)
    assert list(out.columns) == ["'=cmd", "'=cmd"]
    assert out.iloc[:, 0].tolist() == ["'=1", "x"] and out.iloc[:, 1].tolist() == [1, 2]
    assert list(neutralize_formulas(df, header=False).columns) == ["=cmd", "=cmd"]
    assert list(df.columns) == ["=cmd", "=cmd"]


def test_round_trip_through_csv_text_is_quoted():
    df = pd.DataFrame({"note": ["=HYPERLINK(\"http://x\",\"y\")", "fine"]})
    buf = io.StringIO()
    neutralize_formulas(df).to_csv(buf, index=False)
    back = pd.read_csv(io.StringIO(buf.getvalue()))
    assert back["note"].tolist() == ["'=HYPERLINK(\"http://x\",\"y\")", "fine"]


def test_not_a_frame():
    with pytest.raises(InvalidInputError, match="DataFrame"):
        neutralize_formulas(pd.Series(["=1"]))


# ----------------------------------------------------------------- issue 27: line breaks in cells

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pdanon.io.csvsafe import LINE_BREAKS, write_csv  # noqa: E402

SPLITLINES = ("\r", "\n", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def test_line_breaks_are_those_str_splitlines_splits_on():
    assert set(LINE_BREAKS) == set(SPLITLINES)
    for ch in map(chr, range(0x3000)):
        assert (len(f"a{ch}b".splitlines()) == 2) == (ch in LINE_BREAKS), repr(ch)


def test_a_formula_after_a_line_break_is_guarded():
    cells = ["x\r=HYPERLINK(1)", "\r=HYPERLINK(1)", "a\r\n@SUM(A1)", "a\n\"=1\"", "a\u2028+1",
             "a\x85-1", "a\n\tb", "a\nb", "a\n", "ok", "\n=x\n=y", "a\r\rb"]
    out = neutralize_formulas(pd.DataFrame({"t": cells}))
    assert out["t"].tolist() == [
        "x\r'=HYPERLINK(1)", "'\r'=HYPERLINK(1)", "a\r\n'@SUM(A1)", "a\n'\"=1\"", "a\u2028'+1",
        "a\x85'-1", "a\n'\tb", "a\nb", "a\n", "ok", "\n'=x\n'=y", "a\r'\rb"]
    # object, Categorical, generalized unordered and header labels get the same guard
    obj = neutralize_formulas(pd.DataFrame({"t": pd.Series(cells + [3], dtype=object)}))
    assert obj["t"].tolist() == out["t"].tolist() + [3]
    cat = neutralize_formulas(pd.DataFrame({"t": pd.Categorical(["x\n=1", "y"])}))
    assert cat["t"].tolist() == ["x\n'=1", "y"]
    gen = neutralize_formulas(pd.DataFrame({"t": pd.array(["x\n=1", "y"],
                                                          dtype="generalization[unordered]")}))
    assert gen["t"].tolist() == ["x\n'=1", "y"]
    labels = neutralize_formulas(pd.DataFrame({"a\n=b": [1]})).columns.tolist()
    assert labels == ["a\n'=b"]


def _no_line_starts_a_formula(text: str) -> None:
    """Split as a reader that splits lines before it reads quotes: no line may begin a
    formula, after any even number of double quotes (inside a quoted cell a quote is
    written twice; an odd number opens a quoted cell, whose text is then the cell's own)."""
    for line in text.splitlines():
        rest = line.lstrip('"')
        if (len(line) - len(rest)) % 2 == 0:
            assert not rest.startswith(FORMULA_PREFIXES), repr(line)


def _check_written(text: str, frame: pd.DataFrame, expected_cells) -> None:
    """``text`` read back three ways: Python's csv module and pandas give ``expected_cells``
    (the rows of strings), and no line of str.splitlines() begins a formula."""
    import csv

    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows == expected_cells
    back = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    assert [list(back.columns)] + back.to_numpy().tolist() == expected_cells
    _no_line_starts_a_formula(text)


def test_write_csv_quotes_every_line_break():
    # before: a bare \r (and \v, \f, \x1c-\x1e, \x85, \u2028, \u2029) was written unquoted;
    # a reader split the line there and "=HYPERLINK(...)" started a new row past the guard
    notes = [f"x{b}=HYPERLINK(1)" for b in SPLITLINES] + ["\r=H(1)", "a\r\nb", "plain"]
    df = pd.DataFrame({"id": range(len(notes)), "note": notes})
    buf = io.StringIO()
    write_csv(df, buf)
    guarded = neutralize_formulas(df)["note"].tolist()
    _check_written(buf.getvalue(), df,
                   [["id", "note"]] + [[str(i), g] for i, g in enumerate(guarded)])
    assert buf.getvalue().startswith('id,note\n0,"x\r\'=HYPERLINK(1)"\n')
    # no formula guard: still quoted, so CSV readers get the cells back as they were
    buf = io.StringIO()
    write_csv(df, buf, escape_formulas=False)
    import csv

    assert [r[1] for r in csv.reader(io.StringIO(buf.getvalue(), newline=""))][1:] == notes
    # a frame without line breaks is written exactly as pandas writes it
    plain = pd.DataFrame({"a": ["x", "=1", None], "b": [1.5, -2.0, None]})
    buf = io.StringIO()
    write_csv(plain, buf)
    assert buf.getvalue() == neutralize_formulas(plain).to_csv(index=False)


def test_write_csv_labels_categories_generalized_cells_and_files(tmp_path):
    from pdanon.dtype import GeneralizationRange

    df = pd.DataFrame({
        "n\u2028=x": [1, 2],
        "c": pd.Categorical(["a\x1c=1", "b"]),
        "g": pd.Series([GeneralizationRange(None, None, "unordered", ["p\r=1", "q"]), "r"],
                       dtype=object),
        "f": [0.1, np.nan],
    })
    path = tmp_path / "o.csv"
    write_csv(df, path, header=True)
    with open(path, encoding="utf-8", newline="") as fh:
        text = fh.read()
    _check_written(text, df, [["n\u2028'=x", "c", "g", "f"],
                              ["1", "a\x1c'=1", "{p\r'=1, q}", "0.1"],
                              ["2", "b", "r", ""]])
    # without a header line
    buf = io.StringIO()
    write_csv(df, buf, header=False)
    assert buf.getvalue().startswith('1,"a\x1c\'=1","{p\r\'=1, q}",0.1\n')
    # a generalized column whose categories hold a line break before a formula
    gen = pd.DataFrame({"h": pd.array([GeneralizationRange(None, None, "unordered",
                                                           ["p\n=1", "q"]), "q", None],
                                      dtype="generalization[unordered]")})
    text = write_csv(gen)
    _check_written(text, gen, [["h"], ["{p\n'=1, q}"], ["q"], [""]])
    safe = pd.DataFrame({"h": pd.array(["a\nb", "=c"], dtype="generalization[unordered]")})
    assert neutralize_formulas(safe)["h"].tolist() == ["a\nb", "'=c"]


_ALPHABET = st.sampled_from(list(SPLITLINES) + ["=", "+", "-", "@", "\t", '"', ",", "a", " ",
                                                "'", "\r\n"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_ALPHABET, max_size=8).map("".join), min_size=1, max_size=6))
def test_property_written_rows_never_start_a_formula(cells):
    df = pd.DataFrame({"t": cells, "n": range(len(cells))})
    buf = io.StringIO()
    write_csv(df, buf)
    guarded = neutralize_formulas(df)["t"].tolist()
    text = buf.getvalue()
    import csv

    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows == [["t", "n"]] + [[g, str(i)] for i, g in enumerate(guarded)]
    _no_line_starts_a_formula(text)
    for g in guarded:
        assert not g.startswith(FORMULA_PREFIXES)
        for part in g.splitlines()[1:]:
            assert not part.lstrip('"').startswith(FORMULA_PREFIXES), repr(g)
    # and without the guard, the values come back unchanged
    buf = io.StringIO()
    write_csv(df, buf, escape_formulas=False)
    rows = list(csv.reader(io.StringIO(buf.getvalue(), newline="")))
    assert [r[0] for r in rows[1:]] == cells


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="'\"=+-@\t\r\nab5.", max_size=8), min_size=1, max_size=6))
def test_restore_formulas_undoes_the_guard_exactly(cells):
    """Every text cell comes back as it was: a cell that began with a quote and a formula was
    guarded once more, so removing one quote is never ambiguous."""
    from pdanon.io.csvsafe import restore_formulas

    series = pd.Series(cells, dtype=object)
    guarded = neutralize_formulas(series.to_frame("c"), header=False)["c"]
    assert restore_formulas(guarded).tolist() == cells
