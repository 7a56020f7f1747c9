"""``s.anon``: the column-level operations of pdanon on one Series.

A privacy model (k-anonymity, l-diversity, risk) is about rows across columns, so it needs a
table; what makes sense on one column alone is here: :meth:`generalize` with a hierarchy,
:meth:`top_code` / :meth:`bottom_code`, :meth:`add_noise`, :meth:`rank_swap`, :meth:`pram` and
:meth:`hash_identifiers`. Each runs the frame method of the same name on ``s.to_frame()``
(same rules, same checks, same ``info``) and returns a new Series with the same index and
name; ``out.anon.info`` says what was done. Any other ``df.anon`` method named on a Series
raises an ``AttributeError`` that points to ``df[["col"]].anon.<method>(...)``.

Example
-------
>>> import pandas as pd, pdanon
>>> income = pd.Series([20, 35, 50, 900], name="income")
>>> income.anon.top_code(threshold=100).tolist()
[20, 35, 50, 100]
>>> pd.Series([23, 37], name="age").anon.generalize(
...     1, hierarchy=pdanon.hierarchy.intervals([10])).astype(str).tolist()
['[20, 29]', '[30, 39]']
"""

from __future__ import annotations

import copy

import pandas as pd

from pdanon.keywords import checked
from pdanon.roles import ATTRS_KEY, infer_kind

#: the name a Series without one gets inside the one-column frame
_UNNAMED = "value"


