"""/api/v1/: the read-only JSON API (players/api/views.py, docs/api.md): each endpoint's
fields and values, filters, pagination, the error shape, caching headers, queries
that do not grow with the rows, and no query string that makes it fail."""

from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction
from urllib.parse import urlencode

import pytest
from django.test import Client
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from players.models import Game, Player
from players.services.adjustments import adjustment_apply
from players.services.games import game_void, record_sheet_submit
from ratings.engine.ranks import parse_rank
from ratings.models import CurrentRating, RatingHistory, RatingSnapshot
from tests import factories

ALGORITHMS = ["sagc", "egf-2021", "gcr"]

pytestmark = [pytest.mark.django_db, pytest.mark.algorithms(*ALGORITHMS)]

PLAYER_FIELDS = [
    "username",
    "full_name",
    "club",
    "national_rank",
    "entry_rank",
    "active",
    "last_updated",
    "ratings",
    "url",
]
GAME_FIELDS = [
    "id",
    "seq",
    "date",
    "round",
    "white",
    "black",
    "white_rank",
    "black_rank",
    "handicap",
    "komi",
    "winner",
    "colour_given",
    "status",
    "board_size",
    "time_minutes",
    "tournament",
    "comment",
    "void",
    "url",
]
HISTORY_FIELDS = [
    "date",
    "kind",
    "game_id",
    "adjustment_id",
    "opponent",
    "opponent_rank",
    "colour",
    "colour_given",
    "handicap",
    "komi",
    "winner",
    "result",
    "status",
    "tournament",
    "round",
    "comment",
    "rank_before",
    "value_before",
    "change",
    "value_after",
    "rank_after",
    "factors",
    "skipped",
    "void",
]
TOURNAMENT_FIELDS = [
    "code",
    "name",
    "tournament_class",
    "start_date",
    "end_date",
    "first_game",
    "last_game",
    "player_count",
    "game_count",
    "url",
]
PAGE_FIELDS = ["count", "page", "page_size", "next", "previous", "results"]


def get(client, url: str, status: int = 200) -> dict:
    response = client.get(url)
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json; charset=utf-8"
    return response.json()


def error_of(client, url: str, status: int) -> dict:
    """The error object of a refused request, checked for its shape."""
    data = get(client, url, status)
    assert list(data) == ["error"]
    assert list(data["error"]) == ["field", "message"]
    assert data["error"]["message"]
    return data["error"]


class World:
    """SPEC section 4's example, a tournament, a voided game and a player who never
    played; the ratings recomputed."""

    def __init__(self, vera, connie):
        self.durban = factories.club("Durban Go Club")
        self.ann = factories.player("ann", "12k", full_name="Ann Smit")
        self.ben = factories.player("ben", "14k", full_name="Ben Botha", club=self.durban)
        self.zoe = factories.player("zoe", "5k", full_name="Zoë Ćosić", club=self.durban)
        self.dan = factories.player("dan", "20k", full_name="Dan Idle", active=False)
        self.adjustment = adjustment_apply(
            user=connie,
            player=self.ben,
            date=date(2024, 1, 1),
            new_rank=parse_rank("14k"),
            value=Decimal(-100),
            algorithm="sagc",
            comment="resync with the national list",
        )
        # 14k at -100 loses at differential 0, handicap factor 0.9: -319.5 -> -320
        (self.spec_game,) = factories.play(
            vera,
            factories.game(
                self.ann, self.ben, "W", date(2024, 1, 10), handicap=2, komi=0.5, comment="ok"
            ),
        )
        (self.voided,) = factories.play(
            vera, factories.game(self.ann, self.zoe, "B", date(2024, 2, 1))
        )
        game_void(user=vera, game_id=self.voided.pk, version=self.voided.version, reason="typo")
        self.open = factories.tournament(
            "spring-open",
            "Spring Open",
            egf_class="B",
            start_date=date(2024, 3, 1),
            end_date=date(2024, 3, 2),
        )
        self.round_1, self.round_2 = factories.play(
            vera,
            factories.game(
                self.zoe,
                self.ann,
                "W",
                date(2024, 3, 1),
                tournament=self.open,
                round=1,
                status="tournament",
                white_rank=parse_rank("5k"),
                black_rank=parse_rank("12k"),
            ),
            factories.game(
                self.ben, self.zoe, "D", date(2024, 3, 2), komi=7, tournament=self.open, round=2
            ),
        )
        (self.free_game,) = factories.play(
            vera, factories.game(self.zoe, self.ann, "B", date(2024, 4, 5), status="free")
        )
        for game in (self.spec_game, self.round_1, self.round_2, self.free_game):
            game.refresh_from_db()


@pytest.fixture
def world(vera, connie) -> World:
    return World(vera, connie)


# --- the index ------------------------------------------------------------------------------


