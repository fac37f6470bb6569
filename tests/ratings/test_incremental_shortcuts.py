"""The shortcuts of a recompute resumed from a checkpoint (``ratings.recompute.replay``):
it decodes and compares only the players its replay may change, reads no entry unless a
player is new, and no month-end standings unless a month end is built again. Each gives
what a full recompute gives."""

import gc
import json
from datetime import date, timedelta

import pytest

from players.models import Game
from players.services.games import game_void, record_sheet_submit
from ratings.engine.algorithms import registry
from ratings.models import Checkpoint, MonthEnd, MonthEndStanding, RatingHistory
from ratings.recompute import checkpoints, month_ends
from ratings.recompute import replay as recompute_replay
from ratings.recompute.run import recompute, recompute_pending
from tests import factories
from tests.ratings.helpers import four_players_in_turn, replayed_current, stored_current

pytestmark = pytest.mark.django_db

START = date(2024, 1, 1)
HISTORY_ALGORITHMS = ("sagc", "egf-2021", "egf-2020", "egf-legacy", "french", "anchor")


@pytest.fixture
def club(settings):
    settings.RATINGS_CHECKPOINT_EVERY = 3
    vera = factories.volunteer()
    players = four_players_in_turn(vera, 40, START)
    recompute_pending()
    return vera, players


def stored_state() -> dict[str, dict]:
    """The state of each algorithm's last checkpoint (the end of its history)."""
    return {
        algorithm: decoded_state(
            Checkpoint.objects.filter(algorithm=algorithm).order_by("-position")[0]
        )
        for algorithm in HISTORY_ALGORITHMS
    }


def decoded_state(checkpoint: Checkpoint) -> dict[str, dict]:
    """Every player's state at ``checkpoint``, decoded: its own and, for one holding
    only the players changed since its base, the base's."""
    if checkpoint.base_id is None:
        return json.loads(checkpoint.state)
    base = Checkpoint.objects.get(pk=checkpoint.base_id)
    return {**json.loads(base.state), **json.loads(checkpoint.state)}


def test_a_replay_stores_its_checkpoints_laid_out_one_player_a_line(club):
    """Split at its lines, only the players a later replay changes are decoded (on
    PostgreSQL a jsonb column laid the text out again: every player was walked)."""
    for algorithm in HISTORY_ALGORITHMS:
        recompute(algorithm, full=True)

    for algorithm in HISTORY_ALGORITHMS:
        end = end_checkpoint(algorithm)
        stored = checkpoints.stored_state(end, {"ann"})
        assert stored is not None and stored.laid_out, algorithm
        assert set(stored.data) == {"ann"}, algorithm


def test_voiding_a_new_players_only_game_leaves_current_ratings_a_full_replays(club):
    """The voided game's players are in no record of the replay, only in the history
    rows it replaces: their current ratings are compared all the same."""
    vera, (ann, *_rest) = club
    fay = factories.player("fay", "12k")
    sheet = record_sheet_submit(
        user=vera, games=[factories.game(ann, fay, "B", START + timedelta(50))]
    )
    recompute_pending()
    assert "fay" in stored_current("sagc")
    game = sheet.games[0]
    game.refresh_from_db()

    game_void(user=vera, game_id=game.pk, version=game.version, reason="wrong sheet")
    recompute_pending()

    for algorithm in HISTORY_ALGORITHMS:
        assert "fay" not in stored_current(algorithm), algorithm
        assert stored_current(algorithm) == replayed_current(algorithm), algorithm


def test_a_game_after_the_last_between_known_players_reads_no_entry(club, monkeypatch):
    vera, (ann, ben, *_rest) = club

    def no_entries():
        raise AssertionError("every player's entry read")

    monkeypatch.setattr(recompute_replay, "player_entries", no_entries)
    record_sheet_submit(user=vera, games=[factories.game(ann, ben, "W", START + timedelta(60))])
    recompute_pending(list(HISTORY_ALGORITHMS))

    monkeypatch.undo()
    for algorithm in HISTORY_ALGORITHMS:
        assert stored_current(algorithm) == replayed_current(algorithm), algorithm


