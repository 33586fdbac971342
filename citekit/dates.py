"""Dates: parse and format BibTeX year/month/day, biblatex `date`, CSL date objects and RIS PY/DA.

Never guess: text that is not a date we understand becomes `Date(literal=...)` plus a problem.
Problems are human messages; callers turn them into diagnostics. Imports model only.

Open-ended ranges (`2020/`, `2020/..`) use CSL's own convention: an end year of 0 (`OPEN_END`),
which CSL-JSON writes as the date-parts `[0]` (as citeproc-js and Better BibTeX do).
"""

from __future__ import annotations

import re

from .model import Date

__all__ = [
    "MONTH_MACROS",
    "OPEN_END",
    "SEASON_NAMES",
    "parse_month",
    "parse_bibtex_date",
    "parse_edtf",
    "format_biblatex_date",
    "biblatex_date_losses",
    "format_bibtex_year",
    "bibtex_month_macro",
    "is_open_range",
    "date_from_csl",
    "date_to_csl",
    "parse_ris_date",
    "format_ris_py",
    "format_ris_da",
    "ris_date_losses",
]

OPEN_END = 0

MONTH_MACROS: dict[str, int] = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MACRO_OF: dict[int, str] = {number: macro for macro, number in MONTH_MACROS.items()}
_MONTH_WORDS: dict[str, int] = {
    **MONTH_MACROS,
    "january": 1, "february": 2, "march": 3, "april": 4, "june": 6, "july": 7,
    "august": 8, "september": 9, "sept": 9, "october": 10, "november": 11, "december": 12,
}  # fmt: skip

# Season number (CSL `season`, 1..4) by English name; EDTF/biblatex codes are 21..24.
SEASON_NAMES: dict[str, int] = {"spring": 1, "summer": 2, "autumn": 3, "fall": 3, "winter": 4}
_SEASON_TEXT = {1: "Spring", 2: "Summer", 3: "Autumn", 4: "Winter"}

_SPACES = re.compile(r"\s+")
_MONTH_SEPARATORS = str.maketrans({"~": " ", ".": " ", ",": " ", "\u00a0": " "})

# One biblatex/EDTF date: 4-digit year (signed) or Y-prefixed long year, then -MM, -DD, an
# optional time (dropped with a problem) and an approximation flag. \d accepts any script's
# digits, as biber does (१९८७-०१-१५).
_EDTF_ONE = re.compile(
    r"(?P<year>[+-]?\d{4}|Y-?\d+)"
    r"(?:-(?P<month>\d{2})(?:-(?P<day>\d{2}))?)?"
    r"(?P<time>T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?"
    r"(?P<flag>[~?%])?"
)
# A BibTeX year: three or more digits, or any signed number (a year BC); two digits alone are
# left as text (never guess the century).
_YEAR_NUMBER = r"(?:-\d+|\d{3,})"
_YEAR_TEXT = re.compile(
    rf"(?P<circa>(?:c\.|ca\.?|circa)\s*)?(?P<year>{_YEAR_NUMBER})(?P<flag>[~?])?", re.IGNORECASE
)
_YEAR_RANGE = re.compile(rf"(?P<start>{_YEAR_NUMBER})\s*(?:--|-|–|—|/)\s*(?P<end>{_YEAR_NUMBER})?")


# ---------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _valid(year: int, month: int | None, day: int | None) -> bool:
    if month is None:
        return day is None
    if not 1 <= month <= 12:
        return False
    return day is None or 1 <= day <= _days_in_month(year, month)


def _clean(text: str) -> str:
    """Whitespace collapsed and braces dropped (`{2014}`, `{in press}`); LaTeX commands kept."""
    text = _SPACES.sub(" ", text).strip()
    if "\\" not in text:
        text = text.replace("{", "").replace("}", "").strip()
    return text


def _literal(text: str, why: str, problems: list[str]) -> Date:
    problems.append(f"date {text!r} {why}; kept as text")
    return Date(literal=text)


def is_open_range(d: Date) -> bool:
    """A range with an open end (`2020/..`)."""
    return d.end_year == OPEN_END


