"""/tournaments/new/: a volunteer adds a tournament (code, name, dates, EGF class), audited,
so that record sheets can name its code."""

from __future__ import annotations

from datetime import date

import pytest
from django.db.models import QuerySet

from players.models import AuditEntry, Game, Tournament
from players.services.base import ServiceError
from players.services.tournaments import tournament_create
from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]

URL = "/tournaments/new/"


def autumn(**changes) -> dict:
    return {
        "code": "autumn-open-2024",
        "name": "Autumn Open 2024",
        "start_date": "2024-09-07",
        "end_date": "2024-09-08",
        "egf_class": "B",
        **changes,
    }


def test_it_adds_the_tournament_and_audits_it(client, vera):
    response = client.post(URL, autumn())

    assert response.status_code == 302
    assert response["Location"] == "/tournaments/autumn-open-2024/"
    tournament = Tournament.objects.get()
    assert (tournament.name, tournament.start_date, tournament.end_date, tournament.egf_class) == (
        "Autumn Open 2024",
        date(2024, 9, 7),
        date(2024, 9, 8),
        "B",
    )
    entry = AuditEntry.objects.get(action="tournament_create")
    assert (entry.user, entry.object_id, entry.summary) == (
        vera,
        str(tournament.pk),
        "autumn-open-2024",
    )
    assert entry.after == {
        "code": "autumn-open-2024",
        "name": "Autumn Open 2024",
        "start_date": "2024-09-07",
        "end_date": "2024-09-08",
        "egf_class": "B",
        "club": None,
    }
    page = client.get(response["Location"])
    assert "Added the tournament autumn-open-2024" in page.content.decode()


def test_a_one_day_tournament_ends_the_day_it_starts(client, vera):
    client.post(URL, autumn(end_date=""))

    tournament = Tournament.objects.get()
    assert tournament.start_date == tournament.end_date == date(2024, 9, 7)


def test_a_record_sheet_can_name_the_new_code(client, vera):
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "8k")
    client.post(URL, autumn())

    response = client.post(
        "/sheets/new/",
        {
            "sheet-received_on": "2024-09-08",
            "sheet-note": "",
            "form-TOTAL_FORMS": "1",
            "form-INITIAL_FORMS": "0",
            "form-MIN_NUM_FORMS": "0",
            "form-MAX_NUM_FORMS": "200",
            "form-0-date": "2024-09-07",
            "form-0-white": ann.username,
            "form-0-black": ben.username,
            "form-0-handicap": "0",
            "form-0-komi": "6.5",
            "form-0-winner": "W",
            "form-0-status": "tournament",
            "form-0-tournament": "autumn-open-2024",
            "form-0-round": "1",
            "form-0-board_size": "19",
        },
    )

    assert response.status_code == 302
    assert Game.objects.get().tournament.code == "autumn-open-2024"


@pytest.mark.parametrize(
    "changes, field, message",
    [
        ({"code": "spring-cup"}, "code", "the code 'spring-cup' is taken"),
        ({"code": "import"}, "code", "'import' is reserved: choose another code"),
        ({"code": "New"}, "code", "'New' is reserved: choose another code"),
        (
            {"code": "autumn open"},
            "code",
            "'autumn open' is not a code: letters, digits, - and _ only (at most 50)",
        ),
        (
            {"end_date": "2024-09-01"},
            "end_date",
            "the end 2024-09-01 is before the start 2024-09-07",
        ),
        ({"egf_class": "E"}, "egf_class", None),
        ({"start_date": ""}, "start_date", "This field is required."),
    ],
)
def test_a_bad_tournament_is_refused_at_its_field(client, vera, changes, field, message):
    factories.tournament("spring-cup", "Spring Cup")

    response = client.post(URL, autumn(**changes))

    assert response.status_code == 200
    errors = response.context["form"].errors[field]
    assert message is None or errors == [message]
    assert list(Tournament.objects.values_list("code", flat=True)) == ["spring-cup"]
    assert not AuditEntry.objects.exists()


def test_the_service_refuses_what_the_form_would(vera):
    with pytest.raises(ServiceError) as refused:
        tournament_create(
            user=vera,
            code="x y",
            name="X",
            start_date=None,
            end_date=date(2024, 1, 1),
            egf_class="Z",
        )

    assert [field for _, field, _ in refused.value.errors] == ["code", "egf_class", "start_date"]
    assert not Tournament.objects.exists()


def test_a_code_taken_between_the_check_and_the_insert_is_refused(vera, monkeypatch):
    factories.tournament("autumn", "Autumn")
    # Another volunteer's insert lands after this one's check: the check sees nothing.
    monkeypatch.setattr(QuerySet, "exists", lambda queryset: False)

    with pytest.raises(ServiceError) as refused:
        tournament_create(user=vera, code="autumn", name="Autumn again")

    assert refused.value.errors == [(None, "code", "the code 'autumn' is taken")]
    assert Tournament.objects.get().name == "Autumn"


def test_readers_and_visitors_may_not_add_tournaments(client):
    assert client.get(URL)["Location"].startswith("/accounts/login/")
    client.force_login(factories.user("rita"))

    assert client.get(URL).status_code == 403
    assert client.post(URL, autumn()).status_code == 403
    assert not Tournament.objects.exists()


def test_the_tournaments_page_offers_volunteers_the_new_and_import_pages(client):
    anonymous = client.get("/tournaments/").content.decode()
    client.force_login(factories.volunteer())
    volunteer = client.get("/tournaments/").content.decode()

    for page in (anonymous, volunteer):
        assert 'href="/games.csv"' in page
    assert 'href="/tournaments/new/"' not in anonymous
    assert 'href="/tournaments/import/"' not in anonymous
    assert 'href="/tournaments/new/"' in volunteer
    assert 'href="/tournaments/import/"' in volunteer
