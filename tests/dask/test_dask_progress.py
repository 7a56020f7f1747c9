"""Progress bars of Mondrian and optimal on Dask (pdanon/dask/_mondrian.py, _optimal.py,
pdanon/progress.py)."""

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


def test_optimal_bar_over_its_phases(ddf, capfd):
    from pdanon.hierarchy import intervals

    kw = dict(algorithm="optimal", hierarchies={"age": intervals([10, 20])},
              quasi_identifiers={"age": "real", "zip": "unordered"})
    with dask.config.set(scheduler="synchronous"):
        out = ddf.anon.k_anonymize(2, progress=True, **kw)
        err = capfd.readouterr().err
        assert "optimal (dask): verification" in err and "5/5" in err
        assert out.anon.info["verified"]["k"] >= 2
        ddf.anon.k_anonymize(2, verify=False, progress=True, **kw)  # no verification phase
        err = capfd.readouterr().err
        assert "optimal (dask): apply" in err and "4/4" in err
        ddf.anon.k_anonymize(2, **kw)  # auto: stderr is not a terminal under pytest
        ddf.anon.k_anonymize(2, progress=False, **kw)
    assert "optimal (dask)" not in capfd.readouterr().err
