"""A committee rank adjustment for one player (up or down, with a reason)."""

from datetime import date, timedelta

import pytest
from django.utils import timezone

from players.models import Adjustment
from players.services.adjustments import adjustment_apply
from players.services.games import record_sheet_submit
from ratings.engine.ranks import parse_rank
from ratings.models import RatingHistory
from ratings.recompute.run import recompute_pending
from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]


@pytest.fixture
def thandi():
    thandi = factories.player("thandi", "5k", full_name="Thandi Nkosi")
    pieter = factories.player("pieter", "12k")
    record_sheet_submit(
        user=factories.volunteer(), games=[factories.game(thandi, pieter, "W", date(2024, 3, 1))]
    )
    recompute_pending()
    return thandi


def adjust(client, username="thandi", **data):
    fields = {
        "date": "2024-04-01",
        "new_rank": "3k",
        "algorithm": "",
        "value": "",
        "reason": "committee",
        "comment": "",
    }
    return client.post(f"/committee/players/{username}/adjust/", fields | data)


def test_the_page_shows_the_players_ranks_and_the_form(
    client, connie, thandi, django_assert_max_num_queries
):
    adjustment_apply(user=connie, player=thandi, date=date(2024, 2, 1), new_rank=parse_rank("6k"))

    with django_assert_max_num_queries(12):
        response = client.get("/committee/players/thandi/adjust/")

    html = response.content.decode()
    assert response.status_code == 200
    assert "<dt>National</dt><dd>5k</dd>" in html
    assert "<dt>SAGC</dt>" in html
    assert f'name="date" value="{timezone.localdate():%Y-%m-%d}"' in html
    assert 'data-player="thandi"' in html, "the earlier adjustment is listed"


def test_an_adjustment_is_applied_and_the_log_shows_it(client, connie, thandi):
    response = adjust(client, new_rank="2k", comment="won the club championship")
    recompute_pending()  # what the task queued on commit does

    assert response.status_code == 302
    assert response["Location"] == "/committee/players/thandi/adjust/"
    adjustment = Adjustment.objects.get()
    assert (adjustment.player, adjustment.date, str(adjustment.new_rank)) == (
        thandi,
        date(2024, 4, 1),
        "2k",
    )
    assert (adjustment.algorithm, adjustment.reason, adjustment.created_by) == (
        "",
        "committee",
        connie,
    )
    row = RatingHistory.objects.get(algorithm="sagc", adjustment=adjustment)
    assert row.player == row.opponent == thandi
    assert str(row.rank_after) == "2k"
    log = client.get("/players/thandi/").content.decode()
    assert "won the club championship" in log


def test_an_adjustment_down_for_one_algorithm_with_a_value(client, connie, thandi):
    adjust(client, new_rank="8k", algorithm="egf-2021", value="1250.5", reason="resync")

    adjustment = Adjustment.objects.get()
    assert (adjustment.algorithm, str(adjustment.new_rank), str(adjustment.value)) == (
        "egf-2021",
        "8k",
        "1250.5000",
    )
    assert adjustment.reason == "resync"


def test_a_value_needs_one_algorithm(client, connie, thandi):
    response = adjust(client, value="100")

    assert response.status_code == 200
    assert response.context["form"].errors == {
        "value": [
            "A value is in one algorithm's scale: choose that algorithm, or leave the value empty."
        ]
    }
    assert not Adjustment.objects.exists()


def test_bad_input_is_shown_at_its_field_and_nothing_is_stored(client, connie, thandi):
    tomorrow = timezone.localdate() + timedelta(days=1)

    response = adjust(client, new_rank="0k", date=tomorrow.isoformat(), algorithm="elo")

    errors = response.context["form"].errors
    assert errors["new_rank"] == ["'0k' is not a rank: kyu ranks run from 50k to 1k"]
    assert errors["date"] == [f"{tomorrow} is in the future."]
    assert "elo is not an algorithm that an adjustment resets" in errors["algorithm"][0]
    assert not Adjustment.objects.exists()


def test_an_unknown_player_has_no_adjustment_page(client, connie):
    assert client.get("/committee/players/nobody/adjust/").status_code == 404


def test_the_chooser_opens_a_players_page_by_username_in_any_case(client, connie, thandi):
    response = client.get("/committee/players/adjust/", {"player": "Thandi"})
    unknown = client.get("/committee/players/adjust/", {"player": "nobody"})

    assert response["Location"] == "/committee/players/thandi/adjust/"
    assert unknown.context["form"].errors == {"player": ["no player 'nobody'"]}
    assert '<option value="thandi">Thandi Nkosi</option>' in unknown.content.decode()


def test_the_form_says_gcr_ignores_adjustments_and_does_not_offer_it_alone(client, connie, thandi):
    form = client.get("/committee/players/thandi/adjust/").context["form"]
    posted = adjust(client, algorithm="gcr")

    algorithm = form.fields["algorithm"]
    assert algorithm.help_text == (
        "“All algorithms” resets every algorithm but gcr, which ignores adjustments: it rates "
        "the whole table of games at once and keeps its own rank."
    )
    assert "gcr" not in dict(algorithm.choices)
    assert "sagc" in dict(algorithm.choices)
    assert posted.context["form"].errors["algorithm"] == [
        "gcr is not an algorithm that an adjustment resets: choose one of those offered, "
        "or all algorithms."
    ]
    assert not Adjustment.objects.exists()


def test_an_adjustment_of_all_algorithms_confirms_that_gcr_keeps_its_own_rank(
    client, connie, thandi
):
    one = adjust(client, new_rank="1k", algorithm="sagc")
    assert "gcr" not in " ".join(str(message) for message in one.wsgi_request._messages)

    every = adjust(client, new_rank="2k", algorithm="")

    shown = [str(message) for message in every.wsgi_request._messages]
    assert shown[-1] == "gcr keeps its own rank for thandi: it ignores adjustments."
