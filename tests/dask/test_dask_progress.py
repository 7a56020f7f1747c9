"""Progress bars of Mondrian on Dask (pdanon/dask/_mondrian.py, pdanon/progress.py)."""

import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("tqdm")

import pdanon.dask  # noqa: E402,F401


@pytest.fixture
def ddf():
    df = pd.DataFrame({"age": [30, 31, 40, 42, 50, 55], "zip": list("aabbcc")})
    return dd.from_pandas(df, npartitions=2)


def test_a_bar_over_the_phases_when_asked(ddf, capfd):
    with dask.config.set(scheduler="synchronous"):
        out = ddf.anon.k_anonymize(2, progress=True)
    err = capfd.readouterr().err
    assert "mondrian (dask): verification" in err and "3/3" in err
    assert out.anon.info["verified"]["k"] >= 2


def test_silent_by_default_and_when_refused(ddf, capfd):
    with dask.config.set(scheduler="synchronous"):
        ddf.anon.k_anonymize(2)  # auto: stderr is not a terminal under pytest
        ddf.anon.k_anonymize(2, progress=False)
    assert "mondrian (dask)" not in capfd.readouterr().err


def test_a_bad_value_names_progress(ddf):
    from pdanon._errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="progress must be"):
        ddf.anon.k_anonymize(2, progress="yes")
