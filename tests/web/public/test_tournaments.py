"""/tournaments/ and /tournaments/<code>/: the list with its counts, and a tournament's
crosstable with each player's change under the EGF GoR (or another algorithm)."""

import re
from datetime import date, timedelta

import pytest

from players.models import Player
from players.services.games import game_correct, game_void, record_sheet_submit
from players.services.players import player_merge
from ratings.models import RatingHistory, RecomputeState
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.pages import page_html

pytestmark = [pytest.mark.django_db, pytest.mark.algorithms("sagc", "egf-2021", "gcr")]


@pytest.fixture
def open_tournament(vera):
    """Four players, two rounds; Ann wins both, Dan loses both, Ben and Cat one each
    (Cat met stronger opponents); one game voided."""
    ann, ben, cat, dan = (
        factories.player(name, rank, full_name=name.title())
        for name, rank in [("ann", "2k"), ("ben", "3k"), ("cat", "5k"), ("dan", "6k")]
    )
    cup = factories.tournament("spring-cup", "Spring Cup", egf_class="B")

    def round_game(white, black, winner, number, **extra):
        return factories.game(
            white,
            black,
            winner,
            date(2024, 4, 6 + (number > 1)),
            tournament=cup,
            round=number,
            status="tournament",
            **extra,
        )

    record_sheet_submit(
        user=vera,
        games=[
            round_game(ann, dan, "W", 1),
            round_game(ben, cat, "B", 1),
            round_game(ann, cat, "W", 2, handicap=2, komi=0.5),
            round_game(ben, dan, "W", 2),
            round_game(ann, ben, "D", 2, komi=7, comment="entered twice"),
        ],
    )
    twice = cup.games.get(comment="entered twice")
    game_void(user=vera, game_id=twice.pk, version=twice.version, reason="duplicate")
    recompute_pending()
    return cup


def crosstable_rows(html: str) -> list[list[str]]:
    table = html[html.index('id="crosstable"') :]
    body = table[table.index("<tbody") : table.index("</tbody>")]
    return [
        [
            re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", cell)).strip()
            for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        ]
        for row in re.findall(r"<tr[^>]*>.*?</tr>", body, re.S)
    ]


def test_the_list_counts_valid_games_and_distinct_players(client, open_tournament):
    factories.tournament("empty", "Nothing yet")

    html = client.get("/tournaments/").content.decode()

    row = re.search(r"<tr[^>]*>(?:(?!</tr>).)*Spring Cup.*?</tr>", html, re.S).group(0)
    texts = [
        re.sub(r"<[^>]+>|\s+", " ", cell).strip()
        for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    ]
    assert texts[1:] == ["2024-04-06 \u2013 2024-04-07", "B", "4", "4"]
    assert 'href="/tournaments/spring-cup/"' in row
    assert "Nothing yet" in html


@pytest.mark.parametrize(("language", "games"), [("en", "2,226"), ("fr", "2\xa0226")])
def test_the_list_groups_its_counts_as_the_tournaments_page_does(client, language, games):
    from players.models import Tournament

    factories.tournament("egc", "European Go Congress")
    Tournament.objects.update(game_count=2226, player_count=589)

    html = client.get("/tournaments/", HTTP_ACCEPT_LANGUAGE=language).content.decode()

    row = re.search(r"<tr[^>]*>(?:(?!</tr>).)*European Go Congress.*?</tr>", html, re.S).group(0)
    cells = [
        re.sub(r"<[^>]+>", "", cell).strip()
        for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    ]
    assert cells[-2:] == [games, "589"]


def test_the_list_is_one_query_whatever_the_number_of_tournaments(
    client, open_tournament, django_assert_max_num_queries
):
    for number in range(30):
        factories.tournament(f"t{number}", f"Tournament {number}")

    with django_assert_max_num_queries(2):  # the page and the count of the paginator
        assert client.get("/tournaments/").status_code == 200


def test_the_crosstable_places_players_by_wins_with_each_round(client, open_tournament):
    html = client.get("/tournaments/spring-cup/").content.decode()

    rows = crosstable_rows(html)
    assert [row[:3] for row in rows] == [
        ["1", "Ann", "2k"],
        ["2", "Cat", "5k"],  # one win, like Ben, against opponents with more wins
        ["3", "Ben", "3k"],
        ["4", "Dan", "6k"],
    ]
    # R1, R2 (with the jigo with Ben voided since, counted nowhere), wins, SOS
    assert rows[0][5:9] == ["4+w", "2+w/h2 , 3=w \u2717", "2", "1"]
    assert rows[1][5:9] == ["3+b", "1-b/h2", "1", "3"]
    assert rows[3][5:7] == ["1-b", "3-b"]
    assert "entered twice" not in html


