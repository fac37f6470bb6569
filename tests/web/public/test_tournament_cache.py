"""A tournament's crosstable is kept in the cache (players.public.crosstable_cache) and
never shown stale: after every kind of write that shows on it, the page is the one built
afresh, and a page from the cache is byte for byte the one rendered without it."""

from collections.abc import Callable
from datetime import date

import pytest
from django.contrib import admin
from django.contrib.auth.models import AnonymousUser
from django.template import RequestContext, Template
from django.test import RequestFactory, TestCase

from players.admin import PlayerAdmin
from players.models import Player
from players.public import crosstable_cache
from players.public.tables import CrosstableTable
from players.selectors.algorithms import algorithm_or_404
from players.selectors.tournaments import tournament_crosstable, tournaments_rated_since
from players.services.games import game_correct, game_void, record_sheet_submit
from players.services.imports import games_import
from players.services.players import player_merge, player_update
from players.services.privacy import player_erase
from players.web import tournament_cache
from ratings.engine.formats.games import read_games
from ratings.models import CurrentRating, RecomputeState
from ratings.recompute.run import recompute, recompute_pending
from ratings.tasks import recompute_algorithm
from tests import factories
from tests.web.public.test_tournaments import crosstable_rows

pytestmark = [pytest.mark.django_db, pytest.mark.algorithms("sagc", "egf-2021", "gcr")]

URL = "/tournaments/spring-cup/"


@pytest.fixture
def cup(vera):
    """Four players, two rounds, recomputed."""
    ann, ben, cat, dan = (
        factories.player(name, rank, full_name=name.title())
        for name, rank in [("ann", "2k"), ("ben", "3k"), ("cat", "5k"), ("dan", "6k")]
    )
    cup = factories.tournament("spring-cup", "Spring Cup")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(white, black, "W", date(2024, 4, 6), tournament=cup, round=number)
            for white, black, number in [(ann, dan, 1), (ben, cat, 1), (ann, cat, 2), (ben, dan, 2)]
        ],
    )
    recompute_pending()
    return cup


def uncached(client, url: str, monkeypatch) -> bytes:
    """The page built afresh: under a key no request has used."""
    monkeypatch.setattr(tournament_cache, "key_salt", tournament_cache.key_salt + "-fresh")
    try:
        return client.get(url).content
    finally:
        monkeypatch.undo()


def test_a_page_from_the_cache_is_the_page_built_afresh(
    client, cup, monkeypatch, django_assert_num_queries
):
    with django_assert_num_queries(
        6
    ):  # tournament, fingerprint, players, games, history, recompute notice
        built = client.get(URL).content
    with django_assert_num_queries(3):  # tournament, fingerprint, recompute notice
        kept = client.get(URL).content
    with django_assert_num_queries(6):  # each algorithm its own entry, recompute notice
        client.get(URL + "?algorithm=sagc")
    with django_assert_num_queries(3):  # with the recompute notice's state
        kept_sagc = client.get(URL + "?algorithm=sagc").content

    assert kept == built
    assert kept_sagc != kept
    assert kept_sagc == uncached(client, URL + "?algorithm=sagc", monkeypatch)
    assert [row[2] for row in crosstable_rows(kept.decode())] == ["Ann", "Ben", "Cat", "Dan"]


def test_the_kept_table_is_what_django_tables2_renders(rf: RequestFactory, cup):
    request = rf.get(URL)
    request.user = AnonymousUser()
    algorithm = algorithm_or_404("egf-2021")
    table = CrosstableTable(tournament_crosstable(cup, "egf-2021"), algorithm=algorithm)
    rendered = Template("{% load django_tables2 %}{% render_table table %}").render(
        RequestContext(request, {"table": table})
    )

    page = crosstable_cache.crosstable_page(cup, algorithm)
    kept = crosstable_cache.crosstable_page(cup, algorithm)

    assert page.table_html == rendered
    assert kept == page
    assert (page.game_count, page.player_count) == (4, 4)


def enter_a_game(cup, vera, connie):
    ann, cat = Player.objects.get(username="ann"), Player.objects.get(username="cat")
    record_sheet_submit(
        user=vera, games=[factories.game(cat, ann, "W", date(2024, 4, 7), tournament=cup, round=3)]
    )


def correct_a_game(cup, vera, connie):
    game = cup.games.get(round=1, white__username="ann")
    changes = factories.game(game.white, game.black, "B", game.date, tournament=cup, round=1)
    game_correct(user=vera, game_id=game.pk, version=game.version, changes=changes)