def parse_month(text: str) -> tuple[int, int | None] | None:
    """Month (1..12) and optional day from a BibTeX month value.

    Accepts the macros and full English names in any case, with or without a dot (`Jan.`),
    `sept`, numbers `6`/`06`, and a day before or after the name (`1 jan`, `June~1`).
    """
    words = _clean(text).lower().translate(_MONTH_SEPARATORS).split()
    if not words or len(words) > 2:
        return None
    month: int | None = None
    day: int | None = None
    for word in words:
        if word in _MONTH_WORDS and month is None:
            month = _MONTH_WORDS[word]
        elif word.isdigit() and len(words) == 1:
            month = int(word)
        elif word.isdigit() and day is None:
            day = int(word)
        else:
            return None
    if month is None or not 1 <= month <= 12:
        return None
    if day is not None and not 1 <= day <= 31:
        return None
    return month, day


def _season_of(text: str) -> int | None:
    return SEASON_NAMES.get(_clean(text).lower())


# ---------------------------------------------------------------------------------------------
# biblatex `date` (EDTF level 0/1 subset that biblatex documents)
# ---------------------------------------------------------------------------------------------


def _int_year(text: str) -> int:
    return int(text[1:]) if text.startswith("Y") else int(text)


def _parse_edtf_one(
    text: str, problems: list[str]
) -> tuple[int, int | None, int | None, int | None, bool] | None:
    """(year, month, day, season, circa) of one EDTF date, or None if it is not one."""
    match = _EDTF_ONE.fullmatch(text)
    if match is None:
        return None
    year = _int_year(match.group("year"))
    month = int(match.group("month")) if match.group("month") else None
    day = int(match.group("day")) if match.group("day") else None
    season = None
    if month is not None and 21 <= month <= 24 and day is None:
        season, month = month - 20, None
    elif not _valid(year, month, day):
        return None
    if match.group("time"):
        problems.append(f"time of day in {text!r} dropped")
    flag = match.group("flag")
    if flag == "?":
        problems.append(f"'?' (uncertain) in {text!r} recorded as circa")
    elif flag == "%":
        problems.append(f"'%' (uncertain and approximate) in {text!r} recorded as circa")
    return year, month, day, season, flag is not None


def parse_edtf(text: str) -> tuple[Date | None, list[str]]:
    """A biblatex `date` value (`2020`, `2020-05-15`, `2020-01/2020-03`, `2020/..`, `2020~`,
    `2020-21`), or (None, problems) when it is not one. `../2020` (open start) has no place in
    the model and is not accepted."""
    problems: list[str] = []
    text = _clean(text)
    if "/" not in text:
        one = _parse_edtf_one(text, problems)
        if one is None:
            return None, problems
        year, month, day, season, circa = one
        return Date(year, month, day, circa=circa, season=season), problems
    start_text, _, end_text = text.partition("/")
    if start_text in ("", ".."):
        return None, [f"date {text!r} has an open start, which citekit cannot represent"]
    start = _parse_edtf_one(start_text, problems)
    if start is None:
        return None, problems
    year, month, day, season, circa = start
    if end_text in ("", ".."):
        return Date(year, month, day, OPEN_END, circa=circa, season=season), problems
    end = _parse_edtf_one(end_text, problems)
    if end is None:
        return None, problems
    end_year, end_month, end_day, end_season, end_circa = end
    if end_season is not None:
        return None, problems + [f"date {text!r} ends in a season, which citekit cannot represent"]
    if (end_year, end_month or 0, end_day or 0) < (year, month or 0, day or 0):
        problems.append(f"date range {text!r} ends before it starts")
    date = Date(year, month, day, end_year, end_month, end_day, circa or end_circa, season)
    return date, problems


# ---------------------------------------------------------------------------------------------
# BibTeX year / month / day
# ---------------------------------------------------------------------------------------------


