"""The release path: what leaves, and the one way out.

A release leaves as files. :func:`publish` (``out.anon.publish(folder)``) is the one way out
every documented publishing path takes: it checks the release against its policy, writes the
data (Parquet and/or CSV), its schema, the report (HTML and JSON) and, if asked, the recoding,
then reads the data back and measures it again, so that what leaves is what was checked: the
report's digests are those of the bytes written, its row labels the file's, its figures those
of the file read back; a failing policy writes nothing (``force=True`` writes anyway and says
so in the report). A protected or perturbed table (:mod:`pdanon.tables`) takes the same way
out: :func:`publish` hands it to :func:`pdanon.release.tables.publish_table`, which writes its
cells, pivot and report from the allow-list :func:`pdanon.report.tables.public`; linked
protected tables go to :func:`pdanon.release.tables.publish_tables` (every table and one
report, from :func:`pdanon.report.tables.public_tables`).

May import: the engine's near parts (``roles``, ``row_order``, ``publisher_only``), ``policy``,
``io``, ``csvsafe``, ``report`` and ``metrics``; nothing imports it but the faces (the
accessor, the CLI) and ``pdanon`` itself.
"""

from pdanon.release.publish import Publication, PublishError, publish, publish_files
from pdanon.release.tables import (TablePublication, publish_table, publish_table_files,
                                   publish_tables, publish_tables_files)

__all__ = ["Publication", "PublishError", "TablePublication", "publish", "publish_files",
           "publish_table", "publish_table_files", "publish_tables", "publish_tables_files"]
