"""One task per algorithm: what a write queues, how a burst coalesces, and what a task
does when another runner has its algorithm."""

import time
from datetime import date, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from players.services.games import record_sheet_submit
from ratings import tasks
from ratings.algorithms import maintained_algorithms
from ratings.models import RatingHistory, RecomputeState
from ratings.recompute import liveness, run
from ratings.recompute.run import run_queued, sweep
from ratings.selectors import ReplayKey
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    """The algorithms whose recompute task was sent, in order (nothing runs)."""
    names: list[str] = []
    monkeypatch.setattr(tasks.recompute_algorithm, "delay", names.append)
    return names


@pytest.fixture
def pair():
    return factories.player("ann", "5k"), factories.player("ben", "8k")


def marks(algorithm: str) -> tuple:
    """``algorithm``'s queued, dirty and running marks (queued_at, dirty_from,
    running_since, running_on)."""
    rows = RecomputeState.objects.filter(algorithm=algorithm)
    return rows.values_list("queued_at", "dirty_from", "running_since", "running_on").get()


def enter(pair, day=date(2024, 3, 1)):
    ann, ben = pair
    record_sheet_submit(user=factories.volunteer(), games=[factories.game(ann, ben, "W", day)])


def test_a_write_queues_one_task_per_dirty_algorithm_primary_first_after_the_commit(
    pair, sent, django_capture_on_commit_callbacks, settings
):
    settings.RATINGS_PRIMARY_ALGORITHM = "french"
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        enter(pair)
        assert sent == [], "nothing is sent before the commit"

    for callback in callbacks:
        callback()
    assert sent[0] == "french"
    assert sorted(sent) == sorted(maintained_algorithms())