def _parse_year(text: str, problems: list[str]) -> Date:
    """A BibTeX `year` value: `2014`, `{2014}`, `1995--1996`, `2020/`, `ca. 1850`, `1850?`."""
    text = _clean(text)
    match = _YEAR_TEXT.fullmatch(text)
    if match is not None:
        flag = match.group("flag")
        if flag == "?":
            problems.append(f"'?' in year {text!r} recorded as circa")
        return Date(int(match.group("year")), circa=bool(match.group("circa") or flag))
    match = _YEAR_RANGE.fullmatch(text)
    if match is not None:
        start = int(match.group("start"))
        end = int(match.group("end")) if match.group("end") else OPEN_END
        if end != OPEN_END and end < start:
            problems.append(f"year range {text!r} ends before it starts")
        return Date(start, end_year=end)
    edtf, edtf_problems = parse_edtf(text)
    if edtf is not None:
        problems.extend(edtf_problems)
        return edtf
    if re.fullmatch(r"\d{1,2}", text):
        return _literal(text, "is a two-digit year (not expanded)", problems)
    return _literal(text, "is not a year citekit understands", problems)


def _parse_day(text: str, problems: list[str]) -> int | None:
    cleaned = _clean(text)
    if cleaned.isdigit() and 1 <= int(cleaned) <= 31:
        return int(cleaned)
    problems.append(f"day {cleaned!r} is not a day of the month; ignored")
    return None


def _with_month(date: Date, month_text: str, day_text: str | None, problems: list[str]) -> Date:
    """Add a BibTeX month (and day) to a year-only date."""
    month_day = parse_month(month_text)
    season = _season_of(month_text) if month_day is None else None
    if month_day is None and season is None:
        problems.append(f"month {_clean(month_text)!r} is not a month; only the year is kept")
        return date
    if date.is_range:
        problems.append(f"month {_clean(month_text)!r} ignored: the year is a range")
        return date
    if season is not None:
        return Date(date.year, circa=date.circa, season=season)
    month, day = month_day  # type: ignore[misc]
    if day_text:
        if day is not None:
            problems.append(f"day {_clean(day_text)!r} ignored: the month already names a day")
        else:
            day = _parse_day(day_text, problems)
    if date.year is not None and not _valid(date.year, month, day):
        problems.append(f"day {day} is not in month {month} of {date.year}; day ignored")
        day = None
    return Date(date.year, month, day, circa=date.circa)


def _check_agrees(date: Date, year: str | None, month: str | None, problems: list[str]) -> None:
    """biber warns when `date` and `year`/`month` are both given; we say when they disagree."""
    if year and year.strip():
        year_date = _parse_year(year, [])
        if year_date.year != date.year or year_date.literal:
            problems.append(f"both date and year {_clean(year)!r} given; the date is used")
    if month and month.strip():
        month_day = parse_month(month)
        if month_day is None or month_day[0] != date.month:
            problems.append(f"both date and month {_clean(month)!r} given; the date is used")


def parse_bibtex_date(
    *,
    date: str | None = None,
    year: str | None = None,
    month: str | None = None,
    day: str | None = None,
) -> tuple[Date | None, list[str]]:
    """One date from biblatex `date` or BibTeX `year`/`month`/`day` field bodies.

    `date` wins when present. Returns (None, []) when no field is given. Text that is not a
    date (`to appear`, `1998a`, `199X`) comes back as `Date(literal=...)` with a problem.
    """
    problems: list[str] = []
    if date is not None and date.strip():
        parsed, edtf_problems = parse_edtf(date)
        problems.extend(edtf_problems)
        if parsed is None:
            return _literal(_clean(date), "is not a biblatex date", problems), problems
        _check_agrees(parsed, year, month, problems)
        return parsed, problems
    if year is None or not year.strip():
        if month is not None and month.strip():
            return _literal(_clean(month), "has a month but no year", problems), problems
        return None, problems
    parsed = _parse_year(year, problems)
    if parsed.literal:
        if month is not None and month.strip():
            text = f"{_clean(month)} {parsed.literal}"
            problems.append(f"month {_clean(month)!r} kept with the text year: {text!r}")
            parsed = Date(literal=text)
        return parsed, problems
    if month is not None and month.strip():
        parsed = _with_month(parsed, month, day, problems)
    elif day is not None and day.strip():
        problems.append(f"day {_clean(day)!r} ignored: there is no month")
    return parsed, problems


def _year_text(year: int) -> str:
    """Four-digit (signed) year; longer years take EDTF's `Y` prefix (`Y17000002`)."""
    if abs(year) > 9999:
        return f"Y{year}"
    return f"-{abs(year):04d}" if year < 0 else f"{year:04d}"


