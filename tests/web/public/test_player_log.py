"""/players/<username>/: the header, the record sheet in the seed's columns with "how was
this computed" per row, the rank chart, a tab per algorithm, the recompute banner."""

import re
from datetime import date, timedelta
from decimal import Decimal

import pytest

from players.models import Membership
from players.selectors.players import chart_points
from players.services.adjustments import adjustment_apply
from players.services.games import game_void, record_sheet_submit
from players.services.players import player_merge
from players.web.charts import ChartPoint, downsample, rank_chart, scale_for
from ratings.engine.ranks import parse_rank
from ratings.models import RatingHistory
from ratings.recompute.run import recompute_pending
from tests import factories
from tests.pages import page_html

pytestmark = [pytest.mark.django_db, pytest.mark.algorithms("sagc", "egf-2021", "gcr")]


def sheet_rows(html: str) -> list[str]:
    """The record sheet's game rows (not the "how" rows), newest first."""
    table = html[html.index('id="record-sheet"') :]
    table = table[: table.index("</table>")]
    body = table[table.index("<tbody") :]
    return [row for row in re.findall(r"<tr[^>]*>.*?</tr>", body, re.S) if "how-row" not in row]


def cells(row: str) -> list[str]:
    """A row's cells as text."""
    return [
        re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", cell)).strip()
        for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    ]


@pytest.fixture
def spec_example(vera, connie):
    """SPEC section 4's example: a 14k at a negative index loses at differential 0 with
    handicap factor 0.9: 591 2/3 x -0.6 x 0.9 = -319.5 -> -320."""
    club = factories.club("Durban Go Club")
    ann = factories.player("ann", "12k", full_name="Ann Smit")
    ben = factories.player("ben", "14k", full_name="Ben Botha", club=club)
    adjustment_apply(
        user=connie,
        player=ben,
        date=date(2024, 1, 1),
        new_rank=parse_rank("14k"),
        value=Decimal(-100),
        algorithm="sagc",
        comment="resync with the national list",
    )
    factories.play(vera, factories.game(ann, ben, "W", date(2024, 1, 10), handicap=2, komi=0.5))
    return ann, ben


def test_it_shows_the_record_sheet_in_the_seeds_columns_newest_first(client, spec_example):
    html = client.get("/players/ben/").content.decode()

    headers = re.findall(r"<th[^>]*>\s*(.*?)\s*</th>", html[html.index('id="record-sheet"') :])
    assert headers[:12] == [
        "Opponent",
        "Opp. rank",
        "Colour",
        "H",
        "Komi",
        "Winner",
        "GSF",
        "Change",
        "New index",
        "New rank",
        "Date",
        "Comments",
    ]
    game, _adjustment = sheet_rows(html)
    assert cells(game) == [
        "Ann Smit vs",  # "vs": the two players' head-to-head page
        "12k",
        "Black",
        "2",
        "0.5",
        "White won loss",  # who won, then this player's result (not "White lost")
        "1",
        "\u2212320",
        "\u2212420",
        "14k",
        "2024-01-10",
        "",
    ]
    assert 'href="/players/ann/"' in game
    assert 'href="/players/ben/vs/ann/"' in game


def test_an_adjustment_shows_the_player_as_their_own_opponent(client, spec_example):
    html = client.get("/players/ben/").content.decode()

    adjustment = sheet_rows(html)[1]
    assert cells(adjustment)[0] == "Ben Botha adjustment"
    assert 'href="/players/ben/"' in adjustment
    assert cells(adjustment)[7:] == [
        "\u2212100",
        "\u2212100",
        "14k",
        "2024-01-01",
        "resync with the national list",
    ]


def test_it_explains_an_sagc_change_factor_by_factor(client, spec_example):
    html = client.get("/players/ben/").content.decode()

    game_row_id = re.search(r'data-bs-target="#(how-\d+)"', sheet_rows(html)[0]).group(1)
    how = re.search(rf'<tr class="collapse how-row" id="{game_row_id}">(.*?)</tr>', html, re.S)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", how.group(1)))
    formula = (
        "591.67 LF \u00d7 1 GSF \u00d7 1 OF \u00d7 \u22120.6 GRF \u00d7 0.9 HF"
        " = \u2212319.5 product \u2192 \u2212320"
    )
    assert formula in text
    assert "Effective handicap 2 (handicap 2, komi 0.5)" in text
    assert "differential 0: the correct handicap" in text
    assert "Demotion zone (index \u2212100 at 14k)" in text


