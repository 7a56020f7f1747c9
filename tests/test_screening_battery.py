"""Identifiers are recognised by what the cells hold, not only by the column's name
(pdanon/screening/content.py, pdanon/screening/names.py, pdanon/screening.py; issue 47, point 3).

A battery of probes - person names, dates of birth, e-mail addresses, national-id-like
numbers, notes and record-number indexes, most of them under neutral or foreign column names -
is offered to ``resolve_roles`` with no role given, as every anonymizer does; each must be
refused. The legitimate columns of Adult and of an NHANES-like and a hospital-discharge table
built here (countries, cities, wards, drugs, diagnosis labels, drug codes, ZIP codes, event
dates) must all pass. The names of the probes are drawn from hand-made lists of German,
Spanish, French, Italian and English names, not from the census list pdanon ships (many of
them are not on it). ``python tests/test_screening_battery.py`` prints the table of
docs/guide.md."""

import numpy as np
import pandas as pd
import pytest

import pdanon
from pdanon.roles import resolve_roles

N = 1_000

GIVEN = {
    "en": "James Mary Robert Patricia Michael Jennifer William Linda David Elizabeth Richard "
          "Barbara Joseph Susan Thomas Jessica Charles Sarah Christopher Karen Daniel Nancy "
          "Matthew Lisa Anthony Betty Mark Margaret Donald Sandra Steven Ashley Paul Kimberly "
          "Andrew Emily Joshua Donna Kenneth Michelle",
    "de": "Jürgen Wolfgang Uwe Klaus Dieter Günter Horst Helmut Manfred Werner Ursula Monika "
          "Petra Sabine Renate Helga Karin Brigitte Ingrid Gisela Stefan Andreas Frank Thomas "
          "Michael Jörg Matthias Heike Birgit Katrin Anke Silke Sven Torsten Dirk Lukas Leonie "
          "Finn Jannik Mia",
    "es": "José Antonio Manuel Francisco Juan David Javier Jesús Carlos Miguel Alejandro Rafael "
          "Pedro Pablo Ángel Sergio Fernando Jorge Luis Alberto María Carmen Josefa Isabel "
          "Dolores Pilar Teresa Ana Francisca Laura Antonia Mercedes Lucía Cristina Marta Elena "
          "Rosa Raquel Concepción Inmaculada",
    "fr": "Jean Pierre Michel André Philippe René Louis Alain Jacques Bernard Marcel Daniel "
          "Roger Robert Paul Claude Christian Henri Georges Nicolas Marie Jeanne Françoise Monique "
          "Catherine Nathalie Isabelle Jacqueline Sylvie Anne Martine Madeleine Nicole Suzanne "
          "Hélène Christine Sophie Valérie Céline Aurélie",
    "it": "Giuseppe Giovanni Antonio Mario Luigi Francesco Angelo Vincenzo Pietro Salvatore "
          "Carlo Franco Domenico Bruno Paolo Michele Giorgio Aldo Sergio Luciano Maria Anna "
          "Giuseppina Rosa Angela Giovanna Teresa Lucia Carmela Caterina Francesca Antonietta "
          "Carla Elena Concetta Rita Margherita Franca Paola Luisa",
}
SURNAMES = {
    "en": "Smith Johnson Williams Brown Jones Miller Davis Wilson Anderson Taylor Thomas Moore "
          "Martin Jackson Thompson White Harris Clark Lewis Robinson Walker Young Allen King "
          "Wright Scott Hill Green Adams Baker Nelson Carter Mitchell Roberts Turner Phillips "
          "Campbell Parker Evans Edwards",
    "de": "Müller Schmidt Schneider Fischer Weber Meyer Wagner Becker Schulz Hoffmann Schäfer "
          "Koch Bauer Richter Klein Wolf Schröder Neumann Schwarz Zimmermann Braun Krüger "
          "Hofmann Hartmann Lange Schmitt Werner Schmitz Krause Meier Lehmann Schmid Schulze "
          "Maier Köhler Herrmann König Walter Mayer Huber",
    "es": "García Rodríguez González Fernández López Martínez Sánchez Pérez Gómez Martín "
          "Jiménez Ruiz Hernández Díaz Moreno Muñoz Álvarez Romero Alonso Gutiérrez Navarro "
          "Torres Domínguez Vázquez Ramos Gil Ramírez Serrano Blanco Molina Morales Suárez "
          "Ortega Delgado Castro Ortiz Rubio Marín Sanz Núñez",
    "fr": "Martin Bernard Dubois Thomas Robert Richard Petit Durand Leroy Moreau Simon Laurent "
          "Lefebvre Michel Garcia David Bertrand Roux Vincent Fournier Morel Girard André "
          "Lefèvre Mercier Dupont Lambert Bonnet François Martinez Legrand Garnier Faure "
          "Rousseau Blanc Guerin Muller Henry Roussel Nicolas",
    "it": "Rossi Russo Ferrari Esposito Bianchi Romano Colombo Ricci Marino Greco Bruno Gallo "
          "Conti De_Luca Mancini Costa Giordano Rizzo Lombardi Moretti Barbieri Fontana Santoro "
          "Mariani Rinaldi Caruso Ferrara Galli Martini Leone Longo Gentile Martinelli Vitale "
          "Lombardo Serra Coppola De_Santis D'Angelo",
}
GIVEN = {k: v.split() for k, v in GIVEN.items()}
SURNAMES = {k: [w.replace("_", " ") for w in v.split()] for k, v in SURNAMES.items()}
TODAY = pd.Timestamp("2026-01-01")


