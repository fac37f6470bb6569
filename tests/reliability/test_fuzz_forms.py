"""Every form, fed anything: never a server error, and nothing stored on rejection.

The test client raises any exception a view lets escape, so "no server error" is
checked by the request itself; a rejected form must leave every table as it was.
"""

from datetime import date

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from players.models import Adjustment, AuditEntry, Game, Player, RecordSheet, ResyncBatch
from tests import factories

pytestmark = pytest.mark.django_db

NASTY = [
    "",
    " ",
    "0",
    "-1",
    "9",
    "10",
    "1e9",
    "NaN",
    "6.5",
    "0.5",
    "-50.5",
    "2024-02-30",
    "2024-03-01",
    "2099-01-01",
    "1900-01-01",
    "15k",
    "0k",
    "51k",
    "3d",
    "10d",
    "9p",
    "W",
    "B",
    "D",
    "x",
    "normal",
    "free",
    "adjustment",
    "19",
    "13",
    "7",
    '=HYPERLINK("http://x")',
    "+1",
    "@cmd",
    "ann",
    "ben",
    "ghost",
    "a" * 600,
    "\x00",
    "\ud7ff",
    "'; drop table players_game; --",
    "<script>alert(1)</script>",
]
value = st.one_of(st.sampled_from(NASTY), st.text(max_size=30))


def counts():
    return [
        model.objects.count()
        for model in (Game, Adjustment, Player, RecordSheet, ResyncBatch, AuditEntry)
    ]


@pytest.fixture
def world(client):
    connie = factories.committee_member("connie")
    client.force_login(connie)
    ann, ben = factories.player("ann", "3k"), factories.player("ben", "6k")
    game = factories.game(ann, ben, "W", date(2024, 3, 1))
    from players.services.games import record_sheet_submit

    stored = record_sheet_submit(user=connie, games=[game]).games[0]
    return client, stored


def assert_no_server_error_and_all_or_nothing(client, url, data):
    before = counts()
    response = client.post(url, data)
    assert response.status_code < 500
    if response.status_code != 302:
        assert counts() == before, f"a rejected form stored something: {data}"


GAME_FIELDS = [
    "date",
    "white",
    "black",
    "handicap",
    "komi",
    "winner",
    "status",
    "comment",
    "tournament",
    "round",
    "board_size",
    "time_minutes",
]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(st.fixed_dictionaries({f: value for f in GAME_FIELDS}), max_size=3),
    sheet=st.fixed_dictionaries({"received_on": value, "note": value}),
)
def test_the_sheet_form(world, rows, sheet):
    client, _ = world
    data = {
        "form-TOTAL_FORMS": str(len(rows)),
        "form-INITIAL_FORMS": "0",
        "form-MIN_NUM_FORMS": "0",
        "form-MAX_NUM_FORMS": "200",
        **{f"sheet-{key}": text for key, text in sheet.items()},
    }
    for index, row in enumerate(rows):
        data.update({f"form-{index}-{key}": text for key, text in row.items()})
    assert_no_server_error_and_all_or_nothing(client, reverse("sheet_new"), data)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(fields=st.fixed_dictionaries({**{f: value for f in GAME_FIELDS}, "version": value}))
def test_the_game_correction_form(world, fields):
    client, game = world
    assert_no_server_error_and_all_or_nothing(client, reverse("game_edit", args=[game.pk]), fields)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(fields=st.fixed_dictionaries({"reason": value, "version": value}))
def test_the_void_form(world, fields):
    client, game = world
    assert_no_server_error_and_all_or_nothing(client, reverse("game_void", args=[game.pk]), fields)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    fields=st.fixed_dictionaries(
        {"username": value, "full_name": value, "club": value, "national_rank": value}
    )
)
def test_the_new_player_form(world, fields):
    client, _ = world
    assert_no_server_error_and_all_or_nothing(client, reverse("player_create"), fields)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.lists(st.tuples(value, value, value), max_size=6),
    separator=st.sampled_from([",", ";", "\t", "|"]),
    fields=st.fixed_dictionaries({"effective_date": value, "note": value}),
)
def test_the_resync_upload(world, lines, separator, fields):
    client, _ = world
    text = "\n".join(separator.join(cells) for cells in lines)
    for url, data in (
        (reverse("committee_resync"), {"list_text": text, **fields}),
        (reverse("committee_resync_apply"), {"upload": text, "confirm": "on", **fields}),
    ):
        assert_no_server_error_and_all_or_nothing(client, url, data)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    fields=st.fixed_dictionaries(
        {
            "date": value,
            "new_rank": value,
            "algorithm": value,
            "value": value,
            "reason": value,
            "comment": value,
        }
    )
)
def test_the_adjustment_form(world, fields):
    client, _ = world
    url = reverse("committee_adjust", args=["ann"])
    assert_no_server_error_and_all_or_nothing(client, url, fields)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    fields=st.fixed_dictionaries(
        {"keep": value, "duplicate": value, "note": value, "confirm": value}
    )
)
def test_the_merge_form(world, fields):
    client, _ = world
    assert_no_server_error_and_all_or_nothing(client, reverse("committee_merge"), fields)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(fields=st.fixed_dictionaries({"username": value, "role": value, "password": value}))
def test_the_account_form(world, fields):
    client, _ = world
    assert_no_server_error_and_all_or_nothing(client, reverse("committee_account_create"), fields)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    params=st.dictionaries(
        st.sampled_from(
            [
                "algorithm",
                "club",
                "rank_from",
                "rank_to",
                "active_months",
                "q",
                "sort",
                "page",
                "format",
            ]
        ),
        value,
    )
)
def test_the_rating_list_filters(world, params):
    client, _ = world
    response = client.get(reverse("home"), params)
    assert response.status_code < 500


def test_a_nul_character_in_a_player_field_is_an_error_on_the_sheet(world):
    # PostgreSQL refuses a NUL in a query: looking the sheet's players up with it in
    # their names was a server error there.
    client, _ = world
    data = {
        "form-TOTAL_FORMS": "2",
        "form-INITIAL_FORMS": "0",
        "form-MIN_NUM_FORMS": "0",
        "form-MAX_NUM_FORMS": "200",
        "sheet-received_on": "2024-03-02",
        "sheet-note": "",
    }
    for index, (white, black) in enumerate([("ann", "ben"), ("ann", "b\x00en")]):
        row = {"date": "2024-03-02", "white": white, "black": black, "handicap": "0"}
        row.update(komi="6.5", winner="W", status="normal", board_size="19")
        data.update({f"form-{index}-{key}": text for key, text in row.items()})
    before = counts()

    response = client.post(reverse("sheet_new"), data)

    assert response.status_code == 200
    assert "Null characters are not allowed" in response.content.decode()
    assert counts() == before