def test_a_back_dated_game_reads_only_the_entries_of_its_new_players(club, monkeypatch):
    """Eve, new, plays a game back-dated into the club's history: the replay reads her
    entry, not the entries of every player (zed never played), and rates as a full
    replay does."""
    vera, (ann, *_rest) = club
    factories.player("zed", "9k")
    eve = factories.player("eve", "4k")
    asked: list[set[str] | None] = []
    real = recompute_replay.player_entries

    def entries(usernames=None):
        asked.append(None if usernames is None else set(usernames))
        return real(usernames)

    monkeypatch.setattr(recompute_replay, "player_entries", entries)
    record_sheet_submit(user=vera, games=[factories.game(ann, eve, "W", START + timedelta(20))])
    recompute_pending(list(HISTORY_ALGORITHMS))

    monkeypatch.undo()
    assert asked == [{"eve"}] * len(HISTORY_ALGORITHMS)
    for algorithm in HISTORY_ALGORITHMS:
        assert stored_current(algorithm) == replayed_current(algorithm), algorithm


def test_a_short_back_dated_replay_stores_only_the_checkpoint_after_the_last_record(club, settings):
    """Ten records apart near the end: a game back-dated five days replays the eleven
    records from the checkpoint before it and stores the state after the last one, none
    a record before it; the ratings are a full replay's."""
    vera, (ann, ben, *_rest) = club
    settings.RATINGS_CHECKPOINT_EVERY = 10
    for algorithm in HISTORY_ALGORITHMS:
        recompute(algorithm, full=True)
    before = set(Checkpoint.objects.values_list("pk", flat=True))

    record_sheet_submit(user=vera, games=[factories.game(ann, ben, "W", START + timedelta(35))])
    recompute_pending(list(HISTORY_ALGORITHMS))

    for algorithm in HISTORY_ALGORITHMS:
        stored = Checkpoint.objects.filter(algorithm=algorithm).order_by("position")
        new = [pk for pk in stored.values_list("pk", flat=True) if pk not in before]
        assert new == [stored.last().pk], algorithm
        assert stored_current(algorithm) == replayed_current(algorithm), algorithm


def test_a_new_players_first_game_after_the_last_starts_from_their_entry(club):
    vera, (ann, *_rest) = club
    gil = factories.player("gil", "1d")

    record_sheet_submit(user=vera, games=[factories.game(gil, ann, "W", START + timedelta(60))])
    recompute_pending()

    for algorithm in HISTORY_ALGORITHMS:
        assert stored_current(algorithm) == replayed_current(algorithm), algorithm


def test_the_checkpoint_of_a_partly_loaded_state_holds_every_player_as_a_full_recompute(club):
    vera, (ann, _ben, cat, dan) = club
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, dan, "B", START + timedelta(60)),
            factories.game(factories.player("hal", "5k"), cat, "W", START + timedelta(61)),
        ],
    )
    recompute_pending()
    incremental = stored_state()

    for algorithm in HISTORY_ALGORITHMS:
        recompute(algorithm, full=True)

    assert incremental == stored_state()
    assert set(incremental["sagc"]) == {"ann", "ben", "cat", "dan", "hal"}


def month_end_standings() -> list[tuple]:
    return list(
        MonthEndStanding.objects.order_by("algorithm", "month_end", "player_id").values_list(
            "algorithm", "month_end", "player_id", "position", "rank", "value", "date"
        )
    )


def test_a_game_too_few_rows_after_the_last_month_end_reads_no_standings(monkeypatch):
    """Eight players' standings at the end of January, then two games in February: no
    month end can be due (fewer rows than standings), so none is read."""
    vera = factories.volunteer()
    players = [factories.player(f"p{n}", f"{5 + n}k") for n in range(8)]
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(players[n], players[(n + 1) % 8], "WB"[n % 2], date(2024, 1, 2 + n))
            for n in range(8)
        ],
    )
    record_sheet_submit(
        user=vera, games=[factories.game(players[0], players[1], "W", date(2024, 2, 1))]
    )
    recompute_pending(list(HISTORY_ALGORITHMS))
    assert MonthEnd.objects.filter(algorithm="sagc", date=date(2024, 1, 31)).exists()

    def no_standings(*args):
        raise AssertionError("month-end standings read")

    monkeypatch.setattr(month_ends, "_standings", no_standings)
    record_sheet_submit(
        user=vera, games=[factories.game(players[2], players[3], "B", date(2024, 2, 3))]
    )
    recompute_pending(list(HISTORY_ALGORITHMS))
    monkeypatch.undo()

    incremental = month_end_standings()
    for algorithm in HISTORY_ALGORITHMS:
        recompute(algorithm, full=True)
    assert incremental == month_end_standings()