@pytest.mark.parametrize(
    ("file_place", "shown"),
    [(",Olsztyn", "Olsztyn"), ("JP, Matsue", "JP, Matsue"), ("PL,", "PL"), (" , ", None)],
)
def test_the_place_reads_without_the_h_files_empty_country_or_city(
    client, open_tournament, file_place, shown
):
    from players.models import Tournament

    Tournament.objects.filter(code="spring-cup").update(location=file_place)

    html = page_html(client, "/tournaments/spring-cup/")

    place = re.search(r"<dt[^>]*>Place</dt>\s*<dd[^>]*>([^<]*)</dd>", html)
    assert (place.group(1) if place else None) == shown


def test_the_crosstable_shows_the_egf_change_of_the_tournament(client, open_tournament):
    html = client.get("/tournaments/spring-cup/").content.decode()

    history = RatingHistory.objects.filter(
        algorithm="egf-2021", player__username="ann", game__tournament=open_tournament
    ).order_by("position")
    before, after = history.first().value_before, history.last().value_after
    ann = crosstable_rows(html)[0]
    assert ann[-3:] == [str(round(before)), str(round(after)), f"+{after - before:.2f}"]
    assert "EGF 2021 before" in html


def test_the_crosstable_shows_the_sagc_rank_and_index_before_and_after(client, open_tournament):
    html = client.get("/tournaments/spring-cup/?algorithm=sagc").content.decode()

    ann = crosstable_rows(html)[0]
    assert re.fullmatch(r"\d+k \S+", ann[-2])  # rank and index after
    assert re.fullmatch(r"\d+k \S+", ann[-3])  # and before, the same way
    assert re.fullmatch(r"[+\u2212]?\d+", ann[-1])
    assert "SAGC before" in html


def test_the_crosstable_shows_each_players_country_and_club(client, open_tournament):
    Player.objects.filter(username="ann").update(country="ZA", federation_club="StGo")
    html = client.get("/tournaments/spring-cup/").content.decode()

    headers = re.findall(r"<th[^>]*>\s*(.*?)\s*</th>", html, re.S)
    assert headers[2:5] == ["Rank", "Country", "Club"]
    rows = crosstable_rows(html)
    assert rows[0][:5] == ["1", "Ann", "2k", "ZA", "StGo"]
    assert rows[3][:5] == ["4", "Dan", "6k", "", ""]


def test_the_crosstable_escapes_what_players_and_files_wrote(client, open_tournament):
    # the crosstable's cells are built as HTML in one pass: every text is escaped there
    Player.objects.filter(username="dan").update(
        full_name='Dan <b>"Bold"</b> & Co', country="Z&", federation_club="<i>"
    )
    html = client.get("/tournaments/spring-cup/").content.decode()

    assert "<b>" not in html and "<i>" not in html
    assert "Dan &lt;b&gt;&quot;Bold&quot;&lt;/b&gt; &amp; Co</a>" in html
    # Ann beat Dan in round 1: her cell's title names him
    assert 'title="Dan &lt;b&gt;&quot;Bold&quot;&lt;/b&gt; &amp; Co">4+w</span>' in html
    assert crosstable_rows(html)[3][:5] == [
        "4",
        "Dan &lt;b&gt;&quot;Bold&quot;&lt;/b&gt; &amp; Co",
        "6k",
        "Z&amp;",
        "&lt;i&gt;",
    ]


def test_an_imported_tournament_shows_the_files_country_and_club(
    client, django_assert_max_num_queries
):
    from tests.players.test_tournament_round_trip import PLESSIS_CUP, import_text

    import_text(PLESSIS_CUP)
    # tournament, its fingerprint, entrants, players, games, history; then from the cache
    with django_assert_max_num_queries(7):  # with the recompute notice's state
        html = client.get("/tournaments/plessis-cup/").content.decode()
    with django_assert_max_num_queries(3):  # tournament, its fingerprint, recompute notice
        assert client.get("/tournaments/plessis-cup/").content.decode() == html
    rows = crosstable_rows(html)
    # the file's own columns: # and Place, name, rank, country, club (xxxx: none)
    assert [row[2:6] for row in rows] == [
        ["Sofia du Plessis", "2k", "ZA", "StGo"],
        ["Aya de Groot", "1k", "NL", "DHaa"],
        ["Thabo Mokoena", "3k", "ZA", ""],
        ["Aiko Nakamura", "3k", "JP", "Toky"],
    ]


