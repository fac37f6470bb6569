"""players.dates: dates typed by keyboard, day before month, the year optional."""

from datetime import date

import pytest

from players.dates import TypedDateError, parse_typed_date

TODAY = date(2026, 11, 23)


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("2026-11-02", date(2026, 11, 2)),
        ("2026/11/2", date(2026, 11, 2)),
        ("2/11", date(2026, 11, 2)),
        ("2-11-2026", date(2026, 11, 2)),
        ("2.11.26", date(2026, 11, 2)),
        ("2 Nov", date(2026, 11, 2)),
        ("2 november 2025", date(2025, 11, 2)),
        ("Nov 2", date(2026, 11, 2)),
        ("11022026", date(2026, 2, 11)),
        ("110226", date(2026, 2, 11)),
        ("0211", date(2026, 11, 2)),
        ("20261102", date(2026, 11, 2)),
        ("t", TODAY),
        (" Today ", TODAY),
        ("y", date(2026, 11, 22)),
        # Without a year: the latest such date not in the future.
        ("24/11", date(2025, 11, 24)),
        ("31 Dec", date(2025, 12, 31)),
        ("29 Feb", date(2024, 2, 29)),
        # The months as a French or Afrikaans volunteer writes them.
        ("2 févr. 2026", date(2026, 2, 2)),
        ("2 fe\u0301vrier 2026", date(2026, 2, 2)),
        ("1 août", date(2026, 8, 1)),
        ("14 Mei", date(2026, 5, 14)),
        ("3 Okt 2025", date(2025, 10, 3)),
        ("24 Desember", date(2025, 12, 24)),
    ],
)
def test_it_reads_the_ways_volunteers_type_a_date(typed, meant):
    assert parse_typed_date(typed, TODAY) == meant


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("31/2", "'31/2' is not a date (day 31, month 2)"),
        ("2 Nox", "'2 Nox' is not a date: 'nox' is not a month"),
        ("soon", "'soon' is not a date (e.g. 2026-11-02, 2/11, 2 Nov or 02112026; t for today)"),
        ("99999999", "'99999999' is not a date"),
    ],
)
def test_it_says_what_is_wrong_with_a_bad_date(typed, message):
    with pytest.raises(TypedDateError) as refused:
        parse_typed_date(typed, TODAY)

    assert str(refused.value).startswith(message)
