"""``pdanon.read_csv`` with pandas' own keywords beside the code-column scan
(:mod:`pdanon.io.csvcodes`), and a file in another encoding than the one asked."""

import gzip
import io

import pandas as pd
import pandas._testing as tm
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon.io import csvcodes
from pdanon.__main__ import main as pdanon_main
from pdanon.cli.depersonalize import main as depersonalize_main

#: pandas.read_csv keywords a newcomer passes, each with the file it reads: dates written
#: ``day/month/year`` for date_format= and dayfirst=, the file in cp1252 for encoding=
DATES = {
    None: {},
    "parse_dates": {"parse_dates": ["date_of_birth"]},
    "parse_dates by position": {"parse_dates": [1]},
    "date_format": {"parse_dates": ["date_of_birth"], "date_format": "%d/%m/%Y"},
    "dayfirst": {"parse_dates": ["date_of_birth"], "dayfirst": True},
}
OTHERS = {
    "encoding": {"encoding": "cp1252"},
    "usecols": {"usecols": ["zip", "date_of_birth", "age", "town", "region"]},
    "dtype": {"dtype": {"age": "float64"}},
    "converters": {"converters": {"town": str.upper}},
    "na_values": {"na_values": ["unknown"]},
    "keep_default_na": {"keep_default_na": False, "na_values": [""]},
    "nrows": {"nrows": 3},
    "skiprows": {"skiprows": [2]},
    "sep": {"sep": ";"},
    "index_col": {"index_col": "region"},
}

ROWS = [("02139", "1971-08-15", "52", "Côte", "n"), ("10001", "1980-01-02", "", "unknown", "s"),
        ("00501", "1990-12-31", "31", "Åre", "n"), ("94105", "1966-03-04", "47", "", "e"),
        ("60614", "1975-07-20", "29", "Oslo", "w")]


def _write(path, *, zeros: bool, day_first: bool, sep: str, encoding: str) -> None:
    lines = [sep.join(["zip", "date_of_birth", "age", "town", "region", "extra"])]
    for zip_code, born, age, town, region in ROWS:
        if not zeros:
            zip_code = str(int(zip_code) + 10000)
        if day_first:
            y, m, d = born.split("-")
            born = f"{d}/{m}/{y}"
        lines.append(sep.join([zip_code, born, age, town, region, "1"]))
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))


@settings(max_examples=40)
@given(dates=st.sampled_from(list(DATES)), others=st.sets(st.sampled_from(list(OTHERS))),
       zeros=st.booleans())
def test_read_csv_takes_pandas_keywords_beside_codes(tmp_path_factory, dates, others, zeros):
    """Any mix of the keywords: the frame pandas reads with them, except that a code column
    with leading zeros is text (as ``dtype={"zip": str}`` reads it), a column of whole numbers
    that pandas reads as floats only because a field is blank is ``Int64`` (as ``dtype=
    {"age": "Int64"}`` reads it, unless the caller gave age a dtype), and a date column is a
    datetime."""
    kwargs = dict(DATES[dates])
    for name in sorted(others):
        kwargs.update(OTHERS[name])
    if {"na_values", "keep_default_na"} <= others:
        kwargs["na_values"] = ["", "unknown"]
    path = tmp_path_factory.mktemp("csv") / "people.csv"
    _write(path, zeros=zeros, day_first=dates in ("date_format", "dayfirst"),
           sep=kwargs.get("sep", ","), encoding=kwargs.get("encoding", "utf-8"))

    got = pdanon.read_csv(path, **kwargs)

    expected_kwargs = {"index_col": False, **kwargs}
    if zeros:
        expected_kwargs["dtype"] = {**kwargs.get("dtype", {}), "zip": str}
    if "dtype" not in others and "skiprows" not in others:  # the blank age is read (row 2)
        expected_kwargs["dtype"] = {**expected_kwargs.get("dtype", {}), "age": "Int64"}
    expected = pd.read_csv(path, **expected_kwargs)
    tm.assert_frame_equal(got, expected)
    if zeros:
        assert got["zip"].iloc[0] == "02139"
    if dates is not None:
        assert pd.api.types.is_datetime64_any_dtype(got["date_of_birth"])
        assert got["date_of_birth"].iloc[0] == pd.Timestamp("1971-08-15")
    if "encoding" in others:
        assert "Côte".upper() in got["town"].tolist() or "Côte" in got["town"].tolist()


def test_a_date_of_birth_read_as_dates_takes_the_refusals_advice(tmp_path):
    """The refusal of a date of birth says ``df['date_of_birth'].dt.year``; the column that
    read_csv(parse_dates=) gives, beside a ZIP code with leading zeros, takes it as written."""
    path = tmp_path / "people.csv"
    _write(path, zeros=True, day_first=False, sep=",", encoding="utf-8")
    df = pdanon.read_csv(path, parse_dates=["date_of_birth"])
    with pytest.raises(pdanon.RoleError, match=r"df\['date_of_birth'\]\.dt\.year"):
        df.anon.k_anonymize(2, quasi_identifiers=["zip"],
                            insensitive=["age", "town", "region", "extra"])
    df["birth_year"] = df["date_of_birth"].dt.year
    assert df["birth_year"].tolist() == [1971, 1980, 1990, 1966, 1975]