def test_the_index_names_the_version_the_algorithms_and_every_endpoint(client, world):
    data = get(client, "/api/v1/")

    assert data["api_version"] == "1"
    assert [algorithm["name"] for algorithm in data["algorithms"]] == ALGORITHMS
    assert data["algorithms"][0] == {
        "name": "sagc",
        "title": "SAGC index",
        "primary": True,
        "values": "integer",
        "history": "per_game",
        "recompute_pending_from": None,
    }
    assert data["algorithms"][1]["values"] == "float"
    assert data["algorithms"][2]["history"] == "month_end"
    assert data["endpoints"] == {
        "players": "http://testserver/api/v1/players/",
        "player": "http://testserver/api/v1/players/{username}/",
        "player_history": "http://testserver/api/v1/players/{username}/history/",
        "games": "http://testserver/api/v1/games/",
        "game": "http://testserver/api/v1/games/{id}/",
        "tournaments": "http://testserver/api/v1/tournaments/",
        "tournament": "http://testserver/api/v1/tournaments/{code}/",
    }


def test_the_index_says_from_when_a_recompute_is_pending(client, vera):
    ann, ben = factories.player("ann"), factories.player("ben")
    # Inside the test's transaction the queued recompute never runs: the mark stays.
    record_sheet_submit(user=vera, games=[factories.game(ann, ben, on=date(2024, 5, 6))])

    data = get(client, "/api/v1/")

    assert {a["name"]: a["recompute_pending_from"] for a in data["algorithms"]} == dict.fromkeys(
        ALGORITHMS, "2024-05-06"
    )


# --- players ----------------------------------------------------------------------------------


def test_the_player_list_gives_each_player_with_a_rating_per_algorithm(client, world):
    data = get(client, "/api/v1/players/")

    assert list(data) == PAGE_FIELDS
    assert data["count"] == 4
    assert [player["username"] for player in data["results"]] == ["ann", "ben", "dan", "zoe"]
    ben = data["results"][1]
    assert list(ben) == PLAYER_FIELDS
    egf = CurrentRating.objects.get(algorithm="egf-2021", player=world.ben)
    gcr = CurrentRating.objects.get(algorithm="gcr", player=world.ben)
    assert ben == {
        "username": "ben",
        "full_name": "Ben Botha",
        "club": {"id": world.durban.pk, "name": "Durban Go Club"},
        "national_rank": "14k",
        "entry_rank": "14k",
        "active": True,
        "last_updated": "2024-03-02",
        "ratings": {
            "sagc": {"rank": "14k", "value": -420, "games": 2},
            "egf-2021": {"rank": str(egf.rank), "value": egf.value, "games": egf.games},
            "gcr": {"rank": str(gcr.rank), "value": gcr.value, "games": gcr.games},
        },
        "url": "http://testserver/api/v1/players/ben/",
    }


def test_ratings_are_integers_for_sagc_and_full_precision_floats_otherwise(client, world):
    content = client.get("/api/v1/players/ben/").content.decode()
    ratings = json.loads(content)["ratings"]

    assert '"value": -420,' in content  # not -420.0
    assert isinstance(ratings["sagc"]["value"], int)
    egf = CurrentRating.objects.get(algorithm="egf-2021", player=world.ben).value
    assert egf != round(egf, 6)  # a rating with more digits than a page shows
    assert repr(egf) in content


def test_a_player_no_algorithm_rated_yet_has_null_ratings(client, world):
    data = get(client, "/api/v1/players/dan/")

    assert data["ratings"] == dict.fromkeys(ALGORITHMS)
    assert data["last_updated"] is None
    assert data["club"] is None
    assert data["active"] is False


def test_names_are_sent_as_utf8_not_escaped(client, world):
    content = client.get("/api/v1/players/zoe/").content

    assert "Zoë Ćosić".encode() in content


def test_the_player_list_filters_by_club_activity_search_and_last_updated(client, world):
    def usernames(query: str) -> list[str]:
        return [
            player["username"] for player in get(client, f"/api/v1/players/?{query}")["results"]
        ]

    assert usernames(f"club={world.durban.pk}") == ["ben", "zoe"]
    assert usernames("active=0") == ["dan"]
    assert usernames("active=true") == ["ann", "ben", "zoe"]
    assert usernames("q=smit") == ["ann"]
    assert usernames("q=BO") == ["ben"]  # username or full name, any case
    assert usernames("since=2024-04-01") == ["ann", "zoe"]
    assert usernames("until=2024-04-01") == ["ben"]
    assert usernames("since=2024-03-02&until=2024-03-02") == ["ben"]
    assert usernames(f"club={world.durban.pk}&since=2024-04-05") == ["zoe"]


def test_the_player_list_refuses_a_bad_club_and_404s_an_unknown_one(client, world):
    assert error_of(client, "/api/v1/players/?club=durban", 400) == {
        "field": "club",
        "message": "'durban' is not a whole number",
    }
    assert error_of(client, "/api/v1/players/?club=999", 404) == {
        "field": "club",
        "message": "no club number 999",
    }
    assert error_of(client, "/api/v1/players/?active=maybe", 400)["field"] == "active"