def _edtf_one(year: int, month: int | None, day: int | None, season: int | None) -> str:
    text = _year_text(year)
    if season is not None:
        return f"{text}-{20 + season}"
    if month is not None:
        text += f"-{month:02d}"
        if day is not None:
            text += f"-{day:02d}"
    return text


def format_biblatex_date(d: Date) -> str:
    """biblatex `date` value: `2020-05-15`, `2020-01/2020-03`, `2020/..`, `2020~`, `2020-21`.

    A literal comes back unchanged (biber will not read it as a date; the writer decides where
    it goes). `circa` marks both ends of a range.
    """
    if d.literal or d.year is None:
        return d.literal
    if biblatex_date_losses(d):
        return _year_text(d.year)  # biber reads a Y-year only on its own
    flag = "~" if d.circa else ""
    start = _edtf_one(d.year, d.month, d.day, d.season) + flag
    if not d.is_range:
        return start
    if is_open_range(d):
        return f"{start}/.."
    end = _edtf_one(d.end_year, d.end_month, d.end_day, None) + flag  # type: ignore[arg-type]
    return f"{start}/{end}"


def biblatex_date_losses(d: Date) -> list[str]:
    """What `format_biblatex_date` cannot write: biber reads a year past 9999 (`Y17000002`) only
    on its own, without month, day, season, circa or a range."""
    if d.literal or d.year is None:
        return []
    big = abs(d.year) > 9999 or (d.end_year is not None and abs(d.end_year) > 9999)
    extra = d.month is not None or d.season is not None or d.circa or d.is_range
    if big and extra:
        return [f"year {d.year} is written alone: biber reads a year past 9999 only on its own"]
    return []


def format_bibtex_year(d: Date) -> str:
    """BibTeX `year`: `2020`, `0850`, a range `1995--1996`, an open range `2020--`, or the literal.

    BibTeX has no place for circa or seasons; they are not written here.
    """
    if d.literal or d.year is None:
        return d.literal
    if is_open_range(d):
        return f"{_bibtex_year(d.year)}--"
    if d.is_range and d.end_year != d.year:
        return f"{_bibtex_year(d.year)}--{_bibtex_year(d.end_year)}"  # type: ignore[arg-type]
    return _bibtex_year(d.year)


def _bibtex_year(year: int) -> str:
    """`2020`; years below 1000 padded (`0044`) so they read back as years, not as text."""
    return f"{year:04d}" if year >= 0 else str(year)


def bibtex_month_macro(d: Date) -> str | None:
    """The month macro (`jun`) to write unbraced, or None when the date has no month."""
    return _MACRO_OF.get(d.month) if d.month is not None and not d.literal else None


# ---------------------------------------------------------------------------------------------
# CSL-JSON
# ---------------------------------------------------------------------------------------------

_CSL_DATE_KEYS = frozenset({"date-parts", "circa", "season", "raw", "literal"})


def _csl_int(value: object, what: str, problems: list[str]) -> int | None:
    if isinstance(value, bool):
        problems.append(f"date {what} is a boolean; ignored")
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        return int(value)
    if isinstance(value, str) and not value.strip():
        return None
    problems.append(f"date {what} {value!r} is not a number; ignored")
    return None


def _csl_parts(
    parts: object, problems: list[str]
) -> tuple[int | None, int | None, int | None, int | None]:
    """(year, month, day, season) from one date-parts array; months 13..16 and 21..24 are seasons
    (citeproc-js reads both)."""
    if not isinstance(parts, list):
        problems.append(f"date-parts entry {parts!r} is not a list; ignored")
        return None, None, None, None
    numbers: list[int] = []
    for what, value in zip(("year", "month", "day"), parts, strict=False):
        number = _csl_int(value, what, problems)
        if number is None:
            break
        numbers.append(number)
    if len(parts) > 3:
        problems.append(f"date-parts {parts!r} has more than three parts; the rest ignored")
    year = numbers[0] if numbers else None
    month = numbers[1] if len(numbers) > 1 else None
    day = numbers[2] if len(numbers) > 2 else None
    season = None
    if month is not None and day is None and (13 <= month <= 16 or 21 <= month <= 24):
        season, month = month - (12 if month <= 16 else 20), None
    if year is not None and month is not None and not _valid(year, month, day):
        problems.append(f"date-parts {parts!r} is not a calendar date; only the year is kept")
        month = day = None
    return year, month, day, season


