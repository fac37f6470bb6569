"""The lab brought up to date from the dirty place (the runs of games before it kept as
tallies), and debounced: one run after a burst of recomputes."""

import random
from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from django.utils import timezone

from players.models import Game
from players.services.games import game_void, record_sheet_submit
from ratings import tasks
from ratings.algorithms import maintained_algorithms
from ratings.engine import lab
from ratings.engine.algorithms import get_algorithm
from ratings.engine.ranks import Rank
from ratings.engine.records import Status, Winner
from ratings.lab import services as lab_services
from ratings.lab import tallies as lab_tallies
from ratings.models import LabReport, RecomputeState
from ratings.recompute.run import recompute_pending, sweep
from ratings.selectors import ReplayKey, placed_history_games, player_entries, replay_records
from tests import factories
from tests.ratings.helpers import full_run_metrics

ALGORITHMS = ["sagc", "egf-2021", "french", "anchor", "gcr"]

pytestmark = [pytest.mark.django_db, pytest.mark.algorithms(*ALGORITHMS)]


def same_metrics(have: dict, want: dict) -> None:
    """Equal up to the order of float additions."""
    assert have.keys() == want.keys()
    for key, value in want.items():
        if isinstance(value, float):
            assert have[key] == pytest.approx(value, rel=1e-12), key
        elif isinstance(value, list):
            assert len(have[key]) == len(value), key
            for mine, theirs in zip(have[key], value, strict=True):
                same_metrics(mine, theirs)
        else:
            assert have[key] == value, key


def test_a_tally_gives_the_figures_of_evaluate():
    rng = random.Random(7)
    games = [
        lab.LabGame(
            matchup=lab.Matchup(
                white=lab.Side(Rank(rng.randint(-25, 5)), rng.uniform(1000, 2500)),
                black=lab.Side(Rank(rng.randint(-25, 5)), rng.uniform(1000, 2500)),
                handicap=rng.choice([0, 0, 2, 5, 9]),
            ),
            winner=rng.choice(list(Winner)),
            status=rng.choice([Status.NORMAL, Status.TOURNAMENT, Status.INTERNET]),
        )
        for _ in range(300)
    ]
    engine = lab_services.get_algorithm("egf-2021")
    items = lab.predictions(engine, games)
    halves = [lab_tallies.tally(items[:120]), lab_tallies.tally(items[120:])]

    same_metrics(lab_tallies.metrics(lab_tallies.combined(halves)), lab.evaluate(items))


@pytest.fixture
def club():
    """Five months of games between six players, a tournament across two months."""
    vera = factories.volunteer()
    players = [factories.player(f"p{n}", f"{2 + 3 * n}k") for n in range(6)]
    autumn = factories.tournament("autumn", "Autumn")
    rng = random.Random(3)
    games = []
    for n in range(80):
        white, black = rng.sample(players, 2)
        winner = rng.choice("WBWBD")
        day = date(2024, 1, 5) + timedelta(days=2 * n)
        # a jigo needs an integer komi
        games.append(factories.game(white, black, winner, day, komi=7 if winner == "D" else None))
    for n, day in enumerate((date(2024, 3, 30), date(2024, 3, 31), date(2024, 4, 1))):
        games.append(
            factories.game(players[n], players[n + 3], "W", day, tournament=autumn, round=n + 1)
        )
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    recompute_pending()
    lab_services.compute_lab_reports(ALGORITHMS)
    return vera, players, autumn


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("day", [date(2024, 4, 10), date(2024, 4, 1), date(2024, 1, 7)])
def test_a_report_brought_up_to_date_equals_one_computed_in_full(club, algorithm, day):
    vera, players, autumn = club
    tournament = autumn if day == date(2024, 4, 1) else None
    record_sheet_submit(
        user=vera,
        allow_duplicates=True,
        games=[factories.game(players[0], players[5], "B", day, tournament=tournament, round=4)],
    )
    (result,) = recompute_pending([algorithm])

    updated = lab_services.compute_lab_report(algorithm, since=result.replayed_from)
    updated_metrics, counted = updated.metrics, updated.games_counted
    full = lab_services.compute_lab_report(algorithm)

    assert updated_metrics == full.metrics  # exact sums: equal, not only close
    assert counted == full.games_counted


