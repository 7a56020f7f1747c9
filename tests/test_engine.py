"""pdanon.engine: the one pipeline behind every face (validate, encode, partition, recode,
verify, report). ``info`` exactly on hand-checked tables, the choice of ``algorithm="auto"``
as the engine records it, errors, and the verification that stops a wrong output."""

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon import engine, recode
from pdanon.dtype import GeneralizationArray
from pdanon.models import KAnonymity
from pdanon.partition import PARTITIONERS, Partition, Partitioner
from pdanon.roles import resolve_roles
from tests._helpers.frames import seed_l


def people():
    """Six rows; nearest groups the ages 30/31, 40/42 and 50/52 (each seed takes its nearest
    free row)."""
    return pd.DataFrame({"name": list("abcdef"), "age": [30, 31, 40, 42, 50, 52],
                         "sex": list("FMFMFM"), "d": list("xyxzyx")})


def roles(df):
    return resolve_roles(df, identifiers=["name"], quasi_identifiers={"age": "real"},
                         sensitive=["d"])


# ----------------------------------------------------------------------------- info


def test_info_of_a_hand_checked_run():
    df = people()
    out, info = engine.anonymize(df, roles(df), model=KAnonymity(2), method="generalize",
                                 algorithm="nearest")
    # the classes are {30, 31}, {40, 42}, {50, 52}; every age is one person's, so every bound
    # goes to the grid of 10 (the ages spread over 22): down for a class's least, up for its
    # greatest (pdanon.recode.bounds)
    assert out["age"].astype(str).tolist() == ["[30, 40]"] * 2 + ["[40, 50]"] * 2 + \
        ["[50, 60]"] * 2
    assert list(out.columns) == ["age", "sex", "d"] and out.index.equals(df.index)
    seconds = info.pop("seconds")
    assert 0 <= seconds < 60
    assert info == {"algorithm": "nearest", "method": "generalize", "model": "k-anonymity",
                    "params": {"k": 2}, "models": [{"model": "KAnonymity", "params": {"k": 2}}],
                    "quasi_identifiers": ["age"],
                    "dropped_identifiers": ["name"], "rows": 6, "groups": 3,
                    "changed_cells": 6, "suppressed_rows": 0, "suppressed_cells": 0,
                    "partitions": 3,
                    "bounds": {"rule": "no bound held by fewer than 2 rows", "k": 2,
                               "widened_cells": {"age": 6}},
                    "achieved": {"k": 2}}


def test_auto_records_the_requested_algorithm_and_the_reason():
    df = people()
    _, info = engine.anonymize(df, roles(df), model=KAnonymity(2), method="suppress",
                               algorithm="auto")
    assert info["algorithm"] == "nearest" and info["requested_algorithm"] == "auto"
    assert info["note"] == "auto: nearest (6 rows < 5,000)"
    assert info["changed_cells"] == 6 and info["groups"] == 1  # every age suppressed
    _, info = engine.anonymize(df, roles(df), model=KAnonymity(2), method="suppress",
                               algorithm="mondrian")
    assert info["algorithm"] == "mondrian" and "requested_algorithm" not in info


def test_auto_drops_the_suppression_budget_when_it_picks_nearest():
    df = people()
    _, info = engine.anonymize(df, roles(df), model=KAnonymity(2), method="generalize",
                               algorithm="auto", max_suppressed_rows=2)
    assert info["algorithm"] == "nearest" and info["suppressed_rows"] == 0
    with pytest.raises(pdanon.InvalidInputError, match="does not take option"):
        engine.anonymize(df, roles(df), model=KAnonymity(2), method="generalize",
                         algorithm="nearest", max_suppressed_rows=2)


