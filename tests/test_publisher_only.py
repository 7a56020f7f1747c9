"""Issue 48, point 4: publisher-only stays publisher-only.

An explanation (``out.anon.explain(df)``) gives original values back beside the release, and
so does any frame it was joined, merged, concatenated or assigned into (pandas keeps neither
its type nor its attrs then). pandas' writers warn on such a frame; pdanon's writers and
checks refuse it unless ``publisher_only=True``; a ``ReleaseHistory`` is not pickled
unknowingly.
"""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdanon
from pdanon import PublisherOnlyError, PublisherOnlyWarning
from pdanon.publisher_only import EXPLANATION_COLUMNS, explanation_columns

QI = {"age": "real", "sex": "unordered"}


@pytest.fixture(scope="module")
def released():
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"age": rng.integers(20, 60, 300), "sex": rng.choice(["F", "M"], 300)})
    out = df.anon.k_anonymize(5, algorithm="mondrian", method="aggregate", quasi_identifiers=QI, row_order="input")
    return df, out, out.anon.explain(df)


def _derived(out, ex) -> dict:
    """The ways a release and its explanation end up in one plain frame."""
    assigned = out.copy()
    for c in ("aggregated", "reason"):
        assigned[c] = ex[c]
    return {"join": out.join(ex),
            "merge": out.merge(ex, left_index=True, right_index=True),
            "concat": pd.concat([out, ex], axis=1),
            "assign": out.assign(aggregated=ex["aggregated"], suppressed=ex["suppressed"]),
            "setitem": assigned,
            "plain copy": pd.DataFrame(ex)}


def test_joined_file_gives_every_original_back_and_pandas_warns(tmp_path, released):
    """The issue's case: out.join(ex).to_parquet(...) wrote silently, and the file gives back
    the original sex of 300 of 300 rows."""
    df, out, ex = released
    joined = out.join(ex)
    assert type(joined) is pd.DataFrame and joined.attrs == {}  # pandas dropped both
    path = tmp_path / "joined.parquet"
    with pytest.warns(PublisherOnlyWarning, match="publisher only.*to_parquet"):
        joined.to_parquet(path)
    back = pd.read_parquet(path)
    flipped = back["aggregated"].str.contains("sex").to_numpy()
    other = np.where(back["sex"] == "F", "M", "F")
    recovered = np.where(flipped, other, back["sex"].to_numpy())
    assert (recovered == df["sex"].to_numpy()).sum() == 300  # why it must never be published


@pytest.mark.parametrize("how", ["join", "merge", "concat", "assign", "setitem", "plain copy"])
def test_every_derived_frame_warns_in_pandas_and_is_refused_by_pdanon(tmp_path, released, how):
    from pdanon.io.csvsafe import write_csv
    from pdanon.report import build_report

    _, out, ex = released
    frame = _derived(out, ex)[how]
    assert explanation_columns(frame)
    for writer, arg in (("to_csv", tmp_path / "f.csv"), ("to_parquet", tmp_path / "f.pq"),
                        ("to_json", tmp_path / "f.json"), ("to_pickle", tmp_path / "f.pkl"),
                        ("to_html", tmp_path / "f.html"), ("to_string", tmp_path / "f.txt")):
        with pytest.warns(PublisherOnlyWarning):
            getattr(frame, writer)(arg)
    with pytest.raises(PublisherOnlyError, match="explanation columns"):
        pdanon.checks.policy.check(frame.assign(**{"age": out["age"]}) if how == "plain copy"
                            else frame)
    with pytest.raises(PublisherOnlyError, match="publisher_only=True"):
        write_csv(frame, tmp_path / "refused.csv")
    assert not (tmp_path / "refused.csv").exists()
    with pytest.raises(PublisherOnlyError):
        build_report(frame, quasi_identifiers=["age", "sex"])
    # said on purpose: the file stays with the publisher (the warning still reminds)
    with pytest.warns(PublisherOnlyWarning):
        write_csv(frame, tmp_path / "kept.csv", publisher_only=True)
    assert (tmp_path / "kept.csv").stat().st_size > 0


