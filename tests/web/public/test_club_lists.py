"""The rating list downloaded for OpenGotha: the club's players with their club ranks."""

from __future__ import annotations

import pytest

from ratings.engine.formats.ratinglists import ENCODING
from tests import factories
from tests.engine.test_club_lists import read_aga, read_egf, read_ffg

pytestmark = pytest.mark.django_db


@pytest.fixture
def club():
    factories.player("sofia", "2k", full_name="Sofia du Plessis", egd_pin="12000001", country="ZA")
    factories.player("jorg", "3d", full_name="Jörg Müller", country="DE")


def download(client, kind: str) -> str:
    response = client.get(f"/ratings/opengotha-{kind}.txt")
    assert response.status_code == 200
    assert response["Content-Type"] == f"text/plain; charset={ENCODING}"
    assert f'filename="club-{kind}-' in response["Content-Disposition"]
    return response.content.decode(ENCODING)


def test_the_rating_list_offers_the_lists_opengotha_reads(client, club):
    html = client.get("/").content.decode()
    for kind in ("egf", "ffg", "aga"):
        assert f'href="/ratings/opengotha-{kind}.txt"' in html


def test_the_club_players_come_with_their_club_ranks(client, club):
    _day, egf = read_egf(download(client, "egf"))
    assert [(pin, name, grade) for pin, name, _first, _c, _club, grade, _gor in egf] == [
        ("12000001", "du_Plessis", "2k")
    ]
    ffg = read_ffg(download(client, "ffg"))
    assert sorted((name, rank) for name, _first, rank, _club, _country in ffg) == [
        ("DU_PLESSIS", "2K"),
        ("MÜLLER", "3D"),
    ]
    aga = read_aga(download(client, "aga"))
    assert sorted((name, rank) for name, _first, _id, _country, rank in aga) == [
        ("Müller", "3D"),
        ("du Plessis", "2K"),
    ]


def test_another_format_is_not_found(client):
    assert client.get("/ratings/opengotha-xls.txt").status_code == 404