def test_it_names_the_loss_barrier_when_one_applied(client, vera, connie):
    ann = factories.player("ann", "12k")
    ben = factories.player("ben", "14k")
    adjustment_apply(
        user=connie,
        player=ben,
        date=date(2024, 1, 1),
        new_rank=parse_rank("14k"),
        value=Decimal(-850),
        algorithm="sagc",
    )
    factories.play(vera, factories.game(ann, ben, "W", date(2024, 1, 10), handicap=2, komi=0.5))

    html = client.get("/players/ben/").content.decode()

    assert cells(sheet_rows(html)[0])[7:9] == ["\u2212320", "\u2212950"]
    assert "Loss barrier: the index stops at \u2212950 (without it: \u22121170)" in html


def test_it_shows_the_header_with_the_true_entry_grade(client, vera):
    club = factories.club("Durban Go Club")
    beginner = factories.player("newbie", "35k", club=club, full_name="New Bie")
    teacher = factories.player("teacher", "2d")
    factories.play(
        vera, factories.game(teacher, beginner, "W", date(2024, 2, 3), handicap=9, komi=0.5)
    )

    html = client.get("/players/newbie/").content.decode()

    header = html[html.index('id="player-header"') : html.index("algorithm-tabs")]
    assert re.search(r'id="player-rank">30k<', header)
    assert re.search(r'id="player-value">\+?\d+<', header)
    assert "2024-02-03" in header
    assert 'href="/clubs/' in header and "Durban Go Club" in header
    assert "National rank" in header and ">35k<" in header
    assert re.search(r'id="entry-grade">35k<', header)


def test_it_offers_a_tab_per_algorithm_that_rated_the_player(client, spec_example):
    html = client.get("/players/ben/").content.decode()

    tabs = re.findall(r'class="nav-link[^"]*"[^>]*href="([^"]*)"[^>]*>([^<]+)</a>', html)
    assert [label for _link, label in tabs][-3:] == ["SAGC", "EGF 2021", "GCR"]
    assert ("?algorithm=egf-2021", "EGF 2021") in tabs


def test_another_algorithm_shows_its_factors_with_readable_labels(client, spec_example):
    RatingHistory.objects.filter(algorithm="egf-2021", player__username="ben").update(
        factors={"se": 0.25, "class_weight": 1.0, "brand_new_factor": 1.5}
    )

    html = client.get("/players/ben/?algorithm=egf-2021").content.decode()

    row = cells(sheet_rows(html)[0])
    assert row[6] == "Normal"  # the status name instead of SAGC's factor
    assert re.fullmatch(r"[+\u2212]\d+\.\d\d", row[7])
    assert "<dt>Expected result (Se)</dt>" in html and "<dd>0.25</dd>" in html
    assert "<dt>Brand new factor</dt>" in html and "<dd>1.5</dd>" in html


def test_a_game_an_algorithm_skips_is_listed_with_its_reason(client, vera):
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "6k")
    factories.play(vera, factories.game(ann, ben, "W", date(2024, 1, 10), status="free"))

    html = client.get("/players/ann/?algorithm=egf-2021").content.decode()

    row = cells(sheet_rows(html)[0])
    assert row[7] == "0.00"
    assert row[-1] == "not rated: free games are not rated by EGF GoR"


@pytest.mark.parametrize(
    ("language", "reason"),
    [
        ("fr", "non compté : les parties libres ne sont pas comptées par le GoR EGF"),
        ("af", "vrye spelle word nie deur EGF GoR gegradeer nie"),
    ],
)
def test_the_reason_a_game_is_not_rated_is_in_the_pages_language(client, vera, language, reason):
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "6k")
    factories.play(vera, factories.game(ann, ben, "W", date(2024, 1, 10), status="free"))
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language

    html = page_html(client, "/players/ann/?algorithm=egf-2021")

    assert reason in cells(sheet_rows(html)[0])[-1]
    assert "free games are not rated" not in html


def voided_cells(section: str) -> list[str]:
    """The text of each cell of the voided games' table."""
    cells = re.findall(r"<td[^>]*>(.*?)</td>", section, re.S)
    return [" ".join(re.sub(r"<[^>]+>", "", cell).split()) for cell in cells]