def rng(seed):
    return np.random.default_rng(seed)


def pick(words, n, seed):
    return np.asarray(words, dtype=object)[rng(seed).integers(0, len(words), n)]


def full(lang, n=N, seed=0, form="{g} {s}"):
    g, s = pick(GIVEN[lang], n, seed), pick(SURNAMES[lang], n, seed + 1)
    return [form.format(g=a, s=b, G=a.upper(), S=b.upper(), i=chr(65 + i % 26))
            for i, (a, b) in enumerate(zip(g, s))]


def births(n=N, seed=0, low="1935-01-01", high="2007-12-31"):
    lo, hi = pd.Timestamp(low).value // 86_400_000_000_000, pd.Timestamp(high).value // \
        86_400_000_000_000
    days = rng(seed).integers(lo, hi, n)
    return pd.Series(pd.to_datetime(days, unit="D"))


def digits(n, width, seed, distinct=0.8):
    pool = rng(seed).integers(10 ** (width - 1), 10 ** width, int(n * distinct))
    return pool[rng(seed + 1).integers(0, len(pool), n)]


def notes(n, seed, blank=("none",), share=0.9, lang="en"):
    texts = {"en": "patient {i} reported {w} after the fall, daughter visits on {d}",
             "de": "Patient {i} klagt über {w} nach dem Sturz, Tochter kommt am {d}"}[lang]
    words = ["pain", "dizziness", "nausea", "a rash", "fatigue", "a cough"]
    days = ["Monday", "Tuesday", "Friday", "Sunday"]
    out = [texts.format(i=i, w=words[i % 6], d=days[i % 4]) for i in range(n)]
    r = rng(seed)
    mask = r.random(n) < share
    out = np.asarray(out, dtype=object)
    out[mask] = np.asarray(blank, dtype=object)[r.integers(0, len(blank), int(mask.sum()))]
    return out


def base(n=N, seed=0):
    r = rng(seed)
    return pd.DataFrame({"age": r.integers(18, 90, n), "sex": r.choice(["F", "M"], n)})


def probe(name, values, index=None, **roles):
    df = base(len(values))
    df[name] = values
    if index is not None:
        df.index = index
    return (df, roles) if roles else df


def emails(form, n=N, seed=3):
    first = [g.lower() for g in pick(GIVEN["en"], n, seed)]
    last = [s.lower() for s in pick(SURNAMES["en"], n, seed + 1)]
    host = pick(["example", "mail", "web", "uni-bonn", "posteo"], n, seed + 2)
    tld = pick(["com", "de", "org", "net"], n, seed + 3)
    return [form.format(f=f, s=s, h=h, t=t) for f, s, h, t in zip(first, last, host, tld)]


def ordinary_notes(n, seed):
    # notes that mostly repeat, one in fifty with an address
    out = pick(["stable", "discharged home", "follow up in 2 weeks", "no complaints"], n, seed)
    out[::50] = [f"asked to write to {e}" for e in emails("{f}.{s}(at){h}(dot){t}", n)[::50]]
    return out