@pytest.mark.parametrize("algorithm", ["sagc", "anchor"])
def test_the_games_read_from_a_place_are_the_whole_historys_from_there(club, algorithm):
    """The lab's read from a place (its own statement) gives exactly the games, places,
    positions and matchups of the whole history's read from there on, a voided game
    left out. A komi the column holds but no float does (0.1: a sheet takes multiples
    of 0.5, the model any tenth) is read as exactly."""
    vera, players, _autumn = club
    record_sheet_submit(
        user=vera,
        allow_duplicates=True,
        games=[
            factories.game(players[1], players[4], "W", date(2024, 3, 2), komi=0.5),
            factories.game(players[2], players[3], "B", date(2024, 3, 4), komi=-5.5),
            factories.game(players[0], players[2], "W", date(2024, 3, 6)),
        ],
    )
    place = Game.objects.valid().get(date=date(2024, 3, 2), komi=Decimal("0.5"))
    Game.objects.filter(pk=place.pk).update(komi=Decimal("0.1"))
    voided = Game.objects.valid().filter(date=date(2024, 3, 6)).order_by("seq").last()
    game_void(user=vera, game_id=voided.pk, version=voided.version, reason="a mistake")
    recompute_pending([algorithm])
    since = ReplayKey(place.date, place.round, place.seq)

    from_place = list(placed_history_games(algorithm, blocks=False, since=since))
    whole = [
        placed
        for placed in placed_history_games(algorithm, blocks=False)
        if placed[0] >= (since.date, since.round, since.seq)
    ]

    assert from_place == whole
    assert any(game.matchup.komi == Fraction(1, 10) for _place, _position, game in from_place)
    assert len(whole) >= 10


def test_gcr_lab_counted_from_its_snapshots_equals_the_engines_month_by_month_rating(club):
    """GCR's report, full and brought up to date after a back-dated game, read from the
    recompute's month-end snapshots, has the figures of the engine rating every month
    end itself (``lab.holistic_predictions``): each side from its value at the month
    end before the game, a player with none from the initial value."""
    vera, players, _autumn = club
    engine = get_algorithm("gcr")

    def engines_metrics():
        records, _ids = replay_records("gcr")
        games, _state = lab.holistic_predictions(engine, list(records), player_entries())
        return lab.evaluate(lab.predictions(engine, games))

    def counted(metrics, want):
        return {key: value for key, value in metrics.items() if key in want}

    want = engines_metrics()
    same_metrics(counted(lab_services.compute_lab_report("gcr").metrics, want), want)

    newcomer = factories.player("newcomer", "12k")
    record_sheet_submit(
        user=vera,
        allow_duplicates=True,
        games=[factories.game(newcomer, players[2], "W", date(2024, 3, 3))],
    )
    (result,) = recompute_pending(["gcr"])
    updated = lab_services.compute_lab_report("gcr", since=result.replayed_from)
    want = engines_metrics()
    same_metrics(counted(updated.metrics, want), want)


def test_only_the_games_from_the_dirty_place_are_counted_again(club, monkeypatch):
    """A game entered after the last is counted alone; one entered before a game of its
    own day recounts the run it cuts; EGF recounts the tournament it lands in from its
    first game (its games are predicted from the players' values at its start)."""
    vera, players, autumn = club
    RecomputeState.objects.update(lab_queued_at=None, lab_dirty_from=None)  # all current
    counted = []
    real = lab_services.placed_history_games

    def spy(algorithm, *, blocks, since=None, from_position=0):
        games = list(real(algorithm, blocks=blocks, since=since, from_position=from_position))
        counted.append((algorithm, since, len(games)))
        return games

    monkeypatch.setattr(lab_services, "placed_history_games", spy)

    def enter(day, **extra):
        record_sheet_submit(
            user=vera,
            allow_duplicates=True,
            games=[factories.game(players[0], players[5], "B", day, **extra)],
        )
        recompute_pending(["sagc", "egf-2021"])
        for name in ("sagc", "egf-2021"):
            lab_services.update_lab_report(name)
            assert LabReport.objects.get(algorithm=name).metrics == full_run_metrics(name)

    last = Game.objects.valid().order_by("-date", "-round", "-seq").first()
    enter(last.date + timedelta(days=1))  # after the last game
    enter(last.date + timedelta(days=1))  # one more that night
    enter(date(2024, 3, 31), tournament=autumn, round=4)  # into the tournament

    updates = [item for item in counted if item[1] is not None]  # not the full runs
    sagc = [(since, games) for name, since, games in updates if name == "sagc"]
    egf = [(since, games) for name, since, games in updates if name == "egf-2021"]
    assert [games for _since, games in sagc[:2]] == [1, 1]
    assert [games for _since, games in egf[:2]] == [1, 1]
    # SAGC from the entry's own place; EGF from before the tournament's first game
    # (30 March), the start of the run of March games that it cuts
    assert sagc[2][0] == ReplayKey(date(2024, 3, 31), 4, sagc[2][0].seq)
    assert egf[2][0].date < date(2024, 3, 30) and egf[2][1] > sagc[2][1]