def void_a_game(cup, vera, connie):
    game = cup.games.get(round=2, white__username="ben")
    game_void(user=vera, game_id=game.pk, version=game.version, reason="never played")


def import_a_game(cup, vera, connie):
    text = "date,white,black,white_rank,black_rank,winner,tournament,round\n"
    text += "2024-04-07,dan,cat,6k,5k,W,spring-cup,3\n"
    games_import(user=connie, records=read_games(text).records)


def merge_a_player(cup, vera, connie):
    daniel = factories.player("daniel", "6k", full_name="Daniel")
    player_merge(user=connie, keep=daniel, duplicate=Player.objects.get(username="dan"))


def edit_a_players_name_country_and_club(cup, vera, connie):
    player_update(
        user=connie,
        player=Player.objects.get(username="cat"),
        full_name="Catherine Wu",
        country="ZA",
        federation_club="CTGo",
    )


def edit_a_player_in_the_admin(cup, vera, connie):
    """What the admin's change form does (``ModelAdmin.save_model``): the model's save."""
    ben = Player.objects.get(username="ben")
    ben.federation_club = "Admin"
    ben.save()


def erase_a_player(cup, vera, connie):
    player_erase(user=connie, player=Player.objects.get(username="ben"))


def recompute_with_an_earlier_game(cup, vera, connie):
    """A game before the tournament (another one's) changes the values before and after
    once it is recomputed; the page changes with the recompute, not before."""
    ann, eve = Player.objects.get(username="ann"), factories.player("eve", "1d")
    record_sheet_submit(user=vera, games=[factories.game(eve, ann, "B", date(2024, 3, 1))])
    recompute_pending()


WRITES = [
    enter_a_game,
    correct_a_game,
    void_a_game,
    import_a_game,
    merge_a_player,
    edit_a_players_name_country_and_club,
    edit_a_player_in_the_admin,
    erase_a_player,
    recompute_with_an_earlier_game,
]


@pytest.mark.parametrize("write", WRITES, ids=[write.__name__ for write in WRITES])
def test_the_page_shows_every_write_at_once(
    client, cup, vera, monkeypatch, write: Callable, django_assert_num_queries
):
    before = client.get(URL).content
    with django_assert_num_queries(3):  # kept, recompute notice
        assert client.get(URL).content == before

    write(cup, vera, factories.committee_member())
    after = client.get(URL).content

    assert after != before
    assert after == uncached(client, URL, monkeypatch)


def test_a_recompute_shows_its_values_and_an_entry_waiting_for_it_does_not_hide_them(
    client, cup, vera
):
    def ann_before_after() -> list[str]:
        rows = crosstable_rows(client.get(URL).content.decode())
        return next(row for row in rows if row[2] == "Ann")[-3:]

    kept = ann_before_after()
    ann, eve = Player.objects.get(username="ann"), factories.player("eve", "1d")
    record_sheet_submit(user=vera, games=[factories.game(eve, ann, "B", date(2024, 3, 1))])
    assert ann_before_after() == kept
    recompute_pending()
    assert ann_before_after() != kept


API_URL = "/api/v1/tournaments/spring-cup/"
# What the API's games show (usernames, not names, countries, clubs or rating values).
API_WRITES = [
    enter_a_game,
    correct_a_game,
    void_a_game,
    import_a_game,
    merge_a_player,
    erase_a_player,
]


@pytest.mark.parametrize("write", WRITES, ids=[write.__name__ for write in WRITES])
def test_the_api_document_shows_every_write_at_once(
    client, cup, vera, monkeypatch, write: Callable, django_assert_num_queries
):
    before = client.get(API_URL).content
    with django_assert_num_queries(2):  # the tournament, its fingerprint
        assert client.get(API_URL).content == before

    write(cup, vera, factories.committee_member())
    after = client.get(API_URL).content

    assert after == uncached(client, API_URL, monkeypatch)
    assert (after != before) == (write in API_WRITES)


def test_the_api_documents_urls_follow_the_host_asked(client, cup, settings):
    settings.ALLOWED_HOSTS = ["testserver", "ratings.example.org"]
    here = client.get(API_URL).json()
    there = client.get(API_URL, HTTP_HOST="ratings.example.org").json()

    assert here["games"][0]["url"].startswith("http://testserver/")
    assert there["games"][0]["url"].startswith("http://ratings.example.org/")


# --- Warmed by the worker: the first visitor after a write finds the page kept -----------


