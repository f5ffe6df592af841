"""The one grammar of every option that takes a point in time (``log --since``, ``forget
--older-than``, ``episode list --since``).

A value is either

* an ISO 8601 date or date-time: ``2026-11-01``, ``2026-11-01T14:05``, ``2026-11-01T14:05:30Z``,
  ``2026-11-01 14:05+02:00`` (a date means its midnight; a time without a zone is UTC), or
* an age, counted back from now: a whole number and a unit — ``30m`` minutes, ``12h`` hours,
  ``7d`` days, ``2w`` weeks, ``6mo`` calendar months, ``1y`` calendar years (the day of the month
  is kept, or the month's last day when it has no such day).

The date-time forms are matched here, not by ``datetime.fromisoformat``, whose accepted forms
differ between Python 3.10 and 3.11. A value in neither form, or an age that reaches back before
the year 1, is a usage error (exit 2) that names the accepted forms.
"""

from __future__ import annotations

import datetime as dt
import re

from biocortex_cli.errors import UsageError

#: the accepted forms, for messages and help texts
FORMS = "a date or date-time (2026-11-01, 2026-11-01T14:05Z) or an age (30m, 12h, 7d, 2w, 6mo, 1y)"
#: the paragraph docs/cli.md shows (generated from here, so it cannot drift)
DOC = (
    "Every option that takes a point in time (`log --since`, `forget --older-than`, "
    "`episode list --since`) reads the same forms:\n\n"
    "| form | means |\n|---|---|\n"
    "| `2026-11-01` | that day at 00:00 UTC |\n"
    "| `2026-11-01T14:05`, `2026-11-01 14:05:30` | that time, UTC |\n"
    "| `2026-11-01T14:05Z`, `2026-11-01T14:05+02:00` | that time in that zone |\n"
    "| `30m`, `12h`, `7d`, `2w` | minutes, hours, days, weeks before now |\n"
    "| `6mo`, `1y` | calendar months, years before now (Mar 31 − 1mo = Feb 28 or 29) |\n\n"
    "Units are lower case (`m` is minutes, `mo` months). `log --since` also takes a commit. "
    "Anything else, or an age that reaches back before the year 1, is a usage error (exit 2)."
)

_AGE = re.compile(r"(\d+)(mo|m|h|d|w|y)")
_DATE_TIME = re.compile(
    r"(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})"
    r"(?:[T ](?P<h>\d{2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:\.(?P<f>\d{1,6}))?)?"
    r"(?P<z>Z|[+-]\d{2}:?\d{2})?)?")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def match_time(text: str, *, option: str, now: dt.datetime | None = None) -> dt.datetime | None:
    """The UTC time ``text`` names, or None when it is in neither form (the caller may try
    another reading, such as a commit). An age before the year 1, or a date that is not on the
    calendar (2026-13-45), is a usage error."""
    value = text.strip()
    age = _AGE.fullmatch(value)
    if age:
        return _back(int(age.group(1)) if len(age.group(1)) < 12 else 10**12, age.group(2), option, value,
                     now or dt.datetime.now(dt.timezone.utc))
    parts = _DATE_TIME.fullmatch(value)
    if not parts:
        return None
    g = parts.groupdict()
    try:
        zone = dt.timezone.utc
        if g["z"] and g["z"] != "Z":
            sign = -1 if g["z"][0] == "-" else 1
            digits = g["z"][1:].replace(":", "")
            zone = dt.timezone(sign * dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))
        when = dt.datetime(int(g["y"]), int(g["mo"]), int(g["d"]), int(g["h"] or 0), int(g["mi"] or 0),
                           int(g["s"] or 0), int((g["f"] or "0").ljust(6, "0")), tzinfo=zone)
    except ValueError as exc:
        raise UsageError(f"{option} {value!r} is not on the calendar ({exc})",
                         hint=f"give {FORMS}") from None
    return when.astimezone(dt.timezone.utc)


def parse_time(text: str, *, option: str, now: dt.datetime | None = None) -> dt.datetime:
    """The UTC time ``text`` names (see the module docstring); a usage error otherwise."""
    when = match_time(text, option=option, now=now)
    if when is None:
        raise UsageError(f"{option} takes {FORMS}, not {text.strip()!r}",
                         hint=f"e.g. {option} 7d or {option} 2026-11-01 (docs/cli.md, 'Dates and ages')")
    return when


def _days_in(year: int, month: int) -> int:
    """Days in ``month`` of ``year`` (what ``calendar.monthrange`` says, without importing
    ``calendar``, which brings ``locale`` and its regexes onto the listing commands' path)."""
    if month == 12:
        return 31
    return (dt.date(year, month + 1, 1) - dt.date(year, month, 1)).days


def _back(n: int, unit: str, option: str, value: str, now: dt.datetime) -> dt.datetime:
    if now.tzinfo is None:
        now = now.replace(tzinfo=dt.timezone.utc)
    try:
        if unit in _UNITS:
            return (now - dt.timedelta(**{_UNITS[unit]: n})).astimezone(dt.timezone.utc)
        months = n * (12 if unit == "y" else 1)
        total = now.year * 12 + now.month - 1 - months
        year, month = divmod(total, 12)
        day = min(now.day, _days_in(year, month + 1))
        return now.replace(year=year, month=month + 1, day=day).astimezone(dt.timezone.utc)
    except (OverflowError, ValueError):  # before the year 1
        raise UsageError(f"{option} {value} reaches back before the year 1",
                         hint=f"give {FORMS}; e.g. 100y or 2000-01-31") from None
