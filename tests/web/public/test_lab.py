"""/lab/: the algorithm lab. Reports computed by the task after each recompute, one query
over the history per algorithm, the page reading the last report."""

import math
import re
from datetime import date

import pytest

from players.services.games import record_sheet_submit
from ratings import tasks
from ratings.engine.egf import se_2021
from ratings.engine.gcr import Gcr
from ratings.engine.sagc import Sagc
from ratings.lab import services as lab_services
from ratings.models import LabReport, RatingHistory
from ratings.recompute.run import recompute_pending
from ratings.selectors import history_games
from tests import factories

ALGORITHMS = ["sagc", "egf-2021", "french", "gcr"]

pytestmark = [pytest.mark.django_db, pytest.mark.algorithms(*ALGORITHMS)]


@pytest.fixture
def club(vera):
    """Five games in two months: one free, one on 9x9, one jigo."""
    ann = factories.player("ann", "3k")
    ben = factories.player("ben", "6k")
    cat = factories.player("cat", "12k")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", date(2024, 1, 10), handicap=3),
            factories.game(ann, cat, "B", date(2024, 1, 17), handicap=9),
            factories.game(ben, cat, "W", date(2024, 2, 7), status="free"),
            factories.game(ben, cat, "W", date(2024, 2, 8), board_size=9),
            factories.game(ann, ben, "D", date(2024, 2, 14), komi=7, status="tournament"),
        ],
    )
    return ann, ben, cat


def recompute(django_capture_on_commit_callbacks):
    """Recompute as the site does: the lab task runs once the recompute commits."""
    with django_capture_on_commit_callbacks(execute=True):
        recompute_pending()


def test_the_task_computes_a_report_for_every_algorithm_after_a_recompute(
    club, django_capture_on_commit_callbacks
):
    assert not LabReport.objects.exists()
    recompute(django_capture_on_commit_callbacks)

    reports = {report.algorithm: report for report in LabReport.objects.all()}
    assert set(reports) == set(ALGORITHMS)
    # the free game is left out everywhere; SAGC, EGF and GCR skip the 9x9 game
    assert reports["sagc"].games_counted == 3
    assert reports["egf-2021"].games_counted == 3
    assert reports["gcr"].games_counted == 3
    assert reports["french"].games_counted == 4
    metrics = reports["sagc"].metrics
    assert (metrics["jigo"], metrics["decisive"]) == (1, 2)
    assert sum(item["games"] for item in metrics["calibration"]) == 3
    assert [row["games"] for row in metrics["by_status"]] == [2, 1, 0]
    assert reports["gcr"].metrics["gcr_accuracy"]["pairs"] == 2


def test_a_new_game_and_its_recompute_replace_the_report(
    club, vera, django_capture_on_commit_callbacks
):
    recompute(django_capture_on_commit_callbacks)
    first = LabReport.objects.get(algorithm="sagc")
    ann, ben, _cat = club
    record_sheet_submit(user=vera, games=[factories.game(ben, ann, "B", date(2024, 3, 1))])
    recompute(django_capture_on_commit_callbacks)

    report = LabReport.objects.get(algorithm="sagc")
    assert report.pk == first.pk  # one row per algorithm
    assert report.games_counted == 4
    assert report.computed_at > first.computed_at


def test_the_task_can_be_run_for_chosen_algorithms(club):
    recompute_pending()
    assert tasks.compute_lab_reports.delay(["french"]).get() == [
        {"algorithm": "french", "games": 4}
    ]
    assert list(LabReport.objects.values_list("algorithm", flat=True)) == ["french"]


def test_each_game_is_predicted_from_the_ratings_just_before_it(club):
    recompute_pending()
    report = lab_services.compute_lab_report("egf-2021")

    # by hand from the stored rows: (White before, Black before, handicap, White's score)
    rows = RatingHistory.objects.filter(algorithm="egf-2021", skipped="", game__isnull=False)
    games = {}
    for row in rows.exclude(game__status="free").select_related("game").order_by("position"):
        games.setdefault(row.game_id, {"game": row.game})[row.colour] = row.value_before
    first = next(iter(games.values()))
    assert (first["W"], first["B"]) == (1800.0, 1500.0)  # 3k, 6k
    losses = []
    for item in games.values():
        game = item["game"]
        black_raised = 100 * (game.handicap - 0.5) if game.handicap else 0
        p = se_2021(item["W"], item["B"] + black_raised)
        score = {"W": 1.0, "B": 0.0, "D": 0.5}[game.winner]
        losses.append(-(score * math.log(p) + (1 - score) * math.log(1 - p)))
    assert len(losses) == 3
    assert report.metrics["log_loss"] == pytest.approx(sum(losses) / 3)
    assert report.games_counted == 3