def as_the_worker_runs_it(write: Callable[[], object]) -> None:
    """``write``, then what its commit queues (recomputes, warming), in-process as the
    worker runs them. The fixtures recompute in place (``recompute_pending``), leaving
    the tasks their entries queued (on a commit no test makes) marked queued: cleared
    first, or the write would queue none."""
    RecomputeState.objects.update(queued_at=None)
    with TestCase.captureOnCommitCallbacks(execute=True):
        write()


@pytest.fixture
def builds(monkeypatch) -> list[tuple[str, str]]:
    """The crosstables built from here on, as (tournament code, algorithm)."""
    built: list[tuple[str, str]] = []
    real = crosstable_cache.tournament_crosstable

    def recording(tournament, algorithm):
        built.append((tournament.code, algorithm))
        return real(tournament, algorithm)

    monkeypatch.setattr(crosstable_cache, "tournament_crosstable", recording)
    return built


def enter_an_earlier_game(cup, vera, connie):
    """A game before the tournament (another one's): the recompute moves its values."""
    ann, eve = Player.objects.get(username="ann"), factories.player("eve", "1d")
    record_sheet_submit(user=vera, games=[factories.game(eve, ann, "B", date(2024, 3, 1))])


# The writes of WRITES as the site makes them, each followed by what its commit queues
# (the admin's edit through the admin below).
WARMED_WRITES = [
    enter_a_game,
    correct_a_game,
    void_a_game,
    import_a_game,
    merge_a_player,
    edit_a_players_name_country_and_club,
    erase_a_player,
    enter_an_earlier_game,
]


@pytest.mark.parametrize("write", WARMED_WRITES, ids=[write.__name__ for write in WARMED_WRITES])
def test_the_first_request_after_a_write_and_its_recompute_is_a_hit(
    client,
    cup,
    vera,
    monkeypatch,
    builds,
    write: Callable,
    django_assert_num_queries,
):
    before = {tab: client.get(URL + tab).content for tab in ("", "?algorithm=sagc")}

    # What commits queues: the recomputes, or the warming of an edited player's pages;
    # in-process here, as the worker runs them.
    as_the_worker_runs_it(lambda: write(cup, vera, factories.committee_member()))
    builds.clear()
    after = {}
    for tab in ("", "?algorithm=sagc"):
        with django_assert_num_queries(3):  # tournament, fingerprint, recompute notice
            after[tab] = client.get(URL + tab).content
    assert builds == []

    for tab in ("", "?algorithm=sagc"):  # the new values, as the page builds them
        assert after[tab] != before[tab]
        assert after[tab] == uncached(client, URL + tab, monkeypatch)


@pytest.mark.parametrize(("language", "header"), [("fr", "> Joueur <"), ("af", "> Speler <")])
def test_a_visitor_in_another_language_finds_the_table_warmed_in_it(
    client, cup, vera, builds, monkeypatch, django_assert_num_queries, language, header
):
    as_the_worker_runs_it(lambda: correct_a_game(cup, vera, None))
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    builds.clear()

    with django_assert_num_queries(3):  # tournament, fingerprint, recompute notice
        html = client.get(URL).content

    assert builds == [], "a hit"
    headers = " ".join(html.decode().split())
    assert header in headers and "> Player <" not in headers
    assert html == uncached(client, URL, monkeypatch)


def test_the_warming_reads_each_table_once_for_all_the_languages(cup, vera, builds):
    as_the_worker_runs_it(lambda: correct_a_game(cup, vera, None))

    assert sorted(builds) == [("spring-cup", "egf-2021"), ("spring-cup", "sagc")]


def test_a_recompute_warms_the_tournaments_it_rewrote_and_leaves_the_earlier_ones(
    cup, vera, builds
):
    ann, ben = Player.objects.get(username="ann"), Player.objects.get(username="ben")
    winter = factories.tournament("winter-cup", "Winter Cup")
    summer = factories.tournament("summer-cup", "Summer Cup")
    games = [
        factories.game(ann, ben, "W", date(2024, 1, 6), tournament=winter, round=1),
        factories.game(ben, ann, "W", date(2024, 7, 6), tournament=summer, round=1),
    ]
    record_sheet_submit(user=vera, games=games)
    recompute_pending()
    builds.clear()

    # A club game between the spring and summer cups: every algorithm replays from its
    # day on, rewriting the summer cup's values only.
    club_game = factories.game(ann, ben, "B", date(2024, 5, 1))
    as_the_worker_runs_it(lambda: record_sheet_submit(user=vera, games=[club_game]))

    assert sorted(builds) == [("summer-cup", "egf-2021"), ("summer-cup", "sagc")]