@pd.api.extensions.register_series_accessor("anon")
class SeriesAnonAccessor:
    """Column-level de-identification on a Series (``s.anon``). Stateless, as ``df.anon``."""

    def __init__(self, series: pd.Series):
        self._s = series

    # ------------------------------------------------------------------ state
    @property
    def info(self) -> dict:
        """What the last pdanon step did to produce this Series (empty when none did)."""
        return copy.deepcopy(self._s.attrs.get(ATTRS_KEY, {}).get("info", {}))

    # ------------------------------------------------------------------ operations
    @checked
    def generalize(self, level: int, *, hierarchy, kind: str | None = None,
                   labels: bool = False) -> pd.Series:
        """Generalize the column to ``level`` of ``hierarchy`` (full-domain recoding by a
        rule; see :meth:`pdanon.accessor.frame.AnonAccessor.generalize`). ``kind`` is the column's
        kind (``real``, ``ordered``, ``unordered``; inferred from the dtype when None);
        ``labels=True`` publishes the hierarchy's labels as text.

        Example
        -------
        >>> from pdanon.hierarchy import masking
        >>> zips = pd.Series(["10001", "10002", None], name="zip")
        >>> zips.anon.generalize(2, hierarchy=masking()).astype(str).tolist()
        ['{10001, 10002}', '{10001, 10002}', nan]
        """
        name = self._name()
        frame = self._frame()
        out = frame.anon.generalize({name: level}, hierarchies={name: hierarchy},
                                    labels=labels, row_order="input",
                                    quasi_identifiers={name: kind or infer_kind(frame[name])})
        return self._back(out)

    @checked
    def top_code(self, *, threshold=None, quantile=None, value=None) -> pd.Series:
        """Values above ``threshold`` (or the ``quantile``) become ``value`` (default: the
        threshold); see :meth:`pdanon.accessor.frame.AnonAccessor.top_code`.

        Example
        -------
        >>> pd.Series([1, 5, 70], name="n").anon.top_code(threshold=10).tolist()
        [1, 5, 10]
        """
        return self._run("top_code", threshold=threshold, quantile=quantile, value=value)

    @checked
    def bottom_code(self, *, threshold=None, quantile=None, value=None) -> pd.Series:
        """Values below ``threshold`` (or the ``quantile``) become ``value`` (default: the
        threshold); see :meth:`pdanon.accessor.frame.AnonAccessor.bottom_code`.

        Example
        -------
        >>> pd.Series([3, 17, 40], name="age").anon.bottom_code(threshold=18).tolist()
        [18, 18, 40]
        """
        return self._run("bottom_code", threshold=threshold, quantile=quantile, value=value)

    @checked
    def add_noise(self, *, noise: float = 0.1, seed=None) -> pd.Series:
        """Additive normal noise ``N(0, (noise·sd)²)`` (the correlated method needs several
        columns: use ``df.anon.add_noise``); see :meth:`pdanon.accessor.frame.AnonAccessor.add_noise`.

        Example
        -------
        >>> out = pd.Series([1000.0, 2000.0, 3000.0], name="x").anon.add_noise(noise=0.2, seed=0)
        >>> out.anon.info["variance_factor"]
        1.04
        """
        return self._run("add_noise", method="additive", noise=noise, seed=seed)

    @checked
    def rank_swap(self, *, p: float | None = None, seed=None, rule: str = "blocks",
                  top_percent: float = 0.0, bottom_percent: float = 0.0,
                  r0: float | None = None, k0: float | None = None) -> pd.Series:
        """Rank swapping within ``p`` percent of the ranks; see
        :meth:`pdanon.accessor.frame.AnonAccessor.rank_swap`.

        Example
        -------
        >>> s = pd.Series([float(i) for i in range(100)], name="x")
        >>> sorted(s.anon.rank_swap(p=2, seed=0)) == sorted(s)
        True
        """
        return self._run("rank_swap", p=p, seed=seed, rule=rule, top_percent=top_percent,
                         bottom_percent=bottom_percent, r0=r0, k0=k0)

    @checked
    def pram(self, *, matrix=None, p: float | None = None, invariant: bool = True,
             seed=None, pd: float | None = None, alpha: float | None = None) -> pd.Series:
        """Post-randomization of the column's categories; see
        :meth:`pdanon.accessor.frame.AnonAccessor.pram`.

        Example
        -------
        >>> out = pd.Series(["F", "M"] * 50, name="sex").anon.pram(p=0.9, seed=0)
        >>> sorted(out.unique())
        ['F', 'M']
        """
        return self._run("pram", matrix=matrix, p=p, invariant=invariant, seed=seed, pd=pd,
                         alpha=alpha)

    @checked
    def hash_identifiers(self, *, key=None, context=None) -> pd.Series:
        """Keyed pseudonyms (HMAC-SHA-256) of the cells; see
        :meth:`pdanon.accessor.frame.AnonAccessor.hash_identifiers` (``key=None`` generates a key,
        returned as ``out.anon.info["key"]`` and never written into saved files).

        Example
        -------
        >>> out = pd.Series(["+7900", None], name="phone").anon.hash_identifiers(key=b"0" * 32)
        >>> len(out[0]), out.isna().tolist()
        (64, [False, True])
        """
        name = self._name()
        out = self._frame().anon.hash_identifiers([name], key=key, context=context,
                                                  row_order="input",
                                                  identifiers=[name])
        return self._back(out)

    # ------------------------------------------------------------------ table methods
    def __getattr__(self, attr: str):
        if attr.startswith("_"):
            raise AttributeError(attr)
        from pdanon.accessor.frame import AnonAccessor

        if hasattr(AnonAccessor, attr):
            col = self._s.name if self._s.name is not None else "col"
            raise AttributeError(
                f"{attr} works on a table, not on one column: select the column as a frame, "
                f"df[[{col!r}]].anon.{attr}(...), or name it on the whole table "
                f"(df.anon.{attr}(...)). A Series has: {', '.join(_SERIES_METHODS)}")
        raise AttributeError(f"'SeriesAnonAccessor' has no attribute {attr!r}; a Series has: "
                             f"{', '.join(_SERIES_METHODS)}")

    # ------------------------------------------------------------------ helpers
    def _name(self):
        return self._s.name if self._s.name is not None else _UNNAMED

    def _frame(self) -> pd.DataFrame:
        frame = self._s.to_frame(self._name())
        frame.attrs = {}
        return frame

    def _run(self, operation: str, /, **options) -> pd.Series:
        """The frame method on the one-column frame: naming the column is the decision
        (it is published perturbed, with no other role)."""
        name = self._name()
        out = getattr(self._frame().anon, operation)([name], insensitive=[name],
                                                     row_order="input", **options)
        return self._back(out)

    def _back(self, out: pd.DataFrame) -> pd.Series:
        series = out[self._name()].rename(self._s.name)
        series.attrs = {ATTRS_KEY: {"info": out.attrs.get(ATTRS_KEY, {}).get("info", {})}}
        return series


_SERIES_METHODS = ("generalize", "top_code", "bottom_code", "add_noise", "rank_swap", "pram",
                   "hash_identifiers", "info")