def _csl_circa(value: object) -> bool:
    if isinstance(value, str):
        return value.strip().lower() not in ("", "0", "false", "no")
    return bool(value)


def _csl_season(value: object, problems: list[str]) -> int | None:
    if isinstance(value, str):
        named = _season_of(value)
        if named is not None:
            return named
    number = _csl_int(value, "season", [])
    if number is not None and (1 <= number <= 4 or 13 <= number <= 16 or 21 <= number <= 24):
        return number if number <= 4 else number - (12 if number <= 16 else 20)
    problems.append(f"season {value!r} is not 1-4 or a season name; ignored")
    return None


def _date_from_parts(obj: dict, problems: list[str]) -> Date | None:  # type: ignore[type-arg]
    parts = obj["date-parts"]
    if not isinstance(parts, list) or not parts:
        problems.append(f"date-parts {parts!r} is not a non-empty list")
        return None
    if len(parts) > 2:
        problems.append(f"date-parts has {len(parts)} dates; only the first two are used")
    year, month, day, season = _csl_parts(parts[0], problems)
    if year is None:
        problems.append(f"date-parts {parts!r} has no year")
        return None
    end_year = end_month = end_day = None
    if len(parts) > 1:
        end_year, end_month, end_day, end_season = _csl_parts(parts[1], problems)
        if end_season is not None:
            problems.append("season at the end of a date range ignored")
    if "season" in obj:
        given = _csl_season(obj["season"], problems)
        if given is not None and season is not None and given != season:
            problems.append(f"season {obj['season']!r} disagrees with date-parts; date-parts used")
        season = season if season is not None else given
    if season is not None and month is not None:
        problems.append("date has both a month and a season; the season is ignored")
        season = None
    circa = _csl_circa(obj.get("circa", False))
    return Date(year, month, day, end_year, end_month, end_day, circa, season)


def date_from_csl(obj: object) -> tuple[Date, list[str]]:
    """A CSL date object -> Date and problems.

    Reads `date-parts` (ints or numeric strings; two arrays = a range; `[0]` as the end = an open
    range), `circa` (bool, number or string), `season` (1-4, 13-16, 21-24 or a name), `literal`,
    and `raw` (parsed as a biblatex/EDTF date, else kept as a literal with a problem).
    """
    problems: list[str] = []
    if isinstance(obj, str):
        obj = {"raw": obj}
    if not isinstance(obj, dict):
        return Date(), [f"date is a {type(obj).__name__}, not an object"]
    for key in obj:
        if key not in _CSL_DATE_KEYS:
            problems.append(f"unknown date key {key!r} ignored")
    if "date-parts" in obj:
        date = _date_from_parts(obj, problems)
        if date is not None:
            for other in ("literal", "raw"):
                if obj.get(other):
                    problems.append(f"date {other} {obj[other]!r} ignored: date-parts given")
            return date, problems
    literal = obj.get("literal")
    if isinstance(literal, str) and literal.strip():
        return Date(literal=literal.strip(), circa=_csl_circa(obj.get("circa", False))), problems
    raw = obj.get("raw")
    if isinstance(raw, str) and raw.strip():
        date, raw_problems = parse_edtf(raw)
        if date is None:
            date, raw_problems = parse_ris_date(raw)
        problems.extend(raw_problems)
        return date, problems
    problems.append("date has no date-parts, literal or raw value")
    return Date(), problems


def _csl_array(year: int, month: int | None, day: int | None) -> list[int]:
    parts = [year]
    if month is not None:
        parts.append(month)
        if day is not None:
            parts.append(day)
    return parts