@pytest.fixture
def queued_lab_runs(club, monkeypatch, settings):
    """The lab's messages, (args, countdown) each, with a delay of 10 s; every lab current."""
    queued = []
    monkeypatch.setattr(
        tasks.update_lab_report,
        "apply_async",
        lambda args, countdown: queued.append((args, countdown)),
    )
    settings.RATINGS_LAB_DELAY_SECONDS = 10
    RecomputeState.objects.update(lab_queued_at=None, lab_dirty_from=None)
    return queued


def test_a_burst_of_recomputes_queues_one_lab_run_after_a_delay(
    club, queued_lab_runs, django_capture_on_commit_callbacks
):
    vera, players, _autumn = club
    queued = queued_lab_runs
    with django_capture_on_commit_callbacks(execute=True):
        for day in (date(2024, 6, 1), date(2024, 6, 2), date(2024, 5, 1)):
            record_sheet_submit(
                user=vera,
                allow_duplicates=True,
                games=[factories.game(players[1], players[2], "W", day)],
            )
            recompute_pending(["sagc"])

    assert queued == [(("sagc",), 10)]
    state = RecomputeState.objects.get(algorithm="sagc")
    assert state.lab_dirty_from is not None and state.lab_dirty_from <= date(2024, 5, 1)


def test_the_lab_task_waits_while_its_algorithm_is_dirty(club):
    before = LabReport.objects.get(algorithm="sagc").computed_at
    RecomputeState.objects.filter(algorithm="sagc").update(
        lab_dirty_from=date(2024, 5, 1), dirty_from=date(2024, 5, 2)
    )

    assert tasks.update_lab_report.apply(args=["sagc"]).get() is None
    assert LabReport.objects.get(algorithm="sagc").computed_at == before
    assert RecomputeState.objects.get(algorithm="sagc").lab_dirty_from == date(2024, 5, 1)


def test_the_lab_task_brings_the_report_up_to_date_once_the_algorithm_is(club):
    vera, players, _autumn = club
    record_sheet_submit(
        user=vera,
        allow_duplicates=True,
        games=[factories.game(players[1], players[2], "W", date(2024, 6, 1))],
    )
    recompute_pending(["sagc"])
    before = LabReport.objects.get(algorithm="sagc").games_counted

    assert tasks.update_lab_report.apply(args=["sagc"]).get() == before + 1
    state = RecomputeState.objects.get(algorithm="sagc")
    assert (state.lab_dirty_from, state.lab_queued_at) == (None, None)


def test_the_sweep_queues_a_lab_update_whose_message_was_lost(
    club, monkeypatch, django_capture_on_commit_callbacks
):
    queued = []
    monkeypatch.setattr(
        tasks.update_lab_report, "apply_async", lambda args, countdown: queued.append(args)
    )
    RecomputeState.objects.update(lab_queued_at=None, lab_dirty_from=None)
    RecomputeState.objects.filter(algorithm="french").update(
        lab_dirty_from=date(2024, 5, 1), lab_queued_at=timezone.now() - timedelta(hours=1)
    )
    RecomputeState.objects.filter(algorithm="anchor").update(
        lab_dirty_from=date(2024, 5, 1), lab_queued_at=timezone.now()
    )

    with django_capture_on_commit_callbacks(execute=True):
        sweep()

    assert queued == [("french",)]


