"""The month-end standings (``MonthEnd``, ``MonthEndStanding``) that the list as of a day
reads: kept by the recompute from the first date it rewrites, they give exactly what a
scan of every history row gives, for random days, after back-dated games, corrections
that move a game across months, and voids (the last game's included), under the
algorithms that replay by date (SAGC, anchor) and those that rate a tournament as one
unit at its first game's place (EGF, the French ladder), with a tournament over a month
end and a month without games. What a recompute from a checkpoint leaves is what a full
recompute writes."""

import random
from datetime import date, timedelta

import pytest
from django.db.models import Max, Min

from players.models import Game, Player
from players.selectors.ratings import RatingListFilters, rating_list, ratings_as_of
from players.services.games import game_correct, game_void, record_sheet_submit
from ratings.models import MonthEnd, MonthEndStanding, RatingHistory
from ratings.recompute import month_ends
from ratings.recompute.run import recompute, recompute_pending
from tests import factories

pytestmark = pytest.mark.django_db

ALGORITHMS = ["sagc", "anchor", "egf-2021", "french"]
FIRST = date(2024, 1, 3)
LAST = date(2024, 9, 25)


@pytest.fixture(autouse=True)
def algorithms(settings):
    settings.RATINGS_ALGORITHMS = ALGORITHMS
    # checkpoints every few units: back-dated recomputes resume mid-history and keep
    # the month ends before them
    settings.RATINGS_CHECKPOINT_EVERY = 3


def full_scan(algorithm: str, day: date) -> set[tuple]:
    """Each player's row of the highest position dated on or before ``day``."""
    newest: dict[int, RatingHistory] = {}
    for row in RatingHistory.objects.filter(algorithm=algorithm, date__lte=day):
        if row.player_id not in newest or row.position > newest[row.player_id].position:
            newest[row.player_id] = row
    return {(r.player_id, r.rank_after, r.value_after, r.date) for r in newest.values()}


def listed(algorithm: str, day: date) -> set[tuple]:
    """The rating list as of ``day``, everyone admitted."""
    rows = rating_list(algorithm, RatingListFilters(as_of=day, everyone=True))
    return {(row.player_id, row.rank, row.value, row.last_updated) for row in rows}


def by_player(algorithm: str, day: date, players=None) -> set[tuple]:
    return {
        (row.player_id, row.rank, row.value, row.last_updated)
        for row in ratings_as_of(algorithm, day, players)
    }


def stored(algorithm: str) -> tuple[list, list]:
    ends = MonthEnd.objects.filter(algorithm=algorithm).order_by("date")
    standings = MonthEndStanding.objects.filter(algorithm=algorithm).order_by(
        "month_end", "player_id"
    )
    return (
        list(ends.values_list("date", "first_later", "last_on_or_before")),
        list(standings.values_list("month_end", "player_id", "position", "rank", "value", "date")),
    )


def random_days(rng: random.Random, count: int) -> list[date]:
    """Days from before the first game to after the last, month ends and the days
    around them among them."""
    span = (LAST - FIRST).days + 40
    days = [FIRST - timedelta(days=20) + timedelta(days=rng.randrange(span)) for _ in range(count)]
    days += [date(2024, 3, 31), date(2024, 4, 1), date(2024, 6, 30), date(2024, 7, 1)]
    return [*days, FIRST - timedelta(days=1), FIRST, LAST, LAST + timedelta(days=30)]


def assert_exact(label: str, days: list[date]) -> None:
    for algorithm in ALGORITHMS:
        assert MonthEnd.objects.filter(algorithm=algorithm).exists(), algorithm
        for day in days:
            expected = full_scan(algorithm, day)
            assert listed(algorithm, day) == expected, (label, algorithm, day)
            assert by_player(algorithm, day) == expected, (label, algorithm, day)
            assert by_player(algorithm, day, Player.objects.all()) == expected, (
                label,
                algorithm,
                day,
            )


