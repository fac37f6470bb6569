"""An imported file's INI ratings (OpenGotha's own) start nobody: the players start
from their ranks, and the preview says why the file's rating was not taken."""

from __future__ import annotations

import pytest

from players.models import Player
from players.services.base import system_user
from players.services.tournament_files import plan_tournament_import, tournament_import
from ratings.engine.formats.opengotha import read_opengotha
from tests.engine.test_declared_ratings import CONGRESO

pytestmark = pytest.mark.django_db

TWO_RATINGS = """\
<Tournament dataVersion="201">
<Players>
<Player firstName="Thabo" name="Mokoena" rank="15K" rating="2100" ratingOrigin="INI"/>
<Player firstName="Aya" name="Groot" rank="3D" rating="2310" ratingOrigin="MAN"/>
<Player firstName="Sofia" name="Plessis" rank="3K" rating="2310" ratingOrigin="MAN"/>
</Players>
<Games>
<Game blackPlayer="MOKOENATHABO" handicap="0" result="RESULT_WHITEWINS" roundNumber="1"
 tableNumber="1" whitePlayer="GROOTAYA"/>
</Games>
<TournamentParameterSet>
<GeneralParameterSet beginDate="2024-07-28" endDate="2024-07-28" name="Rated Open"
 numberOfRounds="1" shortName="rated-open"/>
</TournamentParameterSet>
</Tournament>
"""


def test_only_declared_ratings_are_kept_and_the_others_are_said_in_the_preview():
    plan = plan_tournament_import(read_opengotha(TWO_RATINGS, "rated.xml"))
    notes = {m.file_player.surname: m.notes for m in plan.matches}
    assert notes["Mokoena"] == (
        "GoR 2100 is OpenGotha's own (INI), computed from nothing: not a declaration; "
        "starts from the rank",
    )
    assert notes["Groot"] == ()
    assert notes["Plessis"] == (
        "GoR 2310 contradicts the rank 3k (GoR 1800) by more than a grade: not a "
        "declaration; starts from the rank",
    )
    tournament_import(user=system_user(), plan=plan, source="rated.xml")
    declared = dict(Player.objects.values_list("family_name", "declared_rating"))
    assert declared == {"Mokoena": None, "Groot": 2310, "Plessis": None}


@pytest.mark.skipif(not CONGRESO.is_file(), reason=f"{CONGRESO} not found")
def test_congreso_2020_stores_no_declared_gor_of_opengothas_2100():
    file = read_opengotha(CONGRESO.read_bytes(), CONGRESO.name)
    tournament_import(user=system_user(), plan=plan_tournament_import(file), source="c.xml")
    assert Player.objects.count() == 167
    assert not Player.objects.filter(declared_rating=2100).exists()