def test_empty_frame_gives_the_kept_columns_and_zero_counts():
    df = people().iloc[:0]
    out, info = engine.anonymize(df, roles(df), model=KAnonymity(2), method="generalize",
                                 algorithm="auto")
    assert list(out.columns) == ["age", "sex", "d"] and len(out) == 0
    del info["seconds"]
    assert info == {"algorithm": "auto", "method": "generalize", "model": "k-anonymity",
                    "params": {"k": 2}, "models": [{"model": "KAnonymity", "params": {"k": 2}}],
                    "quasi_identifiers": ["age"],
                    "dropped_identifiers": ["name"], "rows": 0, "groups": 0,
                    "changed_cells": 0, "suppressed_rows": 0, "suppressed_cells": 0}


def test_attrs_are_kept_and_copied():
    df = people()
    df.attrs["source"] = {"file": "people.csv"}
    out, _ = engine.anonymize(df, roles(df), model=KAnonymity(2), method="aggregate",
                              algorithm="nearest")
    assert out.attrs == {"source": {"file": "people.csv"}}
    out.attrs["source"]["file"] = "changed"
    assert df.attrs["source"]["file"] == "people.csv"


def test_algorithms_lists_every_partitioner_and_auto():
    assert engine.algorithms() == ["auto", "datafly", "equal_groups", "exact", "group_join",
                                   "mondrian", "nearest", "optimal", "safepub"]


# ----------------------------------------------------------------------------- errors


def test_unknown_method_algorithm_and_no_quasi_identifier():
    df = people()
    with pytest.raises(pdanon.InvalidInputError, match="unknown method 'blur'"):
        engine.anonymize(df, roles(df), model=KAnonymity(2), method="blur", algorithm="auto")
    with pytest.raises(pdanon.InvalidInputError, match="unknown algorithm 'magic'; use one of"):
        engine.anonymize(df, roles(df), model=KAnonymity(2), method="suppress",
                         algorithm="magic")
    no_qi = resolve_roles(df, identifiers=["name"], sensitive=["age", "sex", "d"])
    with pytest.raises(pdanon.InvalidInputError, match="no quasi-identifier columns"):
        engine.anonymize(df, no_qi, model=KAnonymity(2), method="suppress", algorithm="auto")


# ----------------------------------------------------------------------------- verification


def test_a_partition_that_breaks_the_model_is_refused(monkeypatch):
    engine._load_partitioners()
    monkeypatch.setitem(PARTITIONERS, "singletons",
                        Partitioner("singletons",
                                    lambda enc, model, **kw: Partition(np.arange(enc.n))))
    df = people()
    with pytest.raises(pdanon.VerificationError, match="does not satisfy KAnonymity"):
        engine.anonymize(df, roles(df), model=KAnonymity(2), method="generalize",
                         algorithm="singletons")


def test_a_generalized_cell_without_its_original_value_is_refused(monkeypatch):
    """One class of six rows (k holds), but every cell is [0, 1]: not truthful."""
    engine._load_partitioners()

    def untruthful(enc, model, *, frame, **kw):
        cells = GeneralizationArray.from_bounds([0] * enc.n, [1] * enc.n, kind="real")
        return recode.Recoded({"age": pd.Series(cells, index=frame.index)}, changed=enc.n)

    monkeypatch.setitem(PARTITIONERS, "untruthful", Partitioner("untruthful", untruthful))
    df = people()
    with pytest.raises(pdanon.VerificationError, match="column 'age'.*does not contain"):
        engine.anonymize(df, roles(df), model=KAnonymity(2), method="generalize",
                         algorithm="untruthful")


# ----------------------------------------------------------------------------- through the accessor


def test_auto_small_table_uses_nearest():
    out = seed_l().anon.l_diversify(2, sensitive=["s"])
    info = out.anon.info
    assert info["algorithm"] == "nearest" and info["requested_algorithm"] == "auto"
    assert info["note"].startswith("auto: nearest (4 rows < 5,000)")


def test_auto_other_models_use_mondrian():
    out = seed_l().anon.t_close(0.5, sensitive=["s"])
    assert out.anon.info["algorithm"] == "mondrian"
    assert "nearest supports k-anonymity and distinct l-diversity only" in out.anon.info["note"]
    out = seed_l().anon.l_diversify(1.5, variant="entropy", sensitive=["s"])
    assert out.anon.info["algorithm"] == "mondrian"


