"""National lists never move a rank backwards in time: a list older than the last one
applied to a player sets nothing for them, and a line years out of date is applied only
when ticked; the preview shows each line's age."""

from __future__ import annotations

from datetime import date

import pytest

from players.models import Player
from players.rank_lists import egd_tournament_day, read_rank_list
from players.resync import Outcome, match_rank_list
from players.selectors.adjustments import last_resync_date, resync_candidates
from players.services.adjustments import resync_apply_preview
from players.services.base import ServiceError, system_user
from ratings.engine.ranks import parse_rank
from tests import factories
from tests.engine.test_egd_format import SHARED_DATA

pytestmark = pytest.mark.django_db

EGD = SHARED_DATA / "egd-ratinglists"
EGD_2013 = EGD / "allworld_lp_2013-10-07.html.gz"
EGD_2018 = EGD / "allworld_lp_2018-12-27.html.gz"
AGA_2014 = SHARED_DATA / "aga-tdlist" / "tdlista_2014-11-09.txt.gz"
AGA_2021 = SHARED_DATA / "aga-tdlist" / "tdlista_2021-01-11.txt.gz"
TODAY = date(2026, 1, 1)


def needs(*paths):
    return pytest.mark.skipif(
        not all(path.is_file() for path in paths),
        reason=f"the real lists are not in {SHARED_DATA} (set CLUBRATING_SHARED_DATA)",
    )


def preview_of(path, effective_date=None):
    rank_list = read_rank_list(path.read_bytes(), default_date=effective_date, today=TODAY)
    return match_rank_list(rank_list, resync_candidates(), last_resync_date())


def row_of(preview, username):
    (row,) = [row for row in preview.rows if row.player and row.player.username == username]
    return row


@pytest.mark.parametrize(
    ("code", "day"),
    [
        ("T181216A", date(2018, 12, 16)),
        ("T960413", date(1996, 4, 13)),
        ("W121212A", date(2012, 12, 12)),
        ("T991399", None),
        ("", None),
    ],
)
def test_the_egd_tournament_code_dates_the_players_last_rating(code, day):
    assert egd_tournament_day(code) == day


@needs(EGD_2013, EGD_2018)
def test_an_older_egd_list_after_a_later_one_sets_no_rank_back():
    fan = factories.player("fan-hui", "8d", full_name="Fan Hui", egd_pin="12633346")
    # 7d on both lists: unchanged by the later one, set back to 6d by the older one
    factories.player("thomas-debarre", "7d", full_name="Thomas Debarre")
    later = preview_of(EGD_2018)
    assert row_of(later, "fan-hui").new_rank == parse_rank("2p")
    resync_apply_preview(user=system_user(), preview=later, include_stale=True)

    # before: the list of 2013-10-07 previewed "2p -> 8d" and set it back to 2013
    older = preview_of(EGD_2013)
    row = row_of(older, "fan-hui")
    assert (row.outcome, str(row.current_rank), str(row.new_rank)) == (
        Outcome.OUTDATED,
        "2p",
        "8d",
    )
    assert row.note == (
        "a later list, of 2018-12-27, was applied: this line is of 2013-10-07, older, so it "
        "is not applied"
    )
    thomas = row_of(older, "thomas-debarre")
    assert (thomas.outcome, str(thomas.current_rank), str(thomas.new_rank)) == (
        Outcome.OUTDATED,
        "7d",
        "6d",
    )
    assert older.later_list == date(2018, 12, 27)
    with pytest.raises(ServiceError):
        resync_apply_preview(user=system_user(), preview=older)
    fan.refresh_from_db()
    assert str(fan.national_rank) == "2p"


@needs(EGD_2018)
def test_the_effective_date_is_the_lists_own_date_when_none_is_given():
    factories.player("fan-hui", "8d", full_name="Fan Hui", egd_pin="12633346")
    row = row_of(preview_of(EGD_2018), "fan-hui")
    assert row.effective_date == date(2018, 12, 27)
    assert row.last_rated == date(2016, 2, 13)


@needs(AGA_2014, AGA_2021)
def test_an_aga_line_years_out_of_date_is_shown_and_applied_only_when_ticked():
    thomas = factories.player("thomas-debarre", "7d", full_name="Thomas Debarre")
    # before: "7d -> 2k, by name", neither the rating's date nor the membership shown
    preview = preview_of(AGA_2014, date(2014, 11, 9))
    row = row_of(preview, "thomas-debarre")
    assert (row.outcome, row.last_rated, row.membership, str(row.new_rank)) == (
        Outcome.STALE,
        date(2004, 4, 1),
        "Non",
        "2k",
    )
    assert (
        row.note
        == "last rated on 2004-04-01, 10 years before the list: applied only if ticked below"
    )
    with pytest.raises(ServiceError):
        resync_apply_preview(user=system_user(), preview=preview)
    thomas.refresh_from_db()
    assert str(thomas.national_rank) == "7d"

    # the AGA list of 2021 proposed 7d -> 8d from a rating of 2015
    row = row_of(preview_of(AGA_2021, date(2021, 1, 11)), "thomas-debarre")
    assert (row.outcome, row.last_rated) == (Outcome.STALE, date(2015, 7, 17))

    resync_apply_preview(user=system_user(), preview=preview, include_stale=True)
    assert str(Player.objects.get(pk=thomas.pk).national_rank) == "2k"


@needs(AGA_2014, EGD_2013, EGD_2018)
def test_the_preview_page_shows_each_lines_age_and_the_later_list(client):
    client.force_login(factories.committee_member())
    factories.player("thomas-debarre", "7d", full_name="Thomas Debarre")
    factories.player("fan-hui", "8d", full_name="Fan Hui", egd_pin="12633346")

    def upload(path, effective_date=""):
        with path.open("rb") as file:
            return client.post(
                "/committee/resync/",
                {"list_file": file, "effective_date": effective_date, "note": ""},
            )

    html = upload(AGA_2014, "2014-11-09").content.decode()
    assert "Last rated" in html and "2004-04-01 (Non)" in html
    assert 'name="include_stale"' in html and 'type="checkbox"' in html

    resync_apply_preview(user=system_user(), preview=preview_of(EGD_2018), include_stale=True)

    html = upload(EGD_2013).content.decode()
    assert 'id="later-list"' in html
    assert "resynced with a list of\n        2018-12-27" in html
    assert "older than the last list" in html