def test_a_void_game_leaves_the_sheet_for_the_voided_games_struck_through(client, vera):
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "6k")
    factories.play(
        vera,
        factories.game(ann, ben, "W", date(2024, 1, 10)),
        factories.game(ann, ben, "B", date(2024, 1, 11), comment="wrong result"),
    )
    voided = ann.games_as_white.get(date=date(2024, 1, 11))
    game_void(user=vera, game_id=voided.pk, version=voided.version, reason="typo")
    recompute_pending()

    html = client.get("/players/ann/").content.decode()

    assert [cells(row)[10] for row in sheet_rows(html)] == ["2024-01-10"]
    assert "wrong result" not in html
    voided_section = html[html.index('id="voided-games"') :]
    voided_section = voided_section[: voided_section.index("</details>")]
    assert "Show voided games (1)" in voided_section
    assert voided_cells(voided_section) == [
        "2024-01-11: Ann (white) – Ben (black), black won",
        "typo",
    ]
    assert "<del>" in voided_section
    assert "badge" not in voided_section  # every game of the list is void: no badge each


def test_the_voided_games_list_implies_no_colours_for_a_game_whose_file_gave_none(client, vera):
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "6k")
    factories.play(vera, factories.game(ann, ben, "B", date(2024, 1, 11), colour_given=False))
    voided = ann.games_as_white.get()
    game_void(user=vera, game_id=voided.pk, version=voided.version, reason="typo")
    recompute_pending()

    html = client.get("/players/ann/").content.decode()

    voided_section = html[html.index('id="voided-games"') :]
    voided_section = voided_section[: voided_section.index("</details>")]
    headings = re.findall(r'<th scope="col">([^<]*)</th>', voided_section)
    assert headings == ["Game", "Why it is void"]
    [game, why] = voided_cells(voided_section)
    assert (game, why) == ("2024-01-11: Ann – Ben, Ben won (colours not given)", "typo")


def test_without_void_games_there_is_no_voided_section(client, vera):
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "6k")
    factories.play(vera, factories.game(ann, ben, "W", date(2024, 1, 10)))
    recompute_pending()

    assert 'id="voided-games"' not in page_html(client, "/players/ann/")


def test_a_merged_record_says_where_it_went_and_the_kept_one_names_it(client, vera):
    ann, ben = factories.player("ann", "5k", full_name="Ann Dube"), factories.player("ben", "6k")
    old = factories.player("ann-old", "5k")
    factories.play(vera, factories.game(old, ben, "W", date(2024, 1, 10)))
    player_merge(user=vera, keep=ann, duplicate=old)
    recompute_pending()

    merged = client.get("/players/ann-old/").content.decode()
    kept = client.get("/players/ann/").content.decode()

    banner = merged[merged.index('id="merged-into"') :]
    link = '<a class="alert-link" href="/players/ann/">Ann Dube (ann)</a>'
    assert f"This record was merged into {link}" in " ".join(banner.split())
    assert 'id="merged-records"' in kept and 'href="/players/ann-old/"' in kept


def test_an_adjustment_row_shows_the_rank_it_moved_and_the_chart_steps(client, vera):
    ann, ben = factories.player("ann", "7k"), factories.player("ben", "7k")
    factories.play(vera, factories.game(ann, ben, "W", date(2024, 8, 1)))
    factories.adjustment(ann, date(2024, 11, 1), "6k", user=vera, reason="resync")
    recompute_pending()

    html = client.get("/players/ann/").content.decode()
    points = chart_points(ann, "sagc")

    adjustment_row = sheet_rows(html)[0]
    assert cells(adjustment_row)[7] == "7k \u2192 6k"
    # Level from the game in August to the adjustment, then straight up on its date.
    assert [(point.date, str(point.rank)) for point in points[-2:]] == [
        (date(2024, 11, 1), "7k"),
        (date(2024, 11, 1), "6k"),
    ]
    assert points[-3].value == points[-2].value


def test_gcr_shows_month_end_standings_instead_of_a_sheet(client, vera):
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "6k")
    factories.play(
        vera,
        factories.game(ann, ben, "W", date(2024, 1, 10)),
        factories.game(ann, ben, "W", date(2024, 2, 10)),
    )

    html = client.get("/players/ann/?algorithm=gcr").content.decode()

    assert 'id="record-sheet"' not in html
    assert "Month-end standings" in html
    snapshots = html[html.index('id="snapshots"') :]
    assert "2024-01-31" in snapshots
    assert "<svg" in html


def test_it_draws_the_chart_inline(client, spec_example):
    html = client.get("/players/ben/").content.decode()

    chart = html[html.index('id="rating-chart"') : html.index("</figure>")]
    assert re.search(r'<path d="M[\d.]+ [\d.]+(L[\d.]+ [\d.]+)+" class="line"/>', chart)
    assert "<title>2024-01-10: 14k \u2212420</title>" in chart
    assert ">14k</text>" in chart
    assert "<script" not in chart


