"""Derive pdanon/data/names.txt.gz (the person-name list of pdanon.screening.names) from the US Census
Bureau's 1990 name frequency files (public domain), as shipped by the PyPI package ``names``
0.3.0 (MIT): ``pip download --no-deps names==0.3.0 -d /tmp/names``, then
``python tools/make_names.py /tmp/names/names-0.3.0.tar.gz``.

The list keeps every given name of dist.male.first and dist.female.first and the
:data:`SURNAMES` most frequent surnames of dist.all.last, lower-cased, one a line: first the
line ``# given``, the given names, the line ``# surnames``, the surnames (each section in the
files' frequency order)."""

import gzip
import sys
import tarfile
from pathlib import Path

SURNAMES = 10_000
OUT = Path(__file__).resolve().parents[1] / "pdanon" / "data" / "names.txt.gz"


def _column(text: str) -> list:
    return [line.split()[0].lower() for line in text.splitlines() if line.strip()]


def main(archive: str) -> None:
    with tarfile.open(archive) as tar:
        read = {Path(m.name).name: tar.extractfile(m).read().decode("ascii")
                for m in tar.getmembers() if Path(m.name).name.startswith("dist.")}
    given = list(dict.fromkeys(_column(read["dist.male.first"])
                               + _column(read["dist.female.first"])))
    surnames = _column(read["dist.all.last"])[:SURNAMES]
    text = "\n".join(["# given", *given, "# surnames", *surnames]) + "\n"
    # mtime=0: the same archive gives the same bytes
    with open(OUT, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        out.write(text.encode("ascii"))
    print(f"{OUT}: {len(given):,} given names, {len(surnames):,} surnames")


if __name__ == "__main__":
    main(sys.argv[1])