def test_a_player_has_the_list_fields_and_links(client, world):
    data = get(client, "/api/v1/players/ann/")

    assert list(data) == [*PLAYER_FIELDS, "links"]
    sagc = CurrentRating.objects.get(algorithm="sagc", player=world.ann)
    assert data["ratings"]["sagc"] == {"rank": "12k", "value": int(sagc.value), "games": sagc.games}
    assert data["links"] == {
        "html": "http://testserver/players/ann/",
        "games": "http://testserver/api/v1/games/?player=ann",
        "history": {
            name: f"http://testserver/api/v1/players/ann/history/?algorithm={name}"
            for name in ALGORITHMS
        },
    }


def test_an_unknown_player_is_a_404_in_the_error_shape(client, world):
    assert error_of(client, "/api/v1/players/nobody/", 404) == {
        "field": "username",
        "message": "no player with the username 'nobody'",
    }
    assert error_of(client, "/api/v1/players/nobody/history/", 404)["field"] == "username"
    assert error_of(client, "/api/v1/players/a%00b/", 404)["field"] == "username"


# --- a player's history ----------------------------------------------------------------------


def test_the_history_is_the_record_sheet_newest_first_under_the_primary_algorithm(client, world):
    data = get(client, "/api/v1/players/ben/history/")

    assert list(data) == ["player", "algorithm", "kind", "order", *PAGE_FIELDS]
    assert (data["player"], data["algorithm"], data["kind"], data["order"]) == (
        "ben",
        "sagc",
        "per_game",
        "newest",
    )
    assert data["count"] == 3
    dates = [row["date"] for row in data["results"]]
    assert dates == ["2024-03-02", "2024-01-10", "2024-01-01"]
    game = data["results"][1]
    assert list(game) == HISTORY_FIELDS
    factors = RatingHistory.objects.get(
        algorithm="sagc", player=world.ben, game=world.spec_game
    ).factors
    assert game == {
        "date": "2024-01-10",
        "kind": "game",
        "game_id": world.spec_game.pk,
        "adjustment_id": None,
        "opponent": "ann",
        "opponent_rank": "12k",
        "colour": "B",
        "colour_given": True,
        "handicap": 2,
        "komi": 0.5,
        "winner": "W",
        "result": "lost",
        "status": "normal",
        "tournament": None,
        "round": 0,
        "rank_before": "14k",
        "value_before": -100,
        "change": -320,
        "value_after": -420,
        "rank_after": "14k",
        "comment": "ok",
        "factors": game["factors"],  # below
        "skipped": None,
        "void": False,
    }
    # SAGC stores its factors as exact fractions in strings; the API gives numbers.
    assert factors["handicap_factor"] == "9/10"
    shown = game["factors"]
    assert set(shown) == set(factors)
    assert (shown["handicap_factor"], shown["game_status_factor"]) == (0.9, 1)
    for key in ("level_factor", "opponent_factor", "game_result_factor", "product"):
        assert shown[key] == float(Fraction(factors[key])), key
    for key in ("effective_handicap", "differential", "zone", "result"):
        assert shown[key] == factors[key], key


def test_an_adjustment_row_has_the_player_as_opponent_and_no_game_columns(client, world):
    adjustment = get(client, "/api/v1/players/ben/history/?order=oldest")["results"][0]

    assert adjustment["kind"] == "adjustment"
    assert adjustment["adjustment_id"] == world.adjustment.pk
    assert adjustment["game_id"] is None
    assert adjustment["opponent"] == "ben"
    assert adjustment["status"] == "adjustment"
    assert [adjustment[key] for key in ("colour", "handicap", "komi", "winner", "result")] == [
        None
    ] * 5
    assert (adjustment["value_after"], adjustment["rank_after"]) == (-100, "14k")
    assert adjustment["comment"] == "resync with the national list"


def test_a_tournament_jigo_row_names_the_tournament_round_and_result(client, world):
    jigo = get(client, "/api/v1/players/ben/history/")["results"][0]

    assert (jigo["tournament"], jigo["round"], jigo["winner"], jigo["result"]) == (
        "spring-open",
        2,
        "D",
        "jigo",
    )
    assert (jigo["colour"], jigo["change"]) == ("W", 0)  # a jigo changes no SAGC index


def test_the_history_runs_oldest_first_on_request_and_filters_by_date(client, world):
    def dates(query: str) -> list[str]:
        return [
            row["date"] for row in get(client, f"/api/v1/players/ann/history/?{query}")["results"]
        ]

    assert dates("order=oldest") == ["2024-01-10", "2024-03-01", "2024-04-05"]
    assert dates("") == ["2024-04-05", "2024-03-01", "2024-01-10"]
    assert dates("since=2024-03-01") == ["2024-04-05", "2024-03-01"]
    assert dates("until=2024-03-01&order=oldest") == ["2024-01-10", "2024-03-01"]
    assert dates("since=2024-01-11&until=2024-02-29") == []