def test_a_recompute_warms_at_most_the_limit_the_tournament_at_its_start_first(
    cup, vera, builds, monkeypatch
):
    ann, ben = Player.objects.get(username="ann"), Player.objects.get(username="ben")
    summer = factories.tournament("summer-cup", "Summer Cup")
    record_sheet_submit(
        user=vera,
        games=[factories.game(ben, ann, "W", date(2024, 7, 6), tournament=summer, round=1)],
    )
    recompute_pending()
    builds.clear()
    monkeypatch.setattr(crosstable_cache, "WARM_LIMIT", 1)

    # A game of the spring cup, before the summer cup: both are rewritten.
    as_the_worker_runs_it(lambda: correct_a_game(cup, vera, None))

    assert builds == [("spring-cup", "sagc"), ("spring-cup", "egf-2021")]


def test_the_recompute_task_leaves_the_warming_to_a_task_queued_on_its_commit(cup, vera, builds):
    RecomputeState.objects.update(queued_at=None)
    with TestCase.captureOnCommitCallbacks(execute=False) as entered:
        correct_a_game(cup, vera, None)
    builds.clear()

    with TestCase.captureOnCommitCallbacks(execute=False) as queued:
        for algorithm in ("sagc", "egf-2021", "gcr"):
            recompute_algorithm(algorithm)
    # The recomputes are done and built nothing: the pages are another task's.
    assert builds == []
    assert not RecomputeState.objects.exclude(dirty_from=None).exists()
    assert entered  # the recomputes' own tasks, run by hand above

    for callback in queued:
        callback()
    assert sorted(builds) == [("spring-cup", "egf-2021"), ("spring-cup", "sagc")]


def test_a_table_that_fails_to_build_is_logged_and_the_recompute_stands(
    cup, vera, monkeypatch, caplog
):
    def failing(tournament, algorithm):
        raise RuntimeError("no table today")

    monkeypatch.setattr(crosstable_cache, "tournament_crosstable", failing)
    as_the_worker_runs_it(lambda: correct_a_game(cup, vera, None))

    assert not RecomputeState.objects.exclude(dirty_from=None, last_error="").exists()
    assert "could not warm the crosstable of spring-cup under sagc" in caplog.text
    assert "could not warm the crosstable of spring-cup under egf-2021" in caplog.text


def test_an_admin_edit_of_a_player_warms_their_tournaments(rf: RequestFactory, cup, builds, connie):
    ben = Player.objects.get(username="ben")
    ben.federation_club = "Admin"
    request = rf.post("/admin/")
    request.user = connie
    as_the_worker_runs_it(
        lambda: PlayerAdmin(Player, admin.site).save_model(request, ben, form=None, change=True)
    )

    assert sorted(builds) == [("spring-cup", "egf-2021"), ("spring-cup", "sagc")]


# --- A recompute moves the keys of the tournaments it rewrote, and only theirs ----------

TABS = ("", "?algorithm=sagc")  # EGF's (rated as blocks) and SAGC's


def club_game_with_ann(vera, day: date) -> None:
    """A club game of Ann's (no tournament) on ``day``, against a new player."""
    ann, eve = Player.objects.get(username="ann"), factories.player("eve", "1d")
    record_sheet_submit(user=vera, games=[factories.game(eve, ann, "B", day)])


def ann_before_and_after(html: bytes) -> list[str]:
    row = next(row for row in crosstable_rows(html.decode()) if "Ann" in row)
    return row[-3:]


def test_a_game_entered_after_the_tournaments_last_day_leaves_its_page_kept_and_current(
    client, cup, vera, monkeypatch, builds, django_assert_num_queries
):
    before = {tab: client.get(URL + tab).content for tab in TABS}
    finished = dict(RecomputeState.objects.values_list("algorithm", "last_finished"))
    ratings = dict(
        CurrentRating.objects.filter(player__username="ann").values_list("algorithm", "value")
    )
    builds.clear()

    # Tonight's club game, after everything else: each algorithm replays from its day.
    as_the_worker_runs_it(lambda: club_game_with_ann(vera, date(2024, 5, 1)))
    after = {}
    for tab in TABS:
        with django_assert_num_queries(3):  # tournament, fingerprint, recompute notice
            after[tab] = client.get(URL + tab).content

    assert builds == []  # neither the worker nor the requests built it
    for tab in TABS:
        assert after[tab] == before[tab]
        assert after[tab] == uncached(client, URL + tab, monkeypatch)
    # The recomputes ran and moved Ann's ratings, after the tournament.
    for algorithm, value in ratings.items():
        assert RecomputeState.objects.get(algorithm=algorithm).last_finished > finished[algorithm]
        assert CurrentRating.objects.get(algorithm=algorithm, player__username="ann").value != value