def date_to_csl(d: Date) -> dict[str, object]:
    """Date -> CSL date object (date-parts as ints; an open end as `[0]`)."""
    if d.literal or d.year is None:
        return {"literal": d.literal}
    parts = [_csl_array(d.year, d.month, d.day)]
    if is_open_range(d):
        parts.append([0])
    elif d.is_range:
        parts.append(_csl_array(d.end_year, d.end_month, d.end_day))  # type: ignore[arg-type]
    out: dict[str, object] = {"date-parts": parts}
    if d.season is not None:
        out["season"] = d.season
    if d.circa:
        out["circa"] = True
    return out


# ---------------------------------------------------------------------------------------------
# RIS
# ---------------------------------------------------------------------------------------------

_RIS_SLASHED = re.compile(r"(?P<y>\d{4})?(?:/(?P<m>\d{0,2})(?:/(?P<d>\d{0,2})(?:/(?P<o>.*))?)?)?")
_ISO = re.compile(r"(?P<y>\d{4})-(?P<m>\d{1,2})(?:-(?P<d>\d{1,2}))?")
_MONTH_NAME_DATE = re.compile(
    r"(?:(?P<d1>\d{1,2})\s+)?(?P<mon>[A-Za-z]+)\.?(?:\s+(?P<d2>\d{1,2}),?)?\s+(?P<y>\d{4})"
)


def _nonzero(text: str | None) -> int | None:
    """RIS writes absent parts as empty or as `00`."""
    return int(text) if text and int(text) != 0 else None


def parse_ris_date(s: str) -> tuple[Date, list[str]]:
    """A RIS `PY`/`Y1`/`DA` value: `2012`, `2012/05//`, `2014//`, `2012/05/03/`, `1998///Spring`,
    `2012-05-03`; also "May 2012" and "3 May 2012". Other text is kept as a literal.

    The fourth slot ("other info") becomes the season when it names one; other text there is
    reported and not kept.
    """
    problems: list[str] = []
    text = _SPACES.sub(" ", s).strip()
    if not text or not text.strip("/"):
        return Date(), [f"empty date {s!r}"]
    match = _RIS_SLASHED.fullmatch(text) or _ISO.fullmatch(text)
    if match is not None and match.group("y"):
        year = int(match.group("y"))
        month, day = _nonzero(match.group("m")), _nonzero(match.group("d"))
        if not _valid(year, month, day):
            return _literal(text, "is not a calendar date", problems), problems
        season = None
        other = (match.groupdict().get("o") or "").strip()
        if other:
            season = _season_of(other)
            if season is None or month is not None:
                problems.append(f"other date information {other!r} in {text!r} not kept")
                season = None
        return Date(year, month, day, season=season), problems
    match = _MONTH_NAME_DATE.fullmatch(text)
    if match is not None and match.group("mon").lower() in _MONTH_WORDS:
        year, month = int(match.group("y")), _MONTH_WORDS[match.group("mon").lower()]
        day_text = match.group("d1") or match.group("d2")
        day = int(day_text) if day_text else None
        if _valid(year, month, day) and not (match.group("d1") and match.group("d2")):
            return Date(year, month, day), problems
    if re.fullmatch(r"\d{1,2}", text):
        return _literal(text, "is a two-digit year (not expanded)", problems), problems
    return _literal(text, "is not a date citekit understands", problems), problems


def format_ris_py(d: Date) -> str:
    """RIS `PY`: the (start) year, as Zotero writes it; a literal as is."""
    if d.literal or d.year is None:
        return d.literal
    return str(d.year)


def format_ris_da(d: Date) -> str:
    """RIS `DA` in Zotero's `YYYY/MM/DD/other` form: `2012/05/03/`, `2012/05//`, `2012///`,
    `1998///Spring`. Empty for a literal (it goes to `PY`)."""
    if d.literal or d.year is None:
        return ""
    month = f"{d.month:02d}" if d.month is not None else ""
    day = f"{d.day:02d}" if d.day is not None and d.month is not None else ""
    other = _SEASON_TEXT[d.season] if d.season is not None else ""
    return f"{d.year}/{month}/{day}/{other}"


def ris_date_losses(d: Date) -> list[str]:
    """What `format_ris_py`/`format_ris_da` cannot carry, for the RIS writer to report."""
    losses: list[str] = []
    if d.is_range:
        losses.append("RIS has no date ranges; only the start date is written")
    if d.circa:
        losses.append("RIS has no circa; the date is written as exact")
    return losses