def test_another_algorithm_gives_floats_and_names_why_a_game_was_skipped(client, world):
    data = get(client, "/api/v1/players/ann/history/?algorithm=egf-2021")

    assert data["algorithm"] == "egf-2021"
    free, tournament_game, first = data["results"]
    stored = RatingHistory.objects.get(algorithm="egf-2021", player=world.ann, game=world.round_1)
    assert tournament_game["value_after"] == stored.value_after
    assert isinstance(tournament_game["change"], float)
    assert tournament_game["factors"] == stored.factors
    assert free["status"] == "free"
    assert free["skipped"]  # EGF does not rate free games (SPEC section 2)
    assert free["change"] == 0.0
    assert free["value_after"] == free["value_before"]
    assert first["result"] == "won"


def test_gcr_history_is_the_month_end_snapshots(client, world):
    data = get(client, "/api/v1/players/ann/history/?algorithm=gcr&order=oldest")

    assert data["kind"] == "month_end"
    snapshots = RatingSnapshot.objects.filter(algorithm="gcr", player=world.ann).order_by("date")
    assert len(snapshots) >= 2
    assert data["count"] == len(snapshots)
    assert data["results"] == [
        {
            "date": snapshot.date.isoformat(),
            "rank": str(snapshot.rank),
            "value": snapshot.value,
            "games": snapshot.games,
        }
        for snapshot in snapshots
    ]
    since = get(client, "/api/v1/players/ann/history/?algorithm=gcr&since=2024-03-01")
    assert all(row["date"] >= "2024-03-01" for row in since["results"])
    assert 0 < since["count"] < data["count"]


def test_the_history_refuses_an_unknown_algorithm_and_a_bad_order(client, world):
    error = error_of(client, "/api/v1/players/ann/history/?algorithm=elo", 404)
    assert error["field"] == "algorithm"
    assert "'elo'" in error["message"] and "sagc, egf-2021, gcr" in error["message"]
    # registered but not maintained by this site
    assert error_of(client, "/api/v1/players/ann/history/?algorithm=french", 404)["field"] == (
        "algorithm"
    )
    assert error_of(client, "/api/v1/players/ann/history/?order=up", 400) == {
        "field": "order",
        "message": "'up' is not one of newest, oldest",
    }


# --- games -----------------------------------------------------------------------------------


def test_the_game_list_gives_each_game_newest_first(client, world):
    data = get(client, "/api/v1/games/")

    assert data["count"] == 4  # the voided game left out
    assert [game["id"] for game in data["results"]] == [
        world.free_game.pk,
        world.round_2.pk,
        world.round_1.pk,
        world.spec_game.pk,
    ]
    round_1 = data["results"][2]
    assert list(round_1) == GAME_FIELDS
    assert round_1 == {
        "id": world.round_1.pk,
        "seq": world.round_1.seq,
        "date": "2024-03-01",
        "round": 1,
        "white": "zoe",
        "black": "ann",
        "white_rank": "5k",
        "black_rank": "12k",
        "handicap": 0,
        "komi": 6.5,
        "winner": "W",
        "colour_given": True,
        "status": "tournament",
        "board_size": 19,
        "time_minutes": None,
        "tournament": "spring-open",
        "comment": "",
        "void": False,
        "url": f"http://testserver/api/v1/games/{world.round_1.pk}/",
    }
    oldest = get(client, "/api/v1/games/?order=oldest")["results"]
    assert [game["id"] for game in oldest] == [game["id"] for game in reversed(data["results"])]


def test_void_games_are_listed_only_on_request(client, world):
    listed = get(client, "/api/v1/games/?include_void=1")

    assert listed["count"] == 5
    voided = [game for game in listed["results"] if game["void"]]
    assert [game["id"] for game in voided] == [world.voided.pk]
    assert get(client, "/api/v1/games/?include_void=0")["count"] == 4
    assert get(client, f"/api/v1/games/{world.voided.pk}/")["void"] is True


def test_the_game_list_filters_by_player_tournament_status_and_date(client, world):
    def ids(query: str) -> list[int]:
        return [
            game["id"] for game in get(client, f"/api/v1/games/?{query}&order=oldest")["results"]
        ]

    assert ids("player=ben") == [world.spec_game.pk, world.round_2.pk]
    assert ids("tournament=spring-open") == [world.round_1.pk, world.round_2.pk]
    assert ids("status=free") == [world.free_game.pk]
    assert ids("since=2024-03-02") == [world.round_2.pk, world.free_game.pk]
    assert ids("until=2024-01-10") == [world.spec_game.pk]
    assert ids("player=zoe&since=2024-01-01&until=2024-03-01") == [world.round_1.pk]
    assert ids("player=zoe&include_void=yes&until=2024-02-01") == [world.voided.pk]