def test_the_lab_kept_up_to_date_through_entries_and_voids_equals_full_runs(club, settings):
    """Every algorithm, through entries at the end, in a new month, back-dated, into a
    tournament, and voids (old and newest), one lab update per write or per burst: each
    update gives exactly the figures of a full run from scratch."""
    settings.RATINGS_ALGORITHMS = []  # every algorithm the engine registers
    vera, players, autumn = club
    recompute_pending()
    names = maintained_algorithms()
    lab_services.compute_lab_reports(names)
    RecomputeState.objects.update(lab_queued_at=None, lab_dirty_from=None)  # all current
    rng = random.Random(11)

    def enter(day, **extra):
        white, black = rng.sample(players, 2)
        winner = rng.choice("WBD")
        if winner == "D" and "komi" not in extra:
            extra["komi"] = 6 if extra.get("handicap", 0) == 0 else 0  # a jigo: integer komi
        game = factories.game(white, black, winner, day, **extra)
        return record_sheet_submit(user=vera, allow_duplicates=True, games=[game])

    def void(game):
        game_void(user=vera, game_id=game.pk, version=game.version, reason="a mistake")

    def newest():
        return Game.objects.valid().order_by("-date", "-round", "-seq").first()

    steps = [
        lambda: enter(date(2024, 5, 28)),  # at the end
        lambda: enter(date(2024, 5, 28)),  # the same night
        lambda: enter(date(2024, 6, 4)),  # a new month
        lambda: enter(date(2024, 2, 14)),  # back-dated
        lambda: enter(date(2024, 3, 31), tournament=autumn, round=4),  # into the tournament
        lambda: void(newest()),  # the newest game
        lambda: void(Game.objects.valid().filter(date__lt=date(2024, 2, 1)).first()),  # an old one
        lambda: [enter(date(2024, 6, 5)), enter(date(2024, 4, 20))],  # a burst, one lab run
        lambda: enter(date(2024, 6, 5), board_size=9),  # a game some algorithms skip
        lambda: enter(date(2024, 6, 6), status="free"),
    ]
    for step in steps:
        step()
        recompute_pending()
        for name in names:
            assert lab_services.update_lab_report(name) is not None, name
            assert LabReport.objects.get(algorithm=name).metrics == full_run_metrics(name), name


def test_gcr_brought_up_to_date_reads_only_the_games_from_the_dirty_place_on(club, monkeypatch):
    vera, players, _autumn = club
    RecomputeState.objects.update(lab_queued_at=None, lab_dirty_from=None)  # all current
    last = Game.objects.valid().order_by("-date", "-round", "-seq").first()
    sheet = record_sheet_submit(
        user=vera,
        allow_duplicates=True,
        games=[factories.game(players[1], players[2], "W", last.date + timedelta(days=1))],
    )
    recompute_pending(["gcr"])
    read_from = []
    real = lab_services.replay_records

    def spy(algorithm, start=None, **options):
        read_from.append(start)
        return real(algorithm, start, **options)

    monkeypatch.setattr(lab_services, "replay_records", spy)
    # the Game Courier accuracy is the recompute's, of the table it rated: not counted again
    monkeypatch.setattr(lab_services, "count_holistic_table", None)
    lab_services.update_lab_report("gcr")
    monkeypatch.undo()

    (game,) = sheet.games
    assert read_from == [ReplayKey(game.date, game.round, game.seq)]
    assert LabReport.objects.get(algorithm="gcr").metrics == full_run_metrics("gcr")