def test_a_back_dated_games_recompute_runs_without_the_cycle_collector_and_gives_a_full_ones(
    club, monkeypatch
):
    vera, (ann, *_rest) = club
    collecting: list[bool] = []
    real = recompute_replay.rewrite

    def watching(*args, **kwargs):
        collecting.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(recompute_replay, "rewrite", watching)
    eve = factories.player("eve", "4k")
    record_sheet_submit(user=vera, games=[factories.game(ann, eve, "W", START + timedelta(20))])
    recompute_pending()

    assert collecting and not any(collecting)  # off while it replayed
    assert gc.isenabled()  # on again after
    for algorithm in HISTORY_ALGORITHMS:
        assert stored_current(algorithm) == replayed_current(algorithm), algorithm


def test_a_back_dated_game_compares_only_the_month_end_standings_of_the_players_it_replayed(
    settings, monkeypatch
):
    """Eight players in January, four of them in February and March: a game back-dated
    into February reads and compares the stored February standings of those four only
    (the others' rows all lie before it), and a game voided there so that February no
    longer has a month end drops all its standings; both as a full recompute has them."""
    settings.RATINGS_CHECKPOINT_EVERY = 3
    vera = factories.volunteer()
    players = [factories.player(f"p{n}", f"{5 + n}k") for n in range(8)]
    january = [
        factories.game(players[n], players[(n + 1) % 8], "WB"[n % 2], date(2024, 1, 2 + n))
        for n in range(8)
    ]
    later = [
        factories.game(players[n % 4], players[(n + 1) % 4], "WB"[n % 2], day)
        for n, day in enumerate(
            [date(2024, 2, 1 + 2 * n) for n in range(5)] + [date(2024, 3, 1 + n) for n in range(3)]
        )
    ]
    record_sheet_submit(user=vera, games=january + later)
    recompute_pending(list(HISTORY_ALGORITHMS))
    assert MonthEnd.objects.filter(algorithm="sagc", date=date(2024, 2, 29)).exists()
    read_for: list[set[int] | None] = []
    real = month_ends._stored_standings

    def watching(name, from_date, players=None, **named):
        read_for.append(players)
        return real(name, from_date, players, **named)

    monkeypatch.setattr(month_ends, "_stored_standings", watching)
    record_sheet_submit(
        user=vera, games=[factories.game(players[0], players[2], "B", date(2024, 2, 4))]
    )
    recompute_pending(list(HISTORY_ALGORITHMS))

    only_january = {player.pk for player in players[4:]}
    assert read_for and all(chosen and not chosen & only_january for chosen in read_for)
    incremental = month_end_standings()
    for algorithm in HISTORY_ALGORITHMS:
        recompute(algorithm, full=True)
    assert incremental == month_end_standings()

    for game in Game.objects.filter(date__range=(date(2024, 2, 1), date(2024, 2, 9))):
        game_void(user=vera, game_id=game.pk, version=game.version, reason="test")
    recompute_pending(list(HISTORY_ALGORITHMS))
    assert not MonthEnd.objects.filter(date=date(2024, 2, 29)).exists()
    incremental = month_end_standings()
    for algorithm in HISTORY_ALGORITHMS:
        recompute(algorithm, full=True)
    assert incremental == month_end_standings()