def test_the_game_list_takes_the_web_searchs_filters_opponent_and_handicap_too(client, world):
    def ids(query: str) -> list[int]:
        return [
            game["id"] for game in get(client, f"/api/v1/games/?{query}&order=oldest")["results"]
        ]

    assert ids("handicap=0") == [world.round_1.pk, world.round_2.pk, world.free_game.pk]
    assert ids("handicap=2") == [world.spec_game.pk]
    assert ids("player=zoe&opponent=ann") == [world.round_1.pk, world.free_game.pk]
    assert ids("opponent=ben") == [world.spec_game.pk, world.round_2.pk]
    # a player named as on the record sheet and the web search: a name in either order
    assert ids("player=Botha+Ben") == ids("player=ben")
    assert ids("player=ben&opponent=Ann+Smit") == [world.spec_game.pk]


def test_the_game_lists_filters_are_the_web_searchs(client, world):
    from players.public.forms import GameSearchForm
    from players.selectors.games_search import FILTER_NAMES, GameFilters

    error = error_of(client, "/api/v1/games/?colour=W", 400)

    assert list(GameSearchForm().fields) == list(FILTER_NAMES)
    assert set(FILTER_NAMES) <= set(GameFilters.__dataclass_fields__)
    assert all(name in error["message"] for name in FILTER_NAMES)


def test_a_name_several_players_share_is_a_400_naming_them(client, world):
    Player.objects.filter(username__in=["ann", "ben"]).update(full_name="Lee Kim")

    error = error_of(client, "/api/v1/games/?player=Kim+Lee", 400)

    assert (
        error["field"] == "player"
        and "fits 2 players: ann (Lee Kim), ben (Lee Kim)" in (error["message"])
    )


def test_the_game_list_refuses_bad_filters(client, world):
    assert error_of(client, "/api/v1/games/?player=nobody", 404) == {
        "field": "player",
        "message": "no player 'nobody'",
    }
    assert error_of(client, "/api/v1/games/?opponent=nobody", 404)["field"] == "opponent"
    assert error_of(client, "/api/v1/games/?handicap=10", 400)["field"] == "handicap"
    assert error_of(client, "/api/v1/games/?handicap=-5", 400)["field"] == "handicap"
    assert error_of(client, "/api/v1/games/?tournament=nope", 404)["field"] == "tournament"
    error = error_of(client, "/api/v1/games/?status=adjustment", 400)
    assert error["field"] == "status" and "free, normal, tournament, internet" in error["message"]
    assert error_of(client, "/api/v1/games/?include_void=2", 400)["field"] == "include_void"


def test_a_game_has_each_players_change_per_algorithm(client, world):
    data = get(client, f"/api/v1/games/{world.spec_game.pk}/")

    assert list(data) == [*GAME_FIELDS, "ratings", "links"]
    assert list(data["ratings"]) == ["sagc", "egf-2021"]  # GCR rates no single game
    ben = RatingHistory.objects.get(algorithm="sagc", game=world.spec_game, player=world.ben)
    assert data["ratings"]["sagc"]["black"] == {
        "rank_before": "14k",
        "value_before": -100,
        "change": -320,
        "value_after": -420,
        "rank_after": "14k",
        "factors": data["ratings"]["sagc"]["black"]["factors"],  # below
        "skipped": None,
    }
    assert data["ratings"]["sagc"]["black"]["factors"]["opponent_factor"] == float(
        Fraction(ben.factors["opponent_factor"])
    )
    assert data["ratings"]["sagc"]["white"]["change"] > 0
    egf = RatingHistory.objects.get(algorithm="egf-2021", game=world.spec_game, player=world.ann)
    assert data["ratings"]["egf-2021"]["white"]["value_after"] == egf.value_after
    assert data["links"] == {
        "white": "http://testserver/api/v1/players/ann/",
        "black": "http://testserver/api/v1/players/ben/",
        "tournament": None,
    }


def test_a_void_game_has_no_ratings_and_an_unknown_one_is_a_404(client, world):
    assert get(client, f"/api/v1/games/{world.voided.pk}/")["ratings"] == {
        "sagc": None,
        "egf-2021": None,
    }
    assert error_of(client, "/api/v1/games/999999/", 404) == {
        "field": "id",
        "message": "no game number 999999",
    }


# --- tournaments -------------------------------------------------------------------------------


