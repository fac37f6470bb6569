"""GCR's month-end snapshots, made in one replay, are the standings a full GCR of the
games up to each month end gives."""

from dataclasses import replace
from datetime import date

import pytest

from players.models import Game, Player
from players.services.games import game_void, record_sheet_submit
from ratings.engine import gcr
from ratings.models import CurrentRating, HolisticTable, RatingSnapshot, RecomputeState
from ratings.recompute import holistic as holistic_pass
from ratings.recompute.run import recompute, recompute_pending
from ratings.selectors import count_holistic_table, player_entries, replay_records
from tests import factories
from tests.engine import test_gcr as engine_tests
from tests.engine.test_gcr import table_of

pytestmark = pytest.mark.django_db


def test_each_snapshot_is_a_full_gcr_of_the_games_up_to_its_month_end(settings):
    settings.RATINGS_ALGORITHMS = ["sagc", "gcr"]
    vera = factories.volunteer()
    ann, ben, cat, dan = (
        factories.player(name, rank)
        for name, rank in [("ann", "2d"), ("ben", "3k"), ("cat", "8k"), ("dan", "15k")]
    )
    played = [
        (ann, ben, "W", date(2024, 1, 10)),
        (cat, dan, "B", date(2024, 1, 20)),
        (ann, cat, "W", date(2024, 3, 2)),  # nothing in February
        (ben, dan, "D", date(2024, 3, 9)),
        (dan, ann, "B", date(2024, 4, 1)),
        (ben, cat, "W", date(2024, 5, 5)),  # the last month: no snapshot yet
    ]
    record_sheet_submit(
        user=vera,
        games=[
            # a jigo needs an integer komi
            factories.game(w, b, winner, day, komi=7 if winner == "D" else None)
            for w, b, winner, day in played
        ],
    )

    recompute("gcr", full=True)

    records = list(replay_records("gcr")[0])
    entries = player_entries()
    stored = RatingSnapshot.objects.filter(algorithm="gcr").select_related("player")
    dates = sorted({snapshot.date for snapshot in stored})
    assert dates == [date(2024, 1, 31), date(2024, 3, 31), date(2024, 4, 30)]
    for month_end in dates:
        expected = {
            standing.player: (standing.rank, standing.value, standing.games)
            for standing in gcr.standings_as_of(records, entries, month_end)
            if standing.games
        }
        assert {
            snapshot.player.username: (snapshot.rank, snapshot.value, snapshot.games)
            for snapshot in stored
            if snapshot.date == month_end
        } == expected


def gcr_tables() -> tuple[list, list, object]:
    """The stored snapshots, current GCR ratings and the lab's figures of the rated
    table, in a comparable form."""
    snapshots = sorted(
        RatingSnapshot.objects.filter(algorithm="gcr").values_list(
            "player__username", "date", "rank", "value", "games"
        )
    )
    current = sorted(
        CurrentRating.objects.filter(algorithm="gcr").values_list(
            "player__username", "rank", "value", "games"
        )
    )
    figures = RecomputeState.objects.get(algorithm="gcr").holistic_figures
    return snapshots, current, figures


def after_a_full_recompute() -> tuple[list, list, object]:
    recompute("gcr", full=True)
    return gcr_tables()


