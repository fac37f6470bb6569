"""What a French or Afrikaans reader still met in English on the tournament pages, and
the refusals' wording: a file's time system, the games a file gives that are not
rated (each count in the plural form of its number), the venue's label, and the
subject of a refusal ("The class of EGC2013main", "La partie 11")."""

import pytest
from django.utils import translation

from players.translated import translated
from ratings.engine.formats.timecontrol import SYSTEMS
from ratings.engine.messages import (
    BY_DEFAULT_NOT_RATED,
    FORFEITS_NOT_RATED,
    UNFINISHED_NOT_RATED,
    Message,
)
from tests import factories
from tests.web.test_remaining_translated import AFRIKAANS, ENGLISH, FRENCH, signed_in
from tests.web.test_staff_pages_translated import read

pytestmark = [pytest.mark.django_db]


@pytest.mark.parametrize(
    ("language", "shown"),
    [
        (FRENCH, "temps ajusté 82 min, Byo-yomi standard"),
        (AFRIKAANS, "Standaard byo-yomi"),
        (ENGLISH, "adjusted time 82 min, Standard byo-yomi"),
    ],
)
def test_an_opengotha_files_time_system_reads_in_the_pages_language(client, language, shown):
    factories.tournament(
        "SEYGO", "SEYGO stage 6", adjusted_time="82", file_comment=SYSTEMS["STDBYOYOMI"]
    )

    assert shown in read(client, "/tournaments/SEYGO/", language)


def test_a_comment_of_the_files_own_stays_as_written(client):
    factories.tournament("cup", "Cup", adjusted_time="90", file_comment="Toyo byo-yomi 5x30s")

    assert "Toyo byo-yomi 5x30s" in read(client, "/tournaments/cup/", FRENCH)


@pytest.mark.parametrize(
    ("language", "games", "shown"),
    [
        (ENGLISH, 1, "1 forfeited game (marked '!') not rated"),
        (ENGLISH, 2, "2 forfeited games (marked '!') not rated"),
        (FRENCH, 1, "1 partie gagnée par forfait (marquée « ! ») non classée"),
        (FRENCH, 1234, "1\N{NO-BREAK SPACE}234 parties gagnées par forfait"),
        (AFRIKAANS, 3, "3 spelle deur verstek (gemerk '!') nie gegradeer nie"),
    ],
)
def test_a_files_forfeits_are_counted_in_the_plural_form_of_their_number(language, games, shown):
    with translation.override(language):
        assert shown in translated(Message(FORFEITS_NOT_RATED, games=games))


def test_every_note_of_a_files_reader_reads_in_french_even_as_its_english_alone():
    notes = [
        Message(UNFINISHED_NOT_RATED, games=1),
        Message(BY_DEFAULT_NOT_RATED, games=2),
    ]

    with translation.override(FRENCH):
        shown = [translated(note) for note in notes] + [translated(str(notes[1]))]

    assert shown == [
        "1 partie sans résultat (« ? ») non classée",
        "2 parties gagnées ou perdues par forfait (*_BYDEF) non classées",
        "2 parties gagnées ou perdues par forfait (*_BYDEF) non classées",
    ]


def test_the_venue_is_a_lieu_in_french(client):
    factories.tournament("cup", "Cup", location="PL,Olsztyn")

    text = read(client, "/tournaments/cup/", FRENCH)

    assert "Lieu PL, Olsztyn" in text


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        (ENGLISH, "The class of EGC2013main is the federation's: only the federation's committee"),
        (FRENCH, "La classe de EGC2013main relève de la fédération"),
    ],
)
def test_a_refusal_names_the_tournaments_class_not_the_act_of_correcting_it(language, sentence):
    cape_town = factories.club("Cape Town Go Club")
    factories.tournament("EGC2013main", "EGC 2013")
    client = signed_in(factories.club_committee_member("ccom", cape_town))

    text = read(client, "/committee/tournaments/EGC2013main/class/", language, status=403)

    assert sentence in text


def test_a_refusal_of_another_clubs_account_keeps_its_username_as_written(client):
    cape_town, pretoria = factories.club("Cape Town Go Club"), factories.club("Pretoria Go Club")
    pretoria_committee = factories.club_committee_member("stellenbosch-committee", pretoria)
    client = signed_in(factories.club_committee_member("ccom", cape_town))

    text = read(client, f"/committee/accounts/{pretoria_committee.pk}/", ENGLISH, status=403)

    assert "The account stellenbosch-committee is Pretoria Go Club's" in text