def test_the_tournament_list_counts_valid_games_and_players(client, world, vera):
    empty = factories.tournament("winter-cup", "Winter Cup", start_date=date(2023, 7, 1))
    (extra,) = factories.play(
        vera, factories.game(world.ann, world.dan, "W", date(2024, 3, 2), tournament=world.open)
    )
    game_void(user=vera, game_id=extra.pk, version=extra.version, reason="not played")

    data = get(client, "/api/v1/tournaments/")

    assert [row["code"] for row in data["results"]] == ["spring-open", "winter-cup"]
    assert list(data["results"][0]) == TOURNAMENT_FIELDS
    assert data["results"][0] == {
        "code": "spring-open",
        "name": "Spring Open",
        "tournament_class": "B",
        "start_date": "2024-03-01",
        "end_date": "2024-03-02",
        "first_game": "2024-03-01",
        "last_game": "2024-03-02",
        "player_count": 3,
        "game_count": 2,
        "url": "http://testserver/api/v1/tournaments/spring-open/",
    }
    assert data["results"][1]["game_count"] == 0
    assert data["results"][1]["first_game"] is None
    assert data["results"][1]["url"].endswith(f"/tournaments/{empty.code}/")


def test_the_tournament_list_filters_those_overlapping_the_dates(client, world):
    factories.tournament("winter-cup", "Winter Cup", start_date=date(2023, 7, 1))

    def codes(query: str) -> list[str]:
        return [row["code"] for row in get(client, f"/api/v1/tournaments/?{query}")["results"]]

    assert codes("since=2024-03-02") == ["spring-open"]
    assert codes("since=2024-03-03") == []
    assert codes("until=2024-03-01") == ["spring-open", "winter-cup"]
    assert codes("until=2024-02-29") == ["winter-cup"]
    assert codes("since=2023-07-01&until=2023-07-01") == ["winter-cup"]


def test_a_tournament_lists_its_games_by_round(client, world):
    data = get(client, "/api/v1/tournaments/spring-open/")

    assert list(data) == [*TOURNAMENT_FIELDS, "links", "games"]
    assert [game["id"] for game in data["games"]] == [world.round_1.pk, world.round_2.pk]
    assert list(data["games"][0]) == GAME_FIELDS
    assert data["links"] == {
        "html": "http://testserver/tournaments/spring-open/",
        "games": "http://testserver/api/v1/games/?tournament=spring-open",
    }
    assert error_of(client, "/api/v1/tournaments/nope/", 404) == {
        "field": "code",
        "message": "no tournament with the code 'nope'",
    }


# --- what every endpoint shares ----------------------------------------------------------------


def every_url(world: World) -> list[str]:
    return [
        "/api/v1/",
        "/api/v1/players/",
        "/api/v1/players/ann/",
        "/api/v1/players/ann/history/",
        "/api/v1/games/",
        f"/api/v1/games/{world.spec_game.pk}/",
        "/api/v1/tournaments/",
        "/api/v1/tournaments/spring-open/",
    ]


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_every_endpoint_refuses_writes_with_405(method, world):
    # CSRF enforced as in production: the refusal must still be the API's own 405
    client = Client(enforce_csrf_checks=True)
    for url in every_url(world):
        response = getattr(client, method)(url)
        assert response.status_code == 405, url
        assert response["Allow"] == "GET, HEAD"
        assert response.json() == {
            "error": {
                "field": None,
                "message": f"this API is read-only: {method.upper()} is not allowed, use GET",
            }
        }
    assert Game.objects.count() == 5


def test_every_endpoint_answers_anyone_with_public_caching_and_an_etag(client, world):
    for url in every_url(world):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Cache-Control"] == "public, max-age=60"
        assert response["ETag"]
        again = client.get(url, headers={"if-none-match": response["ETag"]})
        assert again.status_code == 304, url
        assert again.content == b""
        assert again["Cache-Control"] == "public, max-age=60"


def test_head_gives_the_headers_without_the_body(client, world):
    response = client.head("/api/v1/games/")

    assert response.status_code == 200
    assert response.content == b""
    assert response["ETag"] == client.get("/api/v1/games/")["ETag"]


def test_errors_are_cacheable_json_too(client, world):
    response = client.get("/api/v1/players/nobody/")

    assert response["Cache-Control"] == "public, max-age=60"
    assert response["Content-Type"] == "application/json; charset=utf-8"


def key(game) -> str:
    return f"{game.date.isoformat()}.{game.round}.{game.seq}"


def test_pages_of_games_link_by_cursor_to_the_next_and_previous_with_the_filters_kept(
    client, world
):
    first = get(client, "/api/v1/games/?order=oldest&page_size=3")

    assert (first["count"], first["count_exact"], first["page"], first["page_size"]) == (
        4, True, 1, 3
    )  # fmt: skip
    assert first["previous"] is None
    assert first["next"] == (
        f"http://testserver/api/v1/games/?order=oldest&page_size=3&after={key(world.round_2)}"
    )
    second = get(client, first["next"])
    assert second["next"] is None and second["page"] is None
    assert second["previous"] == (
        f"http://testserver/api/v1/games/?order=oldest&page_size=3&before={key(world.free_game)}"
    )
    ids = [game["id"] for page in (first, second) for game in page["results"]]
    assert ids == [world.spec_game.pk, world.round_1.pk, world.round_2.pk, world.free_game.pk]
    back = get(client, second["previous"])
    assert [game["id"] for game in back["results"]] == ids[:3] and back["previous"] is None
    assert get(client, "/api/v1/games/")["page_size"] == 50


