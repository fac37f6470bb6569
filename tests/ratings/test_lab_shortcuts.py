"""The lab update's shortcuts (issue 27, the lab's share of the tail), each pinned
against a full run: GCR reads only the entries and month-end snapshots of the players
of the games it counts, the stored runs are merged into few, the tournament a place
falls in is found by one statement, and no cycle collection runs meanwhile."""

import gc
import itertools
from datetime import date, timedelta

import pytest

from players.models import Game
from players.services.games import record_sheet_submit
from ratings.lab import services as lab_services
from ratings.lab import tallies as lab_tallies
from ratings.models import LabReport, RecomputeState
from ratings.recompute.run import recompute_pending
from ratings.selectors import ReplayKey
from tests import factories
from tests.ratings.helpers import full_run_metrics

ALGORITHMS = ["sagc", "egf-2021", "gcr"]

pytestmark = [pytest.mark.django_db, pytest.mark.algorithms(*ALGORITHMS)]


@pytest.fixture
def club():
    """Four months of games between eight players (a game every two days), every
    algorithm recomputed and the lab current."""
    vera = factories.volunteer()
    players = [factories.player(f"p{n}", f"{2 + 2 * n}k") for n in range(8)]
    games = [
        factories.game(players[n % 8], players[(3 * n + 1) % 8], "WB"[n % 2], day)
        for n, day in enumerate(date(2024, 1, 3) + timedelta(2 * n) for n in range(60))
    ]
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    recompute_pending()
    lab_services.compute_lab_reports(ALGORITHMS)
    RecomputeState.objects.update(lab_queued_at=None, lab_dirty_from=None)
    return vera, players


def enter_and_update(vera, white, black, day, algorithm):
    record_sheet_submit(
        user=vera, allow_duplicates=True, games=[factories.game(white, black, "W", day)]
    )
    recompute_pending([algorithm])
    lab_services.update_lab_report(algorithm)


def test_gcr_brought_up_to_date_reads_only_its_games_players_entries_and_snapshots(
    club, monkeypatch
):
    vera, players = club
    entries_of, snapshot_players = [], set()
    real_entries, real_snapshots = lab_services.player_entries, lab_services._month_end_snapshots

    def entries_spy(usernames=None):
        entries_of.append(usernames)
        return real_entries(usernames)

    def snapshots_spy(name, since, wanted):
        rows = list(real_snapshots(name, since, wanted))
        snapshot_players.update(player for _day, player, _value in rows)
        return iter(rows)

    monkeypatch.setattr(lab_services, "player_entries", entries_spy)
    monkeypatch.setattr(lab_services, "_month_end_snapshots", snapshots_spy)
    # back-dated into February: the games from there on have every player but two
    enter_and_update(vera, players[1], players[2], date(2024, 3, 20), "gcr")
    monkeypatch.undo()

    counted = set(
        Game.objects.valid()
        .filter(date__gte=date(2024, 3, 1))
        .values_list("white__username", flat=True)
    ) | set(
        Game.objects.valid()
        .filter(date__gte=date(2024, 3, 1))
        .values_list("black__username", flat=True)
    )
    assert entries_of == [counted]
    assert snapshot_players and snapshot_players <= counted
    assert LabReport.objects.get(algorithm="gcr").metrics == full_run_metrics("gcr")


def test_gcr_with_more_players_than_a_partial_read_names_reads_everyones(club, monkeypatch):
    vera, players = club
    monkeypatch.setattr(lab_services, "FEW_PLAYERS", 3)
    entries_of = []
    real_entries = lab_services.player_entries
    monkeypatch.setattr(
        lab_services,
        "player_entries",
        lambda usernames=None: entries_of.append(usernames) or real_entries(usernames),
    )
    enter_and_update(vera, players[0], players[4], date(2024, 2, 10), "gcr")
    monkeypatch.undo()

    assert entries_of == [None]
    assert LabReport.objects.get(algorithm="gcr").metrics == full_run_metrics("gcr")


def one_game_runs(count):
    """``count`` runs of one game each, a day apart, as ``_tally_runs`` keys them."""
    runs = {}
    for number in range(count):
        place = (date(2020, 1, 1) + timedelta(days=number), 0, number)
        part = lab_tallies.empty()
        part["all"][0] = 1
        part.update(
            first=lab_services._stored(place),
            last=lab_services._stored(place),
            first_position=2 * number,
            last_position=2 * number,
        )
        runs[lab_services._run_key(lab_services._month(place[0]), place)] = part
    return runs