def test_check_and_publishing_refuse_the_joined_release(released):
    _, out, ex = released
    joined = out.join(ex)
    with pytest.raises(PublisherOnlyError, match=r"check\(\) refuses"):
        joined.anon.check()
    with pytest.raises(PublisherOnlyError, match="publishing refuses"):
        joined.anon.shuffle(["reason"], quasi_identifiers=QI, insensitive=list(ex.columns))
    # dropping the columns is the fix the message names
    assert out.join(ex).drop(columns=list(ex.columns)).anon.check(
        pdanon.Policy(k=5), quasi_identifiers=list(QI)).passed


def test_explanation_writers_warn_also_to_html_and_to_string(tmp_path, released):
    _, _, ex = released
    import importlib.util

    # pandas' to_latex needs jinja2, which only the extras bring
    latex = ("to_latex",) if importlib.util.find_spec("jinja2") else ()
    for writer in ("to_html", "to_string", *latex):
        with pytest.warns(PublisherOnlyWarning, match=writer):
            getattr(ex, writer)()
    with pytest.warns(PublisherOnlyWarning):
        ex["reason"].to_csv(tmp_path / "col.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = repr(ex) + repr(ex["reason"]) + (ex._repr_html_() or "")  # shown, not written
    assert "publisher only" in text


def test_a_release_alone_writes_without_warning(tmp_path, released):
    _, out, _ = released
    with warnings.catch_warnings():
        warnings.simplefilter("error", PublisherOnlyWarning)
        out.to_parquet(tmp_path / "r.parquet")
        out.to_csv(tmp_path / "r.csv")
        repr(out.join(out.anon.explain(released[0])))  # a display is not a write
        out.assign(reason="audit").to_csv(tmp_path / "one.csv")  # one such name: not marked


@settings(max_examples=40, deadline=None)
@given(st.sets(st.sampled_from(EXPLANATION_COLUMNS)), st.sets(st.sampled_from(["a", "b"])))
def test_two_explanation_columns_mark_a_frame(names, others):
    frame = pd.DataFrame(columns=sorted(others) + sorted(names))
    assert (explanation_columns(frame) != []) is (len(names) >= 2)


def test_cli_refuses_an_input_joined_with_its_explanation(tmp_path, released, capsys):
    from pdanon.cli.anonymize import CliError, write_release

    _, out, ex = released
    joined = out.join(ex)
    with pytest.raises(CliError, match="publisher_only=True"):
        write_release(joined, str(tmp_path / "r.csv"))
    with pytest.raises(CliError, match="explanation columns"):
        write_release(joined, str(tmp_path / "r.parquet"))
    assert not (tmp_path / "r.parquet").exists()


# ------------------------------------------------------------------ ReleaseHistory


def _history():
    h = pdanon.ReleaseHistory()
    h.add(pd.DataFrame({"age": ["[30, 39]"] * 3, "d": ["flu", "cold", "hiv"]}),
          keys=["P1", "P2", "P3"], quasi_identifiers=["age"], sensitive="d")
    return h


def test_release_history_is_not_pickled_unknowingly(tmp_path):
    h = _history()
    with pytest.raises(PublisherOnlyError, match="publisher only"):
        pickle.dumps(h)
    release = pd.DataFrame({"age": ["[30, 39]"]})
    release.attrs["history"] = h
    with pytest.raises(PublisherOnlyError):
        release.to_pickle(tmp_path / "r.pkl")
    with pytest.raises(TypeError):  # not JSON: it cannot ride in a Parquet file's attrs
        release.to_parquet(tmp_path / "r.parquet")
    with pytest.raises(PublisherOnlyError, match="publisher_only=True"):
        h.dumps()
    back = pdanon.ReleaseHistory.loads(h.dumps(publisher_only=True))
    assert list(back.keys) == ["P1", "P2", "P3"]
    assert back.candidates(["P1", "P3"]).tolist() == [3, 3]
    assert copy.deepcopy(h).candidates(["P2"]).tolist() == [3]
    with pytest.raises(PublisherOnlyError):  # dumps leaves no door open behind it
        pickle.dumps(h)
    with pytest.raises(pdanon.InvalidInputError, match="not a ReleaseHistory"):
        pdanon.ReleaseHistory.loads(pickle.dumps({"keys": []}))