def test_newest_first_the_next_cursor_is_before_the_pages_oldest_game(client, world):
    first = get(client, "/api/v1/games/?page_size=3")
    second = get(client, first["next"])

    assert first["next"].endswith(f"?page_size=3&before={key(world.round_1)}")
    assert [game["id"] for game in second["results"]] == [world.spec_game.pk]
    assert second["previous"].endswith(f"?page_size=3&after={key(world.spec_game)}")


def test_the_last_page_of_games_is_the_oldest_with_cursor_links_back(client, world):
    last = get(client, "/api/v1/games/?page_size=3&page=last")
    newest_last = get(client, "/api/v1/games/?order=oldest&page_size=3&page=last")

    # a full page, the oldest games: no page number falls on it
    assert [game["id"] for game in last["results"]] == [
        world.round_2.pk, world.round_1.pk, world.spec_game.pk
    ]  # fmt: skip
    assert (last["page"], last["next"]) == (None, None)
    assert last["previous"].endswith(f"?page_size=3&after={key(world.round_2)}")
    back = get(client, last["previous"])
    assert [game["id"] for game in back["results"]] == [world.free_game.pk]
    assert [game["id"] for game in newest_last["results"]] == [
        world.round_1.pk, world.round_2.pk, world.free_game.pk
    ]  # fmt: skip
    assert (
        error_of(client, f"/api/v1/games/?page=last&after={key(world.round_1)}", 400)["field"]
        == "page"
    )


def test_page_numbers_still_page_games_with_page_links(client, world):
    first = get(client, "/api/v1/games/?order=oldest&page_size=3&page=1")

    assert first["next"] == "http://testserver/api/v1/games/?order=oldest&page_size=3&page=2"
    second = get(client, first["next"])
    assert second["previous"] == "http://testserver/api/v1/games/?order=oldest&page_size=3&page=1"
    assert [game["id"] for game in second["results"]] == [world.free_game.pk]
    assert second["next"] is None


def test_the_games_count_stops_at_the_cap_and_says_it_is_not_exact(client, world, monkeypatch):
    from players.selectors import games_search

    monkeypatch.setattr(games_search, "COUNT_CAP", 2)

    page = get(client, "/api/v1/games/")

    assert (page["count"], page["count_exact"], len(page["results"])) == (2, False, 4)


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("before=2024-01-05", "before"),
        ("after=2024-02-30.0.1", "after"),
        ("before=2024-01-01.0.1&after=2024-01-02.0.1", "after"),
        ("page=2&before=2024-01-01.0.1", "page"),
    ],
)
def test_a_bad_cursor_is_refused_naming_the_parameter(client, world, query, field):
    assert error_of(client, f"/api/v1/games/?{query}", 400)["field"] == field


def test_a_page_of_games_by_cursor_is_two_queries_and_no_offset(
    client, world, django_assert_max_num_queries
):
    with django_assert_max_num_queries(3) as queries:
        get(client, f"/api/v1/games/?page_size=1&before={key(world.round_2)}")

    assert not any(" OFFSET " in query["sql"].upper() for query in queries.captured_queries)


def test_every_page_of_a_long_list_is_reached_once(client, vera):
    players = [factories.player(f"p{number:03}") for number in range(23)]

    usernames, url = [], "/api/v1/players/?page_size=5"
    while url:
        page = get(client, url)
        usernames += [player["username"] for player in page["results"]]
        url = page["next"]

    assert usernames == [player.username for player in players]


def test_bad_pages_are_refused_naming_the_parameter(client, world):
    assert error_of(client, "/api/v1/games/?page=2", 404) == {
        "field": "page",
        "message": "page 2 is past the last page (1)",
    }
    assert error_of(client, "/api/v1/games/?page=0", 400)["field"] == "page"
    assert error_of(client, "/api/v1/games/?page=two", 400)["field"] == "page"
    assert error_of(client, "/api/v1/games/?page_size=501", 400) == {
        "field": "page_size",
        "message": "must be between 1 and 500; got 501",
    }
    assert get(client, "/api/v1/games/?page_size=500")["page_size"] == 500
    # an empty list is still one page
    assert get(client, "/api/v1/games/?player=dan")["count"] == 0


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ("since=2024-02-30", "since", "'2024-02-30' is not a valid date: day is out of range"),
        ("until=20240101", "until", "'20240101' is not a date in the form YYYY-MM-DD"),
        ("since=yesterday", "since", "'yesterday' is not a date in the form YYYY-MM-DD"),
        ("since=2024-05-01&until=2024-04-30", "until", "2024-04-30 is before since (2024-05-01)"),
        ("page=1&page=2", "page", "given more than once"),
        # PostgreSQL refuses NUL in a string: it would be a 500 there
        ("player=a%00b", "player", "contains a NUL character"),
    ],
)
def test_bad_dates_and_repeated_parameters_are_400s_naming_the_parameter(
    client, world, query, field, message
):
    error = error_of(client, f"/api/v1/games/?{query}", 400)

    assert error["field"] == field
    assert error["message"].startswith(message)