def test_a_tournament_is_predicted_from_the_ratings_at_its_start_under_egf(vera):
    ann, ben, cat = (factories.player(name, "5k") for name in ("ann", "ben", "cat"))
    spring = factories.tournament("spring", "Spring")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", date(2024, 4, 6), tournament=spring, round=1),
            factories.game(ann, cat, "W", date(2024, 4, 6), tournament=spring, round=2),
        ],
    )
    recompute_pending()
    second = list(history_games("egf-2021", blocks=True))[1]
    assert second.matchup.white.value == 1600.0  # ann's rating at the start, as EGF rates it
    running = list(history_games("egf-2021", blocks=False))[1]
    assert running.matchup.white.value > 1600.0  # her row's running value after round 1


def test_the_page_shows_the_reports_computed_on_and_each_section(
    client, club, django_capture_on_commit_callbacks
):
    recompute(django_capture_on_commit_callbacks)
    html = client.get("/lab/").content.decode()

    assert "Computed on" in html
    table = html[html.index('id="lab-comparison"') :]
    table = table[: table.index("</table>")]
    assert [
        re.sub(r"<[^>]+>", "", cell).strip()
        for cell in re.findall(r"<td[^>]*>(.*?)</td>", table, re.S)
    ][:2] == ["SAGC", "3"]
    for title in ("SAGC", "EGF 2021", "French", "GCR"):
        assert f">{title}</a>" in html
    assert 'id="calibration-chart"' in html and "<circle" in html
    assert 'id="lab-by_rank_band"' in html and 'id="lab-by_handicap"' in html
    assert Sagc.prediction_note[:40] in html
    assert "recompute pending" not in html.lower()


def test_the_gcr_section_shows_the_game_courier_accuracy(
    client, club, django_capture_on_commit_callbacks
):
    recompute(django_capture_on_commit_callbacks)
    html = client.get("/lab/?algorithm=gcr").content.decode()
    assert 'id="gcr-accuracy"' in html
    assert "of the\n      2 pairs" in html or re.search(r"of the\s+2 pairs", html)
    assert Gcr.prediction_note[:40] in html


def test_the_page_says_a_recompute_is_pending(
    client, club, vera, django_capture_on_commit_callbacks
):
    recompute(django_capture_on_commit_callbacks)
    ann, ben, _cat = club
    record_sheet_submit(user=vera, games=[factories.game(ben, ann, "B", date(2024, 3, 1))])
    html = client.get("/lab/").content.decode()
    assert 'id="lab-pending"' in html
    assert "Recompute pending" in html and "2024-03-01" in html
    assert "recompute pending</span>" in html


def test_before_any_report_the_page_says_so(client, club):
    html = client.get("/lab/?algorithm=french").content.decode()
    assert 'id="lab-not-yet"' in html
    assert "not yet" in html


def test_an_unknown_algorithm_is_not_found(client):
    assert client.get("/lab/?algorithm=elo").status_code == 404


def test_the_page_reads_in_a_fixed_number_of_queries(
    client, club, vera, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    recompute(django_capture_on_commit_callbacks)
    with django_assert_max_num_queries(4) as few:
        assert client.get("/lab/").status_code == 200
    ann, _ben, cat = club
    record_sheet_submit(
        user=vera,
        games=[factories.game(cat, ann, "B", date(2024, 3, day)) for day in range(1, 20)],
    )
    recompute(django_capture_on_commit_callbacks)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert client.get("/lab/?algorithm=egf-2021").status_code == 200


def test_the_lab_and_the_calculator_are_in_the_navigation(client):
    html = client.get("/lab/").content.decode()
    assert 'href="/lab/"' in html and ">Lab</a>" in html
    assert 'href="/calculator/">Calculator</a>' in html


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_on_a_phone_the_lab_fits_the_screen(live_server, browser_page):
    """A sheet saved for real: its commit runs the recompute, whose commit runs the lab."""
    ann, ben = factories.player("ann", "3k"), factories.player("ben", "6k")
    record_sheet_submit(
        user=factories.volunteer(),
        games=[factories.game(ann, ben, "W", date(2024, 1, day), handicap=3) for day in (3, 10)],
    )
    assert LabReport.objects.filter(algorithm="sagc", games_counted=2).exists()

    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/lab/")
    assert "Computed on" in page.locator("#lab-computed").inner_text()
    assert page.locator("#calibration-chart circle").count() >= 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
