"""Dates: biblatex date, BibTeX year/month/day, CSL date objects, RIS PY/DA; corpus coverage."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sharedpaths import SHARED

from citekit.dates import (
    MONTH_MACROS,
    OPEN_END,
    biblatex_date_losses,
    bibtex_month_macro,
    date_from_csl,
    date_to_csl,
    format_biblatex_date,
    format_bibtex_year,
    format_ris_da,
    format_ris_py,
    is_open_range,
    parse_bibtex_date,
    parse_month,
    parse_ris_date,
    ris_date_losses,
)
from citekit.model import Date

CORPUS = SHARED / "corpus"


# --- months ------------------------------------------------------------------------------------


def test_month_macros() -> None:
    assert list(MONTH_MACROS) == "jan feb mar apr may jun jul aug sep oct nov dec".split()
    assert list(MONTH_MACROS.values()) == list(range(1, 13))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("jun", (6, None)),
        ("June", (6, None)),
        ("JUNE", (6, None)),
        ("Jun.", (6, None)),
        ("sept", (9, None)),
        ("Sept.", (9, None)),
        ("6", (6, None)),
        ("06", (6, None)),
        ("{12}", (12, None)),
        ("1 jan", (1, 1)),
        ("June~1", (6, 1)),
        ("June 15,", (6, 15)),
        ("14", None),
        ("0", None),
        ("Spring", None),
        ("june 1 2", None),
        ("jun 40", None),
        ("", None),
    ],
)
def test_parse_month(text: str, expected: tuple[int, int | None] | None) -> None:
    assert parse_month(text) == expected


# --- biblatex date -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "date", "problems"),
    [
        ("2020", Date(2020), []),
        ("2020-05", Date(2020, 5), []),
        ("2020-05-15", Date(2020, 5, 15), []),
        (" {2020-05-15} ", Date(2020, 5, 15), []),
        ("2020-01/2020-03", Date(2020, 1, end_year=2020, end_month=3), []),
        ("1996-12-10/1996-12-12", Date(1996, 12, 10, 1996, 12, 12), []),
        ("2020/", Date(2020, end_year=OPEN_END), []),
        ("1996-01-01/..", Date(1996, 1, 1, OPEN_END), []),
        ("2020~", Date(2020, circa=True), []),
        ("1487~/1490", Date(1487, end_year=1490, circa=True), []),
        ("2020?", Date(2020, circa=True), ["'?' (uncertain) in '2020?' recorded as circa"]),
        (
            "2020%",
            Date(2020, circa=True),
            ["'%' (uncertain and approximate) in '2020%' recorded as circa"],
        ),
        ("2020-21", Date(2020, season=1), []),
        ("2020-24", Date(2020, season=4), []),
        ("2024-02-29", Date(2024, 2, 29), []),
        ("-0379-02", Date(-379, 2), []),
        ("Y17000002", Date(17000002), []),
        ("१९८७-०१-१५/१९८८-०५-११", Date(1987, 1, 15, 1988, 5, 11), []),
        ("2001-01-03T15:00:00", Date(2001, 1, 3), ["time of day in '2001-01-03T15:00:00' dropped"]),
        (
            "1996-12/1990",
            Date(1996, 12, end_year=1990),
            ["date range '1996-12/1990' ends before it starts"],
        ),
    ],
)
def test_biblatex_date(text: str, date: Date, problems: list[str]) -> None:
    assert parse_bibtex_date(date=text) == (date, problems)


@pytest.mark.parametrize(
    "text",
    [
        "1995-1-04",
        "1995-10-4",
        "1996-13-03",
        "1996-10-35",
        "2023-02-29",
        "1985-1030",
        "1.5.1998",
        "199X",
        "1999-XX",
        "to appear",
        "2003-21/2003-22",
    ],
)
def test_biblatex_non_dates_stay_literal(text: str) -> None:
    date, problems = parse_bibtex_date(date=text)
    assert date == Date(literal=text)
    assert problems[-1] == f"date {text!r} is not a biblatex date; kept as text"


def test_open_start_is_reported() -> None:
    assert parse_bibtex_date(date="../2004-01-01") == (
        Date(literal="../2004-01-01"),
        [
            "date '../2004-01-01' has an open start, which citekit cannot represent",
            "date '../2004-01-01' is not a biblatex date; kept as text",
        ],
    )


def test_date_wins_over_year_and_disagreement_is_reported() -> None:
    assert parse_bibtex_date(date="1996-01-01", year="1998") == (
        Date(1996, 1, 1),
        ["both date and year '1998' given; the date is used"],
    )
    assert parse_bibtex_date(date="1996-01-01", month="02") == (
        Date(1996, 1, 1),
        ["both date and month '02' given; the date is used"],
    )
    assert parse_bibtex_date(date="1996-01-01", year="1996", month="jan") == (Date(1996, 1, 1), [])


# --- BibTeX year/month/day ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "date", "problems"),
    [
        ({"year": "2014"}, Date(2014), []),
        ({"year": "{2014}"}, Date(2014), []),
        ({"year": "  2014 "}, Date(2014), []),
        ({"year": "1995--1996"}, Date(1995, end_year=1996), []),
        ({"year": "1995-1996"}, Date(1995, end_year=1996), []),
        ({"year": "2020/"}, Date(2020, end_year=OPEN_END), []),
        ({"year": "ca. 1850"}, Date(1850, circa=True), []),
        ({"year": "1850~"}, Date(1850, circa=True), []),
        ({"year": "2020", "month": "jun"}, Date(2020, 6), []),
        ({"year": "2020", "month": "June", "day": "15"}, Date(2020, 6, 15), []),
        ({"year": "2020", "month": "1 jan"}, Date(2020, 1, 1), []),
        ({"year": "2020", "month": "Spring"}, Date(2020, season=1), []),
        (
            {"year": "1995", "month": "14"},
            Date(1995),
            ["month '14' is not a month; only the year is kept"],
        ),
        (
            {"year": "2023", "month": "feb", "day": "29"},
            Date(2023, 2),
            ["day 29 is not in month 2 of 2023; day ignored"],
        ),
        ({"year": "2020", "day": "3"}, Date(2020), ["day '3' ignored: there is no month"]),
        (
            {"year": "1985a"},
            Date(literal="1985a"),
            ["date '1985a' is not a year citekit understands; kept as text"],
        ),
        (
            {"year": "{to appear}"},
            Date(literal="to appear"),
            ["date 'to appear' is not a year citekit understands; kept as text"],
        ),
        (
            {"year": "99"},
            Date(literal="99"),
            ["date '99' is a two-digit year (not expanded); kept as text"],
        ),
        (
            {"month": "may"},
            Date(literal="may"),
            ["date 'may' has a month but no year; kept as text"],
        ),
        ({}, None, []),
        ({"year": "", "date": " "}, None, []),
    ],
)
def test_bibtex_year_month_day(
    fields: dict[str, str], date: Date | None, problems: list[str]
) -> None:
    assert parse_bibtex_date(**fields) == (date, problems)


@pytest.mark.parametrize(
    ("date", "biblatex", "year", "month"),
    [
        (Date(2020), "2020", "2020", None),
        (Date(2020, 6), "2020-06", "2020", "jun"),
        (Date(2020, 6, 5), "2020-06-05", "2020", "jun"),
        (Date(1995, end_year=1996), "1995/1996", "1995--1996", None),
        (Date(1996, 12, 10, 1996, 12, 12), "1996-12-10/1996-12-12", "1996", "dec"),
        (Date(2020, end_year=OPEN_END), "2020/..", "2020--", None),
        (Date(1850, circa=True), "1850~", "1850", None),
        (Date(1487, end_year=1490, circa=True), "1487~/1490~", "1487--1490", None),
        (Date(2003, season=1), "2003-21", "2003", None),
        (Date(-379, 2), "-0379-02", "-379", "feb"),
        (Date(850), "0850", "0850", None),
        (Date(44), "0044", "0044", None),
        (Date(-44), "-0044", "-44", None),
        (Date(17000002), "Y17000002", "17000002", None),
        (Date(-17000002), "Y-17000002", "-17000002", None),
        (Date(literal="to appear"), "to appear", "to appear", None),
    ],
)
def test_bibtex_formatting(date: Date, biblatex: str, year: str, month: str | None) -> None:
    assert format_biblatex_date(date) == biblatex
    assert format_bibtex_year(date) == year
    assert bibtex_month_macro(date) == month


def _dates() -> st.SearchStrategy[Date]:
    @st.composite
    def build(draw: st.DrawFn) -> Date:
        year = draw(st.integers(-999, 2999))
        month = draw(st.none() | st.integers(1, 12))
        day = draw(st.none() | st.integers(1, 28)) if month else None
        season = draw(st.none() | st.integers(1, 4)) if month is None else None
        circa = draw(st.booleans())
        kind = draw(st.sampled_from(["single", "range", "open"]))
        if kind == "open":
            return Date(year, month, day, OPEN_END, circa=circa, season=season)
        if kind == "range":
            end_year = draw(st.integers(year, 3000))
            end_month = draw(st.none() | st.integers(1, 12)) if month else None
            end_day = draw(st.none() | st.integers(1, 28)) if end_month and day else None
            if (end_year, end_month or 0, end_day or 0) < (year, month or 0, day or 0):
                end_year += 1
            return Date(year, month, day, end_year, end_month, end_day, circa, season)
        return Date(year, month, day, circa=circa, season=season)

    return build()


@settings(max_examples=300, deadline=None)
@given(_dates())
def test_biblatex_round_trip(date: Date) -> None:
    assume(not biblatex_date_losses(date))
    assert parse_bibtex_date(date=format_biblatex_date(date)) == (date, [])


@settings(max_examples=300, deadline=None)
@given(_dates())
def test_bibtex_year_round_trip(date: Date) -> None:
    # year/month/day lose everything but the years; an open end (end year 0) stays open
    keeps_end = is_open_range(date) or date.end_year != date.year
    year_only = Date(date.year, end_year=date.end_year if keeps_end else None)
    assert parse_bibtex_date(year=format_bibtex_year(date)) == (year_only, [])


@settings(max_examples=300, deadline=None)
@given(_dates())
def test_csl_round_trip(date: Date) -> None:
    assert date_from_csl(date_to_csl(date)) == (date, [])


# --- CSL ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("obj", "date", "problems"),
    [
        ({"date-parts": [[2011, 5, 25]]}, Date(2011, 5, 25), []),
        ({"date-parts": [["2011", "5", 25]]}, Date(2011, 5, 25), []),
        (
            {"date-parts": [["2011", 5, 25], ["2012", 6, 26]], "circa": True},
            Date(2011, 5, 25, 2012, 6, 26, circa=True),
            [],
        ),
        ({"date-parts": [[1999, 9, 29], [0]]}, Date(1999, 9, 29, OPEN_END), []),
        ({"date-parts": [[2017]], "season": 4, "circa": "1"}, Date(2017, circa=True, season=4), []),
        ({"date-parts": [[2017]], "season": "Summer"}, Date(2017, season=2), []),
        ({"date-parts": [[2017, 21]]}, Date(2017, season=1), []),
        ({"date-parts": [[2017, 14]]}, Date(2017, season=2), []),
        ({"date-parts": [["-334"]]}, Date(-334), []),
        ({"date-parts": [[2017]], "circa": 0}, Date(2017), []),
        ({"date-parts": [[2017]], "circa": "false"}, Date(2017), []),
        ({"literal": "13th cent"}, Date(literal="13th cent"), []),
        ({"raw": "2011-05-25/2012"}, Date(2011, 5, 25, 2012), []),
        ({"raw": "May 2012"}, Date(2012, 5), []),
        (
            {"raw": "Midsummer"},
            Date(literal="Midsummer"),
            ["date 'Midsummer' is not a date citekit understands; kept as text"],
        ),
        (
            {"date-parts": [[2017, 2, 30]]},
            Date(2017),
            ["date-parts [2017, 2, 30] is not a calendar date; only the year is kept"],
        ),
        (
            {"date-parts": [["spring"]]},
            Date(),
            [
                "date year 'spring' is not a number; ignored",
                "date-parts [['spring']] has no year",
                "date has no date-parts, literal or raw value",
            ],
        ),
        (
            {"date-parts": [[2017]], "season": "monsoon"},
            Date(2017),
            ["season 'monsoon' is not 1-4 or a season name; ignored"],
        ),
        (
            {"date-parts": [[2017]], "literal": "2017"},
            Date(2017),
            ["date literal '2017' ignored: date-parts given"],
        ),
        ({"date-parts": [[2017]], "iso": "x"}, Date(2017), ["unknown date key 'iso' ignored"]),
        ({}, Date(), ["date has no date-parts, literal or raw value"]),
        ([2017], Date(), ["date is a list, not an object"]),
    ],
)
def test_date_from_csl(obj: object, date: Date, problems: list[str]) -> None:
    assert date_from_csl(obj) == (date, problems)


def test_date_to_csl() -> None:
    assert date_to_csl(Date(2020, 5)) == {"date-parts": [[2020, 5]]}
    assert date_to_csl(Date(2020, end_year=OPEN_END, circa=True)) == {
        "date-parts": [[2020], [0]],
        "circa": True,
    }
    assert date_to_csl(Date(2017, season=3)) == {"date-parts": [[2017]], "season": 3}
    assert date_to_csl(Date(literal="in press")) == {"literal": "in press"}


# --- RIS ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "date", "problems"),
    [
        ("2012", Date(2012), []),
        ("2012/05//", Date(2012, 5), []),
        ("2014//", Date(2014), []),
        ("2012/05/03/", Date(2012, 5, 3), []),
        ("2012/5/3", Date(2012, 5, 3), []),
        ("2001/00/00/", Date(2001), []),
        ("1998///Spring", Date(1998, season=1), []),
        ("2012-05-03", Date(2012, 5, 3), []),
        ("3 May 2012", Date(2012, 5, 3), []),
        (
            "2012/05/03/conference day",
            Date(2012, 5, 3),
            ["other date information 'conference day' in '2012/05/03/conference day' not kept"],
        ),
        ("///", Date(), ["empty date '///'"]),
        ("99", Date(literal="99"), ["date '99' is a two-digit year (not expanded); kept as text"]),
        (
            "2012/13/01/",
            Date(literal="2012/13/01/"),
            ["date '2012/13/01/' is not a calendar date; kept as text"],
        ),
        (
            "YEAR/MONTH/DAY/",
            Date(literal="YEAR/MONTH/DAY/"),
            ["date 'YEAR/MONTH/DAY/' is not a date citekit understands; kept as text"],
        ),
    ],
)
def test_parse_ris_date(text: str, date: Date, problems: list[str]) -> None:
    assert parse_ris_date(text) == (date, problems)


@pytest.mark.parametrize(
    ("date", "py", "da"),
    [
        (Date(2012), "2012", "2012///"),
        (Date(2012, 5), "2012", "2012/05//"),
        (Date(2012, 5, 3), "2012", "2012/05/03/"),
        (Date(1998, season=1), "1998", "1998///Spring"),
        (Date(1995, end_year=1996), "1995", "1995///"),
        (Date(literal="in press"), "in press", ""),
    ],
)
def test_format_ris(date: Date, py: str, da: str) -> None:
    assert format_ris_py(date) == py
    assert format_ris_da(date) == da
    assert parse_ris_date(da)[0] == date if da and not date.is_range else True


def test_years_past_9999_are_written_alone() -> None:
    date = Date(17000002, 5, circa=True)
    assert format_biblatex_date(date) == "Y17000002"
    assert biblatex_date_losses(date) == [
        "year 17000002 is written alone: biber reads a year past 9999 only on its own"
    ]
    assert biblatex_date_losses(Date(17000002)) == []
    assert biblatex_date_losses(Date(2020, 5, circa=True)) == []


def test_ris_losses() -> None:
    assert ris_date_losses(Date(2012)) == []
    assert ris_date_losses(Date(1995, end_year=1996, circa=True)) == [
        "RIS has no date ranges; only the start date is written",
        "RIS has no circa; the date is written as exact",
    ]


# --- corpus: every date is parsed or reported ---------------------------------------------------

_BIB_DATE_FIELD = re.compile(
    r"^\s*(date|origdate|urldate|eventdate|year|month)\s*=\s*\{(.*)\},?\s*$", re.M | re.I
)


def test_every_biber_dateformats_value_is_parsed_or_reported() -> None:
    text = (CORPUS / "bibtex" / "biber-dateformats.bib").read_text(encoding="utf-8")
    seen = 0
    for match in _BIB_DATE_FIELD.finditer(text):
        field, value = match.group(1).lower(), match.group(2)
        if field == "month":
            date, problems = parse_bibtex_date(year="2000", month=value)
        elif field == "year":
            date, problems = parse_bibtex_date(year=value)
        else:
            date, problems = parse_bibtex_date(date=value)
        seen += 1
        assert date is not None
        if date.literal:
            assert problems, value
        else:
            assert date.year is not None
    assert seen == 65  # every date-like field line in the file


def test_every_bbt_edtf_csl_date_is_parsed_or_reported() -> None:
    items = json.loads((CORPUS / "csljson" / "bbt-edtf-dates-811.csl.json").read_text("utf-8"))
    roles = ("issued", "accessed", "original-date", "event-date", "submitted", "available-date")
    seen = 0
    for item in items:
        for role in roles:
            if role not in item:
                continue
            seen += 1
            date, problems = date_from_csl(item[role])
            assert problems == []
            assert date.year is not None or date.literal
            # and back: CSL out equals CSL in, with numbers as ints
            again, _ = date_from_csl(date_to_csl(date))
            assert again == date
    assert seen == 26


_ANY_DATE_TEXT = st.text(alphabet=list("0123456789-/~?%.XY T:Z{}abJun,١٢"), max_size=30)


@settings(max_examples=500, deadline=None)
@given(_ANY_DATE_TEXT, _ANY_DATE_TEXT, _ANY_DATE_TEXT)
def test_any_text_is_a_date_or_a_reported_literal(a: str, b: str, c: str) -> None:
    for date, problems in (
        parse_bibtex_date(date=a),
        parse_bibtex_date(year=a, month=b, day=c),
        parse_ris_date(a),
        date_from_csl({"raw": a}),
        date_from_csl({"date-parts": [[a, b], [c]]}),
    ):
        if date is not None and date.literal:
            assert problems


# --- consumer: biber accepts every date we write -------------------------------------------------


@pytest.mark.consumer
def test_biber_accepts_our_biblatex_dates(tmp_path: Path) -> None:
    if shutil.which("biber") is None:
        pytest.skip("biber is not installed")
    rng = random.Random(811)
    written: list[str] = []
    for i in range(200):
        year = rng.choice([rng.randint(1, 2999), rng.randint(-999, -1), rng.randint(10000, 99999)])
        month = rng.choice([None, rng.randint(1, 12)])
        day = rng.randint(1, 28) if month and rng.random() < 0.5 else None
        season = rng.randint(1, 4) if month is None and rng.random() < 0.2 else None
        kind = rng.choice(["single", "range", "open"])
        end = (
            OPEN_END if kind == "open" else (year + rng.randint(0, 30) if kind == "range" else None)
        )
        date = Date(year, month, day, end, month if end not in (None, OPEN_END) else None,
                    circa=rng.random() < 0.2, season=season)  # fmt: skip
        written.append(f"@misc{{d{i}, date = {{{format_biblatex_date(date)}}}}}")
    (tmp_path / "d.bib").write_text("\n".join(written) + "\n", encoding="utf-8")
    run = subprocess.run(
        ["biber", "--tool", "--output-format=bibtex", "d.bib"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, (run.stdout + run.stderr)[-600:]
    complaints = [line for line in run.stdout.splitlines() if re.match(r"(WARN|ERROR)", line)]
    assert complaints == [], "\n".join(complaints)
