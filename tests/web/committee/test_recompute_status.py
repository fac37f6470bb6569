"""The recompute status page: the state of every maintained algorithm, the progress of a
running recompute, and the full recompute buttons."""

import re
from datetime import date, timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from players.models import AuditEntry
from players.services.games import record_sheet_submit
from ratings.algorithms import maintained_algorithms
from ratings.models import RecomputeState
from ratings.recompute import liveness, progress
from ratings.recompute.run import recompute_pending
from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.signed_in]


@pytest.fixture
def games():
    ann, ben = factories.player("ann", "5k"), factories.player("ben", "8k")
    record_sheet_submit(
        user=factories.volunteer(),
        games=[
            factories.game(ann, ben, "W", date(2024, 3, 1)),
            factories.game(ben, ann, "B", date(2024, 1, 20)),
        ],
    )
    recompute_pending()


def rows(response) -> dict[str, str]:
    """Each algorithm's row of the table, as text."""
    html = response.content.decode()
    found = re.findall(r'data-algorithm="([^"]+)"[^>]*>(.*?)</tr>', html, re.S)
    return {name: " ".join(re.sub(r"<[^>]+>", " ", row).split()) for name, row in found}


def test_it_lists_every_maintained_algorithm_with_its_last_run(
    client, connie, games, django_assert_max_num_queries
):
    with django_assert_max_num_queries(7):
        response = client.get("/committee/recompute/")

    table = rows(response)
    assert list(table) == maintained_algorithms()
    assert table["sagc"].startswith("sagc SAGC index up to date —")
    assert "2024-01-20" in table["sagc"], "replayed from the first game"
    assert "data-auto-refresh" not in response.content.decode()
    assert response.content.decode().count('form="full-recompute"') == len(table) + 1


def test_a_pending_recompute_refreshes_the_page(client, connie, games):
    RecomputeState.objects.filter(algorithm="french").update(dirty_from=date(2024, 2, 1))

    response = client.get("/committee/recompute/")

    html = response.content.decode()
    assert rows(response)["french"].startswith(
        "french French ladder (old system) pending 2024-02-01"
    )
    assert 'data-auto-refresh="5"' in html
    assert '<script src="/static/js/auto-refresh.js"></script>' in html


def shown_running_seconds(row: str) -> int:
    return int(re.search(r"running for (\d+) s", row).group(1))


def whole_seconds_since(moment) -> int:
    return int((timezone.now() - moment).total_seconds())


def test_a_running_recompute_shows_its_progress(client, connie, games):
    started = timezone.now() - timedelta(seconds=42)
    RecomputeState.objects.filter(algorithm="sagc").update(running_since=started)
    progress.report("sagc", 1500, 6000)

    response = client.get("/committee/recompute/")

    # 42 s, and the seconds the request took (a few on a loaded machine)
    assert 42 <= shown_running_seconds(rows(response)["sagc"]) <= whole_seconds_since(started)
    assert "1500 / 6000" in rows(response)["sagc"]
    assert 'aria-valuenow="25"' in response.content.decode()
    progress.clear("sagc")


def test_a_running_recompute_without_progress_shows_how_long_it_runs(client, connie, games):
    started = timezone.now() - timedelta(seconds=7)
    RecomputeState.objects.filter(algorithm="anchor").update(running_since=started)
    progress.clear("anchor")

    response = client.get("/committee/recompute/")

    assert 7 <= shown_running_seconds(rows(response)["anchor"]) <= whole_seconds_since(started)
    assert "progress-bar" not in rows(response)["anchor"]


def test_the_full_recompute_of_every_algorithm_marks_them_from_the_first_game(
    client, connie, games
):
    response = client.post("/committee/recompute/full/", {"algorithm": ""}, follow=True)

    assert response.redirect_chain == [("/committee/recompute/", 302)]
    assert "Full recompute of every algorithm from 2024-01-20 requested." in (
        response.content.decode()
    )
    audit = AuditEntry.objects.get(action="recompute_request")
    assert (audit.user, audit.object_id) == (connie, "all")
    assert set(audit.after) == set(maintained_algorithms())


def test_the_full_recompute_of_one_algorithm(client, connie, games):
    client.post("/committee/recompute/full/", {"algorithm": "gcr"})

    assert AuditEntry.objects.get(action="recompute_request").after == {"gcr": "2024-01-20"}
    assert RecomputeState.objects.get(algorithm="gcr").dirty_from == date(2024, 1, 20)
    assert RecomputeState.objects.get(algorithm="sagc").dirty_from is None


def test_an_unknown_algorithm_starts_nothing(client, connie, games):
    response = client.post("/committee/recompute/full/", {"algorithm": "elo"}, follow=True)

    assert "Not started: Select a valid choice." in response.content.decode()
    assert not AuditEntry.objects.filter(action="recompute_request").exists()


def test_with_no_games_there_is_nothing_to_recompute(client, connie):
    response = client.post("/committee/recompute/full/", {"algorithm": ""}, follow=True)

    assert "Nothing to recompute" in response.content.decode()


def test_a_recompute_whose_runner_died_shows_as_stalled(client, connie, games):
    RecomputeState.objects.filter(algorithm="sagc").update(
        running_since=timezone.now() - timedelta(hours=6), running_on="worker-host:4242"
    )
    progress.report("sagc", 12000, 32163)

    row = rows(client.get("/committee/recompute/"))["sagc"]

    assert row.startswith("sagc SAGC index stalled started ")
    assert "on worker-host:4242, which has stopped answering" in row
    assert "running for" not in row
    progress.clear("sagc")


def test_a_recompute_whose_runner_beats_shows_as_running(client, connie, games):
    RecomputeState.objects.filter(algorithm="sagc").update(
        running_since=timezone.now() - timedelta(hours=1), running_on="worker-host:4242"
    )

    with liveness.RunnerHeartbeat("worker-host:4242"):
        row = rows(client.get("/committee/recompute/"))["sagc"]

    assert re.search(r"running for 3(599|600|601) s", row)


def test_the_page_says_when_no_worker_is_running(client, connie, games, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    cache.delete("worker-heartbeat")

    html = client.get("/committee/recompute/").content.decode()

    assert "No worker is running." in html
    assert "No worker has answered yet." in html


def test_the_page_names_the_live_worker(client, connie, games, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    liveness.worker_beat("celery@club-laptop")

    html = client.get("/committee/recompute/").content.decode()

    assert "worker alive" in html
    assert "celery@club-laptop answered 0 s ago." in html
    cache.delete("worker-heartbeat")