def test_the_players_a_resumed_replay_may_change_are_those_of_valid_records_and_later_rows():
    """``_players_after`` is written as SQL, its "valid" spelled out: it picks the same
    players as the querysets' own ``valid()`` (voided games and adjustments left out)."""
    from django.db.models import Q
    from django.utils import timezone

    from players.models import Adjustment, Player
    from ratings.models import RatingHistory
    from ratings.selectors import ReplayKey

    vera = factories.volunteer()
    ann, ben, cat, dan, eve, fay = (
        factories.player(name, "5k") for name in ("ann", "ben", "cat", "dan", "eve", "fay")
    )
    games = [
        factories.game(ann, ben, "W", date(2024, 5, 4)),
        factories.game(cat, dan, "B", date(2024, 6, 8)),
        factories.game(ben, cat, "W", date(2024, 6, 15)),
    ]
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    factories.adjustment(eve, date(2024, 6, 9), "4k", user=vera)
    factories.adjustment(fay, date(2024, 6, 10), "6k", user=vera)
    recompute_pending()
    voided = Game.objects.get(date=date(2024, 6, 8))
    game_void(user=vera, game_id=voided.pk, version=voided.version, reason="entered twice")
    Adjustment.objects.filter(player=fay).update(voided_at=timezone.now())

    def by_querysets(day: date, position: int) -> dict[str, int]:
        games = Game.objects.valid().filter(date__gte=day)
        chosen = (
            Q(pk__in=games.values("white_id"))
            | Q(pk__in=games.values("black_id"))
            | Q(pk__in=Adjustment.objects.valid().filter(date__gte=day).values("player_id"))
            | Q(
                pk__in=RatingHistory.objects.filter(
                    algorithm="sagc", position__gte=position
                ).values("player_id")
            )
        )
        return dict(Player.objects.filter(chosen).values_list("username", "id"))

    end = RatingHistory.objects.filter(algorithm="sagc").count()
    for day, position in [
        (date(2024, 6, 1), end),  # ben and cat's game, eve's adjustment; not dan, not fay
        (date(2024, 6, 1), end - 2),
        (date(2024, 5, 1), 0),
        (date(2024, 7, 1), end),
    ]:
        picked = recompute_replay._players_after("sagc", ReplayKey(day, 0, 0), position)
        assert picked == by_querysets(day, position), (day, position)
    assert set(recompute_replay._players_after("sagc", ReplayKey(date(2024, 6, 1), 0, 0), end)) == {
        "ben",
        "cat",
        "eve",
    }


def test_a_replay_counts_the_records_it_streams_from_any_place():
    """``replay_count`` is written as SQL, "valid" and "from a place in the replay
    order" spelled out: from the start, from every record's place, just after it and
    from the start of its day, it counts what ``replay_records`` streams (voided games
    and adjustments, and adjustments of another algorithm, left out; rounds and entry
    numbers of one day told apart)."""
    from django.utils import timezone

    from players.models import Adjustment
    from ratings.selectors import ReplayKey, replay_count, replay_records

    vera = factories.volunteer()
    ann, ben, cat, dan = (factories.player(name, "5k") for name in ("ann", "ben", "cat", "dan"))
    cup = factories.tournament("cup", "Cup")
    june = date(2024, 6, 8)
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "W", date(2024, 5, 4)),
            factories.game(cat, dan, "B", june),
            factories.game(ann, cat, "W", june, tournament=cup, round=1),
            factories.game(ben, dan, "B", june, tournament=cup, round=1),
            factories.game(ann, dan, "W", june, tournament=cup, round=2),
            factories.game(ben, cat, "W", date(2024, 6, 15)),
        ],
        allow_duplicates=True,
    )
    factories.adjustment(ann, june, "4k", user=vera)
    factories.adjustment(ben, june, "6k", user=vera, algorithm="sagc", value=1000)
    factories.adjustment(cat, june, "6k", user=vera, algorithm="anchor")
    factories.adjustment(dan, date(2024, 6, 9), "7k", user=vera)
    voided = Game.objects.get(round=2)
    game_void(user=vera, game_id=voided.pk, version=voided.version, reason="entered twice")
    Adjustment.objects.filter(player=dan).update(voided_at=timezone.now())

    for algorithm in ("sagc", "anchor"):
        records, _ids = replay_records(algorithm)
        keys = [record.order_key for record in records]
        places: list[ReplayKey | None] = [None]
        for day, round_number, seq in keys:
            places += [
                ReplayKey(day, round_number, seq),
                checkpoints.just_after((day, round_number, seq)),
                checkpoints.day_start_key(day),
                ReplayKey(day, round_number + 1, 0),
            ]
        for place in places:
            streamed, _ids = replay_records(algorithm, place)
            assert replay_count(algorithm, place) == len(list(streamed)), (algorithm, place)
        assert replay_count(algorithm) == len(keys) == 7  # 5 valid games, 2 adjustments