def test_a_burst_of_writes_queues_one_task_per_algorithm(
    pair, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        for day in range(1, 6):
            enter(pair, date(2024, 3, day))

    assert sorted(sent) == sorted(maintained_algorithms())
    assert not RecomputeState.objects.filter(queued_at__isnull=True).exists()


def test_a_write_made_while_the_task_runs_queues_one_more(
    pair, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        enter(pair)
    sent.clear()
    run_queued("sagc")  # clears the queued mark before it replays

    with django_capture_on_commit_callbacks(execute=True):
        enter(pair, date(2024, 3, 2))
        enter(pair, date(2024, 3, 3))

    assert sent.count("sagc") == 1


def test_a_task_finding_its_algorithm_run_by_a_live_runner_does_nothing(pair):
    enter(pair)
    RecomputeState.objects.filter(algorithm="sagc").update(
        running_since=timezone.now(), running_on="elsewhere:1"
    )

    assert tasks.recompute_algorithm.apply(args=["sagc"]).get() == []
    state = RecomputeState.objects.get(algorithm="sagc")
    assert state.dirty_from == date(2024, 3, 1), "left to the runner that has it"
    assert state.queued_at is None
    assert not RatingHistory.objects.filter(algorithm="sagc").exists()


def test_a_task_takes_its_queued_mark_off_and_claims_its_algorithm_in_its_first_statement(pair):
    enter(pair)
    assert RecomputeState.objects.get(algorithm="sagc").queued_at is not None

    with CaptureQueriesContext(connection) as queries:
        (result,) = tasks.recompute_algorithm.apply(args=["sagc"]).get()

    assert result["rows"] == 2
    statements = [query["sql"] for query in queries.captured_queries]
    first = statements[0]
    assert first.startswith('UPDATE "ratings_recomputestate" SET queued_at = NULL, running_since')
    assert not [sql for sql in statements if sql.startswith('INSERT INTO "ratings_recomputestate"')]
    assert marks("sagc") == (None, None, None, ""), "done: not queued, dirty nor running"


def test_a_task_whose_state_row_is_missing_makes_the_rows_and_finds_nothing_to_do(pair):
    enter(pair)
    RecomputeState.objects.filter(algorithm="sagc").delete()

    assert tasks.recompute_algorithm.apply(args=["sagc"]).get() == []

    assert set(RecomputeState.objects.values_list("algorithm", flat=True)) == set(
        maintained_algorithms()
    )
    assert marks("sagc") == (None, None, None, ""), "done: not queued, dirty nor running"


def test_a_finished_run_clears_the_mark_only_if_no_write_moved_it_and_records_itself(pair):
    enter(pair)
    RecomputeState.objects.filter(algorithm="sagc").update(
        dirty_round=2, dirty_seq=5, last_error="RuntimeError: worker died"
    )
    marked = RecomputeState.objects.get(algorithm="sagc")
    place = ReplayKey(date(2024, 3, 1), 2, 5)

    run._finish("sagc", marked.generation - 1, place, 7, time.monotonic() - 2)

    moved = RecomputeState.objects.get(algorithm="sagc")
    assert (moved.dirty_from, moved.dirty_round, moved.dirty_seq) == (date(2024, 3, 1), 2, 5)
    assert (moved.last_from, moved.last_rows, moved.last_error) == (date(2024, 3, 1), 7, "")
    assert moved.last_duration is not None and 2 <= moved.last_duration < 60
    assert moved.last_started is not None and moved.last_finished is not None
    took = (moved.last_finished - moved.last_started).total_seconds()
    assert took == pytest.approx(moved.last_duration, abs=0.01)
    assert abs((timezone.now() - moved.last_finished).total_seconds()) < 60

    run._finish("sagc", marked.generation, None, 9, time.monotonic())

    cleared = RecomputeState.objects.get(algorithm="sagc")
    assert (cleared.dirty_from, cleared.dirty_round, cleared.dirty_seq) == (None, 0, 0)
    assert (cleared.last_from, cleared.last_rows) == (None, 9)


def test_a_task_takes_over_from_a_runner_that_stopped_beating(pair):
    enter(pair)
    RecomputeState.objects.filter(algorithm="sagc").update(
        running_since=timezone.now() - timedelta(seconds=liveness.STALE_AFTER_SECONDS + 5),
        running_on="dead-host:4242",
    )

    (result,) = tasks.recompute_algorithm.apply(args=["sagc"]).get()

    assert result["rows"] == 2
    state = RecomputeState.objects.get(algorithm="sagc")
    assert (state.dirty_from, state.running_since, state.running_on) == (None, None, "")


def test_the_runner_loops_while_writes_move_the_generation(pair, monkeypatch):
    enter(pair)
    real_rewrite = run._rewrite
    starts = []

    def rewrite_while_a_game_is_entered(algorithm, start):
        starts.append(start and start.date)  # the place in the replay order it starts at
        if len(starts) == 1:  # an entry lands while the first replay runs
            enter(pair, date(2024, 2, 1))
        return real_rewrite(algorithm, start)

    monkeypatch.setattr(run, "_rewrite", rewrite_while_a_game_is_entered)
    results = run_queued("sagc")

    assert starts == [date(2024, 3, 1), date(2024, 2, 1)]
    # The first replay's rows are written (PostgreSQL) or dropped as stale (SQLite, which
    # writes only a replay of the inputs as they are when it takes the write lock).
    assert results[-1].replayed_from == date(2024, 2, 1)
    state = RecomputeState.objects.get(algorithm="sagc")
    assert (state.dirty_from, state.running_since) == (None, None)
    assert RatingHistory.objects.filter(algorithm="sagc").count() == 4


def test_the_sweep_queues_what_a_lost_message_left_and_not_what_was_just_queued(
    pair, sent, settings, django_capture_on_commit_callbacks
):
    enter(pair)  # on_commit does not run here: as if the message were lost
    RecomputeState.objects.exclude(algorithm="sagc").update(queued_at=timezone.now())
    RecomputeState.objects.filter(algorithm="sagc").update(
        queued_at=timezone.now() - timedelta(seconds=settings.RATINGS_SWEEP_SECONDS + 1)
    )

    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.recompute_pending.apply().get() == ["sagc"]
    assert sent == ["sagc"]


def test_the_sweep_drops_the_running_mark_of_a_dead_runner_and_queues_its_algorithm(
    pair, sent, django_capture_on_commit_callbacks
):
    enter(pair)
    RecomputeState.objects.update(queued_at=timezone.now())
    RecomputeState.objects.filter(algorithm="anchor").update(
        running_since=timezone.now() - timedelta(hours=6), running_on="dead-host:4242"
    )
    RecomputeState.objects.filter(algorithm="anchor").update(queued_at=None)

    with django_capture_on_commit_callbacks(execute=True):
        assert sweep() == ["anchor"]
    assert sent == ["anchor"]
    state = RecomputeState.objects.get(algorithm="anchor")
    assert (state.running_since, state.running_on) == (None, "")
    assert state.queued_at is not None


def test_a_broker_that_is_down_is_logged_not_raised(caplog, monkeypatch):
    from clubrating.celery import app as celery_app

    def broker_down(*args, **kwargs):
        raise ConnectionRefusedError("broker down")

    celery_app.conf.task_always_eager = False  # the autouse fixture restores it
    monkeypatch.setattr(celery_app, "send_task", broker_down)

    monkeypatch.setattr(tasks.QueuedTask, "broker_down_until", 0.0)

    assert tasks.recompute_algorithm.apply_async(("sagc",)) is None
    assert tasks.recompute_algorithm.apply_async(("anchor",)) is None
    assert "could not queue ratings.tasks.recompute_algorithm" in caplog.text
    assert "not queueing ratings.tasks.recompute_algorithm: the broker was down" in caplog.text
