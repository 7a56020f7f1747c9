"""Library messages in the words of ``pdanon anonymize``'s flags (:func:`cli_words`): a
refusal made by Python says ``identifiers=['a']``, the command line says ``--identifiers a``.
"""

from __future__ import annotations

import ast
import re
import shlex

from pdanon.cli import household as cli_household, survey as cli_survey

__all__ = ["cli_words"]


def cli_words(text: str) -> str:
    """A library message in the flags' words: ``identifiers=['a', 'b']`` -> ``--identifiers
    a,b`` (also for quasi_identifiers, sensitive, insensitive).

    Example
    -------
    >>> cli_words("insensitive=['note', 'charges'] publishes them")
    '--insensitive note,charges publishes them'
    >>> names = ["MRN", "Patient Name", "O'Hara"]
    >>> print(cli_words(f"identifiers={names!r} drops them"))
    --identifiers 'MRN,Patient Name,O'"'"'Hara' drops them
    """
    flags = {"identifiers": "--identifiers", "quasi_identifiers": "--qi",
             "sensitive": "--sensitive", "insensitive": "--insensitive",
             "allow_channels": "--allow-channels"}

    def repl(m):
        try:
            names = [str(n) for n in ast.literal_eval(f"[{m.group(2)}]")]
        except (ValueError, SyntaxError):
            names = re.findall(r"'([^']*)'", m.group(2))
        listed = ",".join(f'"{n}"' if "," in n or '"' in n else n for n in names)
        return f"{flags[m.group(1)]} {shlex.quote(listed)}"

    text = text.replace(
        "Pass roles to decide yourself (identifiers=, quasi_identifiers=, sensitive=, "
        "insensitive=, or df.anon.with_schema(pdanon.schema(...))).",
        "Name them with --identifiers, --qi, --sensitive or --insensitive to decide yourself.")
    builders = {"dates": "dates", "masking": "mask", "intervals": "intervals:..."}
    text = re.sub(r"Pass hierarchies=\{'([^']+)': (\w+)\(\)\}",
                  lambda m: f"Pass --hierarchy {m.group(1)}={builders.get(m.group(2), '...')}",
                  text)
    cli_builders = {"dates": "dates:month,year", "masking": "mask:1,2,3",
                    "intervals": "intervals:5,10,20", "tree": "FILE.csv (an ARX hierarchy file)"}
    text = re.sub(r"Pass hierarchies=\{(.*?)\} \(builders of pdanon\.hierarchy: [^)]*\)",
                  lambda m: "Pass " + ", ".join(
                      f"--hierarchy {c}={cli_builders.get(b, 'FILE.csv')}"
                      for c, b in re.findall(r"'([^']+)': (\w+)\(", m.group(1)))
                  + " (mask: codes such as ZIPs, intervals: numbers, dates: dates, an ARX "
                    "hierarchy file: categories)", text)
    text = text.replace("leave the column out of the release (identifiers=)",
                        "leave the column out of the release (--identifiers)")
    text = text.replace("or use algorithm='mondrian'", "or use -a mondrian")
    text = text.replace("does not take option(s) ['levels']", "does not take --levels")
    text = text.replace(  # pdanon.republication.recoding's failure
        "Anonymize the batch afresh (e.g. df.anon.k_anonymize(...)), or raise "
        "max_suppressed_rows (a row count or a share such as 0.1)",
        "Anonymize the batch afresh (without --recoding), or raise --max-suppressed (rows, "
        "or a share such as 0.1)")
    text = text.replace(" (or df.anon.hash_identifiers pseudonymizes them)", "").replace(
        " (or df.anon.hash_identifiers pseudonymizes it)", "")
    text = cli_survey.flag_words(cli_household.flag_words(text))
    text = re.sub(r"\balgorithm='(\w+)'", r"-a \1", text)
    return re.sub(r"\b(quasi_identifiers|identifiers|insensitive|sensitive|allow_channels)"
                  r"=\[([^\]]*)\]",
                  repl, text)