def stored_history(algorithm: str) -> list[tuple]:
    columns = [column for column in recompute_replay.HISTORY_COLUMNS if column != "algorithm"]
    rows = RatingHistory.objects.filter(algorithm=algorithm).order_by("position")
    return list(rows.values_list(*columns))


def test_the_games_between_the_checkpoint_and_a_back_dated_games_place_are_rated_without_rows(
    club, monkeypatch
):
    """SAGC, the anchor and EGF (outside tournament blocks) rate a game without making
    its rows (``rate_sides``): a back-dated game's replay rates so the games from its
    checkpoint to its place, whose rows stay as stored, and with their rows those from
    its place on. The history, checkpoints and ratings are a full recompute's."""
    vera, (ann, _ben, cat, _dan) = club
    day = START + timedelta(22)  # after another game of that day
    rated: dict[str, list[tuple[str, date]]] = {name: [] for name in HISTORY_ALGORITHMS}
    for name, algorithm_class in registry().items():
        if name not in rated:
            continue
        real_sides, real_unit = algorithm_class.rate_sides, algorithm_class.rate_unit

        def sides(self, state, unit, real_sides=real_sides):
            rated[self.name].append(("sides", unit[0].date))
            return real_sides(self, state, unit)

        def with_rows(self, state, unit, real_unit=real_unit):
            rated[self.name].append(("rows", unit[0].date))
            return real_unit(self, state, unit)

        monkeypatch.setattr(algorithm_class, "rate_sides", sides)
        monkeypatch.setattr(algorithm_class, "rate_unit", with_rows)
    record_sheet_submit(user=vera, games=[factories.game(ann, cat, "W", day)])
    recompute_pending(list(HISTORY_ALGORITHMS))
    monkeypatch.undo()

    for name in ("sagc", "anchor", "egf-2021"):
        before = [how for how, on in rated[name] if on < day]
        assert before and set(before) == {"sides"}, name  # no rows made before the place
        assert {how for how, on in rated[name] if on > day} == {"rows"}, name
    incremental = {name: (stored_history(name), stored_state()[name]) for name in rated}
    currents = {name: stored_current(name) for name in rated}
    for name in HISTORY_ALGORITHMS:
        recompute(name, full=True)
        assert incremental[name] == (stored_history(name), stored_state()[name]), name
        assert currents[name] == stored_current(name) == replayed_current(name), name


def test_a_short_back_dated_replay_counts_the_records_from_its_checkpoint_not_the_whole_history(
    club, settings, monkeypatch
):
    """Near the end, the spacing of a history at least as long as the checkpoint's rows
    make it (two a record at most) rules out any checkpoint but the last one: the
    history's records are not counted, and what is stored is a full recompute's.

    Spaced at a quarter of the history near its end (at least one record): the 41
    records' checkpoints ten apart, a replay from five days back could store one a
    record later if the history might have no records before the checkpoint."""
    vera, (ann, _ben, cat, _dan) = club
    settings.RATINGS_CHECKPOINT_EVERY = 30
    monkeypatch.setattr(checkpoints, "FLOOR", 1)
    monkeypatch.setattr(checkpoints, "SHARE", 4)
    for algorithm in HISTORY_ALGORITHMS:
        recompute(algorithm, full=True)
    counted: list[object] = []
    real = recompute_replay.replay_count

    def counting(algorithm, start=None):
        counted.append(start)
        return real(algorithm, start)

    monkeypatch.setattr(recompute_replay, "replay_count", counting)
    record_sheet_submit(user=vera, games=[factories.game(ann, cat, "W", START + timedelta(35))])
    recompute_pending(list(HISTORY_ALGORITHMS))
    monkeypatch.undo()

    assert len(counted) == len(HISTORY_ALGORITHMS) and None not in counted
    incremental = {
        name: (stored_history(name), stored_state()[name]) for name in HISTORY_ALGORITHMS
    }
    for name in HISTORY_ALGORITHMS:
        recompute(name, full=True)
        assert incremental[name] == (stored_history(name), stored_state()[name]), name
        assert stored_current(name) == replayed_current(name), name


