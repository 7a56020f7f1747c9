"""The release report on Adult: one self-contained HTML page to keep with a release.

Run: ``python examples/report.py`` (docs/report.md explains every section). It writes
``adult_report.html`` (and its JSON) to a temporary directory and prints where.
"""

import json
import tempfile
from pathlib import Path

import pdanon
from pdanon.plot import tradeoff_table

adult = pdanon.datasets.load_adult(nrows=3000)
roles = dict(quasi_identifiers=["age", "sex", "race", "marital-status", "education",
                                "native-country"],  # it determines race for some countries
             sensitive=["salary-class"])

# 1. Several k tried, each 2-diverse (the report's trade-off curve), then the release
#    chosen: k = 10, l = 2 (the curve's k = 10 point is the release)
candidates = tradeoff_table(adult, k=[2, 5, 10, 20, 50], l=2, algorithm="mondrian", **roles)
release = adult.anon.l_diversify(2, k=10, algorithm="mondrian", **roles)

# 2. The report: the verdict first, then what was lost (the headline loss, each column,
#    ML utility on salary-class), the privacy in detail, the rows suppressed by reason, the
#    parameters
out_dir = Path(tempfile.mkdtemp(prefix="pdanon-report-"))
report = release.anon.report(adult, out_dir / "adult_report.html",
                             title="Adult: 10-anonymous, 2-diverse release (Mondrian)",
                             target="salary-class", tradeoff=candidates, **roles)
(out_dir / "adult_report.json").write_text(report.to_json(), encoding="utf-8")
print(f"report written to {out_dir / 'adult_report.html'}")

# 3. The same facts as Python objects and JSON
assert report.privacy["k_anonymity"] == release.anon.k_anonymity(**roles)
assert report.passed is release.anon.check().passed  # one verdict, on the page and in code
print("k =", report.privacy["k_anonymity"], "| l =", report.privacy["l_diversity_distinct"],
      "| highest prosecutor risk =", report.privacy["risk_summary"]["highest_prosecutor_risk"])
print("ML utility:", report.utility["ml"])
for column in report.columns:  # the quasi-identifiers, then the sensitive column
    width = ("" if column["mean_width"] is None else
             f", mean width {column['mean_width']:.3g} {column['width_unit']}")
    print(f"{column['column']} ({column['role']}): changed {column['changed_share']:.0%}, "
          f"{column['distinct_published']} distinct published values{width}")
assert json.loads(report.to_json())["parameters"]["digest_rule"].startswith("SHA-256")
point = candidates.set_index("k").loc[10, "information_loss"]
assert abs(point - report.utility["information_loss"]) < 1e-12  # the release on its curve

# 4. The command line writes the same report:
#    depersonalize -i adult.csv -f -a datafly -k 10 --qi_ids 0,1,2 --s_ids 8 --report r.html