def probes() -> dict:
    """{probe: frame}: each must be refused."""
    dob = births(10_000, seed=5)  # 10,000 exact birth dates, about 80 % distinct
    p = {
        # person names under names of several languages, and neutral ones
        "participant (full names)": probe("participant", full("en")),
        "Nachname (German surnames)": probe("Nachname", pick(SURNAMES["de"], N, 1)),
        "Vorname (German given names)": probe("Vorname", pick(GIVEN["de"], N, 2)),
        "nombre (Spanish full names, two surnames)": probe("nombre", [
            f"{a} {b}" for a, b in zip(full("es", seed=3), pick(SURNAMES["es"], N, 4))]),
        "apellido (Spanish surnames)": probe("apellido", pick(SURNAMES["es"], N, 5)),
        "prénom (French given names)": probe("prénom", pick(GIVEN["fr"], N, 6)),
        "nom (French surnames)": probe("nom", pick(SURNAMES["fr"], N, 7)),
        "cognome (Italian surnames)": probe("cognome", pick(SURNAMES["it"], N, 8)),
        "PATIENTNAME (SURNAME, GIVEN)": probe("PATIENTNAME", full("en", seed=9,
                                                                  form="{S}, {G}")),
        "fname (full names)": probe("fname", full("en", seed=10)),
        "d1 (German full names)": probe("d1", full("de", seed=11)),
        "x7 (Italian full names)": probe("x7", full("it", seed=12)),
        "col3 (French full names)": probe("col3", full("fr", seed=13)),
        "v2 (Surname, Given)": probe("v2", full("en", seed=14, form="{s}, {g}")),
        "who (names with a middle initial)": probe("who", full("en", seed=15,
                                                               form="{g} {i}. {s}")),
        "teilnehmer (German full names)": probe("teilnehmer", full("de", seed=16)),
        "k (Spanish full names)": probe("k", full("es", seed=17)),
        "b (English given names)": probe("b", pick(GIVEN["en"], N, 18)),
        "c (English surnames)": probe("c", pick(SURNAMES["en"], N, 19)),
        "a (names of five languages)": probe("a", np.concatenate(
            [full(lang, N // 5, seed=20 + i) for i, lang in enumerate(GIVEN)])),
        # dates of birth under any name, as dates and as text
        "d1 (birth dates)": probe("d1", dob),
        "date1 (birth dates)": probe("date1", dob),
        "geb_dat (birth dates)": probe("geb_dat", dob),
        "fecha_nac (birth dates)": probe("fecha_nac", dob),
        "date_naiss (birth dates)": probe("date_naiss", dob),
        "x7 (Geburtsdatum as dd.mm.yyyy)": probe("x7", dob.dt.strftime("%d.%m.%Y")),
        "col3 (birth dates as mm/dd/yyyy)": probe("col3", dob.dt.strftime("%m/%d/%Y")),
        "t (birth dates as ISO text)": probe("t", dob.dt.strftime("%Y-%m-%d")),
        "c9 (birth dates as yyyymmdd)": probe("c9", dob.dt.strftime("%Y%m%d")),
        "when (children's birth dates, some missing)": probe("when", births(
            N, 6, "2007-06-01", "2025-06-01").where(rng(7).random(N) > 0.1)),
        # e-mail addresses, obfuscated or not
        "c1 (john at example dot com)": probe("c1", emails("{f} at {h} dot {t}")),
        "c2 (john[at]example.com)": probe("c2", emails("{f}.{s}[at]{h}.{t}")),
        "c3 (john (at) example (dot) com)": probe("c3", emails("{f} (at) {h} (dot) {t}")),
        "c4 (e-mail addresses)": probe("c4", emails("{f}.{s}@{h}.{t}")),
        "c5 (notes, a few with an address)": probe("c5", ordinary_notes(N, 4)),
        # national-id-like numbers and phone numbers
        "n1 (SSNs as 9-digit text)": probe("n1", [f"{v:09d}" for v in digits(N, 9, 1)]),
        # integers beside given quasi-identifiers are published unchanged (as an inferred
        # quasi-identifier they are published as ranges, which show none of them)
        "n2 (SSNs as integers, published unchanged)": probe("n2", digits(N, 9, 2),
                                                            quasi_identifiers=["age", "sex"]),
        "n3 (11-digit tax ids)": probe("n3", [str(v) for v in digits(N, 11, 3)]),
        "n4 (phone numbers without separators)": probe("n4", [
            str(v) for v in digits(N, 10, 4)]),
        "n5 (phone numbers (617) 555-0123)": probe("n5", [
            f"({v // 10 ** 7}) {v // 10 ** 4 % 1000}-{v % 10 ** 4:04d}"
            for v in digits(N, 10, 5)]),
        "n6 (+49 phone numbers)": probe("n6", [f"+49{v}" for v in digits(N, 10, 6)]),
        "n7 (8-digit patient numbers as text, visits repeat)": probe("n7", [
            str(v) for v in digits(N, 8, 7, 0.6)]),
        # notes that mostly read "none"
        "info (notes, 90 % none)": probe("info", notes(N, 1)),
        "bem (German notes, 90 % n/a or -)": probe("bem", notes(N, 2, ("n/a", "-", "keine"),
                                                                 lang="de")),
        "z (notes)": probe("z", notes(N, 3, share=0.0)),
        # an index of record numbers
        "unnamed index of 8-digit patient numbers": probe(
            "y", pick(["a", "b"], N, 1), index=pd.Index(rng(8).choice(
                np.arange(10_000_000, 99_999_999), N, replace=False))),
        "index 'row' of 7-digit record numbers": probe(
            "y", pick(["a", "b"], N, 1), index=pd.Index(rng(9).choice(
                np.arange(1_000_000, 9_999_999), N, replace=False), name="row")),
    }
    return p


US_CITIES = ("New York|Los Angeles|Chicago|Houston|Phoenix|Philadelphia|San Antonio|San Diego|"
             "Dallas|San Jose|Austin|Jacksonville|Fort Worth|Columbus|Charlotte|Indianapolis|"
             "San Francisco|Seattle|Denver|Washington|Nashville|Oklahoma City|El Paso|Boston|"
             "Portland|Las Vegas|Detroit|Memphis|Louisville|Baltimore|Milwaukee|Albuquerque|"
             "Tucson|Fresno|Sacramento|Mesa|Kansas City|Atlanta|Omaha|Colorado Springs|Raleigh|"
             "Long Beach|Virginia Beach|Miami|Oakland|Minneapolis|Tulsa|Bakersfield|Wichita|"
             "Arlington").split("|")
DRUGS = ("Metformin Lisinopril Atorvastatin Amlodipine Metoprolol Omeprazole Simvastatin "
         "Losartan Albuterol Gabapentin Hydrochlorothiazide Sertraline Furosemide Acetaminophen "
         "Ibuprofen Aspirin Warfarin Insulin Heparin Prednisone Amoxicillin Ceftriaxone "
         "Vancomycin Morphine Oxycodone Tramadol Pantoprazole Levothyroxine Clopidogrel "
         "Enoxaparin").split()
DIAGNOSES = ["Essential hypertension", "Type 2 diabetes mellitus without complications",
             "Pneumonia, unspecified organism", "Acute myocardial infarction",
             "Heart failure, unspecified", "Chronic obstructive pulmonary disease",
             "Urinary tract infection", "Sepsis, unspecified organism", "Atrial fibrillation",
             "Fracture of neck of femur", "Acute kidney failure", "Cellulitis of lower limb",
             "Cerebral infarction", "Major depressive disorder", "Asthma, uncomplicated"]
WARDS = ["Cardiology", "Oncology", "General Surgery", "Internal Medicine", "Geriatrics",
         "Neurology", "Orthopedics", "ICU", "Maternity", "Pediatrics", "Ward 3B",
         "St. Luke Wing", "Florence Nightingale Ward"]
COUNTRIES = ["United States", "Mexico", "Germany", "India", "China", "Philippines", "Vietnam",
             "El Salvador", "Cuba", "Dominican Republic", "Korea", "Guatemala", "Canada",
             "Jamaica", "Colombia", "Haiti", "England", "Poland", "Italy", "Japan", "Iran",
             "Brazil", "Peru", "Ecuador", "Honduras", "Nigeria", "Ireland", "France",
             "Pakistan", "Russia"]


def nhanes(n=2_000, seed=0):
    r = rng(seed)
    exam = pd.Timestamp("2021-08-01") + pd.to_timedelta(r.integers(0, 720, n), unit="D")
    return pd.DataFrame({
        "gender": r.choice(["Male", "Female"], n),
        "age_years": r.integers(0, 81, n),
        "race_ethnicity": r.choice(["Mexican American", "Other Hispanic", "Non-Hispanic White",
                                    "Non-Hispanic Black", "Non-Hispanic Asian",
                                    "Other Race - Including Multi-Racial"], n),
        "education": r.choice(["Less than 9th grade", "9-11th grade", "High school graduate",
                               "Some college or AA degree", "College graduate or above"], n),
        "income_poverty_ratio": np.round(r.uniform(0, 5, n), 2),
        "bmi": np.round(r.normal(28, 6, n), 1),
        "systolic_bp": r.integers(90, 180, n),
        "exam_date": exam,
        "smoker": r.choice(["never", "former", "current"], n),
        "country_of_birth": pick(COUNTRIES, n, seed + 1),
        "household_size": r.integers(1, 8, n),
    })


def discharges(n=2_000, seed=0):
    r = rng(seed)
    admitted = pd.Timestamp("2024-01-01") + pd.to_timedelta(r.integers(0, 366, n), unit="D")
    stay = r.integers(1, 30, n)
    ndc = rng(seed + 2).integers(10 ** 9, 10 ** 10, 60)
    return pd.DataFrame({
        "admission_date": admitted,
        "discharge_date": admitted + pd.to_timedelta(stay, unit="D"),
        "length_of_stay": stay,
        "diagnosis": pick(DIAGNOSES, n, seed + 3),
        "icd10": pick(["I10", "E11.9", "J18.9", "I21.4", "I50.9", "J44.9", "N39.0", "A41.9",
                       "I48.91", "S72.00"], n, seed + 4),
        "ward": pick(WARDS, n, seed + 5),
        "city": pick(US_CITIES, n, seed + 6),
        "drug": pick(DRUGS, n, seed + 7),
        "ndc": [f"{v:011d}" for v in pick(ndc, n, seed + 8)],
        "zip": [f"{v:05d}" for v in pick(rng(seed + 9).integers(1000, 99999, 80), n, seed + 10)],
        "disposition": pick(["Home", "Home Health Care", "Skilled Nursing Facility",
                             "Rehabilitation", "Expired", "Against Medical Advice"], n,
                            seed + 11),
        "payer": pick(["Medicare", "Medicaid", "Private", "Self-pay", "Other"], n, seed + 12),
        "charges": np.round(r.lognormal(9, 1, n), 2),
    })


def adult():
    df = pdanon.datasets.load_adult()
    return pd.DataFrame({c: df[c] for c in df.columns})  # without the remembered roles


def legitimate() -> dict:
    """{column: frame}: each column alone; all must pass."""
    out = {}
    for table, df in (("Adult", adult()), ("NHANES-like", nhanes()),
                      ("discharge", discharges())):
        for c in df.columns:
            out[f"{table}: {c}"] = df[[c]]
    return out


def verdict(df):
    """The refusal's evidence (a RoleError), or None when the frame would be published;
    ``df``: a frame, or (frame, the roles given)."""
    df, roles = df if isinstance(df, tuple) else (df, {})
    try:
        resolve_roles(df, screen="refuse", **roles)
    except pdanon.RoleError as e:
        return str(e).splitlines()[1].strip()
    return None


@pytest.fixture(scope="module", autouse=True)
def no_role_warnings():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdanon.RoleWarning)
        warnings.simplefilter("ignore", pdanon.KindWarning)
        yield


def test_the_battery_is_refused():
    found = {name: verdict(df) for name, df in probes().items()}
    missed = [name for name, why in found.items() if why is None]
    assert len(found) >= 40
    assert len(found) - len(missed) >= 38, missed


def test_no_legitimate_column_is_refused():
    cases = legitimate()
    assert len(cases) >= 15
    assert {name: why for name, df in cases.items() if (why := verdict(df))} == {}


def test_the_column_probes_are_refused_by_their_values_alone():
    """Under the neutral name ``x`` (so that no name rule decides), every probe of a column
    is refused all the same (an integer one published unchanged, as it is in the battery)."""
    from pdanon import screening

    for name, df in probes().items():
        df = df[0] if isinstance(df, tuple) else df
        if isinstance(df.index, pd.RangeIndex):
            assert screening.examine(df.iloc[:, -1], "x") is not None, name


def test_evidence_names_counts_never_a_value():
    # the probe of German full names: the refusal counts, and prints no name
    df = probes()["d1 (German full names)"]
    why = verdict(df)
    assert "holds person names" in why and "census name list" in why
    assert not any(v in why for v in df["d1"].str.split().explode().unique())


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")
    rows = [(k, verdict(v)) for k, v in probes().items()]
    print(f"| probe | refused | evidence |\n|---|---|---|")
    for k, why in rows:
        print(f"| {k} | {'yes' if why else 'NO'} | {why or ''} |")
    legit = [(k, verdict(v)) for k, v in legitimate().items()]
    print(f"\nprobes refused: {sum(1 for _, w in rows if w)} of {len(rows)}; legitimate "
          f"refused: {sum(1 for _, w in legit if w)} of {len(legit)}")
    for k, why in legit:
        if why:
            print("LEGIT REFUSED", k, why)