def test_auto_large_table_uses_mondrian():
    adult = pdanon.datasets.load_adult(nrows=engine.AUTO_MONDRIAN_ROWS)
    out = adult.anon.k_anonymize(5)
    assert out.anon.info["algorithm"] == "mondrian"
    assert out.anon.info["note"].startswith("auto: mondrian (5,000 rows >= 5,000)")
    assert "auto" in engine.algorithms()


def test_auto_with_hierarchies_chooses_optimal():
    import pdanon
    from pdanon import hierarchy as H

    df = pdanon.datasets.load_adult(nrows=1500)
    hs = {a: H.read_arx_csv(pdanon.datasets.adult_hierarchy_path(a)) for a in ["age", "sex"]}
    out = df.anon.k_anonymize(5, hierarchies=hs, quasi_identifiers=["age", "sex"])
    info = out.anon.info
    assert info["algorithm"] == "optimal" and info["requested_algorithm"] == "auto"
    assert "hierarchies given" in info["note"]
    assert out.anon.k_anonymity() >= 5


def test_info_groups_counts_published_classes():
    df = pd.DataFrame({"a": [1, 1, 1, 1]})
    info = df.anon.k_anonymize(2, algorithm="nearest").anon.info
    assert info["partitions"] == 2 and info["groups"] == 1


# ----------------------------------------------------------------------------- non-finite numbers


@pytest.mark.parametrize("algorithm", ["nearest", "mondrian", "auto"])
def test_infinity_in_a_real_quasi_identifier_is_refused_before_any_work(algorithm):
    df = pd.DataFrame({"age": [30.0, 31.0, np.inf, 42.0, -np.inf, 52.0]}, index=list("abcdef"))
    with pytest.raises(pdanon.InvalidInputError) as e:
        engine.anonymize(df, resolve_roles(df, quasi_identifiers={"age": "real"}),
                         model=KAnonymity(2), method="generalize", algorithm=algorithm)
    assert str(e.value) == (
        "column 'age' has 2 infinite value(s) (first at index 'c'); replace them (e.g. "
        "df['age'].replace([np.inf, -np.inf], ...)) or drop those rows before anonymizing")


def test_infinity_in_an_ordered_quasi_identifier_is_refused_and_unordered_is_a_value():
    df = pd.DataFrame({"age": [30.0, 31.0, np.inf, np.inf]})
    with pytest.raises(pdanon.InvalidInputError, match=r"^column 'age' has 2 infinite value"):
        engine.anonymize(df, resolve_roles(df, quasi_identifiers={"age": "ordered"}),
                         model=KAnonymity(2), method="generalize", algorithm="nearest")
    out, info = engine.anonymize(df, resolve_roles(df, quasi_identifiers={"age": "unordered"}),
                                 model=KAnonymity(2), method="generalize", algorithm="nearest")
    assert info["achieved"]["k"] == 2 and info["changed_cells"] == 2


def test_infinity_in_a_real_sensitive_column_is_refused_for_t_closeness():
    from pdanon.models import TCloseness

    df = pd.DataFrame({"zip": [1, 1, 2, 2], "s": [1.0, np.inf, 3.0, 4.0]})
    r = resolve_roles(df, quasi_identifiers=["zip"], sensitive={"s": "real"})
    with pytest.raises(pdanon.InvalidInputError, match=r"^sensitive column 's' has 1 infinite "
                       r"value\(s\) \(first at index 1\)"):
        engine.anonymize(df, r, model=TCloseness(0.5), method="generalize",
                         algorithm="mondrian")


def test_nan_in_a_real_quasi_identifier_is_a_value_not_an_infinity():
    df = pd.DataFrame({"age": [30.0, np.nan, 40.0, 41.0]})
    out, info = engine.anonymize(df, resolve_roles(df), model=KAnonymity(2),
                                 method="generalize", algorithm="nearest")
    # nearest seeds at 30 and takes 40 (the missing cell is farther than any value); 41 and
    # the missing cell share a class: "41 or missing", never [41, nan]; 41 is one person's
    # age, so the bounds rule widens it to the grid
    assert [None if pd.isna(v) else str(v) for v in out["age"]] == [
        "[30, 40]", "[40, 50] or missing", "[30, 40]", "[40, 50] or missing"]
    assert (info["suppressed_cells"], info["changed_cells"]) == (0, 4)


