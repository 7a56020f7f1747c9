"""The publisher's two questions on a 50,000-row hospital discharge table: is the release
safe, and what did it lose?

Run: ``python examples/report_discharges.py``. It makes the synthetic discharge table
(``pdanon.datasets.make_discharges``: identifiers, free text, dates, ZIP codes, a
diagnosis), publishes it 5-anonymous and 2-diverse on the diagnosis (Mondrian, dates cut on
calendar units), and writes two reports to a temporary directory:

* ``report.html``, which may travel with the release: the verdict, what was lost (the
  headline information loss and every column's changed, generalized and suppressed share),
  the privacy in detail, the suppressed rows by reason, the parameters;
* ``internal.html`` (``internal=True``), the publisher's own: the same page, plus every
  column's distribution before and after and the association kept between columns. It reads
  the original's values and stays with the publisher.
"""

import tempfile
import warnings
from pathlib import Path

import pdanon

raw = pdanon.datasets.make_discharges(50_000, seed=0)
roles = pdanon.datasets.DISCHARGE_ROLES  # identifiers dropped, dates / ZIP / sex / ethnicity
                                         # quasi-identifiers, the diagnosis sensitive

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # the roles are decided above; say nothing more
    release = raw.anon.k_anonymize(
        5, l=2, algorithm="mondrian",
        options={"calendar": {"birth_date": "year", "admission_date": "month"}}, **roles)

out_dir = Path(tempfile.mkdtemp(prefix="pdanon-discharges-"))
report = release.anon.report(raw, out_dir / "report.html", title="Discharges 2024: k=5, l=2")
internal = release.anon.report(raw, out_dir / "internal.html", internal=True,
                               title="Discharges 2024: k=5, l=2 (internal)")

# 1. Is it safe? The verdict of check(), on the page and in the object
verdict = release.anon.check()
assert report.passed is verdict.passed is True
print(verdict)

# 2. What did it lose? One headline figure, and every column's share of changed cells
print(f"information loss: {report.utility['information_loss']:.1%}")
for column in report.columns:
    print(f"  {column['column']:15} {column['role']:17} changed {column['changed_share']:6.1%}"
          f"  generalized {column['generalized_share']:6.1%}"
          f"  suppressed {column['suppressed_share']:6.1%}")
for d in internal.distributions[:2]:
    print(f"  {d['column']}: bins {d['bins'][:3]}..., before {d['before'][:3]}..., "
          f"after {[round(x) for x in d['after'][:3]]}...")
print("association kept:", [(a["columns"], round(a["before"], 3), round(a["after"], 3))
                            for a in internal.association[:3]])

# 3. The suppressed rows, one line per reason
print(report.suppressed[["reason", "rows", "columns"]].to_string(index=False))

# the report that travels holds no original value; the internal one says what it is
assert "before and after" not in report.to_html()
assert "INTERNAL REPORT" in internal.to_html()
print(f"reports written to {out_dir}")
