"""``df.anon.table``: a protected table (counts or sums by group) from the frame.

The engine is :mod:`pdanon.tables`; this face only passes the frame on.
"""

from __future__ import annotations

__all__ = ["TableMethods"]


class TableMethods:
    """The table method of ``df.anon`` (mixed into the accessor)."""

    def table(self, index=None, columns=None, values=None, aggfunc: str = "count", *,
              hierarchies=None, margins: bool = True, contributor=None,
              margins_name: str = "Total"):
        """Build the table of counts (or sums of ``values``) by ``index`` × ``columns``, with
        every margin and the sub-totals ``hierarchies`` imply, ready for
        :meth:`pdanon.tables.Table.protect`.

        Parameters
        ----------
        index, columns : column name or list of names
            The table's dimensions (down and across in :meth:`~pdanon.tables.Table.pivot`).
        values : column name, optional
            The non-negative numeric column to sum (``aggfunc="sum"``).
        aggfunc : {"count", "sum"}
        hierarchies : dict, optional
            ``{column: pdanon.hierarchy...}``: sub-totals for each node of the tree.
        margins : bool
            Add each dimension's grand total (``margins_name``).
        contributor : column name, optional
            The holder of each row (e.g. an enterprise id): frequencies count holders and the
            dominance and p % rules read each holder's pooled total.

        The frame is not changed; the cells' contributions stay with the publisher (only
        :meth:`~pdanon.tables.ProtectedTable.to_frame` is meant to leave).

        Example
        -------
        >>> import pandas as pd, pdanon
        >>> df = pd.DataFrame({"r": ["a", "a", "b"], "s": ["x", "y", "x"]})
        >>> df.anon.table(index="r", columns="s").pivot()
        s      x  y  Total
        r                 
        a      1  1      2
        b      1  0      1
        Total  2  1      3
        """
        from pdanon.tables import build
        return build(self._df, index=index, columns=columns, values=values, aggfunc=aggfunc,
                     hierarchies=hierarchies, margins=margins, contributor=contributor,
                     margins_name=margins_name)
