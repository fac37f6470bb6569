"""/committee/players/<username>/edit/: the committee corrects a player's record (name,
club, EGD PIN, national rank, entry rank, active), audited before and after; a
corrected entry rank recomputes from the player's first game. Ranks are bounded as
SPEC section 1 says, in the form, the service and the database."""

from datetime import date

import pytest
from django.db import IntegrityError

from players.models import AuditEntry, Player
from players.services.base import ServiceError
from players.services.games import record_sheet_submit
from players.services.players import player_update
from ratings.engine.ranks import Rank
from ratings.models import RecomputeState
from tests import factories
from tests.web.entry.test_sheet_entry import field_block

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]


@pytest.fixture
def thandi(connie):
    thandi = factories.player("thandi", "12k", full_name="Thandi Nkosi")
    pieter = factories.player("pieter", "10k")
    record_sheet_submit(
        user=connie,
        games=[
            factories.game(thandi, pieter, "W", date(2023, 5, 1)),
            factories.game(pieter, thandi, "W", date(2024, 2, 1)),
        ],
    )
    RecomputeState.objects.update(dirty_from=None)
    return thandi


def form_data(player: Player, **changes) -> dict:
    data = {
        "given_name": player.given_name,
        "family_name": player.family_name,
        "club": player.club_id or "",
        "country": player.country,
        "federation_club": player.federation_club,
        "egd_pin": player.egd_pin,
        "national_id": player.national_id,
        "national_rank": str(player.national_rank or ""),
        "entry_rank": str(player.entry_rank),
        "active": "on" if player.active else "",
    }
    return {**data, **changes}


def test_the_log_page_links_committee_members_to_the_correction(client, connie, thandi):
    html = client.get("/players/thandi/").content.decode()

    assert 'href="/committee/players/thandi/edit/"' in html


def test_it_shows_the_record_in_the_form(client, connie, thandi):
    html = client.get("/committee/players/thandi/edit/").content.decode()

    assert 'value="Thandi"' in html and 'value="Nkosi"' in html and 'value="12k"' in html


def test_it_corrects_name_club_pin_and_national_rank_with_an_audited_before_and_after(
    client, connie, thandi
):
    club = factories.club()

    response = client.post(
        "/committee/players/thandi/edit/",
        form_data(
            thandi, given_name="Thandiwe", club=club.pk, egd_pin="14000123", national_rank="9k"
        ),
        follow=True,
    )

    thandi.refresh_from_db()
    assert (thandi.full_name, thandi.club, thandi.egd_pin) == ("Thandiwe Nkosi", club, "14000123")
    assert thandi.national_rank == Rank(-9)
    assert thandi.entry_rank == Rank(-12)
    assert "thandi corrected." in response.content.decode()
    entry = AuditEntry.objects.get(action="player_update")
    assert entry.user == connie
    assert (
        entry.before["full_name"] == "Thandi Nkosi" and entry.after["full_name"] == "Thandiwe Nkosi"
    )
    assert (entry.before["national_rank"], entry.after["national_rank"]) == ("12k", "9k")
    assert (entry.before["club"], entry.after["club"]) == (None, club.name)
    assert RecomputeState.objects.filter(dirty_from__isnull=False).count() == 0


def test_a_corrected_entry_rank_recomputes_from_the_players_first_game(client, connie, thandi):
    client.post("/committee/players/thandi/edit/", form_data(thandi, entry_rank="15k"))

    thandi.refresh_from_db()
    assert thandi.entry_rank == Rank(-15)
    dirty = set(RecomputeState.objects.values_list("dirty_from", flat=True))
    assert dirty == {date(2023, 5, 1)}


def test_a_national_rank_out_of_range_is_refused_at_its_field(client, connie, thandi):
    response = client.post(
        "/committee/players/thandi/edit/", form_data(thandi, national_rank="51k")
    )

    assert "kyu ranks run from 50k to 1k" in field_block(
        response.content.decode(), "id_national_rank"
    )
    thandi.refresh_from_db()
    assert thandi.national_rank == Rank(-12)


def test_a_pin_of_another_record_is_refused(client, connie, thandi):
    factories.player("elsab4", full_name="Elsa Botha", egd_pin="12345678")

    response = client.post("/committee/players/thandi/edit/", form_data(thandi, egd_pin="12345678"))

    block = field_block(response.content.decode(), "id_egd_pin")
    assert "the EGD PIN 12345678 is already on file, for Elsa Botha (elsab4)" in block


def test_a_pin_that_is_not_eight_digits_is_refused_at_its_field(client, connie, thandi):
    response = client.post("/committee/players/thandi/edit/", form_data(thandi, egd_pin="abc"))

    block = field_block(response.content.decode(), "id_egd_pin")
    assert "&#x27;abc&#x27; is not an EGD PIN: the EGD&#x27;s PINs are 8 digits" in block
    thandi.refresh_from_db()
    assert thandi.egd_pin == ""


def test_a_stored_pin_of_another_shape_does_not_stop_an_edit_of_other_fields(
    client, connie, thandi
):
    Player.objects.filter(pk=thandi.pk).update(egd_pin="1234")
    thandi.refresh_from_db()

    client.post("/committee/players/thandi/edit/", form_data(thandi, federation_club="Durban"))

    thandi.refresh_from_db()
    assert (thandi.federation_club, thandi.egd_pin) == ("Durban", "1234")


def test_the_service_refuses_what_is_not_a_rank(connie, thandi):
    with pytest.raises(ServiceError) as refused:
        player_update(user=connie, player=thandi, national_rank=-31)

    assert refused.value.errors[0][1] == "national_rank"


def test_the_database_refuses_a_rank_out_of_range(thandi):
    with pytest.raises(IntegrityError):
        Player.objects.filter(pk=thandi.pk).update(national_rank=-51)


def test_a_volunteer_may_not_correct_a_record(client, thandi):
    client.force_login(factories.volunteer("vera"))

    assert client.get("/committee/players/thandi/edit/").status_code == 403


def test_it_corrects_country_federation_club_and_national_id(client, connie, thandi):
    client.post(
        "/committee/players/thandi/edit/",
        form_data(thandi, country="za", federation_club="Jhb", national_id="AGA-1234"),
    )

    thandi.refresh_from_db()
    assert (thandi.country, thandi.federation_club, thandi.national_id) == ("ZA", "Jhb", "AGA-1234")
    entry = AuditEntry.objects.get(action="player_update")
    assert (entry.before["national_id"], entry.after["national_id"]) == ("", "AGA-1234")


def test_it_refuses_a_bad_country_a_national_id_on_file_and_no_name_at_once(client, connie, thandi):
    factories.player("other", "5k", national_id="AGA-1234")

    response = client.post(
        "/committee/players/thandi/edit/",
        form_data(thandi, country="Z1", national_id="AGA-1234", given_name="", family_name=""),
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert "not a two-letter country code" in html
    assert "A player needs a name." in html
    assert "the national id AGA-1234 is already on file, for Other (other)" in html
    thandi.refresh_from_db()
    assert (thandi.country, thandi.national_id, thandi.full_name) == ("", "", "Thandi Nkosi")


def test_a_national_id_on_file_is_refused_by_the_service(connie, thandi):
    factories.player("other", "5k", national_id="AGA-1234")

    with pytest.raises(ServiceError) as refused:
        player_update(user=connie, player=thandi, national_id="AGA-1234")

    assert [field for _, field, _ in refused.value.errors] == ["national_id"]
