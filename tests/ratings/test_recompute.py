"""The recompute: incremental runs give exactly what a full replay from scratch gives."""

import io
from datetime import date, timedelta

import pytest
from django.core.management import call_command
from django.db import transaction
from django.db.models import F
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from players.models import Game
from players.services.adjustments import adjustment_apply
from players.services.games import game_correct, game_void, record_sheet_submit
from ratings.engine.algorithms import get_algorithm
from ratings.engine.base import replay
from ratings.engine.formats.history import history_cells
from ratings.models import (
    Checkpoint,
    CurrentRating,
    HistoryRewrite,
    MonthEndStanding,
    RatingHistory,
    RecomputeState,
)
from ratings.recompute import replay as recompute_replay
from ratings.recompute import run, staging
from ratings.recompute.run import recompute, recompute_pending
from ratings.selectors import player_entries, replay_records, stored_history
from tests import factories
from tests.ratings.test_gcr_snapshots import after_a_full_recompute, gcr_tables

pytestmark = pytest.mark.django_db

HISTORY_ALGORITHMS = ("sagc", "egf-2021", "egf-2020", "egf-legacy", "french", "anchor")


def replayed_from_scratch(algorithm: str) -> list[list[str]]:
    engine = get_algorithm(algorithm)
    records, _ = replay_records(algorithm)
    return [history_cells(row, engine) for row in replay(engine, records, player_entries())]


def stored(algorithm: str) -> list[list[str]]:
    engine = get_algorithm(algorithm)
    return [history_cells(row, engine) for row in stored_history(algorithm)]


@pytest.fixture
def club(settings):
    settings.RATINGS_CHECKPOINT_EVERY = 3
    vera = factories.volunteer()
    players = [
        factories.player(name, rank)
        for name, rank in [
            ("ann", "2d"),
            ("ben", "3k"),
            ("cat", "8k"),
            ("dan", "15k"),
            ("eve", "25k"),
        ]
    ]
    return vera, players


def test_a_recompute_writes_a_history_row_per_player_per_game(club):
    vera, (ann, ben, *_rest) = club
    record_sheet_submit(user=vera, games=[factories.game(ann, ben, "W", date(2024, 1, 5))])
    recompute_pending()
    rows = RatingHistory.objects.filter(algorithm="sagc").order_by("position")
    assert [(r.player.username, r.opponent.username) for r in rows] == [
        ("ann", "ben"),
        ("ben", "ann"),
    ]
    assert RecomputeState.objects.get(algorithm="sagc").dirty_from is None
    assert CurrentRating.objects.filter(algorithm="sagc").count() == 2


def test_a_second_delivery_of_the_task_does_nothing(club):
    vera, (ann, ben, *_rest) = club
    record_sheet_submit(user=vera, games=[factories.game(ann, ben, "W", date(2024, 1, 5))])
    assert recompute_pending()
    assert recompute_pending() == []