def test_an_unknown_parameter_is_refused_rather_than_ignored(client, world):
    error = error_of(client, "/api/v1/players/?sinse=2024-01-01", 400)

    assert error["field"] == "sinse"
    assert "active, as_of, club, page, page_size, q, since, until" in error["message"]
    assert error_of(client, "/api/v1/players/ann/?algorithm=sagc", 400)["field"] == "algorithm"


# --- queries: a fixed number, whatever the rows -------------------------------------------------


@pytest.mark.parametrize("count", [5, 50])
def test_the_player_list_takes_three_queries_for_any_number_of_players(
    client, count, django_assert_max_num_queries
):
    club = factories.club()
    players = [factories.player(f"p{number:03}", club=club) for number in range(count)]
    CurrentRating.objects.bulk_create(
        CurrentRating(algorithm=name, player=player, rank=parse_rank("10k"), value=1.5, games=1)
        for player in players
        for name in ALGORITHMS
    )

    with django_assert_max_num_queries(3):  # count, the page, its ratings
        data = get(client, "/api/v1/players/?page_size=500")

    assert len(data["results"]) == count
    assert all(player["ratings"]["gcr"]["value"] == 1.5 for player in data["results"])


@pytest.mark.parametrize("count", [5, 50])
def test_the_game_list_and_a_history_take_fixed_queries_for_any_number_of_games(
    client, vera, count, django_assert_max_num_queries
):
    ann, ben = factories.player("ann"), factories.player("ben")
    tournament = factories.tournament()
    factories.play(
        vera,
        *(
            factories.game(
                ann if number % 2 else ben,
                ben if number % 2 else ann,
                "W",
                date(2024, 1, 1) + timedelta(days=number),
                tournament=tournament if number % 3 else None,
            )
            for number in range(count)
        ),
    )

    with django_assert_max_num_queries(2):  # count, the page
        games = get(client, "/api/v1/games/?page_size=500")
    with django_assert_max_num_queries(3):  # the player, count, the page
        history = get(client, "/api/v1/players/ann/history/?page_size=500")
    with django_assert_max_num_queries(3):  # the player, count, the page
        get(client, "/api/v1/players/ann/history/?algorithm=gcr")
    with django_assert_max_num_queries(3):  # the tournament, its fingerprint, its games
        document = get(client, f"/api/v1/tournaments/{tournament.code}/")
    with django_assert_max_num_queries(2):  # the tournament, its fingerprint: games kept
        assert get(client, f"/api/v1/tournaments/{tournament.code}/") == document
    with django_assert_max_num_queries(2):  # the game, its rows
        get(client, f"/api/v1/games/{games['results'][0]['id']}/")

    assert games["count"] == count
    assert history["count"] == count


# --- no query string makes it fail --------------------------------------------------------------

PARAMETER_NAMES = [
    "page",
    "page_size",
    "since",
    "until",
    "club",
    "active",
    "q",
    "algorithm",
    "order",
    "player",
    "tournament",
    "status",
    "include_void",
]
numbers = st.one_of(st.integers(-5, 600), st.integers(2**62, 10**30)).map(str)
values = st.one_of(
    st.text(max_size=12),
    numbers,
    st.dates().map(date.isoformat),
    st.sampled_from(["0", "1", "yes", "oldest", "newest", "free", "sagc", "gcr", "ann", "2024"]),
)
# Mostly the parameters the endpoints take, so that the checks after the first are
# reached (pages alone too, as a bad filter answers before the page is read);
# sometimes a whole query string of random characters, percent escapes included.
queries = st.one_of(
    st.dictionaries(st.sampled_from(PARAMETER_NAMES), values, max_size=3).map(urlencode),
    st.fixed_dictionaries({}, optional={"page": numbers, "page_size": numbers}).map(urlencode),
    st.text(
        alphabet=st.sampled_from("&=%+;?#/az09_-.\x00é ") | st.characters(codec="utf-8"),
        max_size=30,
    ),
)
paths = st.sampled_from(
    [
        "/api/v1/",
        "/api/v1/players/",
        "/api/v1/players/ann/",
        "/api/v1/players/ann/history/",
        "/api/v1/games/",
        "/api/v1/tournaments/",
        "/api/v1/tournaments/spring-open/",
    ]
)


@hypothesis_settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(path=paths, query=queries)
def test_no_query_string_gives_a_server_error(client, world, path, query):
    response = client.get(f"{path}?{query}")

    assert response.status_code in (200, 400, 404), response.content
    data = response.json()
    if response.status_code != 200:
        assert set(data["error"]) == {"field", "message"}