def test_it_pages_a_long_history_in_the_same_queries(
    client, vera, settings, django_assert_max_num_queries
):
    settings.RATINGS_ALGORITHMS = ["sagc"]
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "6k")
    start = date(2023, 1, 1)
    factories.play(
        vera, *(factories.game(ann, ben, "WB"[i % 2], start + timedelta(days=i)) for i in range(3))
    )
    with django_assert_max_num_queries(12) as few:
        client.get("/players/ann/")
    factories.play(
        vera,
        *(factories.game(ann, ben, "WB"[i % 2], start + timedelta(days=i)) for i in range(3, 60)),
    )

    with django_assert_max_num_queries(len(few.captured_queries)):
        first = client.get("/players/ann/").content.decode()
    second = client.get("/players/ann/?page=2").content.decode()

    dates = [cells(row)[10] for row in sheet_rows(first)]
    assert len(dates) == 50
    assert dates[0] == str(start + timedelta(days=59)) and dates == sorted(dates, reverse=True)
    assert len(sheet_rows(second)) == 10


def test_it_warns_while_a_recompute_may_change_the_players_rows(client, vera):
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "6k")
    carl, dora = factories.player("carl", "5k"), factories.player("dora", "6k")
    factories.play(vera, factories.game(carl, dora, "W", date(2024, 1, 5)))
    record_sheet_submit(user=vera, games=[factories.game(ann, ben, "W", date(2024, 2, 1))])

    assert "being recomputed" in client.get("/players/ann/").content.decode()
    assert "2024-02-01" in client.get("/players/ann/").content.decode()
    assert "being recomputed" not in client.get("/players/carl/").content.decode()
    recompute_pending()
    assert "being recomputed" not in client.get("/players/ann/").content.decode()


def test_it_answers_404_for_an_unknown_player_or_algorithm(client, spec_example):
    assert client.get("/players/nobody/").status_code == 404
    assert client.get("/players/ben/?algorithm=french").status_code == 404


def test_a_player_without_games_has_a_page(client):
    factories.player("newcomer", "20k")

    html = client.get("/players/newcomer/").content.decode()

    assert "No games rated by SAGC index yet." in html


# --- the chart's geometry (players/web/charts.py, no database) ---------------------------------


def test_an_index_places_the_point_inside_its_rank_band():
    points = [
        ChartPoint(date(2024, 1, 1), parse_rank("14k"), 0),
        ChartPoint(date(2024, 1, 2), parse_rank("14k"), 999),
        ChartPoint(date(2024, 1, 3), parse_rank("13k"), 0),
    ]

    chart = rank_chart(points, scale_for("sagc"), integer_values=True)

    bands = {band.label: band for band in chart.bands}
    assert set(bands) >= {"15k", "14k", "13k", "12k"}
    middle, top, next_middle = (marker.y for marker in chart.markers)
    band = bands["14k"]
    assert middle == pytest.approx(band.top + band.height / 2, abs=0.1)
    assert band.top <= top < band.top + 0.01 * band.height + 0.1  # +999: the band's top
    assert next_middle == pytest.approx(bands["13k"].label_y, abs=0.1)


def test_the_time_axis_is_proportional():
    points = [
        ChartPoint(date(2024, 1, 1) + timedelta(days=days), parse_rank("5k"), 0)
        for days in (0, 10, 40)
    ]

    chart = rank_chart(points, scale_for("sagc"), integer_values=True)

    first, second, third = (marker.x for marker in chart.markers)
    assert (second - first) * 4 == pytest.approx(third - first, abs=0.2)
    assert (first, third) == (chart.left, chart.right)


def test_ratings_get_a_band_per_rank_and_gcr_plain_values():
    points = [
        ChartPoint(date(2024, 1, 1), parse_rank("1d"), 2100.0),
        ChartPoint(date(2024, 6, 1), parse_rank("2d"), 2230.0),
    ]

    egf = rank_chart(points, scale_for("egf-2021"))
    gcr = rank_chart(points, scale_for("gcr"))

    assert [band.label for band in egf.bands] == ["1k", "1d", "2d", "3d"]
    assert gcr.bands == [] and len(gcr.y_ticks) >= 3
    assert "2024-06-01: 2d, 2230" in [marker.label for marker in egf.markers]


def test_a_long_history_is_downsampled_keeping_its_ends():
    xy = [(float(i), float((i * 7919) % 1000)) for i in range(2000)]

    kept = downsample(xy, 500)

    assert len(kept) == 500
    assert kept[0] == 0 and kept[-1] == 1999
    assert kept == sorted(set(kept))