# ----------------------------------------------------------------------------- info: every model


def test_achieved_reports_k_l_and_its_variant_on_the_published_classes():
    from pdanon.models import AllOf, LDiversity

    df = people()  # nearest: {30, 31} d=x,y; {40, 42} d=x,z; {50, 52} d=y,x
    out, info = engine.anonymize(df, roles(df), model=AllOf(KAnonymity(2), LDiversity(2)),
                                 method="generalize", algorithm="nearest")
    assert info["achieved"] == {"k": 2, "l": 2, "l_variant": "distinct"}
    out, info = engine.anonymize(df, roles(df), model=LDiversity(1.5, variant="entropy"),
                                 method="generalize", algorithm="mondrian")
    # the reported l is exp(H) of the worst published class:
    classes = out.groupby("age", observed=True)["d"].agg(list).tolist()

    def exp_entropy(values):
        p = pd.Series(values).value_counts(normalize=True).to_numpy()
        return float(np.exp(-(p * np.log(p)).sum()))
    assert info["achieved"]["l"] == pytest.approx(min(map(exp_entropy, classes)))
    assert info["achieved"]["l_variant"] == "entropy"


def test_achieved_reports_t_with_its_distance():
    from pdanon.models import TCloseness

    # two classes {x, y} and {x, y}: each has the whole table's distribution, t = 0
    df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": list("xyxy")})
    r = resolve_roles(df, quasi_identifiers={"zip": "unordered"}, sensitive=["d"])
    out, info = engine.anonymize(df, r, model=TCloseness(0.5), method="generalize",
                                 algorithm="mondrian")
    assert info["achieved"]["k"] == 2 and info["achieved"]["t"] == 0.0
    # four rows x, x, x, y in classes {x, x} and {x, y}: unordered EMD (equal distance) is
    # half the L1 distance: class 1 (1, 0) vs table (3/4, 1/4) -> 1/4; class 2 (1/2, 1/2) -> 1/4
    df = pd.DataFrame({"zip": [1, 1, 2, 2], "d": list("xxxy")})
    r = resolve_roles(df, quasi_identifiers={"zip": "unordered"}, sensitive={"d": "unordered"})
    out, info = engine.anonymize(df, r, model=TCloseness(0.3), method="generalize",
                                 algorithm="mondrian")
    assert out["zip"].tolist() == [1, 1, 2, 2]
    assert info["achieved"] == {"k": 2, "t": pytest.approx(0.25), "t_distance": "emd"}


def test_a_user_model_reports_only_k():
    from pdanon.models import PrivacyModel, Requirements

    class Pairs(PrivacyModel):
        name = "pairs"

        def requirements(self):
            return Requirements(min_size=2)

        def classes_ok(self, classes):
            return classes.sizes >= 2

    df = people()
    _, info = engine.anonymize(df, roles(df), model=Pairs(), method="generalize",
                               algorithm="mondrian")
    assert info["achieved"] == {"k": 3}  # mondrian cuts the six ages into 3 + 3


def test_suppress_method_counts_rows_and_cells_it_blanked():
    # nearest with the Hamming distance: ages 30..52 are all different, so every group of two
    # disagrees on age and the suppress method blanks all six age cells; sex is not a QI
    df = people()
    out, info = engine.anonymize(df, roles(df), model=KAnonymity(2), method="suppress",
                                 algorithm="nearest")
    assert out["age"].isna().all()
    assert info["suppressed_rows"] == 6 and info["suppressed_cells"] == 6
    # two quasi-identifiers: groups {0, 1} (sex F/M differ, age equal) and {2, 3} (both differ)
    df = pd.DataFrame({"age": [30, 30, 40, 41], "sex": list("FMFM")})
    r = resolve_roles(df, quasi_identifiers={"age": "real", "sex": "unordered"})
    out, info = engine.anonymize(df, r, model=KAnonymity(2), method="suppress",
                                 algorithm="nearest")
    assert out.isna().values.tolist() == [[False, True], [False, True], [True, True],
                                          [True, True]]
    assert info["suppressed_rows"] == 2 and info["suppressed_cells"] == 6
    assert info["changed_cells"] == 6