def test_a_history_has_at_most_two_rows_a_record(club):
    """The bound a resumed replay puts on the history's records: a game gives its two
    players a row each, an adjustment its player one."""
    vera, (ann, *_rest) = club
    factories.adjustment(ann, START + timedelta(10), "1d", user=vera)
    factories.adjustment(ann, START + timedelta(12), "3d", user=vera, algorithm="anchor", value=5)
    recompute_pending()

    for name in HISTORY_ALGORITHMS:
        rows = RatingHistory.objects.filter(algorithm=name).count()
        records = recompute_replay.replay_count(name)
        assert records < rows <= 2 * records, name


def end_checkpoint(algorithm: str) -> Checkpoint:
    return Checkpoint.objects.filter(algorithm=algorithm).order_by("-position")[0]


def test_a_back_dated_replays_last_checkpoint_holds_only_the_players_changed_since_its_base(
    club, settings
):
    """Eve and fay, new, play a game back-dated five days among twenty players: the
    checkpoint after the last record holds the players the replay changed, its base the
    rest; with its base it is a full recompute's, and the next games, after the last
    and back-dated again, resume from it as from a whole state."""
    vera, (ann, ben, _cat, _dan) = club
    sixteen_more(vera)
    eve, fay = factories.player("eve", "4k"), factories.player("fay", "6k")
    settings.RATINGS_CHECKPOINT_EVERY = 10
    for algorithm in HISTORY_ALGORITHMS:
        recompute(algorithm, full=True)

    record_sheet_submit(user=vera, games=[factories.game(eve, fay, "W", START + timedelta(35))])
    recompute_pending(list(HISTORY_ALGORITHMS))

    for algorithm in HISTORY_ALGORITHMS:
        end = end_checkpoint(algorithm)
        assert end.base_id is not None, algorithm
        assert set(json.loads(end.state)) == {"eve", "fay", "ann", "ben", "cat", "dan"}, algorithm
        assert len(json.loads(Checkpoint.objects.get(pk=end.base_id).state)) == 20, algorithm
    changed = stored_state()
    for games in (
        [factories.game(ann, eve, "B", START + timedelta(41))],
        [factories.game(ben, fay, "W", START + timedelta(38))],
    ):
        record_sheet_submit(user=vera, games=games)
        recompute_pending(list(HISTORY_ALGORITHMS))
        incremental = {name: (stored_history(name), stored_state()) for name in HISTORY_ALGORITHMS}
        for name in HISTORY_ALGORITHMS:
            assert end_checkpoint(name).base_id is not None, name
            recompute(name, full=True)
            assert end_checkpoint(name).base_id is None, name  # a full one writes them whole
            assert incremental[name] == (stored_history(name), stored_state()), name
            assert stored_current(name) == replayed_current(name), name
    assert changed != stored_state()


def sixteen_more(vera) -> None:
    """Sixteen more players, who played once early on."""
    others = [factories.player(f"p{number}", "10k") for number in range(16)]
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(others[number], others[number + 1], "W", START + timedelta(5))
            for number in range(0, 16, 2)
        ],
    )
    recompute_pending()


def test_a_checkpoint_whose_base_is_gone_is_replayed_from_the_start(club, settings):
    vera, (ann, _ben, cat, _dan) = club
    sixteen_more(vera)
    settings.RATINGS_CHECKPOINT_EVERY = 10
    recompute("sagc", full=True)
    record_sheet_submit(user=vera, games=[factories.game(ann, cat, "W", START + timedelta(35))])
    recompute_pending(["sagc"])
    base = end_checkpoint("sagc").base_id
    assert base is not None
    Checkpoint.objects.filter(pk=base).delete()

    record_sheet_submit(user=vera, games=[factories.game(ann, cat, "B", START + timedelta(41))])
    (result,) = recompute_pending(["sagc"])

    assert result.replayed_from == START + timedelta(41)
    assert result.rows == RatingHistory.objects.filter(algorithm="sagc").count()  # all
    assert stored_current("sagc") == replayed_current("sagc")