def test_the_lab_task_waits_until_a_burst_of_recomputes_is_over(
    club, queued_lab_runs, django_capture_on_commit_callbacks
):
    """Debounced, not throttled: writes that keep coming within the delay of each other
    bring one lab run, the delay after the last of them."""
    vera, players, _autumn = club
    queued = queued_lab_runs
    tasks.update_lab_report.app.conf.task_always_eager = False  # the autouse fixture restores it
    sagc = RecomputeState.objects.filter(algorithm="sagc")
    first_report = LabReport.objects.get(algorithm="sagc").computed_at

    def write(day):
        with django_capture_on_commit_callbacks(execute=True):
            record_sheet_submit(
                user=vera,
                allow_duplicates=True,
                games=[factories.game(players[1], players[2], "W", day)],
            )
            recompute_pending(["sagc"])

    write(date(2024, 6, 1))
    sagc.update(lab_queued_at=timezone.now() - timedelta(seconds=8))  # 8 s go by
    write(date(2024, 6, 2))  # the burst goes on: its mark is the last one
    last_mark = sagc.values_list("lab_queued_at", flat=True).get()
    # The message sent after the first write is due: the last mark is not 10 s old.
    mark_age_before = (timezone.now() - last_mark).total_seconds()
    with django_capture_on_commit_callbacks(execute=True):
        assert lab_services.update_lab_report("sagc") is None
    mark_age_after = (timezone.now() - last_mark).total_seconds()
    assert LabReport.objects.get(algorithm="sagc").computed_at == first_report
    sagc.update(lab_queued_at=timezone.now() - timedelta(seconds=10))  # the burst is over
    report = lab_services.update_lab_report("sagc")

    assert [args for args, _countdown in queued] == [("sagc",), ("sagc",)]
    # queued again for when the last mark is 10 s old, whatever the machine's speed
    assert queued[0][1] == 10 and 10 - mark_age_after <= queued[1][1] <= 10 - mark_age_before
    assert report is not None and report.computed_at > first_report
    assert report.games_counted == LabReport.objects.get(algorithm="sagc").games_counted
    assert sagc.values_list("lab_dirty_from", "lab_queued_at").get() == (None, None)
    assert lab_services.update_lab_report("sagc") is None  # the second message: nothing left


def test_a_recompute_that_commits_during_a_lab_run_leaves_the_lab_behind(
    club, queued_lab_runs, monkeypatch, django_capture_on_commit_callbacks
):
    """Even when it rewrote from a later date than the lab's mark: the run may not have
    read its rows, so the run it queued still has something to do."""
    RecomputeState.objects.filter(algorithm="sagc").update(lab_dirty_from=date(2024, 5, 1))
    real = lab_services.compute_lab_report

    def with_a_recompute_meanwhile(algorithm, since=None):
        report = real(algorithm, since=since)
        lab_services.mark_lab_dirty(algorithm, date(2024, 5, 10))
        return report

    monkeypatch.setattr(lab_services, "compute_lab_report", with_a_recompute_meanwhile)
    with django_capture_on_commit_callbacks(execute=True):
        assert lab_services.update_lab_report("sagc") is not None

    state = RecomputeState.objects.get(algorithm="sagc")
    assert state.lab_dirty_from == date(2024, 5, 1)
    assert state.lab_queued_at is not None
    assert queued_lab_runs == [(("sagc",), 10)]


def test_gcr_accuracy_kept_by_the_recompute_is_that_of_the_table_counted_again(club):
    kept = lab_services.compute_lab_report("gcr").metrics["gcr_accuracy"]
    RecomputeState.objects.filter(algorithm="gcr").update(holistic_figures=None)

    counted = lab_services.compute_lab_report("gcr").metrics["gcr_accuracy"]

    assert kept["pairs"] > 0
    assert counted == kept


def test_the_lab_mark_moves_only_to_an_earlier_place_and_queues_one_run(
    queued_lab_runs, django_capture_on_commit_callbacks
):
    sagc = RecomputeState.objects.filter(algorithm="sagc")

    def mark(place) -> tuple:
        with django_capture_on_commit_callbacks(execute=True):
            lab_services.mark_lab_dirty("sagc", place)
        return sagc.values_list("lab_dirty_from", "lab_dirty_round", "lab_dirty_seq").get()

    assert mark(ReplayKey(date(2024, 5, 10), 2, 40)) == (date(2024, 5, 10), 2, 40)
    first_queued = sagc.get().lab_queued_at
    assert mark(ReplayKey(date(2024, 5, 10), 2, 41)) == (date(2024, 5, 10), 2, 40)
    assert mark(ReplayKey(date(2024, 5, 10), 3, 1)) == (date(2024, 5, 10), 2, 40)
    assert mark(ReplayKey(date(2024, 5, 11), 0, 0)) == (date(2024, 5, 10), 2, 40)
    assert mark(ReplayKey(date(2024, 5, 10), 2, 39)) == (date(2024, 5, 10), 2, 39)
    assert mark(ReplayKey(date(2024, 5, 10), 1, 90)) == (date(2024, 5, 10), 1, 90)
    assert mark(date(2024, 5, 10)) == (date(2024, 5, 10), 0, 0)
    assert mark(None) == (date.min, 0, 0)

    assert sagc.get().lab_queued_at > first_queued  # the last mark's time
    assert queued_lab_runs == [(("sagc",), 10)]