@pytest.mark.parametrize(
    "day",
    [date(2024, 3, 1), date(2024, 4, 6)],
    ids=["a_game_before_the_tournament", "a_game_within_the_tournament"],
)
def test_a_back_dated_game_rebuilds_the_page_with_the_new_values(
    client, cup, vera, connie, monkeypatch, builds, day
):
    enter_a_game(cup, vera, connie)  # the tournament goes on to 2024-04-07
    recompute_pending()
    before = {tab: client.get(URL + tab).content for tab in TABS}
    builds.clear()

    club_game_with_ann(vera, day)
    recompute_pending()  # no warming: the request finds the key moved
    after = {tab: client.get(URL + tab).content for tab in TABS}

    assert sorted(builds) == [("spring-cup", "egf-2021"), ("spring-cup", "sagc")]
    for tab in TABS:
        assert ann_before_and_after(after[tab]) != ann_before_and_after(before[tab])
        assert after[tab] == uncached(client, URL + tab, monkeypatch)


def test_a_full_recompute_rebuilds_every_tournament_page(client, cup, vera, monkeypatch, builds):
    ann, ben = Player.objects.get(username="ann"), Player.objects.get(username="ben")
    winter = factories.tournament("winter-cup", "Winter Cup")
    record_sheet_submit(
        user=vera,
        games=[factories.game(ann, ben, "W", date(2024, 1, 6), tournament=winter, round=1)],
    )
    recompute_pending()
    urls = [URL + tab for tab in TABS] + ["/tournaments/winter-cup/" + tab for tab in TABS]
    before = {url: client.get(url).content for url in urls}
    builds.clear()

    for algorithm in ("sagc", "egf-2021"):
        recompute(algorithm, full=True)
    after = {url: client.get(url).content for url in urls}

    assert sorted(builds) == [
        ("spring-cup", "egf-2021"),
        ("spring-cup", "sagc"),
        ("winter-cup", "egf-2021"),
        ("winter-cup", "sagc"),
    ]
    for url in urls:  # the same values, replayed from the start
        assert after[url] == before[url] == uncached(client, url, monkeypatch)


def test_a_game_voided_after_the_tournaments_last_valid_day_leaves_it_current(
    client, cup, vera, monkeypatch, builds, django_assert_num_queries
):
    ann, cat = Player.objects.get(username="ann"), Player.objects.get(username="cat")
    record_sheet_submit(
        user=vera, games=[factories.game(cat, ann, "W", date(2024, 4, 20), tournament=cup, round=3)]
    )
    recompute_pending()
    late = cup.games.get(round=3)
    game_void(user=vera, game_id=late.pk, version=late.version, reason="never played")
    # Built before the recompute: the voided game's rows stand until it replays from
    # their day, after every valid game's.
    stale = {tab: client.get(URL + tab).content for tab in TABS}
    builds.clear()

    for algorithm in ("sagc", "egf-2021", "gcr"):
        # The worker's task: the recompute, then, once it commits, the warming.
        with TestCase.captureOnCommitCallbacks(execute=True):
            recompute_algorithm(algorithm)
    assert sorted(builds) == [("spring-cup", "egf-2021"), ("spring-cup", "sagc")]
    after = {}
    for tab in TABS:
        with django_assert_num_queries(3):  # tournament, fingerprint, recompute notice
            after[tab] = client.get(URL + tab).content

    for tab in TABS:  # without the voided game, as the page builds them
        assert ann_before_and_after(after[tab]) != ann_before_and_after(stale[tab])
        assert after[tab] == uncached(client, URL + tab, monkeypatch)


def test_tournaments_rated_since_a_day_are_those_with_games_from_it(cup):
    winter = factories.tournament(
        "winter-cup", first_game=date(2024, 1, 6), last_game=date(2024, 1, 7)
    )
    factories.tournament("summer-cup", first_game=date(2024, 7, 6), last_game=date(2024, 7, 7))
    factories.tournament("autumn-cup", first_game=date(2024, 10, 5), last_game=date(2024, 10, 5))
    factories.tournament("no-games-yet")

    def codes(day, limit=10):
        return [t.code for t in tournaments_rated_since(day, limit=limit)]

    assert codes(date(2024, 4, 6)) == ["spring-cup", "autumn-cup", "summer-cup"]
    assert codes(date(2024, 5, 1)) == ["autumn-cup", "summer-cup"]
    assert codes(date(2024, 5, 1), limit=1) == ["autumn-cup"]
    assert codes(None) == ["autumn-cup", "summer-cup", "spring-cup", winter.code]