def test_parse_dates_true_and_chunks(tmp_path):
    path = tmp_path / "people.csv"
    _write(path, zeros=True, day_first=False, sep=",", encoding="utf-8")
    # pandas: True parses the index, and read_csv takes no column as an index unless told
    tm.assert_frame_equal(pdanon.read_csv(path, parse_dates=True), pdanon.read_csv(path))
    for kwargs in ({"chunksize": 2}, {"iterator": True}):
        with pytest.raises(pdanon.InvalidInputError, match="reads the whole table.*pdanon.dask"):
            pdanon.read_csv(path, **kwargs)


def _cp1252_file(path, bad_line: int = 3):
    lines = ["name,age"] + [f"Ann{i},{30 + i}" for i in range(1, 6)]
    lines[bad_line - 1] = "Côte,52"
    data = ("\n".join(lines) + "\n").encode("cp1252")
    if str(path).endswith(".gz"):
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("name", ["people.csv", "people.csv.gz"])
def test_an_undecodable_byte_names_its_line_and_the_encoding(tmp_path, name):
    path = _cp1252_file(tmp_path / name, bad_line=4)
    with pytest.raises(csvcodes.UndecodableError) as caught:
        pdanon.read_csv(path)
    error = caught.value
    assert isinstance(error, pdanon.InvalidInputError) and isinstance(error, ValueError)
    assert (error.line, error.byte, error.encoding, error.suggested) == (4, 0xF4, "utf-8",
                                                                        "cp1252")
    assert "line 4 is not utf-8 text (byte 0xf4 in 'C\ufffdte,52')" in str(error)
    assert "read it with encoding='cp1252'" in str(error)
    # the advice works as written
    assert pdanon.read_csv(path, encoding="cp1252")["name"].iloc[2] == "Côte"


def test_an_undecodable_stream_names_its_line(tmp_path):
    path = _cp1252_file(tmp_path / "people.csv", bad_line=2)
    with open(path, "rb") as fh:
        with pytest.raises(csvcodes.UndecodableError, match="line 2 is not utf-8"):
            pdanon.read_csv(fh)
    with pytest.raises(csvcodes.UndecodableError, match="line 2 is not utf-8"):
        pdanon.read_csv(path, engine="python")


@settings(max_examples=60)
@given(lines=st.lists(st.text(st.characters(codec="utf-8", exclude_characters="\r\n"),
                              max_size=12), min_size=1, max_size=12),
       bad=st.data(), block=st.integers(1, 9))
def test_the_line_of_the_first_bad_byte_across_blocks(lines, bad, block):
    """Blocks of any size (a character split between two): the line named is the line of
    the first byte that is not UTF-8, counted on the text."""
    at = bad.draw(st.integers(0, len(lines) - 1))
    encoded = [line.encode("utf-8") for line in lines]
    cut = bad.draw(st.integers(0, len(lines[at])))  # between two characters
    encoded[at] = (lines[at][:cut].encode("utf-8") + b"\xff"
                   + lines[at][cut:].encode("utf-8"))
    data = b"\n".join(encoded)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(csvcodes, "_SCAN_BLOCK", block)
            error = csvcodes.undecodable(lambda: io.BytesIO(data), "utf-8", exc)
    assert error.line == at + 1 and error.byte == 0xFF


def test_the_command_lines_name_the_line_and_their_fix(tmp_path, capsys):
    path = _cp1252_file(tmp_path / "people.csv", bad_line=3)
    code = pdanon_main(["anonymize", str(path), "-o", str(tmp_path / "out.csv"), "--qi", "age",
                        "-k", "2", "--identifiers", "name"])
    err = capsys.readouterr().err
    assert code == 2
    assert "line 3 is not utf-8 text" in err and "give --encoding cp1252" in err
    assert "encoding=" not in err  # the command line's words, not Python's
    code = pdanon_main(["anonymize", str(path), "-o", str(tmp_path / "out.csv"), "--qi", "age",
                        "-k", "2", "--identifiers", "name", "--encoding", "cp1252"])
    assert code == 0, capsys.readouterr().err
    # depersonalize reads UTF-8 only: its advice is to convert the file
    code = depersonalize_main(["-i", str(path), "-o", str(tmp_path / "d.csv"), "-k", "2",
                               "--qi_ids", "1", "--i_ids", "0"])
    err = capsys.readouterr().err
    assert code == 2 and "line 3 is not utf-8 text" in err and "save it as UTF-8" in err
