"""Old name of :mod:`pdanon.encode`, kept because :mod:`pdanon.compat`, :mod:`pdanon.recode` and
:mod:`pdanon.parties` (outside this change) import it.

New code imports :mod:`pdanon.encode`.

Example
-------
>>> import pdanon._encode, pdanon.encode
>>> pdanon._encode.encode_column is pdanon.encode.encode_column
True
"""

from pdanon.encode import EncodedColumn, EncodedTable, encode_column, encode_table

__all__ = ["EncodedColumn", "EncodedTable", "encode_column", "encode_table"]