def test_the_crosstable_is_a_fixed_number_of_queries(
    client, open_tournament, django_assert_max_num_queries
):
    with django_assert_max_num_queries(
        6
    ):  # tournament, fingerprint, players, games, history, recompute notice
        response = client.get("/tournaments/spring-cup/")
    with django_assert_max_num_queries(
        3
    ):  # tournament, its fingerprint: the table kept, recompute notice
        assert client.get("/tournaments/spring-cup/").content == response.content

    assert response.status_code == 200
    assert [row[1] for row in crosstable_rows(response.content.decode())] == [
        "Ann",
        "Cat",
        "Ben",
        "Dan",
    ]


def league_of(vera, code: str, games: int, first_player: int):
    """A tournament of ``games`` games, one a round, between players numbered from
    ``first_player``: round r is player r against player r + 1, White winning."""
    tournament = factories.tournament(code, code.title(), start_date=date(2024, 5, 1))
    numbers = range(first_player, first_player + games + 1)
    players = [factories.player(f"p{number}", "10k") for number in numbers]
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(
                players[number], players[number + 1], "W", date(2024, 5, 1), tournament=tournament,
                round=number + 1,
            )
            for number in range(games)
        ],
    )  # fmt: skip
    return tournament


def test_the_list_and_the_api_list_take_the_same_queries_for_one_tournament_or_twelve(
    client, vera, django_assert_num_queries
):
    league_of(vera, "league-0", 1, 0)
    with django_assert_num_queries(2):  # the page, the paginator's count
        few = client.get("/tournaments/").content.decode()
    with django_assert_num_queries(2):  # the count, the page
        few_api = client.get("/api/v1/tournaments/").json()
    first = 10
    for number in range(1, 12):
        league_of(vera, f"league-{number}", number + 1, first)
        first += number + 2
    with django_assert_num_queries(2):
        many = client.get("/tournaments/").content.decode()
    with django_assert_num_queries(2):
        many_api = client.get("/api/v1/tournaments/").json()

    assert few.count('href="/tournaments/league-') == 1
    assert many.count('href="/tournaments/league-') == 12
    assert few_api["count"] == 1
    counts = {row["code"]: (row["game_count"], row["player_count"]) for row in many_api["results"]}
    assert counts == {f"league-{number}": (number + 1, number + 2) for number in range(12)}
    row = re.search(r"<tr[^>]*>(?:(?!</tr>).)*League-11.*?</tr>", many, re.S).group(0)
    assert re.findall(r"<td[^>]*>(\d+)</td>", row) == ["12", "13"]


def test_a_tournament_page_and_its_api_take_the_same_queries_small_or_large(
    client, vera, django_assert_num_queries
):
    league_of(vera, "small", 2, 0)
    league_of(vera, "large", 30, 10)
    recompute_pending()
    for code, players in (("small", 3), ("large", 31)):
        with django_assert_num_queries(
            6
        ):  # tournament, fingerprint, players, games, history, recompute notice
            html = client.get(f"/tournaments/{code}/").content.decode()
        with django_assert_num_queries(
            3
        ):  # tournament, fingerprint: the table from the cache, recompute notice
            assert client.get(f"/tournaments/{code}/").content.decode() == html
        with django_assert_num_queries(3):  # the tournament, its fingerprint, its games
            data = client.get(f"/api/v1/tournaments/{code}/").json()
        with django_assert_num_queries(2):  # the tournament, its fingerprint: games kept
            assert client.get(f"/api/v1/tournaments/{code}/").json() == data
        assert len(crosstable_rows(html)) == players
        assert data["player_count"] == players
        assert len(data["games"]) == players - 1


