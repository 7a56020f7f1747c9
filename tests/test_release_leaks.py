"""What a published file carries: nothing that no published cell shows.

Every face (k-anonymity, l-diversity, t-closeness with every algorithm and method, the
perturbations, ``df.anon.generalize``) is written to Parquet and CSV; the raw bytes of each file,
its Arrow schema metadata (decoded) and the generalization extension metadata must not hold
seeds, keys, identifiers, or values that only suppressed / merged-away rows had.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pdanon  # noqa: F401  (registers df.anon)
from pdanon import recode
from pdanon.encode import encode_column
from pdanon.dtype import GeneralizationArray, GeneralizationDtype
from pdanon.hierarchy import intervals, tree

SEED = 987654321
KEY = b"KEY-SECRET-0123456789-abcdef"
RARE = "99999-RARE"  # the zip code of one row only
UNUSED_QI = "UNUSED-CAT-XYZ"  # a category of the zip Categorical that no row holds
UNUSED_SENS = "UNUSED-SENS-QRS"  # the same for the sensitive Categorical
ID_PREFIX = "ID-PERSON-"

ROLES = dict(identifiers=["name"], quasi_identifiers={"zip": "unordered", "age": "real"},
             sensitive=["disease"])
HIERARCHIES = {"zip": tree({"10xxx": ["10001"], "99xxx": [RARE]}),
               "age": intervals([10, 20])}


def _frame() -> pd.DataFrame:
    """Eight rows share zip 10001, one row has RARE: a class of >= 3 rows holding it is
    mostly 10001 (so aggregation publishes 10001 and suppression a missing cell)."""
    return pd.DataFrame({
        "name": [f"{ID_PREFIX}{i:04d}" for i in range(9)],
        "zip": pd.Categorical(["10001"] * 8 + [RARE], categories=["10001", RARE, UNUSED_QI]),
        "age": [30, 31, 32, 33, 40, 41, 42, 43, 50],
        "disease": pd.Categorical(["flu", "cold"] * 4 + ["flu"],
                                  categories=["flu", "cold", UNUSED_SENS]),
    })


def _file_bytes(path) -> bytes:
    """The file's bytes, plus for Parquet its schema metadata (the Arrow schema decoded from
    base64) and the serialized extension metadata of every field."""
    parts = [path.read_bytes()]
    if path.suffix == ".parquet":
        schema = pq.read_schema(path)
        for key, value in (schema.metadata or {}).items():
            parts += [key, value]
            if key == b"ARROW:schema":
                parts.append(base64.b64decode(value))
        for field in schema:
            if isinstance(field.type, pa.ExtensionType):
                parts.append(field.type.__arrow_ext_serialize__())
    return b"\n".join(parts)


def _written(out: pd.DataFrame, tmp_path, stem: str) -> dict:
    """{suffix: bytes} of ``out`` written as uncompressed Parquet and as CSV."""
    pq_path = tmp_path / f"{stem}.parquet"
    csv_path = tmp_path / f"{stem}.csv"
    out.to_parquet(pq_path, compression=None)
    out.to_csv(csv_path)
    return {".parquet": _file_bytes(pq_path), ".csv": _file_bytes(csv_path)}


def _cells_text(out: pd.DataFrame) -> str:
    """Every published cell as text (the index too)."""
    return "\n".join([*map(str, out.index)]
                     + [_text(v) for c in out.columns for v in out[c].tolist()])


def _text(v) -> str:
    return "nan" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)


def _texts(s: pd.Series) -> list:
    return [_text(v) for v in s.tolist()]


def _assert_absent(files: dict, *needles) -> None:
    for suffix, data in files.items():
        for needle in needles:
            raw = needle if isinstance(needle, bytes) else str(needle).encode()
            assert raw not in data, f"{raw!r} found in the {suffix} file"


def _seed_forms(seed: int) -> list:
    return [str(seed).encode(), int(seed).to_bytes(8, "little")]


# ================================================================== every anonymizer

ALGORITHMS = ("nearest", "mondrian", "datafly", "equal_groups", "group_join", "exact",
              "optimal", "auto")


def _supported(face: str, algorithm: str, method: str) -> bool:
    if algorithm == "exact":
        return method == "suppress"
    if algorithm == "optimal":
        return method == "generalize"
    return not (face == "t_close" and algorithm == "nearest")


CASES = [(face, alg, method) for face in ("k_anonymize", "l_diversify", "t_close")
         for alg in ALGORITHMS for method in ("generalize", "suppress", "aggregate")
         if _supported(face, alg, method)]


def _anonymize(df, face: str, algorithm: str, method: str) -> pd.DataFrame:
    kw = dict(method=method, algorithm=algorithm, **ROLES)
    if algorithm in ("datafly", "optimal"):
        kw["max_suppressed_rows"] = 1
    if algorithm == "optimal":
        kw["hierarchies"] = HIERARCHIES
    if algorithm == "group_join":
        kw["options"] = {"seed": SEED}
    if face == "k_anonymize":
        return df.anon.k_anonymize(3, **kw)
    if face == "l_diversify":
        return df.anon.l_diversify(2, k=3, **kw)
    return df.anon.t_close(0.5, k=3, **kw)


def test_every_supported_combination_is_covered():
    # exact: suppress only; optimal: generalize only; nearest: no t-closeness
    assert len(CASES) == 3 * 8 * 3 - 3 * 2 - 3 * 2 - 3
    for face in ("k_anonymize", "l_diversify", "t_close"):
        for alg in ALGORITHMS:
            for method in ("generalize", "suppress", "aggregate"):
                if not _supported(face, alg, method):
                    with pytest.raises(pdanon.InvalidInputError):
                        _anonymize(_frame(), face, alg, method)


@pytest.mark.parametrize("face,algorithm,method", CASES)
def test_anonymizer_files_hold_no_unpublished_value(tmp_path, face, algorithm, method):
    df = _frame()
    before = df.copy()
    out = _anonymize(df, face, algorithm, method)
    pd.testing.assert_frame_equal(df, before)  # the input is not mutated
    cells = _cells_text(out)
    # the rare zip vanishes from the cells when its cell is suppressed or aggregated away, or
    # when its row is suppressed; generalization otherwise publishes it inside a set
    hidden = method != "generalize" or algorithm in ("datafly", "optimal")
    assert (RARE in cells) is (not hidden)
    for marker in (UNUSED_QI, UNUSED_SENS, ID_PREFIX):
        assert marker not in cells
    files = _written(out, tmp_path, f"{face}-{algorithm}-{method}")
    _assert_absent(files, UNUSED_QI, UNUSED_SENS, ID_PREFIX, *_seed_forms(SEED))
    if hidden:
        _assert_absent(files, RARE)
    # the dtypes list exactly the published values
    zip_dtype = out["zip"].dtype
    assert list(zip_dtype.categories) == (["10001"] if hidden else ["10001", RARE]) or (
        list(zip_dtype.categories) == [] and out["zip"].isna().all())
    assert list(out["disease"].cat.categories) == ["flu", "cold"]
    assert "seed" not in json.dumps(out.attrs, default=str)


def test_datafly_suppressed_zip_is_not_in_the_extension_metadata(tmp_path):
    """The review's case: the only RARE row is suppressed; the generalized zip column's
    extension metadata used to list RARE among its categories."""
    df = _frame().assign(zip=lambda d: d["zip"].astype(str))  # plain strings this time
    out = df.anon.k_anonymize(2, algorithm="datafly", max_suppressed_rows=1, **ROLES)
    assert out.anon.info["suppressed_rows"] == 1
    assert out["zip"].isna().tolist() == [False] * 8 + [True]
    assert isinstance(out["zip"].dtype, GeneralizationDtype)
    assert list(out["zip"].dtype.categories) == ["10001"]
    path = tmp_path / "datafly.parquet"
    out.to_parquet(path, compression=None)
    meta = json.loads(pq.read_schema(path).field("zip").type.__arrow_ext_serialize__())
    assert meta["categories"] == ["10001"]
    assert RARE.encode() not in _file_bytes(path)
    back = pd.read_parquet(path)
    assert back["zip"].dtype == out["zip"].dtype
    assert back["zip"].astype(str).tolist() == out["zip"].astype(str).tolist()


def test_categorical_dictionary_in_parquet_holds_only_published_values(tmp_path):
    df = _frame()
    out = df.anon.k_anonymize(3, method="suppress", algorithm="mondrian", **ROLES)
    path = tmp_path / "suppress.parquet"
    out.to_parquet(path, compression=None)
    table = pq.read_table(path)
    assert table.column("zip").type == pa.dictionary(pa.int8(), pa.string())
    dictionary = table.column("zip").chunk(0).dictionary.to_pylist()
    assert dictionary == ["10001"]
    assert table.column("disease").chunk(0).dictionary.to_pylist() == ["flu", "cold"]


def test_empty_frame_publishes_no_category(tmp_path):
    out = _frame().iloc[:0].anon.k_anonymize(2, **ROLES)
    assert list(out["zip"].cat.categories) == []
    assert list(out["disease"].cat.categories) == []
    # "10001" is not searched as bytes: its digits may occur in info's timing float
    _assert_absent(_written(out, tmp_path, "empty"), RARE, UNUSED_QI, "flu")
    back = pd.read_parquet(tmp_path / "empty.parquet")
    assert list(back["zip"].cat.categories) == [] and list(back["disease"].cat.categories) == []


# ================================================================== df.anon.generalize


def test_generalize_files_hold_no_unused_category(tmp_path):
    df = _frame()
    out = df.anon.generalize({"zip": 1, "age": 1}, hierarchies=HIERARCHIES, **ROLES)
    assert out["zip"].astype(str).tolist() == ["10001"] * 8 + [RARE]
    assert list(out["zip"].dtype.categories) == ["10001", RARE]
    assert list(out["disease"].cat.categories) == ["flu", "cold"]  # an untouched column too
    cells = _cells_text(out)
    assert UNUSED_QI not in cells and UNUSED_SENS not in cells
    _assert_absent(_written(out, tmp_path, "generalize"), UNUSED_QI, UNUSED_SENS)


def test_generalize_ordered_keeps_the_categories_inside_published_ranges(tmp_path):
    edu = pd.Categorical(["b-HIGH", "d-MASTER", "b-HIGH", "d-MASTER"],
                         categories=["a-PRIMARY", "b-HIGH", "c-BACHELOR", "d-MASTER",
                                     "e-PHD-UNUSED"], ordered=True)
    df = pd.DataFrame({"edu": edu})
    h = tree({"school": ["a-PRIMARY", "b-HIGH"], "higher": ["c-BACHELOR", "d-MASTER",
                                                             "e-PHD-UNUSED"]})
    out = df.anon.generalize({"edu": 2}, hierarchies={"edu": h},
                             quasi_identifiers={"edu": "ordered"})
    # one range [a-PRIMARY, e-PHD-UNUSED] over the whole tree: every category lies within
    assert out["edu"].astype(str).tolist() == ["[a-PRIMARY, e-PHD-UNUSED]"] * 4
    assert list(out["edu"].dtype.categories) == list(edu.categories)
    out1 = df.anon.generalize({"edu": 1}, hierarchies={"edu": h},
                              quasi_identifiers={"edu": "ordered"})
    # [a-PRIMARY, b-HIGH] and [c-BACHELOR, e-PHD-UNUSED] are published: all kept again
    assert list(out1["edu"].dtype.categories) == list(edu.categories)
    back = pd.read_parquet(_parquet(out1, tmp_path / "edu.parquet"))
    assert back["edu"].astype(str).tolist() == out1["edu"].astype(str).tolist()
    # only the school subtree is published: the higher categories are not
    school = pd.DataFrame({"edu": pd.Categorical(["a-PRIMARY", "b-HIGH"] * 2,
                                                 categories=edu.categories, ordered=True)})
    out2 = school.anon.generalize({"edu": 1}, hierarchies={"edu": h},
                                  quasi_identifiers={"edu": "ordered"})
    assert out2["edu"].astype(str).tolist() == ["[a-PRIMARY, b-HIGH]"] * 4
    assert list(out2["edu"].dtype.categories) == ["a-PRIMARY", "b-HIGH"]
    _assert_absent(_written(out2, tmp_path, "edu-school"), "c-BACHELOR", "d-MASTER",
                   "e-PHD-UNUSED")


def _parquet(out, path):
    out.to_parquet(path, compression=None)
    return path


# ================================================================== perturbations


@pytest.mark.parametrize("operation", ["shuffle", "randomize", "drop_identifiers"])
def test_perturbation_files_hold_no_seed_and_no_identifier(tmp_path, operation):
    df = _frame()
    kwargs = {} if operation == "drop_identifiers" else {"seed": SEED}
    out = getattr(df.anon, operation)(**ROLES, **kwargs)
    assert "name" not in out.columns
    assert ID_PREFIX not in _cells_text(out)
    files = _written(out, tmp_path, operation)
    _assert_absent(files, ID_PREFIX, *_seed_forms(SEED))


def test_hash_identifiers_files_hold_no_key_and_no_original(tmp_path):
    df = _frame()
    out = df.anon.hash_identifiers(key=KEY, **ROLES)
    assert out["name"].str.len().eq(64).all()
    files = _written(out, tmp_path, "hash")
    _assert_absent(files, KEY, KEY.hex(), KEY.hex().upper(), base64.b64encode(KEY), ID_PREFIX)


def test_hash_identifiers_generated_key_is_not_written(tmp_path):
    out = _frame().anon.hash_identifiers(**ROLES)
    key = bytes(out.anon.info["key"])
    assert len(key) == 32
    files = _written(out, tmp_path, "hash-generated")
    _assert_absent(files, key, key.hex(), base64.b64encode(key), ID_PREFIX)


@pytest.mark.parametrize("operation", ["shuffle", "randomize", "hash_identifiers",
                                       "drop_identifiers"])
def test_perturbation_publishes_only_shown_categories(tmp_path, operation):
    kwargs = {"seed": SEED} if operation in ("shuffle", "randomize") else {}
    out = getattr(_frame().anon, operation)(**ROLES, **kwargs)
    markers = [UNUSED_QI, UNUSED_SENS] + ([RARE] if RARE not in _cells_text(out) else [])
    _assert_absent(_written(out, tmp_path, f"{operation}-cats"), *markers)


# ================================================================== recode outputs, exactly


def _cat(values, categories, ordered=False) -> pd.Series:
    return pd.Series(pd.Categorical(values, categories=categories, ordered=ordered), name="c")


def test_recode_suppress_keeps_only_published_categories():
    s = _cat(["x", "x", "y", "z"], ["w", "x", "y", "z"])
    out, changed = recode.suppress(s, encode_column(s, "unordered"), np.array([0, 0, 1, 1]))
    assert _texts(out) == ["x", "x", "nan", "nan"]
    assert list(out.cat.categories) == ["x"] and changed == 2
    assert list(s.cat.categories) == ["w", "x", "y", "z"]  # input untouched


def test_recode_aggregate_unordered_and_ordered_categories():
    s = _cat(["x", "x", "y", "z", "z"], ["w", "x", "y", "z"])
    out, _ = recode.aggregate(s, encode_column(s, "unordered"), np.array([0, 0, 1, 1, 1]))
    assert out.tolist() == ["x", "x", "z", "z", "z"]
    assert list(out.cat.categories) == ["x", "z"] and not out.cat.ordered
    o = _cat(["lo", "hi", "mid", "mid"], ["lo", "mid", "hi", "top"], ordered=True)
    out, _ = recode.aggregate(o, encode_column(o, "ordered"), np.array([0, 0, 1, 1]))
    assert out.tolist() == ["hi", "hi", "mid", "mid"]
    assert list(out.cat.categories) == ["mid", "hi"] and out.cat.ordered


def test_recode_column_missing_rows_drop_their_categories():
    s = _cat(["x", "x", "y", "y", "v"], ["v", "w", "x", "y"])
    missing = np.array([False, False, False, False, True])
    for method, cells, cats in [("suppress", ["x", "x", "nan", "nan", "nan"], ["x"]),
                                ("aggregate", ["x", "x", "y", "y", "nan"], ["x", "y"])]:
        out, _ = recode.recode_column(method, s, encode_column(s, "unordered"),
                                      np.array([0, 0, 1, 1, 1]), missing=missing)
        assert _texts(out) == cells and list(out.cat.categories) == cats


def test_recode_generalize_unordered_categories():
    s = _cat(["x", "y", "z", "z", "w"], ["v", "w", "x", "y", "z"])
    out, changed = recode.generalize(s, encode_column(s, "unordered"),
                                     np.array([0, 0, 1, 1, 2]),
                                     missing=np.array([False] * 4 + [True]))
    assert _texts(out) == ["{x, y}", "{x, y}", "z", "z", "nan"]
    assert list(out.dtype.categories) == ["x", "y", "z"] and changed == 2


def test_recode_generalize_keeps_a_suppressed_rows_value_shown_in_its_groups_set():
    s = _cat(["x", "y", "z", "z"], ["x", "y", "z", "w"])
    out, _ = recode.generalize(s, encode_column(s, "unordered"), np.array([0, 0, 1, 1]),
                               missing=np.array([False, True, False, False]))
    assert _texts(out) == ["{x, y}", "nan", "z", "z"]
    assert list(out.dtype.categories) == ["x", "y", "z"]


def test_recode_generalize_ordered_keeps_categories_within_ranges():
    s = _cat(["B", "D", "E", "E", "A"], list("ABCDEF"), ordered=True)
    out, _ = recode.generalize(s, encode_column(s, "ordered"), np.array([0, 0, 1, 1, 2]),
                               missing=np.array([False] * 4 + [True]))
    assert _texts(out) == ["[B, D]", "[B, D]", "E", "E", "nan"]
    # C is shown by no cell but lies within [B, D]; A (suppressed row) and F (unused) go
    assert list(out.dtype.categories) == ["B", "C", "D", "E"]
    assert out.array.contains(pd.Categorical(["C", "B", "E", "E", "A"],
                                             categories=list("ABCDEF"))).tolist() == [
        True, True, True, True, False]


# ================================================================== published_categories


def test_published_categories_unordered_sets_and_identity():
    arr = GeneralizationArray.from_membership(
        [[1, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 1], [1, 1, 0, 0, 0]],
        ["a", "b", "c", "d", "e"])
    arr[2] = None  # the only cell holding d and e
    s = pd.Series(arr, index=[10, 11, 12, 13], name="g")
    out = recode.published_categories(s)
    assert list(out.dtype.categories) == ["a", "b", "c"]
    assert _texts(out) == ["{a, b}", "c", "nan", "{a, b}"]
    assert out.index.tolist() == [10, 11, 12, 13] and out.name == "g"
    assert recode.published_categories(out) is out  # nothing more to remove
    plain = pd.Series([1, 2])
    assert recode.published_categories(plain) is plain


def test_published_categories_all_missing_and_large():
    arr = GeneralizationArray.from_values(pd.Categorical([None, None], categories=["a", "b"]),
                                          kind="unordered")
    out = recode.published_categories(pd.Series(arr))
    assert list(out.dtype.categories) == [] and out.isna().all()
    rng = np.random.default_rng(0)
    n, c = 20_000, 3_000
    codes = rng.integers(0, c, n)
    labels = rng.integers(0, 4_000, n)
    big = GeneralizationArray.from_groups(codes, labels, kind="unordered",
                                          categories=[f"v{i}" for i in range(c)])
    big[labels < 2_000] = None
    out = recode.published_categories(pd.Series(big))
    expected = sorted(set(codes[labels >= 2_000].tolist()))
    assert list(out.dtype.categories) == [f"v{i}" for i in expected]
    assert _texts(out) == _texts(pd.Series(big))
