"""One grammar for every option that takes a point in time (biocortex_cli/dates.py)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from conftest import Cli
from hypothesis import given
from hypothesis import strategies as st

from biocortex_cli.dates import FORMS, parse_time
from biocortex_cli.errors import UsageError

UTC = dt.timezone.utc
NOW = dt.datetime(2026, 3, 31, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(("text", "expected"), [
    ("30m", dt.datetime(2026, 3, 31, 11, 30, tzinfo=UTC)),
    ("12h", dt.datetime(2026, 3, 31, 0, 0, tzinfo=UTC)),
    ("7d", dt.datetime(2026, 3, 24, 12, 0, tzinfo=UTC)),
    ("2w", dt.datetime(2026, 3, 17, 12, 0, tzinfo=UTC)),
    ("1mo", dt.datetime(2026, 2, 28, 12, 0, tzinfo=UTC)),  # no 31 February: the month's last day
    ("13mo", dt.datetime(2025, 2, 28, 12, 0, tzinfo=UTC)),
    ("6mo", dt.datetime(2025, 9, 30, 12, 0, tzinfo=UTC)),
    ("1y", dt.datetime(2025, 3, 31, 12, 0, tzinfo=UTC)),
    (" 0d ", NOW),
    ("2026-11-01", dt.datetime(2026, 11, 1, tzinfo=UTC)),
    ("2026-11-01T14:05", dt.datetime(2026, 11, 1, 14, 5, tzinfo=UTC)),
    ("2026-11-01 14:05:30", dt.datetime(2026, 11, 1, 14, 5, 30, tzinfo=UTC)),
    ("2026-11-01T14:05:30.25Z", dt.datetime(2026, 11, 1, 14, 5, 30, 250000, tzinfo=UTC)),
    ("2026-11-01T14:05+02:00", dt.datetime(2026, 11, 1, 12, 5, tzinfo=UTC)),
    ("2026-11-01T14:05-0130", dt.datetime(2026, 11, 1, 15, 35, tzinfo=UTC)),
])
def test_every_form_reads_as_a_utc_time(text: str, expected: dt.datetime) -> None:
    assert parse_time(text, option="--since", now=NOW) == expected


def test_a_leap_day_minus_a_year_is_the_last_day_of_february() -> None:
    leap = dt.datetime(2028, 2, 29, tzinfo=UTC)
    assert parse_time("1y", option="--since", now=leap) == dt.datetime(2027, 2, 28, tzinfo=UTC)
    assert parse_time("4y", option="--since", now=leap) == dt.datetime(2024, 2, 29, tzinfo=UTC)


@pytest.mark.parametrize("text", ["7", "7D", "7 d", "1M", "7days", "last tuesday", "", "-7d", "2026-11",
                                  "20261101", "2026-11-01Z", "2026-W45", "1e3d", "P7D"])
def test_anything_else_is_a_usage_error_naming_the_forms(text: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_time(text, option="--older-than", now=NOW)
    assert err.value.exit_code == 2 and FORMS in err.value.message and "--older-than" in err.value.message


@pytest.mark.parametrize("text", ["2026-13-01", "2026-02-30", "2026-11-01T25:00", "99999y", "999999999d",
                                  "9" * 5000 + "w", "30000mo"])
def test_off_the_calendar_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_time(text, option="--since", now=NOW)
    assert err.value.exit_code == 2


@given(st.integers(0, 1500), st.sampled_from(["m", "h", "d", "w", "mo", "y"]),
       st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2100, 1, 1), timezones=st.just(UTC)))
def test_an_age_is_never_after_now_and_grows_with_n(n: int, unit: str, now: dt.datetime) -> None:
    when = parse_time(f"{n}{unit}", option="--since", now=now)
    assert when <= now and when.tzinfo is not None
    assert parse_time(f"{n + 1}{unit}", option="--since", now=now) < when


# -- the same grammar at every door ----------------------------------------------------------

DOORS = [("log", "--since"), ("forget", "--older-than"), ("episode list", "--since")]


def _run(cli: Cli, door: str, option: str, value: str) -> tuple[int, str]:
    extra = ["--dry-run"] if door == "forget" else []
    r = cli(*door.split(), option, value, *extra, "--json")
    return r.code, r.err


@pytest.mark.parametrize(("door", "option"), DOORS)
@pytest.mark.parametrize("value", ["30m", "12h", "7d", "2w", "6mo", "1y", "2026-11-01", "2026-11-01T14:05Z"])
def test_every_time_option_takes_every_form(vault: Path, cli: Cli, door: str, option: str, value: str) -> None:
    code, err = _run(cli, door, option, value)
    assert code == 0, err


@pytest.mark.parametrize(("door", "option"), DOORS)
@pytest.mark.parametrize("value", ["7x", "last week", "2026-13-01", "99999y"])
def test_every_time_option_refuses_the_same_way(vault: Path, cli: Cli, door: str, option: str, value: str) -> None:
    code, err = _run(cli, door, option, value)
    error = json.loads(err.strip().splitlines()[-1])["error"]
    assert code == 2 and option in error["message"] and "Traceback" not in err
    assert FORMS in error["message"] + error["hint"]


def test_episode_list_since_an_age(vault: Path, cli: Cli) -> None:
    for ident, created in (("old", "2020-01-01T00:00:00Z"), ("new", None)):
        args = ["--created", created] if created else []
        assert cli("episode", "add", "--task", f"{ident} analysis", "--id", ident, "--no-suggest", *args).code == 0
    assert [e["id"] for e in cli("episode", "list", "--since", "30d", "--json").json()] == ["new"]
    assert [e["id"] for e in cli("episode", "list", "--since", "10y", "--json").json()] == ["new", "old"]