def test_the_stored_counts_follow_corrections_and_merges(client, vera):
    cup = league_of(vera, "cup", 3, 0)  # p0-p1, p1-p2, p2-p3
    other = factories.tournament("other", "Other")
    game = cup.games.get(round=3)
    changes = factories.game(game.white, game.black, "W", game.date, tournament=other, round=1)
    game_correct(user=vera, game_id=game.pk, version=game.version, changes=changes)
    cup.refresh_from_db()
    other.refresh_from_db()
    assert (cup.game_count, cup.player_count, other.game_count, other.player_count) == (2, 3, 1, 2)

    p0, p2 = (Player.objects.get(username=name) for name in ("p0", "p2"))
    player_merge(user=factories.committee_member(), keep=p0, duplicate=p2)
    cup.refresh_from_db()
    assert (cup.game_count, cup.player_count) == (2, 2)
    assert (cup.first_game, cup.last_game) == (date(2024, 5, 1), date(2024, 5, 1))


def corrected_rounds(client, code: str) -> int:
    """How many round cells of the tournament's page are marked corrected."""
    return client.get(f"/tournaments/{code}/").content.decode().count('class="round-corrected"')


def test_a_merge_marks_no_game_of_the_merged_player_corrected(client, vera):
    cup = league_of(vera, "cup", 3, 0)  # p0-p1, p1-p2, p2-p3
    p1_again = factories.player("p1-again", "10k")
    p1 = Player.objects.get(username="p1")
    player_merge(user=factories.committee_member(), keep=p1_again, duplicate=p1)

    assert sorted(cup.games.values_list("version", flat=True)) == [1, 2, 2]  # re-pointed
    assert corrected_rounds(client, "cup") == 0
    assert not any(game.is_corrected for game in cup.games.all())


def test_a_corrected_result_marks_the_round_of_both_players(client, vera):
    cup = league_of(vera, "cup", 3, 0)
    game = cup.games.get(round=2)
    changes = factories.game(game.white, game.black, "B", game.date, tournament=cup, round=2)
    game_correct(user=vera, game_id=game.pk, version=game.version, changes=changes)

    assert corrected_rounds(client, "cup") == 2


def test_a_correction_back_to_the_stored_game_is_no_longer_marked(client, vera):
    cup = league_of(vera, "cup", 3, 0)
    game = cup.games.get(round=2)
    for winner in ("B", "W"):  # misread, then put back
        changes = factories.game(game.white, game.black, winner, game.date, tournament=cup, round=2)
        game = game_correct(user=vera, game_id=game.pk, version=game.version, changes=changes)

    assert (game.version, game.revision, game.stored_content) == (3, 0, None)
    assert corrected_rounds(client, "cup") == 0


def test_a_correction_of_the_comment_alone_is_not_marked(client, vera):
    cup = league_of(vera, "cup", 3, 0)
    game = cup.games.get(round=2)
    changes = factories.game(
        game.white, game.black, "W", game.date, tournament=cup, round=2, comment="sheet checked"
    )
    game_correct(user=vera, game_id=game.pk, version=game.version, changes=changes)

    assert corrected_rounds(client, "cup") == 0


def test_a_correction_naming_a_merged_players_record_back_is_the_stored_game(client, vera):
    """Stored p1-p2; corrected to p1-p3 (a misread), p1 merged into p1-again, then
    corrected back to p1-again against p2: the same people as stored."""
    cup = league_of(vera, "cup", 3, 0)
    game = cup.games.get(round=2)
    p3, p1_again = Player.objects.get(username="p3"), factories.player("p1-again", "10k")
    misread = factories.game(game.white, p3, "W", game.date, tournament=cup, round=2)
    game = game_correct(user=vera, game_id=game.pk, version=game.version, changes=misread)
    player_merge(user=factories.committee_member(), keep=p1_again, duplicate=game.white)
    game.refresh_from_db()
    assert game.is_corrected

    p2 = Player.objects.get(username="p2")
    back = factories.game(p1_again, p2, "W", game.date, tournament=cup, round=2)
    game = game_correct(user=vera, game_id=game.pk, version=game.version, changes=back)

    assert not game.is_corrected
    assert corrected_rounds(client, "cup") == 0


def test_voiding_a_game_marks_no_other_round_corrected(client, vera):
    cup = league_of(vera, "cup", 3, 0)
    game = cup.games.get(round=2)
    game_void(user=vera, game_id=game.pk, version=game.version, reason="not played")

    assert corrected_rounds(client, "cup") == 0
    game.refresh_from_db()
    assert (game.version, game.revision) == (2, 0)