def test_there_is_no_chart_without_points():
    assert rank_chart([], scale_for("sagc")) is None


# --- in a browser ---------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_on_a_phone_a_tap_shows_how_a_change_was_computed_and_names_a_point(
    live_server, browser_page, vera, connie
):
    from playwright.sync_api import expect

    ann = factories.player("ann", "12k", full_name="Ann Smit")
    ben = factories.player("ben", "14k", full_name="Ben Botha")
    factories.play(
        vera,
        *(
            factories.game(ann, ben, "WB"[i % 3 == 0], date(2024, 1, 1) + timedelta(days=7 * i))
            for i in range(12)
        ),
    )
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/players/ben/")

    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    how = page.locator("tr.how-row").first
    assert not how.is_visible()
    page.locator("#record-sheet .change-toggle").first.click()
    how.wait_for(state="visible")
    assert "LF" in how.inner_text() and "change" in how.inner_text()

    readout = page.locator("#rating-chart .chart-readout")
    last = readout.inner_text()
    # the stacked record sheet is long on a phone: the tap above scrolled the chart away
    page.locator("#rating-chart svg").scroll_into_view_if_needed()
    chart = page.locator("#rating-chart svg").bounding_box()
    page.mouse.click(chart["x"] + chart["width"] * 0.15, chart["y"] + chart["height"] / 2)
    expect(readout).not_to_have_text(last)
    expect(readout).to_have_text(re.compile(r"^2024-0[12]-\d\d: 1\dk [+\u2212]?\d+"))


def test_names_and_comments_are_escaped_on_the_log_page_and_the_list(client, vera):
    mallory = factories.player("mallory", "5k", full_name='<b onclick="x()">Mal & Co</b>')
    ben = factories.player("ben", "6k")
    factories.play(vera, factories.game(mallory, ben, "W", comment="<script>alert(1)</script>"))

    log = client.get("/players/ben/").content.decode()
    listing = client.get("/").content.decode()

    assert "<script>alert(1)" not in log
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in log
    for page in (log, listing):
        assert '<b onclick="x()">' not in page
        assert "&lt;b onclick=&quot;x()&quot;&gt;Mal &amp; Co&lt;/b&gt;" in page


def test_a_table_cell_escapes_text_and_keeps_safe_html():
    from django.utils.safestring import mark_safe
    from django.utils.text import format_lazy

    from players.web.tables import escape_cell

    assert escape_cell('<i>"Mal" & Co</i>') == "&lt;i&gt;&quot;Mal&quot; &amp; Co&lt;/i&gt;"
    assert escape_cell(mark_safe("<i>ok</i>")) == "<i>ok</i>"
    assert escape_cell(format_lazy("{}<", "lazy")) == "lazy&lt;"
    assert escape_cell(-3) == "-3"


def test_each_row_names_the_club_the_player_belonged_to_that_day(client, vera):
    cape_town, durban = factories.club("Cape Town Go Club"), factories.club("Durban Go Club")
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "6k")
    Membership.objects.filter(player=ann).delete()
    Membership.objects.create(player=ann, club=cape_town, end=date(2024, 2, 1))
    Membership.objects.create(player=ann, club=durban, start=date(2024, 2, 1))
    factories.play(vera, factories.game(ann, ben, "W", date(2024, 1, 10)))
    factories.play(vera, factories.game(ann, ben, "W", date(2024, 3, 10)))

    html = page_html(client, "/players/ann/")
    visitor = page_html(client, "/players/ben/")

    table = html[html.index('id="record-sheet"') :]
    assert re.search(r"2024-03-10</td>\s*<td[^>]*>Durban Go Club</td>", table)
    assert re.search(r"2024-01-10</td>\s*<td[^>]*>Cape Town Go Club</td>", table)
    assert ">Club</th>" not in visitor[visitor.index('id="record-sheet"') :]


@pytest.mark.parametrize(
    ("language", "reason"),
    [
        ("fr", "non compté : SAGC ne classe que les parties en 19x19, pas en 9x9"),
        ("af", "SAGC gradeer net 19x19-spelle, nie 9x9 nie"),
        ("en", "not rated: SAGC rates 19x19 games only, not 9x9"),
    ],
)
def test_a_reason_with_values_is_read_back_in_the_pages_language(client, vera, language, reason):
    # The history stores the English with the board's size in it; the page translates it.
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "6k")
    factories.play(vera, factories.game(ann, ben, "W", date(2024, 1, 10), board_size=9))
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language

    html = page_html(client, "/players/ann/?algorithm=sagc")

    assert reason in cells(sheet_rows(html)[0])[-1]