def twenty_days_of_games_rated(vera, players, start: date) -> None:
    """One game a day for 20 days from ``start``, among the club's five, rated."""
    games = [
        factories.game(
            players[i % 5], players[(i + 1 + i // 5) % 5], "WB"[i % 2], start + timedelta(days=i)
        )
        for i in range(20)
    ]
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    recompute_pending()


def test_a_back_dated_game_resumes_from_a_checkpoint_and_matches_a_full_replay(club):
    vera, players = club
    start = date(2024, 1, 1)
    twenty_days_of_games_rated(vera, players, start)
    assert Checkpoint.objects.filter(algorithm="sagc").count() >= 5
    record_sheet_submit(
        user=vera, games=[factories.game(players[0], players[3], "B", start + timedelta(days=15))]
    )
    (result,) = [r for r in recompute_pending() if r.algorithm == "sagc"]
    assert result.rows < 42, "only the tail was replayed"
    for algorithm in HISTORY_ALGORITHMS:
        assert stored(algorithm) == replayed_from_scratch(algorithm), algorithm


def test_back_dated_entries_on_one_date_replay_the_same_tail_each_time(club, settings):
    vera, players = club
    start = date(2024, 1, 1)
    games = [
        factories.game(
            players[i % 5],
            players[(i + 1 + i // 5 % 4) % 5],
            "WB"[i % 2],
            start + timedelta(days=i),
        )
        for i in range(60)
    ]
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    recompute_pending(["sagc"])
    replayed = []
    for winner in "BWBW":
        record_sheet_submit(
            user=vera,
            games=[factories.game(players[1], players[4], winner, start + timedelta(days=50))],
            allow_duplicates=True,
        )
        (result,) = recompute_pending(["sagc"])
        replayed.append(result.rows)

    # The checkpoint a recompute resumes from stays: the next entry there finds it
    # again (or one the replay stored after it, each entry sorting after the last one
    # of day 50) rather than one further back. No replay is more than the first one's
    # tail and the rows of the games entered since.
    for count, rows in enumerate(replayed):
        assert rows <= replayed[0] + 2 * count, replayed
    assert stored("sagc") == replayed_from_scratch("sagc")


def test_a_game_after_the_last_one_replays_only_itself(club):
    vera, players = club
    start = date(2024, 1, 1)
    twenty_days_of_games_rated(vera, players, start)

    tonight = start + timedelta(days=30)
    replayed = []
    for white, black in ((0, 3), (1, 2), (4, 0)):
        record_sheet_submit(
            user=vera, games=[factories.game(players[white], players[black], "B", tonight)]
        )
        results = recompute_pending()
        replayed.append({result.algorithm: result.rows for result in results})

    # Each game of the night replays only itself: the dirty mark is its place in the
    # replay order (date, round, entry number), not its date.
    for algorithm in HISTORY_ALGORITHMS:
        assert [rows[algorithm] for rows in replayed] == [2, 2, 2], algorithm
        assert stored(algorithm) == replayed_from_scratch(algorithm), algorithm


BLOCK_ALGORITHMS = ("egf-2021", "egf-2020", "egf-legacy", "french")


def weekly_tournaments_rated(vera, players, start: date, weeks: int) -> None:
    """A tournament a week from ``start`` for ``weeks`` weeks: three rounds on three
    days, two games a round (six games), among the club's five, rated."""
    games = []
    for week in range(weeks):
        tournament = factories.tournament(f"week-{week}", f"Week {week}")
        for round_number in (1, 2, 3):
            day = start + timedelta(days=7 * week + round_number - 1)
            for board in (0, 1):
                white = (week + round_number + 2 * board) % 5
                black = (white + 1 + board) % 5
                games.append(
                    factories.game(
                        players[white],
                        players[black],
                        "WB"[(round_number + board) % 2],
                        day,
                        tournament=tournament,
                        round=round_number,
                    )
                )
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    recompute_pending()


def test_a_game_in_the_last_tournaments_week_replays_only_that_tournament_and_itself(club):
    # Checkpoints are spaced in records, tournament blocks included: one was kept
    # before every six-game block (RATINGS_CHECKPOINT_EVERY = 3), where counting a block
    # as one unit kept one before every third block only.
    vera, players = club
    start = date(2024, 1, 1)
    weekly_tournaments_rated(vera, players, start, weeks=6)

    in_the_last_week = start + timedelta(days=7 * 5 + 1)
    record_sheet_submit(
        user=vera, games=[factories.game(players[0], players[3], "B", in_the_last_week)]
    )
    replayed = {result.algorithm: result.rows for result in recompute_pending()}

    for algorithm in BLOCK_ALGORITHMS:
        assert replayed[algorithm] == 2 * 6 + 2, algorithm
    for algorithm in HISTORY_ALGORITHMS:
        assert stored(algorithm) == replayed_from_scratch(algorithm), algorithm


def test_a_back_dated_game_rewrites_no_row_before_its_place(club):
    # A club game on the second day of the last tournament: the block algorithms replay
    # that tournament (rated as one unit before the game) for the state after it, but
    # its rows are the ones stored, and stay; only the game's own rows are written.
    vera, players = club
    start = date(2024, 1, 1)
    weekly_tournaments_rated(vera, players, start, weeks=6)
    kept = {
        algorithm: dict(
            RatingHistory.objects.filter(algorithm=algorithm).values_list("position", "pk")
        )
        for algorithm in HISTORY_ALGORITHMS
    }

    in_the_last_week = start + timedelta(days=7 * 5 + 1)
    record_sheet_submit(
        user=vera, games=[factories.game(players[0], players[3], "B", in_the_last_week)]
    )
    results = {result.algorithm: result for result in recompute_pending()}

    for algorithm in BLOCK_ALGORITHMS:
        assert (results[algorithm].rows, results[algorithm].rewritten) == (14, 2), algorithm
    # SAGC rates game by game: the tournament's first day is before the game, the
    # games of its second and third rounds after it.
    assert results["sagc"].rewritten == 2 + 2 * 2 * 2
    for algorithm in HISTORY_ALGORITHMS:
        rewritten = results[algorithm].rewritten
        rows = RatingHistory.objects.filter(algorithm=algorithm)
        first_rewritten = rows.count() - rewritten
        assert dict(rows.filter(position__lt=first_rewritten).values_list("position", "pk")) == {
            position: pk for position, pk in kept[algorithm].items() if position < first_rewritten
        }
        assert stored(algorithm) == replayed_from_scratch(algorithm), algorithm


def test_a_game_of_tonight_replays_from_its_place_in_the_replay_order(club, settings):
    settings.RATINGS_CHECKPOINT_EVERY = 1  # a checkpoint after every game near the end
    vera, players = club
    start = date(2024, 1, 1)
    twenty_days_of_games_rated(vera, players, start)
    tonight = start + timedelta(days=30)
    cup = factories.tournament("cup", "Cup")
    # A cup game of round 2 tonight sorts after tonight's club games (round 0).
    record_sheet_submit(
        user=vera,
        games=[factories.game(players[0], players[1], "W", tonight, tournament=cup, round=2)],
    )
    recompute_pending()
    sheets = []
    for white, black in ((2, 3), (4, 2), (3, 0)):
        sheets.append(
            record_sheet_submit(
                user=vera, games=[factories.game(players[white], players[black], "B", tonight)]
            ).games[0]
        )
        replayed = {result.algorithm: result.rows for result in recompute_pending()}
        # Per game: itself and the cup game after it. EGF and the French ladder rate
        # the cup, one block started tonight, with the club games after it.
        for algorithm in HISTORY_ALGORITHMS:
            assert replayed[algorithm] == 4, algorithm

    first = Game.objects.get(pk=sheets[0].pk)
    game_void(user=vera, game_id=first.pk, version=first.version, reason="test")
    replayed = {result.algorithm: result.rows for result in recompute_pending()}

    # From the voided game's place on: the two sheets after it and the cup game.
    for algorithm in HISTORY_ALGORITHMS:
        assert replayed[algorithm] == 6, algorithm
        assert stored(algorithm) == replayed_from_scratch(algorithm), algorithm


def test_a_back_dated_game_drops_the_checkpoint_at_the_end_of_the_history(club):
    vera, players = club
    start = date(2024, 1, 1)
    games = [
        factories.game(players[i % 5], players[(i + 2) % 5], "W", start + timedelta(days=i))
        for i in range(10)
    ]
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    recompute_pending(["sagc"])
    last = Game.objects.order_by("-seq").first()
    assert Checkpoint.objects.filter(
        algorithm="sagc", date=last.date, round=0, seq=last.seq + 1
    ).exists()

    record_sheet_submit(
        user=vera, games=[factories.game(players[1], players[2], "B", start + timedelta(days=4))]
    )
    recompute_pending(["sagc"])
    record_sheet_submit(
        user=vera, games=[factories.game(players[3], players[4], "B", start + timedelta(days=12))]
    )
    (result,) = recompute_pending(["sagc"])

    assert result.rows == 2
    assert stored("sagc") == replayed_from_scratch("sagc")


def rewrites(algorithm: str) -> list[date]:
    """The days ``algorithm``'s recorded rewrites start from, in the order of their ids."""
    rows = HistoryRewrite.objects.filter(algorithm=algorithm).order_by("id")
    return list(rows.values_list("from_day", flat=True))


def test_a_recompute_records_its_day_in_place_of_the_rewrites_from_that_day_on(club):
    vera, (ann, ben, *_rest) = club
    for day in (date(2024, 1, 5), date(2024, 2, 1), date(2024, 3, 1)):
        record_sheet_submit(user=vera, games=[factories.game(ann, ben, "W", day)])
        recompute_pending(["sagc"])
    assert rewrites("sagc") == [date(2024, 1, 5), date(2024, 2, 1), date(2024, 3, 1)]

    record_sheet_submit(user=vera, games=[factories.game(ben, ann, "W", date(2024, 1, 20))])
    recompute_pending(["sagc"])
    assert rewrites("sagc") == [date(2024, 1, 5), date(2024, 1, 20)]

    recompute("sagc", full=True)
    assert rewrites("sagc") == [HistoryRewrite.FULL]
    assert rewrites("egf-2021") == []  # not recomputed since the first game


def test_a_write_during_a_recompute_keeps_the_mark(club, monkeypatch):
    vera, (ann, ben, *_rest) = club
    record_sheet_submit(user=vera, games=[factories.game(ann, ben, "W", date(2024, 1, 5))])
    real_rewrite = run._rewrite

    def rewrite_while_someone_enters_a_game(algorithm, start):
        rows = real_rewrite(algorithm, start)
        RecomputeState.objects.filter(algorithm=algorithm.name).update(
            generation=F("generation") + 1
        )
        return rows

    monkeypatch.setattr(run, "_rewrite", rewrite_while_someone_enters_a_game)
    recompute("sagc")
    assert RecomputeState.objects.get(algorithm="sagc").dirty_from == date(2024, 1, 5)


def test_a_write_during_a_staged_replay_keeps_the_rows_before_its_date(club, monkeypatch):
    if not staging.staged_here():
        pytest.skip("PostgreSQL writes as it replays: nothing is staged")
    vera, players = club
    first = date(2024, 1, 1)
    record_sheet_submit(
        user=vera,
        allow_duplicates=True,
        games=[
            factories.game(players[n % 5], players[(n + 2) % 5], "WB"[n % 2], first + timedelta(n))
            for n in range(40)
        ],
    )
    real_rewrite = run._rewrite
    starts = []

    def rewrite_while_a_later_game_is_entered(algorithm, start):
        starts.append(start and start.date)  # the place in the replay order it starts at
        rows = real_rewrite(algorithm, start)
        if len(starts) == 1:
            ann, ben = players[:2]
            record_sheet_submit(user=vera, games=[factories.game(ann, ben, "B", date(2024, 2, 1))])
        return rows

    monkeypatch.setattr(run, "_rewrite", rewrite_while_a_later_game_is_entered)
    (result,) = recompute_pending(["sagc"])

    # The first replay's rows up to its last checkpoint before February went in; the
    # second replay started at that checkpoint's place (late January: the rows between
    # it and February were deleted with the tail), not at the start of the history.
    assert len(starts) == 2 and starts[0] == first
    assert date(2024, 1, 20) < starts[1] < date(2024, 2, 1)
    assert result.replayed_from == starts[1]
    assert rewrites("sagc") == starts  # the first pass's rows went in
    assert 0 < result.rows < 2 * 12
    assert RecomputeState.objects.get(algorithm="sagc").dirty_from is None
    assert stored("sagc") == replayed_from_scratch("sagc")
    # The month-end standings, rebuilt from rows applied in two passes, are those of a
    # full recompute.
    month_ends = month_end_standings("sagc")
    assert month_ends
    recompute("sagc", full=True)
    assert month_end_standings("sagc") == month_ends


def month_end_standings(algorithm: str) -> list[tuple]:
    return list(
        MonthEndStanding.objects.filter(algorithm=algorithm)
        .order_by("month_end", "player_id")
        .values_list("month_end", "player_id", "position", "rank", "value", "date")
    )


def test_a_failed_recompute_leaves_the_previous_history_and_records_the_error(club, monkeypatch):
    vera, (ann, ben, *_rest) = club
    record_sheet_submit(user=vera, games=[factories.game(ann, ben, "W", date(2024, 1, 5))])
    recompute_pending()
    before = stored("sagc")
    record_sheet_submit(user=vera, games=[factories.game(ben, ann, "W", date(2024, 1, 2))])

    def crash(*args, **kwargs):
        raise RuntimeError("worker died")

    monkeypatch.setattr(recompute_replay, "replace_current", crash)
    with pytest.raises(RuntimeError):
        recompute("sagc")
    assert stored("sagc") == before
    state = RecomputeState.objects.get(algorithm="sagc")
    assert state.dirty_from == date(2024, 1, 2)
    assert "worker died" in state.last_error


operation = st.one_of(
    st.tuples(
        st.just("enter"),
        st.integers(0, 4),
        st.integers(0, 4),
        # few days: entries land on one day, before and after others of that day
        st.integers(0, 12),
        st.sampled_from("WBD"),
        st.integers(0, 3),
        # a tournament (a block for EGF and the French ladder) and its round, or none
        st.sampled_from(["", "spring", "summer"]),
        st.integers(1, 3),
    ),
    st.tuples(st.just("move"), st.integers(0, 1000), st.integers(0, 12)),
    st.tuples(st.just("void"), st.integers(0, 1000)),
    st.tuples(st.just("adjust"), st.integers(0, 4), st.integers(0, 12), st.integers(-25, 3)),
    st.tuples(
        st.just("recompute"),
    ),
)


@hypothesis_settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(operations=st.lists(operation, min_size=1, max_size=25))
def test_incremental_recomputes_equal_a_full_replay(club, operations):
    vera, players = club
    start = date(2024, 1, 1)
    with transaction.atomic():
        for op in operations:
            kind = op[0]
            valid = list(Game.objects.valid().order_by("seq"))
            if kind == "enter":
                _, w, b, day, winner, handicap, code, round_number = op
                if w == b:
                    continue
                tournament = factories.tournament(code, code.title()) if code else None
                record_sheet_submit(
                    user=vera,
                    games=[
                        factories.game(
                            players[w],
                            players[b],
                            winner,
                            start + timedelta(days=day),
                            handicap=handicap,
                            # a jigo needs an integer komi
                            komi=(6 if handicap == 0 else 0) if winner == "D" else None,
                            tournament=tournament,
                            round=round_number if tournament else 0,
                        )
                    ],
                    allow_duplicates=True,
                )
            elif kind == "move" and valid:
                game = valid[op[1] % len(valid)]
                if game.date == start + timedelta(days=op[2]):
                    continue  # a correction that changes nothing writes nothing
                game_correct(
                    user=vera,
                    game_id=game.pk,
                    version=game.version,
                    changes=factories.game(
                        game.white,
                        game.black,
                        game.winner,
                        start + timedelta(days=op[2]),
                        handicap=game.handicap,
                        komi=game.komi,
                        tournament=game.tournament,
                        round=game.round,
                    ),
                )
            elif kind == "void" and valid:
                game = valid[op[1] % len(valid)]
                game_void(user=vera, game_id=game.pk, version=game.version, reason="test")
            elif kind == "adjust":
                _, who, day, stones = op
                from ratings.engine.ranks import Rank

                adjustment_apply(
                    user=vera,
                    player=players[who],
                    date=start + timedelta(days=day),
                    new_rank=Rank(stones),
                )
            elif kind == "recompute":
                recompute_pending()
        recompute_pending()
        for algorithm in HISTORY_ALGORITHMS:
            assert stored(algorithm) == replayed_from_scratch(algorithm), algorithm
        assert gcr_tables() == after_a_full_recompute()
        transaction.set_rollback(True)


@pytest.mark.django_db(transaction=True)
def test_the_site_and_the_command_line_agree_after_back_dated_imports(tmp_path, capsys):
    header = "date,white,black,white_rank,black_rank,handicap,komi,winner,status,tournament,round\n"
    first = [
        "2024-01-03,ann,ben,2d,3k,0,6.5,W,normal,,0",
        "2024-01-05,cat,dan,8k,15k,7,0.5,B,normal,,0",
        "2024-01-05,ann,cat,,,5,0.5,W,tournament,spring,1",
        "2024-01-06,ben,dan,,,9,0.5,W,tournament,spring,2",
        "2024-02-01,dan,ann,,,0,6.5,B,free,,0",
        "2024-02-03,ben,cat,,,4,0,D,normal,,0",
        "2024-03-01,eve,dan,25k,,0,6.5,W,normal,,0",
    ]
    back_dated = [
        "2024-01-04,cat,ben,8k,3k,0,-5.5,W,normal,,0",
        "2024-02-02,eve,ann,25k,2d,9,0.5,W,internet,,0",
    ]
    (tmp_path / "first.csv").write_text(header + "\n".join(first) + "\n")
    (tmp_path / "later.csv").write_text(header + "\n".join(back_dated) + "\n")
    (tmp_path / "all.csv").write_text(header + "\n".join(first + back_dated) + "\n")
    factories.user("system")
    # Real commits: each import's recompute runs in-process when its transaction commits.
    call_command("import_games", str(tmp_path / "first.csv"))
    call_command("import_games", str(tmp_path / "later.csv"))
    from ratings.engine.cli import main

    for algorithm in HISTORY_ALGORITHMS:
        out = io.StringIO()
        call_command("export_history", algorithm=algorithm, stdout=out)
        capsys.readouterr()
        assert main(["rate", "--algorithm", algorithm, str(tmp_path / "all.csv")]) == 0
        assert out.getvalue() == capsys.readouterr().out, algorithm


def test_a_running_recompute_reports_its_progress_and_clears_it_at_the_end(club, monkeypatch):
    from ratings.recompute import progress

    vera, (ann, ben, *_rest) = club
    record_sheet_submit(user=vera, games=[factories.game(ann, ben, "W", date(2024, 1, 5))])
    seen = []
    real_report = progress.report
    monkeypatch.setattr(
        progress, "report", lambda name, done, total: seen.append((name, done, total))
    )
    recompute("sagc", full=True)
    monkeypatch.setattr(progress, "report", real_report)
    assert seen == [("sagc", 0, 1)]
    assert progress.read("sagc") is None