def test_a_voided_game_shows_in_its_round_struck_through_marked_and_said(client, vera):
    cup = league_of(vera, "cup", 3, 0)
    game = cup.games.get(round=2)
    game_void(user=vera, game_id=game.pk, version=game.version, reason="not played")

    html = client.get("/tournaments/cup/").content.decode()

    cells = re.findall(
        r'<span title="([^"]*) · voided" class="text-nowrap"><del>([^<]*)</del>', html
    )
    assert len(cells) == 2  # the game in both its players' rows
    assert all(re.fullmatch(r"\d+[-+=][wb]?(/h\d)?", result) for _, result in cells)
    assert html.count('<sup class="round-voided" aria-hidden="true">\u2717</sup>') == 2
    assert "1 game voided since: the rounds show them struck through (marked \u2717)" in html
    assert corrected_rounds(client, "cup") == 0


def test_a_tournament_without_games_says_so(client, django_assert_max_num_queries):
    factories.tournament("empty-cup", "Empty Cup")
    with django_assert_max_num_queries(5):  # with the recompute notice's state
        response = client.get("/tournaments/empty-cup/")

    assert response.status_code == 200
    assert crosstable_rows(response.content.decode()) == [["No games in this tournament yet."]]


def test_it_answers_404_for_an_unknown_tournament(client):
    assert client.get("/tournaments/no-such-cup/").status_code == 404


def test_a_tournament_page_says_when_a_pending_recompute_can_still_change_its_values(
    client, open_tournament
):
    last = open_tournament.games.order_by("-date").values_list("date", flat=True).first()
    RecomputeState.objects.update_or_create(algorithm="egf-2021", defaults={"dirty_from": last})
    page = client.get(f"/tournaments/{open_tournament.code}/?algorithm=egf-2021")
    assert 'id="recompute-notice"' in page.content.decode()

    later = last + timedelta(days=1)  # entered after the tournament: its rows stay
    RecomputeState.objects.filter(algorithm="egf-2021").update(dirty_from=later)
    page = client.get(f"/tournaments/{open_tournament.code}/?algorithm=egf-2021")
    assert 'id="recompute-notice"' not in page.content.decode()


def test_the_tournament_page_spans_the_window_and_scrolls_its_crosstable_within(
    client, open_tournament
):
    html = client.get("/tournaments/spring-cup/").content.decode()

    assert '<main class="container-fluid">' in html  # a wide crosstable uses the whole width
    wrapper = html[: html.index('id="crosstable"')]
    assert "table-responsive" in wrapper[wrapper.rindex("<div") :]  # the rest scrolls inside
    assert '<main class="container">' in client.get("/tournaments/").content.decode()


WITHDRAWN_ONE = """\
; CL[C]
; EV[Rainy Cup]
; DT[2021-08-02,2021-08-03]
;Pl Name  Gr Co Club Rt R1 R2
 1 Kim Seung-Gu    7d KR  xxxx  2700 2+     0+
 2 Huang Qiuxuan   6d CN  xxxx  2600 1-     0+
 3 Lee Withdrawn   5d KR  xxxx  2500 0-     0-
"""


def test_the_list_and_the_page_count_the_players_with_a_game_and_the_page_the_rest(client):
    from players.services.base import system_user
    from players.services.tournament_files import plan_tournament_import, tournament_import
    from ratings.engine.formats.egd import read_egd

    file = read_egd(WITHDRAWN_ONE, "rainy.h9")
    tournament_import(user=system_user(), plan=plan_tournament_import(file), source="rainy.h9")

    listed = client.get("/tournaments/").content.decode()
    row = re.search(r"<tr[^>]*>(?:(?!</tr>).)*Rainy Cup.*?</tr>", listed, re.S).group(0)
    assert re.findall(r"<td[^>]*>\s*(\d+)\s*</td>", row)[-2:] == ["1", "2"]  # games, players
    page = re.sub(r"\s+", " ", client.get("/tournaments/Rainy-Cup-2021/").content.decode())
    assert "1 · 2 <span" in page
    assert "players with a game (the file lists 3: 1 more played none)" in page
    api = client.get("/api/v1/tournaments/Rainy-Cup-2021/").json()
    assert api["player_count"] == 2