@pytest.fixture
def six_months(settings):
    """Games from January to June 2024 among four players, rated."""
    settings.RATINGS_ALGORITHMS = ["sagc", "gcr"]
    vera = factories.volunteer()
    players = [
        factories.player(name, rank)
        for name, rank in [("ann", "2d"), ("ben", "3k"), ("cat", "8k"), ("dan", "15k")]
    ]
    games = [
        factories.game(
            players[i % 4],
            players[(i + 1 + i // 4 % 3) % 4],
            "WBD"[i % 3],
            date(2024, 1 + i // 4, 3 + i),
            komi=7 if i % 3 == 2 else None,  # a jigo needs an integer komi
        )
        for i in range(24)
    ]
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    recompute_pending()
    return vera, players


@pytest.mark.parametrize(
    "day",
    [
        date(2024, 3, 15),  # back-dated into the history
        date(2024, 6, 28),  # in the last month
        date(2024, 9, 1),  # a new month after the last
    ],
)
def test_an_entry_recomputes_gcr_from_its_month_as_a_full_recompute_would(six_months, day):
    vera, (ann, _ben, _cat, dan) = six_months
    record_sheet_submit(
        user=vera, games=[factories.game(dan, ann, "W", day)], allow_duplicates=True
    )
    recompute_pending(["gcr"])
    incremental = gcr_tables()

    assert incremental == after_a_full_recompute()
    assert {snapshot[1] for snapshot in incremental[0]} >= {date(2024, 1, 31), date(2024, 5, 31)}


def test_a_newcomers_back_dated_game_adds_their_snapshots_as_a_full_recompute_would(six_months):
    """The snapshots rewritten in place (staged on SQLite): the month ends from March's
    gain a player, whose rows are new, and everyone else's values change."""
    vera, (ann, *_rest) = six_months
    eve = factories.player("eve", "20k")
    before = gcr_tables()
    enter(vera, factories.game(eve, ann, "W", date(2024, 3, 15)))
    incremental = gcr_tables()

    assert incremental == after_a_full_recompute()
    assert sorted(day for name, day, *_rest in incremental[0] if name == "eve") == [
        date(2024, 3, 31),
        date(2024, 4, 30),
        date(2024, 5, 31),
    ]
    assert [row for row in incremental[0] if row[1] < date(2024, 3, 1)] == [
        row for row in before[0] if row[1] < date(2024, 3, 1)
    ]


def test_voiding_the_last_months_games_removes_the_snapshot_of_the_month_now_last(six_months):
    vera, _players = six_months
    for game in Game.objects.filter(date__month=6):
        game_void(user=vera, game_id=game.pk, version=game.version, reason="test")
    recompute_pending(["gcr"])
    incremental = gcr_tables()

    assert incremental == after_a_full_recompute()
    assert max(snapshot[1] for snapshot in incremental[0]) == date(2024, 4, 30)


def test_an_entry_in_the_last_month_rates_that_month_only(six_months, monkeypatch):
    vera, (ann, ben, *_rest) = six_months
    rated_months = []
    real_finish = gcr.Gcr.finish

    def counted_finish(self, state):
        rated_months.append(state)
        real_finish(self, state)

    monkeypatch.setattr(gcr.Gcr, "finish", counted_finish)
    record_sheet_submit(
        user=vera, games=[factories.game(ann, ben, "B", date(2024, 6, 29))], allow_duplicates=True
    )
    recompute_pending(["gcr"])

    assert len(rated_months) == 1


def test_the_database_counts_the_table_a_replay_of_the_same_games_fills(six_months):
    vera, (ann, ben, cat, _dan) = six_months
    eve = factories.player("eve", "20k")
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(ann, ben, "D", date(2024, 2, 10), komi=7),
            factories.game(eve, cat, "W", date(2024, 2, 11), status="free"),
            factories.game(eve, ann, "B", date(2024, 2, 12), board_size=13),
            factories.game(ben, ann, "B", date(2024, 7, 1)),  # after the date: not counted
        ],
        allow_duplicates=True,
    )
    before = date(2024, 5, 1)
    entries = player_entries()
    algorithm = gcr.Gcr()
    counted = algorithm.new_state(entries)
    count_holistic_table(counted, before=before)
    replayed = algorithm.new_state(entries)
    for record in replay_records("gcr")[0]:
        if record.date < before:
            algorithm.rate_unit(replayed, [record])

    assert table_of(counted) == table_of(replayed)
    assert table_of(counted)["eve"] == (0, 0.0, [])  # only unrated games: there, with none


def test_a_back_dated_gcr_recompute_reads_only_the_games_after_the_snapshots_it_keeps(
    six_months, monkeypatch
):
    vera, (ann, _ben, cat, dan) = six_months
    eve = factories.player("eve", "20k")
    record_sheet_submit(  # a player of unrated games only, before the entry: still listed
        user=vera,
        games=[factories.game(eve, cat, "W", date(2024, 2, 11), status="free")],
        allow_duplicates=True,
    )
    recompute_pending(["gcr"])
    read_from = []
    real_replay_records = holistic_pass.replay_records

    def recording(name, start=None, **options):
        read_from.append(start)
        return real_replay_records(name, start, **options)

    monkeypatch.setattr(holistic_pass, "replay_records", recording)
    record_sheet_submit(
        user=vera, games=[factories.game(dan, ann, "W", date(2024, 4, 20))], allow_duplicates=True
    )
    recompute_pending(["gcr"])
    incremental = gcr_tables()
    monkeypatch.undo()

    assert [key.date for key in read_from] == [date(2024, 4, 1)]  # March's snapshot kept
    assert incremental == after_a_full_recompute()
    assert ("eve", 0) in {(username, games) for username, _rank, _value, games in incremental[1]}


def enter(volunteer, game) -> None:
    """One game on a sheet of its own, and GCR's recompute of it."""
    record_sheet_submit(user=volunteer, games=[game], allow_duplicates=True)
    recompute_pending(["gcr"])


def kept_table_days() -> list[date]:
    return sorted(HolisticTable.objects.filter(algorithm="gcr").values_list("date", flat=True))


def kept_tables() -> dict[date, tuple[set, dict]]:
    """Each kept table's players and pairs (both by id), whatever their order."""
    kept = {}
    for day, table in HolisticTable.objects.values_list("date", "table"):
        ids, flat = table["players"], table["pairs"]
        pairs = {}
        for at in range(0, len(flat), 4):
            first, second, games, twice = flat[at : at + 4]
            if ids[first] > ids[second]:
                first, second, twice = second, first, 2 * games - twice
            pairs[ids[first], ids[second]] = (games, twice)
        kept[day] = (set(ids), pairs)
    return kept


def no_count(*args, **options):
    raise AssertionError("the games counted again")


def test_a_full_recompute_keeps_the_tables_of_the_month_ends_of_the_four_months_before_the_last(
    six_months,
):
    # Games from January to June: the last month is June, the tables those of February
    # to May (January is more than four months before May).
    recompute("gcr", full=True)

    assert kept_table_days() == [
        date(2024, 2, 29),
        date(2024, 3, 31),
        date(2024, 4, 30),
        date(2024, 5, 31),
    ]


def test_an_entry_in_the_last_month_counts_no_game_before_it_as_a_full_recompute_would(
    six_months, monkeypatch
):
    """It resumes from the table kept at May's end: the database counts nothing."""
    vera, (ann, ben, *_rest) = six_months
    monkeypatch.setattr(holistic_pass, "count_holistic_table", no_count)
    enter(vera, factories.game(ann, ben, "B", date(2024, 6, 29)))
    incremental = gcr_tables()
    monkeypatch.undo()

    assert incremental == after_a_full_recompute()


def test_a_back_dated_entry_counts_only_the_games_after_the_table_before_it(
    six_months, monkeypatch
):
    """Back-dated into April: the snapshots up to March's end stay; its table is gone
    (dropped), so February's is read and the database counts March's games only."""
    vera, (ann, _ben, _cat, dan) = six_months
    HolisticTable.objects.filter(algorithm="gcr", date=date(2024, 3, 31)).delete()
    counted = []
    real_count = holistic_pass.count_holistic_table

    def recording(state, before=None, *, after=None, usernames=None):
        counted.append((after, before))
        real_count(state, before, after=after, usernames=usernames)

    monkeypatch.setattr(holistic_pass, "count_holistic_table", recording)
    enter(vera, factories.game(dan, ann, "W", date(2024, 4, 20)))
    incremental = gcr_tables()
    monkeypatch.undo()

    assert counted == [(date(2024, 2, 29), date(2024, 4, 1))]
    assert incremental == after_a_full_recompute()


def test_a_back_dated_entry_drops_the_tables_from_its_month_on_and_writes_the_latest_again(
    six_months, monkeypatch
):
    """A game back-dated into March changes the tables of March to May: those of March
    and April go, May's is written again, and the next entry in June resumes from it."""
    vera, (ann, ben, cat, dan) = six_months
    enter(vera, factories.game(cat, ann, "W", date(2024, 3, 20)))
    assert kept_table_days() == [date(2024, 2, 29), date(2024, 5, 31)]
    monkeypatch.setattr(holistic_pass, "count_holistic_table", no_count)
    enter(vera, factories.game(ben, dan, "W", date(2024, 6, 30)))
    incremental = gcr_tables()
    monkeypatch.undo()

    assert incremental == after_a_full_recompute()


def test_a_void_back_in_the_history_drops_the_tables_after_it_and_keeps_those_before(six_months):
    vera, _players = six_months
    game = Game.objects.filter(date__month=4).order_by("date")[0]
    game_void(user=vera, game_id=game.pk, version=game.version, reason="test")
    recompute_pending(["gcr"])
    incremental = gcr_tables()
    kept = kept_tables()

    assert incremental == after_a_full_recompute()
    assert sorted(kept) == [date(2024, 2, 29), date(2024, 3, 31), date(2024, 5, 31)]
    full = kept_tables()
    assert kept == {day: full[day] for day in kept}


def test_a_renamed_player_is_the_same_in_the_kept_table(six_months):
    """The tables name players by id: a username changed since (an erasure renames the
    player) is read under its new name."""
    vera, (ann, ben, *_rest) = six_months
    Player.objects.filter(pk=ann.pk).update(username="anna")
    ann.refresh_from_db()
    enter(vera, factories.game(ann, ben, "W", date(2024, 6, 30)))
    incremental = gcr_tables()

    assert incremental == after_a_full_recompute()
    assert "anna" in {username for username, *_rest in incremental[1]}


def test_a_kept_table_the_algorithm_cannot_read_is_counted_again(six_months):
    vera, (ann, ben, *_rest) = six_months
    HolisticTable.objects.filter(algorithm="gcr").update(table={"format": 0})
    enter(vera, factories.game(ann, ben, "W", date(2024, 6, 30)))

    assert gcr_tables() == after_a_full_recompute()


def test_a_table_counted_for_want_of_a_kept_one_is_kept_for_the_next_entry(six_months, monkeypatch):
    """A site whose tables are gone (or from before them): the first entry counts the
    table of May's end and keeps it; the next one counts nothing."""
    vera, (ann, ben, cat, dan) = six_months
    HolisticTable.objects.all().delete()
    enter(vera, factories.game(ann, ben, "W", date(2024, 6, 29)))
    assert kept_table_days() == [date(2024, 5, 31)]
    monkeypatch.setattr(holistic_pass, "count_holistic_table", no_count)
    enter(vera, factories.game(cat, dan, "B", date(2024, 6, 30)))
    incremental = gcr_tables()
    monkeypatch.undo()

    assert incremental == after_a_full_recompute()


@pytest.fixture
def a_quiet_pair(settings):
    """Ten players rated from January to April 2024, then only ann and ben play (May and
    June): the games after April's table have few of its players."""
    settings.RATINGS_ALGORITHMS = ["sagc", "gcr"]
    vera = factories.volunteer()
    players = [factories.player(f"p{index}", f"{index + 1}k") for index in range(10)]
    games = [
        factories.game(
            players[i % 10],
            players[(i * 3 + 1) % 10],
            "WB"[i % 2],
            date(2024, 1 + i // 8, 2 + i % 8),
        )
        for i in range(32)
        if i % 10 != (i * 3 + 1) % 10
    ]
    games += [
        factories.game(players[0], players[1], "W", date(2024, 5, 3)),
        factories.game(players[1], players[0], "B", date(2024, 6, 4)),
    ]
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    recompute_pending()
    return vera, players


def kept_table_bases() -> dict[date, str | None]:
    """Each kept table's day, and the day of the table it holds the games after (None:
    whole)."""
    return {
        day: table.get("after")
        for day, table in HolisticTable.objects.filter(algorithm="gcr").values_list("date", "table")
    }


def test_a_back_dated_entry_keeps_the_latest_table_as_the_games_after_the_one_it_read(
    a_quiet_pair, monkeypatch
):
    """Back-dated into May: April's table is read, and May's is written as the games of
    May alone, after April's. The next entry reads both and counts nothing."""
    vera, (p0, p1, p2, *_rest) = a_quiet_pair
    enter(vera, factories.game(p0, p1, "B", date(2024, 5, 20)))
    assert incremental_equals_full(gcr_tables())
    bases = kept_table_bases()
    assert bases[date(2024, 5, 31)] == "2024-04-30"
    assert bases[date(2024, 4, 30)] is None
    monkeypatch.setattr(holistic_pass, "count_holistic_table", no_count)
    enter(vera, factories.game(p2, p0, "W", date(2024, 6, 28)))
    incremental = gcr_tables()
    monkeypatch.undo()

    assert incremental == after_a_full_recompute()


def incremental_equals_full(incremental) -> bool:
    """Whether ``incremental`` (:func:`gcr_tables`) is what a full recompute stores, the
    tables kept as they were."""
    kept = list(HolisticTable.objects.filter(algorithm="gcr").values_list("date", "table"))
    full = after_a_full_recompute()
    HolisticTable.objects.filter(algorithm="gcr").delete()
    HolisticTable.objects.bulk_create(
        HolisticTable(algorithm="gcr", date=day, table=table) for day, table in kept
    )
    return incremental == full


def test_a_table_of_the_games_after_one_that_is_gone_is_counted_again(a_quiet_pair):
    vera, (p0, p1, p2, *_rest) = a_quiet_pair
    enter(vera, factories.game(p0, p1, "B", date(2024, 5, 20)))
    HolisticTable.objects.filter(algorithm="gcr", date=date(2024, 4, 30)).delete()
    enter(vera, factories.game(p2, p0, "W", date(2024, 6, 28)))

    assert gcr_tables() == after_a_full_recompute()


def test_the_games_of_many_players_after_the_table_read_are_kept_whole(six_months):
    """Back-dated into March among four players: the games after February's table have
    all of them, so May's table is written whole."""
    vera, (ann, _ben, cat, _dan) = six_months
    enter(vera, factories.game(cat, ann, "W", date(2024, 3, 20)))

    assert kept_table_bases() == {date(2024, 2, 29): None, date(2024, 5, 31): None}


def test_a_table_out_of_the_kept_months_stays_while_a_kept_one_holds_the_games_after_it(
    six_months,
):
    """The window of kept months moved past January, but May's table holds only the
    games after January's: January's stays, February's (nothing after it) goes."""
    HolisticTable.objects.filter(algorithm="gcr", date=date(2024, 5, 31)).update(
        table={"after": "2024-01-31", "games": {"format": 1, "players": [], "pairs": []}}
    )
    HolisticTable.objects.create(
        algorithm="gcr", date=date(2024, 1, 31), table={"format": 1, "players": [], "pairs": []}
    )
    last_kept = date(2024, 6, 30)  # as if July were the last month

    dropped = holistic_pass._tables_to_drop("gcr", date(2024, 7, 1), last_kept, None)
    rewritten = holistic_pass._tables_to_drop("gcr", date(2024, 5, 1), last_kept, None)
    for_the_pass = holistic_pass._tables_to_drop(
        "gcr", date(2024, 7, 1), date(2024, 9, 30), date(2024, 3, 31)
    )

    assert dropped == [date(2024, 2, 29)]
    assert rewritten == [date(2024, 1, 31), date(2024, 2, 29), date(2024, 5, 31)]
    # Kept months June to September: March's stays for the table the pass writes after
    # it; January's goes with May's, the one that held the games after it.
    assert for_the_pass == [
        date(2024, 1, 31),
        date(2024, 2, 29),
        date(2024, 4, 30),
        date(2024, 5, 31),
    ]


class _Shifted(gcr.Gcr):
    """GCR whose standings are not its players' own values."""

    def standings(self, state):
        return [
            replace(standing, value=standing.value + 1) for standing in super().standings(state)
        ]


def test_a_snapshots_rows_are_the_standings_whether_or_not_the_algorithm_overrides_them():
    state = engine_tests.rated(
        [engine_tests.game("ann", "bob", "W"), engine_tests.game("bob", "cy", "B")]
    )
    own = {row[0]: row for row in holistic_pass._standings(gcr.Gcr(), state)}
    shifted = {row[0]: row for row in holistic_pass._standings(_Shifted(), state)}

    assert own == {
        standing.player: (standing.player, standing.rank, standing.value, standing.games)
        for standing in gcr.Gcr().standings(state)
    }
    assert {name: row[2] - 1 for name, row in shifted.items()} == {
        name: row[2] for name, row in own.items()
    }