@pytest.fixture
def season(vera):
    """Sixteen players over nine months: club nights of several games, none in June, a
    four-day tournament over the end of March with club games between its rounds, and
    an adjustment."""
    rng = random.Random(5)
    club = factories.club("Durban Go Club")
    ranks = ["3d", "1d", "1k", "2k", "4k", "5k", "6k", "8k", "9k", "10k", "12k", "14k"]
    players = [
        factories.player(f"p{n:02}", ranks[n % len(ranks)], club=club if n % 4 else None)
        for n in range(16)
    ]
    games = []
    night = FIRST
    while night <= LAST:
        if night.month != 6:
            for _ in range(3):
                white, black = rng.sample(players[:14], 2)
                games.append(factories.game(white, black, rng.choice("WB"), night))
        night += timedelta(days=rng.choice([3, 4, 7]))
    spring = factories.tournament("spring-open", "Spring Open")
    for round_, day in enumerate(
        [date(2024, 3, 30), date(2024, 3, 31), date(2024, 4, 1), date(2024, 4, 2)], start=1
    ):
        entrants = rng.sample(players, 8)
        for board in range(4):
            white, black = entrants[2 * board], entrants[2 * board + 1]
            games.append(
                factories.game(
                    white,
                    black,
                    rng.choice("WB"),
                    day,
                    tournament=spring,
                    round=round_,
                    status="tournament",
                )
            )
    # club games between the tournament's rounds
    games.append(factories.game(players[0], players[15], "B", date(2024, 3, 31)))
    games.append(factories.game(players[14], players[1], "W", date(2024, 4, 1)))
    record_sheet_submit(user=vera, games=games, allow_duplicates=True)
    factories.adjustment(players[9], date(2024, 5, 10), "9k", user=vera)
    recompute_pending()
    return players


def back_dated_changes(rng: random.Random, vera, players) -> None:
    """A random write: a game back-dated into the history, a game moved to another
    month, or a game voided."""
    action = rng.choice(["enter", "move", "void"])
    valid = list(Game.objects.filter(voided_at__isnull=True).order_by("pk"))
    if action == "enter":
        day = FIRST + timedelta(days=rng.randrange((LAST - FIRST).days))
        white, black = rng.sample(players, 2)
        record_sheet_submit(
            user=vera,
            games=[factories.game(white, black, rng.choice("WB"), day)],
            allow_duplicates=True,
        )
    elif action == "move":
        game = rng.choice([game for game in valid if game.tournament_id is None])
        day = game.date + timedelta(days=rng.choice([-40, -25, 25, 40]))
        day = min(max(day, FIRST), LAST)
        game_correct(
            user=vera,
            game_id=game.pk,
            version=game.version,
            changes=factories.game(game.white, game.black, game.winner, day),
            allow_outliers=True,
        )
    else:
        game = rng.choice(valid)
        game_void(user=vera, game_id=game.pk, version=game.version, reason="entered twice")


def test_a_month_end_is_stored_once_as_many_rows_as_players_came_since_the_last(season):
    ends = list(MonthEnd.objects.filter(algorithm="sagc").values_list("date", flat=True))

    # every month has more rows than the sixteen players but June, which has none: its
    # month end would repeat May's standings
    assert ends == [
        date(2024, 1, 31),
        date(2024, 2, 29),
        date(2024, 3, 31),
        date(2024, 4, 30),
        date(2024, 5, 31),
        date(2024, 7, 31),
        date(2024, 8, 31),
    ]
    assert MonthEndStanding.objects.filter(algorithm="sagc", month_end=date(2024, 5, 31)).count()
    assert_exact("June", [date(2024, 6, 1), date(2024, 6, 30), date(2024, 7, 1)])