def test_runs_merged_hold_at_most_a_quarter_of_the_games_after_them_and_stay_few():
    merged = lab_services._merged(one_game_runs(5000))

    assert sum(lab_tallies.games(part) for part in merged.values()) == 5000
    assert len(merged) <= 45  # 5,000 runs of one game each
    later = 0
    for key in sorted(merged, reverse=True):
        games = lab_tallies.games(merged[key])
        limit = max(later // lab_services.LATER_GAMES_PER_RUN_GAME, lab_services.RUN_GAMES_FLOOR)
        assert games <= limit, key
        later += games
    # in replay order, without a gap or an overlap
    in_order = [merged[key] for key in sorted(merged)]
    spans = [(part["first_position"], part["last_position"]) for part in in_order]
    assert spans[0][0] == 0 and spans[-1][1] == 2 * 4999
    assert all(after[0] == before[1] + 2 for before, after in itertools.pairwise(spans))


def test_the_lab_kept_up_to_date_game_by_game_keeps_few_runs_and_a_full_runs_figures(club):
    vera, players = club
    day = date(2024, 5, 1)
    for number in range(40):
        day += timedelta(days=1)
        white, black = players[number % 8], players[(number + 3) % 8]
        enter_and_update(vera, white, black, day, "sagc")
    runs = LabReport.objects.get(algorithm="sagc").tallies
    # back-dated: the runs after the place are counted again, those before it kept
    enter_and_update(vera, players[2], players[6], date(2024, 3, 9), "sagc")

    # 100 games, 40 of them a run each when entered: the newest runs merged to 16 games,
    # those before them to a quarter of the games after them (a run a month and each
    # month's two newest kept apart, as before, made ten)
    assert len(runs) <= 7
    assert LabReport.objects.get(algorithm="sagc").metrics == full_run_metrics("sagc")


def test_a_place_in_overlapping_tournaments_moves_to_the_first_game_of_the_earliest(club):
    vera, players = club
    spring = factories.tournament("spring", "Spring")
    easter = factories.tournament("easter", "Easter")
    games = [
        factories.game(players[0], players[1], "W", date(2024, 4, 5), tournament=spring, round=1),
        factories.game(players[2], players[3], "B", date(2024, 4, 6), tournament=easter, round=1),
        factories.game(players[0], players[2], "W", date(2024, 4, 7), tournament=spring, round=2),
        factories.game(players[1], players[3], "B", date(2024, 4, 8), tournament=easter, round=2),
    ]
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    first = Game.objects.get(tournament=spring, round=1)

    # in Easter's second day: Easter began on the 6th, inside Spring, which began on the 5th
    place = lab_services._tournament_start(ReplayKey(date(2024, 4, 8), 0, 0))

    assert place == ReplayKey(first.date, first.round, first.seq)
    after_every_game = ReplayKey(date(2024, 4, 9), 0, 0)
    assert lab_services._tournament_start(after_every_game) == after_every_game


def test_a_place_in_a_tournament_moves_to_its_first_game_not_to_games_around_it(club):
    vera, players = club
    cup = factories.tournament("cup", "Cup")
    games = [
        # a club game earlier on the cup's first day, and one after the cup's last game
        factories.game(players[4], players[5], "W", date(2024, 6, 1), round=0),
        factories.game(players[0], players[1], "W", date(2024, 6, 1), tournament=cup, round=2),
        factories.game(players[2], players[3], "B", date(2024, 6, 1), tournament=cup, round=1),
        factories.game(players[0], players[3], "W", date(2024, 6, 2), tournament=cup, round=3),
        factories.game(players[6], players[7], "B", date(2024, 6, 3), round=0),
    ]
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    first = Game.objects.get(tournament=cup, round=1)

    in_the_cup, after_the_cup = ReplayKey(date(2024, 6, 2), 0, 0), ReplayKey(date(2024, 6, 3), 0, 0)
    starts = [lab_services._tournament_start(place) for place in (in_the_cup, after_the_cup)]

    assert starts == [ReplayKey(first.date, first.round, first.seq), after_the_cup]


def test_the_recount_starts_where_no_run_and_no_tournament_straddles_it(
    club, django_assert_num_queries
):
    """The place a report is counted again from: moved back to the first game of any
    run, then of any tournament (EGF, the French ladder), with games on both sides of
    it, until neither moves it; a run that begins at a tournament's start needs one
    statement."""
    vera, players = club
    spring = factories.tournament("spring", "Spring")
    easter = factories.tournament("easter", "Easter")
    record_sheet_submit(
        user=vera,
        allow_duplicates=True,
        games=[
            factories.game(players[0], players[1], "W", date(2024, 4, 5), tournament=spring),
            factories.game(players[2], players[3], "B", date(2024, 4, 6), tournament=easter),
            factories.game(players[4], players[5], "W", date(2024, 4, 7), tournament=spring),
            factories.game(players[6], players[7], "B", date(2024, 4, 8), tournament=easter),
        ],
    )
    spring_start = Game.objects.get(tournament=spring, date=date(2024, 4, 5))

    def run(first, last):
        return {"first": lab_services._stored(first), "last": lab_services._stored(last)}

    runs = {  # the first run ends inside Spring, the second begins inside Easter
        "a": run(ReplayKey(date(2024, 4, 1), 0, 0), ReplayKey(date(2024, 4, 5), 9, 0)),
        "b": run(ReplayKey(date(2024, 4, 7), 0, 0), ReplayKey(date(2024, 4, 30), 0, 0)),
    }
    since = ReplayKey(date(2024, 4, 8), 0, 0)

    # the second run to the 7th, Spring (begun inside the first run) to the 5th, the first
    # run to the 1st
    assert lab_services._recount_start(runs, since, blocks=True) == (
        ReplayKey(date(2024, 4, 1), 0, 0),
        {},
    )
    assert lab_services._recount_start(runs, since, blocks=False) == (
        ReplayKey(date(2024, 4, 7), 0, 0),
        {"a": runs["a"]},
    )
    at_spring = ReplayKey(spring_start.date, spring_start.round, spring_start.seq)
    from_spring = {"c": run(at_spring, ReplayKey(date(2024, 4, 30), 0, 0))}
    with django_assert_num_queries(1):
        place, kept = lab_services._recount_start(from_spring, since, blocks=True)
    assert (place, kept) == (at_spring, {})


def test_a_lab_report_is_counted_without_the_cycle_collector_and_leaves_it_on(club, monkeypatch):
    collector_on = []
    real = lab_services._tally_runs

    def spy(engine, placed):
        collector_on.append(gc.isenabled())
        return real(engine, placed)

    monkeypatch.setattr(lab_services, "_tally_runs", spy)
    assert gc.isenabled()
    lab_services.compute_lab_report("sagc")

    assert collector_on == [False]
    assert gc.isenabled()