def test_suppression_budget_rows_are_counted_once_with_their_cells():
    # datafly with a budget of three rows: the outlier 90 fails k = 2; suppressed alone it
    # would be a class of one, so the smallest class (30, two rows, the first seen of the two)
    # is suppressed with it: three rows, one blank class of 3 >= k
    df = pd.DataFrame({"age": [30, 30, 31, 31, 90]})
    r = resolve_roles(df, quasi_identifiers={"age": "ordered"})
    out, info = engine.anonymize(df, r, model=KAnonymity(2), method="generalize",
                                 algorithm="datafly", max_suppressed_rows=3)
    assert out["age"].isna().tolist() == [True, True, False, False, True]
    assert info["suppressed_rows"] == 3 and info["suppressed_cells"] == 3
    assert info["achieved"] == {"k": 2} and info["groups"] == 2
    # a budget of one row cannot hold such a class: 90 is generalized with 31 instead
    out, info = engine.anonymize(df, r, model=KAnonymity(2), method="generalize",
                                 algorithm="datafly", max_suppressed_rows=1)
    assert out["age"].astype(str).tolist() == ["30", "30", "[31, 90]", "[31, 90]", "[31, 90]"]
    assert info["suppressed_rows"] == 0


# ----------------------------------------------------------------------------- one class


def test_single_class_warning_names_the_reason_and_other_algorithms():
    df = pd.DataFrame({"age": [1, 2, 3, 4, 5, 6], "d": list("aaabbb")})
    with pytest.warns(pdanon.SingleClassWarning) as record:
        out = df.anon.l_diversify(2, sensitive=["d"], quasi_identifiers=["age"],
                                  algorithm="datafly")
    assert out.anon.info["groups"] == 1
    message = str(record[0].message)
    assert message.startswith("datafly published ONE equivalence class of all 6 rows")
    assert "no finer grouping datafly tried satisfies AllOf(" in message
    assert "mondrian (local multidimensional cuts), group_join (agglomerative, slower) or " \
           "optimal (with hierarchies=) may find more classes" in message
    assert record[0].filename == __file__  # points at the caller, not at pdanon
    assert issubclass(pdanon.SingleClassWarning, UserWarning)


def test_single_class_warning_from_the_recoding():
    df = people()
    with pytest.warns(pdanon.SingleClassWarning, match="nearest found 3 groups, but "
                      "method='suppress' gave them the same cells"):
        engine.anonymize(df, roles(df), model=KAnonymity(2), method="suppress",
                         algorithm="nearest")


@pytest.mark.parametrize("df, k", [
    (pd.DataFrame({"age": [1, 2, 3, 4]}), 3),      # 4 rows <= 2·k: two classes impossible
    (pd.DataFrame({"age": [7] * 10}), 2),          # one combination of quasi-identifiers
    (pd.DataFrame({"age": [1, 2, 3, 4, 5]}), 5),  # k = rows
])
def test_no_single_class_warning_when_one_class_is_the_only_outcome(df, k):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", pdanon.SingleClassWarning)
        for algorithm in ("mondrian", "datafly", "equal_groups", "nearest"):
            assert df.anon.k_anonymize(k, algorithm=algorithm).anon.info["groups"] == 1


def test_no_warning_when_there_are_several_classes():
    import warnings

    df = people()
    with warnings.catch_warnings():
        warnings.simplefilter("error", pdanon.SingleClassWarning)
        _, info = engine.anonymize(df, roles(df), model=KAnonymity(2), method="generalize",
                                   algorithm="mondrian")
    assert info["groups"] == 2