def test_an_old_tournament_adds_its_players_standings_once_not_every_month_since(vera):
    """A tournament file dated 1901 before a club's games of 2024: its players' standings
    are stored at most once until as many rows again have come, not at each of the
    1,480 month ends between, and the list of any day across the gap stays exact."""
    club = [factories.player(f"c{n}", "8k") for n in range(4)]
    record_sheet_submit(
        user=vera,
        games=[
            factories.game(club[n % 4], club[(n + 1) % 4], "WB"[n % 2], date(2024, 1 + n // 3, 2))
            for n in range(24)
        ],
    )
    old = factories.tournament("old-open", "Old Open")
    entrants = [factories.player(f"o{n}", "5k") for n in range(10)]
    games = [
        factories.game(
            entrants[board],
            entrants[9 - board],
            "W",
            date(1901, 6, round_),
            tournament=old,
            round=round_,
            status="tournament",
        )
        for round_ in (1, 2, 3)
        for board in range(5)
    ]
    record_sheet_submit(user=vera, games=games)
    recompute_pending()

    for algorithm in ALGORITHMS:
        rows = RatingHistory.objects.filter(algorithm=algorithm).count()
        assert MonthEndStanding.objects.filter(algorithm=algorithm).count() <= rows, algorithm
        assert MonthEnd.objects.filter(algorithm=algorithm, date__year__lt=2024).count() <= 1
    days = [date(1901, 6, 1), date(1901, 6, 2), date(1901, 7, 1), date(1950, 1, 1)]
    assert_exact("1901", [*days, date(2023, 12, 31), date(2024, 1, 2), date(2024, 9, 1)])


def test_the_list_of_random_days_is_the_full_scan_after_back_dated_writes_and_voids(season, vera):
    rng = random.Random(19)
    assert_exact("season", random_days(rng, 12))
    for step in range(6):
        back_dated_changes(rng, vera, season)
        recompute_pending()
        assert_exact(f"after change {step}", random_days(rng, 8))


def test_month_ends_kept_by_back_dated_recomputes_are_those_of_a_full_recompute(season, vera):
    rng = random.Random(23)
    for _ in range(5):
        back_dated_changes(rng, vera, season)
        recompute_pending()
    kept = {algorithm: stored(algorithm) for algorithm in ALGORITHMS}

    for algorithm in ALGORITHMS:
        recompute(algorithm, full=True)
        assert stored(algorithm) == kept[algorithm], algorithm


def test_voiding_the_last_games_leaves_the_month_ends_exact(season, vera):
    last_month = Game.objects.filter(date__gte=date(2024, 9, 1), voided_at__isnull=True)
    for game in last_month:
        game_void(user=vera, game_id=game.pk, version=game.version, reason="wrong club")
    recompute_pending()

    assert_exact("September voided", [date(2024, 8, 31), date(2024, 9, 15), LAST])


def test_a_game_after_the_last_in_its_month_rewrites_no_month_end(season, vera):
    before = {algorithm: stored(algorithm) for algorithm in ALGORITHMS}
    ids = set(MonthEnd.objects.values_list("pk", flat=True))

    record_sheet_submit(
        user=vera, games=[factories.game(season[0], season[1], "W", LAST + timedelta(days=2))]
    )
    recompute_pending()

    assert set(MonthEnd.objects.values_list("pk", flat=True)) == ids
    assert {algorithm: stored(algorithm) for algorithm in ALGORITHMS} == before


def test_the_first_game_of_a_new_month_adds_the_month_end_before_it(season, vera):
    record_sheet_submit(
        user=vera, games=[factories.game(season[0], season[1], "W", date(2024, 10, 2))]
    )
    recompute_pending()

    assert MonthEnd.objects.filter(algorithm="sagc").order_by("date").last().date == date(
        2024, 9, 30
    )
    assert_exact("October", [date(2024, 9, 30), date(2024, 10, 1), date(2024, 10, 2)])


def test_without_month_ends_the_list_is_read_per_player_and_the_next_recompute_builds_them(
    season, vera
):
    expected = {algorithm: stored(algorithm) for algorithm in ALGORITHMS}
    MonthEndStanding.objects.all().delete()
    MonthEnd.objects.all().delete()

    day = date(2024, 5, 20)
    assert listed("egf-2021", day) == full_scan("egf-2021", day)

    game = Game.objects.filter(date__gte=date(2024, 9, 1)).first()
    game_void(user=vera, game_id=game.pk, version=game.version, reason="entered twice")
    recompute_pending()

    for algorithm in ALGORITHMS:
        assert stored(algorithm)[0] == expected[algorithm][0]
    assert_exact("rebuilt", [day, date(2024, 8, 31)])


def test_a_game_on_a_month_end_rewrites_that_month_end(vera):
    """The history ends the day before a month end, games follow on it and after it (the
    recompute resumes at the start of that day), then one more on the month end: the
    recompute resumes at that day's start again, and the month end is rewritten."""
    players = [factories.player(f"q{n}", "5k") for n in range(4)]
    play = [
        (date(2024, 5, 2), 0, 1),
        (date(2024, 5, 20), 2, 3),
        (date(2024, 5, 30), 0, 2),
        (date(2024, 5, 31), 1, 3),
        (date(2024, 6, 5), 0, 3),
        (date(2024, 5, 31), 1, 2),
    ]
    for batch in (play[:3], play[3:5], play[5:]):
        record_sheet_submit(
            user=vera,
            games=[factories.game(players[w], players[b], "W", day) for day, w, b in batch],
            allow_duplicates=True,
        )
        recompute_pending()
    kept = {algorithm: stored(algorithm) for algorithm in ALGORITHMS}

    for algorithm in ALGORITHMS:
        assert kept[algorithm][0][-1][0] == date(2024, 5, 31)
        assert listed(algorithm, date(2024, 5, 31)) == full_scan(algorithm, date(2024, 5, 31))
        recompute(algorithm, full=True)
        assert stored(algorithm) == kept[algorithm], algorithm


def test_a_back_dated_game_rewrites_only_the_month_end_standings_it_changes(
    season, vera, monkeypatch
):
    written = []

    class CountingWriter(month_ends.RowWriter):
        def add(self, row: tuple) -> None:
            written.append(row)  # month_ends writes standings alone
            super().add(row)

    monkeypatch.setattr(month_ends, "RowWriter", CountingWriter)
    rebuilt_from = date(2024, 7, 16)
    standings = MonthEndStanding.objects.filter(month_end__gte=rebuilt_from)
    before = {
        (row.algorithm, row.month_end, row.player_id): (row.pk, row.position, row.value)
        for row in standings.all()
    }
    assert before

    record_sheet_submit(
        user=vera,
        games=[factories.game(season[0], season[1], "B", rebuilt_from)],
        allow_duplicates=True,
    )
    recompute_pending()

    after = {
        (row.algorithm, row.month_end, row.player_id): (row.pk, row.position, row.value)
        for row in standings.all()
    }
    same = [
        key for key, (_pk, *values) in after.items() if before.get(key, (0,))[1:] == tuple(values)
    ]
    moved = [key for key in after if key not in same]
    assert same and moved
    # Only the standings that changed were written again.
    assert len(written) == len(moved)
    kept = {algorithm: stored(algorithm) for algorithm in ALGORITHMS}
    for algorithm in ALGORITHMS:
        recompute(algorithm, full=True)
        assert stored(algorithm) == kept[algorithm], algorithm


@pytest.fixture
def shortcuts(monkeypatch):
    """What each month-end rewrite from a checkpoint did, by algorithm: the month ends
    the moved players' pass wrote, or None where it left them to the rows' pass."""
    taken: dict[str, list] = {}
    rewrite_moved = month_ends._rewrite_moved

    def recorded(algorithm, from_date, moved):
        written = rewrite_moved(algorithm, from_date, moved)
        taken.setdefault(algorithm.name, []).append(written)
        return written

    monkeypatch.setattr(month_ends, "_rewrite_moved", recorded)
    return taken


def assert_as_a_full_recompute() -> None:
    kept = {algorithm: stored(algorithm) for algorithm in ALGORITHMS}
    for algorithm in ALGORITHMS:
        recompute(algorithm, full=True)
        assert stored(algorithm) == kept[algorithm], algorithm


@pytest.mark.parametrize(
    "day",
    [
        date(2024, 8, 20),
        # after the March month end that EGF's block over it leaves rows dated on or
        # before it at positions after its first later row (the club games of 31 March)
        date(2024, 4, 15),
        date(2024, 2, 10),
    ],
)
def test_a_back_dated_game_under_stored_month_ends_reads_only_the_moved_players(
    season, vera, shortcuts, day
):
    record_sheet_submit(
        user=vera,
        games=[factories.game(season[2], season[5], "W", day)],
        allow_duplicates=True,
    )
    recompute_pending()

    for algorithm in ALGORITHMS:
        assert shortcuts[algorithm] and None not in shortcuts[algorithm], algorithm
    assert_as_a_full_recompute()


# Six players' games (day, white, black) from January to April: six rows in January and
# in March, as many as the players (their month ends are stored), two in February.
SIX_PLAYERS_SEASON = [
    (date(2024, 1, 5), 0, 1),
    (date(2024, 1, 12), 2, 3),
    (date(2024, 1, 19), 4, 5),
    (date(2024, 2, 9), 0, 2),
    (date(2024, 3, 8), 4, 0),
    (date(2024, 3, 15), 5, 1),
    (date(2024, 3, 22), 2, 4),
    (date(2024, 4, 5), 3, 5),
]


def six_players_playing(vera, prefix: str, play: list[tuple[date, int, int]]) -> list[Player]:
    """Six players and the games of ``play`` (day, white, black; white wins), recomputed."""
    players = [factories.player(f"{prefix}{n}", "6k") for n in range(6)]
    record_sheet_submit(
        user=vera,
        games=[factories.game(players[w], players[b], "W", day) for day, w, b in play],
        allow_duplicates=True,
    )
    recompute_pending()
    return players


def month_end_dates(algorithm: str) -> set[date]:
    return set(MonthEnd.objects.filter(algorithm=algorithm).values_list("date", flat=True))


def test_a_month_end_that_becomes_due_or_stops_being_due_is_that_of_a_full_recompute(
    vera, shortcuts
):
    """Six players; January has as many rows as players (its month end is stored),
    February fewer (not), March enough again. A game back-dated into February makes its
    month end due, which only a pass over every row can build (everyone's standings);
    voided, February stops being due, and the moved players' pass drops it."""
    players = six_players_playing(vera, "r", [*SIX_PLAYERS_SEASON, (date(2024, 2, 16), 1, 3)])
    ends = {date(2024, 1, 31), date(2024, 3, 31)}
    for algorithm in ALGORITHMS:
        assert month_end_dates(algorithm) == ends

    record_sheet_submit(
        user=vera,
        games=[factories.game(players[5], players[4], "B", date(2024, 2, 20))],
        allow_duplicates=True,
    )
    recompute_pending()

    for algorithm in ALGORITHMS:
        assert month_end_dates(algorithm) == {*ends, date(2024, 2, 29)}
        assert shortcuts[algorithm] == [None]
    assert_as_a_full_recompute()
    shortcuts.clear()

    game = Game.objects.get(date=date(2024, 2, 20))
    game_void(user=vera, game_id=game.pk, version=game.version, reason="entered twice")
    recompute_pending()

    for algorithm in ALGORITHMS:
        assert month_end_dates(algorithm) == ends
        assert shortcuts[algorithm] == [1]
    assert_as_a_full_recompute()


def assert_each_month_end_bounds_its_rows() -> None:
    """Each month end stored holds the highest position dated on or before it and the
    lowest dated after it, as the history rows have them."""
    for algorithm in ALGORITHMS:
        rows = RatingHistory.objects.filter(algorithm=algorithm)
        ends = MonthEnd.objects.filter(algorithm=algorithm)
        assert ends.exists(), algorithm
        for end in ends:
            assert (end.last_on_or_before, end.first_later) == (
                rows.filter(date__lte=end.date).aggregate(last=Max("position"))["last"],
                rows.filter(date__gt=end.date).aggregate(first=Min("position"))["first"],
            ), (algorithm, end.date)


def test_a_game_back_dated_onto_a_stored_month_end_rewrites_it_as_a_full_recompute(vera, shortcuts):
    """Six players, month ends stored for January and March: a game back-dated onto 31
    March itself is rewritten by the moved players' pass (the month end on its dirty
    date dropped and written again), and every month end bounds its rows, as a full
    recompute leaves them."""
    players = six_players_playing(vera, "s", [*SIX_PLAYERS_SEASON, (date(2024, 3, 31), 1, 2)])
    for algorithm in ALGORITHMS:
        assert month_end_dates(algorithm) == {date(2024, 1, 31), date(2024, 3, 31)}
    assert_each_month_end_bounds_its_rows()

    record_sheet_submit(
        user=vera,
        games=[factories.game(players[3], players[0], "B", date(2024, 3, 31))],
        allow_duplicates=True,
    )
    recompute_pending()

    for algorithm in ALGORITHMS:
        assert shortcuts[algorithm] == [1], algorithm
    assert_each_month_end_bounds_its_rows()
    assert_as_a_full_recompute()
    assert_each_month_end_bounds_its_rows()
