"""``python -m bench.pages``: server time of every public page.

Needs ``DATABASE_URL`` naming a database of its own (it is migrated, then filled
once): 10,000 players in 100 clubs (each a member of one since before the records)
with a current rating under every maintained algorithm, 200,000 background history
rows, one player with 2,000 games (each entered for white's club) and their
2,000 SAGC history rows, and 500 tournaments of 200,000 games (one of EGC 2013's size,
600 players over 10 rounds; the others about 80 players over 10 rounds) with their
EGF 2021 history rows, and 798,000 games of club evenings (each club's record sheets
of 20 games, entered for it: about a million games in all, issue 28), all written with
``bulk_create`` (no recompute: the pages only
read; the tournaments' stored counts as the services keep them). Then, with Django's
test Client in this process (so the time is the server's: resolving, the view, its
queries and the templates; no network), it times each page after three warm-up
requests: median and 95th percentile of ``--requests`` requests, and the queries of
one request; a CSV download is timed to its first chunk. Every public page is timed
(``public_pages``, which ``bench.database`` also times at 1,000,000 games), each
against its target where an issue gives one. The heavy player's own login (their
log page with Report links, My page) and a volunteer's queue of reports are timed
too. Prints a markdown table
for docs/performance.md (the section between ``<!-- bench:pages -->`` markers).

    createdb -h 127.0.0.1 -U postgres clubrating_bench_pages
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/clubrating_bench_pages \\
        python -m bench.pages
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

PLAYERS = 10_000
CLUBS = 100  # issue 28: a federation's clubs sharing the site
HEAVY_GAMES = 2_000
BACKGROUND_HISTORY = 200_000
HEAVY_USERNAME = "heavy-player"
TOURNAMENTS = 500
TOURNAMENT_GAMES = 200_000
BIG_TOURNAMENT_PLAYERS = 600  # EGC 2013 had 594
TOURNAMENT_ROUNDS = 10
BIG_TOURNAMENT = "big-open"
# Issue 28: a million games in all, the rest club evenings: each club's record sheets
# of about 20 games among its members (a visitor now and then), over the 11 years.
TOTAL_GAMES = 1_000_000
CLUB_NIGHT_GAMES = TOTAL_GAMES - HEAVY_GAMES - TOURNAMENT_GAMES
GAMES_PER_SHEET = 20
SEED = 20240601
BATCH = 5_000

# What an SAGC history row records (ratings/engine/sagc.py): a 14k's loss at
# differential 0, the SPEC's example.
SAGC_FACTORS = {
    "level_factor": "1775/3",
    "game_status_factor": "1",
    "opponent_factor": "1",
    "handicap_factor": "9/10",
    "effective_handicap": 2,
    "differential": 0,
    "zone": "demotion",
    "result": "loss",
    "game_result_factor": "-3/5",
    "product": "-639/2",
}


@dataclass(frozen=True)
class Timing:
    page: str
    url: str
    seconds: list[float]
    cpu_seconds: list[float]  # this process's CPU time: what other load cannot inflate
    queries: int
    target_ms: float | None = None  # server time the page should keep to (p95)

    @property
    def median_ms(self) -> float:
        return statistics.median(self.seconds) * 1000 if self.seconds else float("nan")

    @property
    def p95_ms(self) -> float:
        if len(self.seconds) < 2:
            return self.median_ms
        return statistics.quantiles(self.seconds, n=20, method="inclusive")[18] * 1000

    @property
    def cpu_median_ms(self) -> float:
        return statistics.median(self.cpu_seconds) * 1000 if self.cpu_seconds else float("nan")

    @property
    def verdict(self) -> str:
        """Against the target: "yes", "**no**", "" without a target."""
        if self.target_ms is None:
            return ""
        if not self.seconds or self.p95_ms > self.target_ms:
            return f"**no** ({self.target_ms:.0f} ms)"
        return f"yes ({self.target_ms:.0f} ms)"

    def as_dict(self) -> dict:
        return {
            "page": self.page,
            "url": self.url,
            "median_ms": self.median_ms,
            "p95_ms": self.p95_ms,
            "cpu_median_ms": self.cpu_median_ms,
            "queries": self.queries,
            "target_ms": self.target_ms,
        }


def build(rng: random.Random) -> None:
    """Fill an empty database with the benchmark's players, games and ratings."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from players.models import Club, EntrySequence, Game, Membership, Player
    from ratings.algorithms import maintained_algorithms
    from ratings.engine.ranks import Rank
    from ratings.models import CurrentRating, RatingHistory, RecomputeState

    today = timezone.localdate()
    with transaction.atomic():
        user = get_user_model().objects.create(username="bench", is_active=False)
        clubs = Club.objects.bulk_create(
            [Club(name=f"Go club {number:02d}") for number in range(CLUBS)]
        )
        players = Player.objects.bulk_create(
            [
                Player(
                    username=HEAVY_USERNAME if number == 0 else f"player{number:05d}",
                    full_name=f"Player {number:05d}",
                    club=clubs[number % CLUBS],
                    entry_rank=Rank(rng.randint(-30, 6)),
                    national_rank=Rank(rng.randint(-30, 6)),
                    last_updated=today - timedelta(days=rng.randint(0, 1500)),
                    last_played=today - timedelta(days=rng.randint(0, 1500)),
                )
                for number in range(PLAYERS)
            ],
            batch_size=BATCH,
        )
        Membership.objects.bulk_create(
            [Membership(player=player, club_id=player.club_id) for player in players],
            batch_size=BATCH,
        )
        algorithms = maintained_algorithms()
        CurrentRating.objects.bulk_create(
            [
                CurrentRating(
                    algorithm=name,
                    player=player,
                    rank=Rank(rng.randint(-30, 6)),
                    value=rng.randint(-999, 999) if name == "sagc" else rng.uniform(-900, 2700),
                    games=rng.randint(1, 400),
                )
                for name in algorithms
                for player in players
            ],
            batch_size=BATCH,
        )
        RecomputeState.objects.bulk_create([RecomputeState(algorithm=name) for name in algorithms])

        heavy, others = players[0], players[1:]
        start = today - timedelta(days=HEAVY_GAMES * 2)
        pairs = [
            (heavy, rng.choice(others)) if number % 2 else (rng.choice(others), heavy)
            for number in range(HEAVY_GAMES)
        ]
        games = Game.objects.bulk_create(
            [
                Game(
                    seq=number + 1,
                    date=start + timedelta(days=number * 2),
                    white=pairs[number][0],
                    black=pairs[number][1],
                    club_id=pairs[number][0].club_id,
                    handicap=2,
                    komi=0.5,
                    winner=rng.choice("WB"),
                    comment="a long game" if number % 50 == 0 else "",
                    created_by=user,
                )
                for number in range(HEAVY_GAMES)
            ],
            batch_size=BATCH,
        )
        EntrySequence.objects.update_or_create(pk=1, defaults={"last": HEAVY_GAMES})
        history = []
        index = 0
        for position, game in enumerate(games):
            opponent_id = game.black_id if game.white_id == heavy.pk else game.white_id
            change = rng.randint(-320, 320)
            history.append(
                RatingHistory(
                    algorithm="sagc",
                    position=position,
                    player=heavy,
                    opponent_id=opponent_id,
                    game=game,
                    date=game.date,
                    colour="W" if game.white_id == heavy.pk else "B",
                    opponent_rank=Rank(-12),
                    rank_before=Rank(-14),
                    rank_after=Rank(-14),
                    value_before=index,
                    change=change,
                    value_after=max(-999, min(999, index + change)),
                    factors=SAGC_FACTORS,
                )
            )
            index = max(-999, min(999, index + change))
        # Everyone else's rows share the table (and its index) with the heavy player's.
        for position in range(HEAVY_GAMES, HEAVY_GAMES + BACKGROUND_HISTORY):
            player, opponent = rng.sample(others, 2)
            history.append(
                RatingHistory(
                    algorithm="sagc",
                    position=position,
                    player=player,
                    opponent=opponent,
                    date=start + timedelta(days=rng.randint(0, HEAVY_GAMES * 2)),
                    colour="W",
                    opponent_rank=Rank(-10),
                    rank_before=Rank(-10),
                    rank_after=Rank(-10),
                    value_before=0,
                    change=0,
                    value_after=0,
                    factors=SAGC_FACTORS,
                )
            )
        RatingHistory.objects.bulk_create(history, batch_size=BATCH)
        build_tournaments(rng, user, others, start, HEAVY_GAMES + 1)
        build_club_nights(rng, user, clubs, others, start, today)


def build_club_nights(rng: random.Random, user, clubs, players, start, today) -> None:
    """``CLUB_NIGHT_GAMES`` games on record sheets of ``GAMES_PER_SHEET`` games, each
    sheet one evening of one club (its games entered for it), spread evenly over the
    clubs and the days from ``start`` to ``today``; one game in twenty has a visitor
    (a player of another club)."""
    from players.models import EntrySequence, Game, RecordSheet

    seq = EntrySequence.objects.get(pk=1).last + 1
    members: dict[int, list] = {}
    for player in players:
        members.setdefault(player.club_id, []).append(player)
    per_club = CLUB_NIGHT_GAMES // len(clubs)
    days = (today - start).days
    for number, club in enumerate(clubs):
        count = per_club + (CLUB_NIGHT_GAMES % len(clubs) if number == 0 else 0)
        evenings = (count + GAMES_PER_SHEET - 1) // GAMES_PER_SHEET
        sheets = RecordSheet.objects.bulk_create(
            [RecordSheet(entered_by=user, club=club) for _ in range(evenings)]
        )
        own = members[club.pk]
        games = []
        for index in range(count):
            sheet = sheets[index // GAMES_PER_SHEET]
            day = start + timedelta(days=days * (index // GAMES_PER_SHEET) // evenings)
            white, black = rng.sample(own, 2)
            if index % 20 == 19:
                black = rng.choice(players)
                if black.pk == white.pk:
                    black = own[0] if white.pk != own[0].pk else own[1]
            games.append(
                Game(
                    seq=seq,
                    date=day,
                    white=white,
                    black=black,
                    handicap=rng.randint(0, 4),
                    komi=0.5,
                    winner=rng.choice("WB"),
                    club=club,
                    record_sheet=sheet,
                    created_by=user,
                )
            )
            seq += 1
        Game.objects.bulk_create(games, batch_size=BATCH)
    EntrySequence.objects.update_or_create(pk=1, defaults={"last": seq - 1})


def build_tournaments(rng: random.Random, user, players, start, first_seq: int) -> None:
    """``TOURNAMENTS`` tournaments of ``TOURNAMENT_GAMES`` games in all, ten rounds
    each, with the EGF 2021 history rows of their games (the tournament page's
    default), and their stored counts as the services keep them."""
    from players.models import EntrySequence, Game, Tournament
    from players.services.tournaments import refresh_tournament_counts
    from ratings.engine.ranks import Rank
    from ratings.models import RatingHistory

    games_per_round_big = BIG_TOURNAMENT_PLAYERS // 2
    rest = TOURNAMENT_GAMES - games_per_round_big * TOURNAMENT_ROUNDS
    games_per_round = max(1, rest // ((TOURNAMENTS - 1) * TOURNAMENT_ROUNDS))
    tournaments = Tournament.objects.bulk_create(
        [
            Tournament(
                code=BIG_TOURNAMENT if number == 0 else f"open-{number:03d}",
                name="Big Open" if number == 0 else f"Open {number:03d}",
                start_date=start + timedelta(days=number * 8),
                end_date=start + timedelta(days=number * 8 + 4),
                egf_class="A",
            )
            for number in range(TOURNAMENTS)
        ],
        batch_size=BATCH,
    )
    seq = first_seq
    position = HEAVY_GAMES + BACKGROUND_HISTORY
    for number, tournament in enumerate(tournaments):
        per_round = games_per_round_big if number == 0 else games_per_round
        entrants = rng.sample(players, per_round * 2)
        games = []
        for round_number in range(1, TOURNAMENT_ROUNDS + 1):
            rng.shuffle(entrants)
            for board in range(per_round):
                white, black = entrants[2 * board], entrants[2 * board + 1]
                games.append(
                    Game(
                        seq=seq,
                        date=tournament.start_date + timedelta(days=(round_number - 1) // 3),
                        round=round_number,
                        white=white,
                        black=black,
                        white_rank=Rank(-5),
                        black_rank=Rank(-5),
                        komi=6.5,
                        winner=rng.choice("WB"),
                        status="tournament",
                        tournament=tournament,
                        created_by=user,
                    )
                )
                seq += 1
        games = Game.objects.bulk_create(games, batch_size=BATCH)
        history = []
        for game in games:
            for player, opponent, colour in (
                (game.white, game.black, "W"),
                (game.black, game.white, "B"),
            ):
                change = rng.uniform(-30, 30)
                history.append(
                    RatingHistory(
                        algorithm="egf-2021",
                        position=position,
                        player=player,
                        opponent=opponent,
                        game=game,
                        date=game.date,
                        colour=colour,
                        opponent_rank=Rank(-5),
                        rank_before=Rank(-5),
                        rank_after=Rank(-5),
                        value_before=1600,
                        change=change,
                        value_after=1600 + change,
                        factors={},
                    )
                )
                position += 1
        RatingHistory.objects.bulk_create(history, batch_size=BATCH)
    EntrySequence.objects.update_or_create(pk=1, defaults={"last": seq - 1})
    refresh_tournament_counts(tournament.pk for tournament in tournaments)


def busiest_opponent(username: str) -> str:
    """The username of the player with the most games against ``username``."""
    from django.db.models import Count

    from players.models import Game

    games = Game.objects.filter(white__username=username)
    white = games.values("black__username").annotate(n=Count("pk")).order_by("-n").first()
    return white["black__username"]


def _get(client, url: str):
    """One request; a streamed answer (a CSV download) is read to its first chunk, what
    the browser waits for before the download starts."""
    response = client.get(url)
    if getattr(response, "streaming", False):
        next(iter(response.streaming_content), b"")
        response.close()
    return response


def time_page(client, page: str, url: str, requests: int, target_ms: float | None = None) -> Timing:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(3):  # warm-up: templates compiled, caches filled
        response = _get(client, url)
        if response.status_code != 200:
            raise RuntimeError(f"{url} answered {response.status_code}")
    with CaptureQueriesContext(connection) as queries:
        _get(client, url)
    # read now: the next request clears the connection's query log
    query_count = len(queries.captured_queries)
    seconds, cpu_seconds = [], []
    for _ in range(requests):
        started, cpu_started = time.perf_counter(), time.process_time()
        _get(client, url)
        seconds.append(time.perf_counter() - started)
        cpu_seconds.append(time.process_time() - cpu_started)
    return Timing(page, url, seconds, cpu_seconds, query_count, target_ms)


@dataclass(frozen=True)
class World:
    """What the public pages are asked about in a data set."""

    player: str  # the player with the most games
    player_games: int
    opponent: str  # the one with the most games against ``player``
    as_of: str  # a day mid-way through the history
    since: str  # a month of games
    until: str
    tournament: str | None  # a tournament's code (None: the data set has none)
    tournament_label: str
    big_tournament: str | None = None
    big_tournament_label: str = ""
    club: int | None = None  # a club's id
    club_label: str = ""
    rated: int = 0  # players on the rating list


# Server-time targets (ms): the list and the log page (issue 7), the list as of a day
# (issue 19), tournament pages (issue 16), a club's pages (issue 28). The other pages
# have no number of their own.
LIST_TARGET, AS_OF_TARGET, TOURNAMENT_TARGET, CLUB_TARGET = 50.0, 100.0, 50.0, 50.0


def public_pages(world: World) -> list[tuple[str, str, float | None]]:
    """Every public page (label, URL, target in ms or None): the rating list (as of a
    day too, GCR's from its snapshots), the log page, head-to-head, the games search
    with its filters and its CSV, tournaments, clubs and the club-night sheet, the
    calculator, the lab and the API."""
    who, vs = world.player, world.opponent
    log_pages = (world.player_games + 49) // 50
    pages: list[tuple[str, str, float | None]] = [
        ("rating list, first page", "/", LIST_TARGET),
        ("rating list, last page", f"/?page={max(1, (world.rated + 49) // 50)}", LIST_TARGET),
        ("rating list, sorted by name", "/?sort=name", LIST_TARGET),
        ("rating list as of a day", f"/?as_of={world.as_of}", AS_OF_TARGET),
        ("rating list as of a day, last page", f"/?as_of={world.as_of}&page=100", AS_OF_TARGET),
        ("rating list as of a day, GCR", f"/?as_of={world.as_of}&algorithm=gcr", AS_OF_TARGET),
        (f"log page, newest 50 of {world.player_games:,}", f"/players/{who}/", LIST_TARGET),
        (
            f"log page, oldest 50 of {world.player_games:,}",
            f"/players/{who}/?page={log_pages}",
            LIST_TARGET,
        ),
        ("player's printable sheet", f"/players/{who}/print/", None),
        ("head-to-head, busiest pair", f"/players/{who}/vs/{vs}/", None),
        ("games search, first page", "/games/", None),
        ("games search, last page", "/games/?page=last", None),
        ("games search, a player", f"/games/?player={who}", None),
        ("games search, a player, page 10", f"/games/?player={who}&page=10", None),
        ("games search, a pair", f"/games/?player={who}&opponent={vs}", None),
        ("games search, a month", f"/games/?since={world.since}&until={world.until}", None),
        ("games search, status and handicap", "/games/?status=normal&handicap=2", None),
        ("games CSV, a player (first chunk)", f"/games.csv?player={who}", None),
        ("games CSV, everything (first chunk)", "/games.csv", None),
        ("tournaments, first page", "/tournaments/", TOURNAMENT_TARGET),
        ("tournaments, page 10", "/tournaments/?page=10", TOURNAMENT_TARGET),
    ]
    if world.tournament:
        pages += [
            ("games search, a tournament", f"/games/?tournament={world.tournament}", None),
            (world.tournament_label, f"/tournaments/{world.tournament}/", TOURNAMENT_TARGET),
        ]
    if world.big_tournament:
        pages.append(
            (world.big_tournament_label, f"/tournaments/{world.big_tournament}/", TOURNAMENT_TARGET)
        )
    pages.append(("clubs", "/clubs/", CLUB_TARGET))
    if world.club is not None:
        club = f"/clubs/{world.club}/"
        pages += [
            (world.club_label, club, CLUB_TARGET),
            (f"{world.club_label}, sorted by name", f"{club}?sort=name", CLUB_TARGET),
            (f"{world.club_label} as of a day", f"{club}?as_of={world.as_of}", CLUB_TARGET),
            (f"club-night sheet, {world.club_label}", f"{club}sheet/", CLUB_TARGET),
            (f"{world.club_label}, CSV", f"/ratings.csv?club={world.club}", CLUB_TARGET),
        ]
    pages += [
        ("calculator, empty", "/calculator/", None),
        ("calculator, two players", f"/calculator/?white_player={who}&black_player={vs}", None),
        ("the lab", "/lab/", None),
        ("API index", "/api/v1/", None),
        ("API players, first page", "/api/v1/players/", None),
        ("API players as of a day", f"/api/v1/players/?as_of={world.as_of}", AS_OF_TARGET),
        ("API player", f"/api/v1/players/{who}/", None),
        ("API player's history", f"/api/v1/players/{who}/history/", None),
        ("API games, first page", "/api/v1/games/", None),
        ("API games of a player", f"/api/v1/games/?player={who}", None),
        ("API tournaments, first page", "/api/v1/tournaments/", TOURNAMENT_TARGET),
    ]
    if world.tournament:
        pages.append(
            (
                f"API {world.tournament_label}",
                f"/api/v1/tournaments/{world.tournament}/",
                TOURNAMENT_TARGET,
            )
        )
    if world.big_tournament:
        pages.append(
            (
                f"API {world.big_tournament_label}",
                f"/api/v1/tournaments/{world.big_tournament}/",
                TOURNAMENT_TARGET,
            )
        )
    return pages


def time_pages(client, pages, requests: int) -> list[Timing]:
    """Each page timed; a page that fails is reported as such (its error as the label),
    not left out."""
    timings = []
    for page, url, target in pages:
        try:
            timings.append(time_page(client, page, url, requests, target))
        except Exception as error:  # a page that answers 500 or 404 is a finding
            print(f"{url}: {error}", file=sys.stderr)
            timings.append(Timing(f"{page} — FAILED: {error}", url, [], [], 0, target))
    return timings


def table(timings: Sequence[Timing], requests: int) -> list[str]:
    lines = [
        f"| page | URL | median | p95 ({requests} requests) | median CPU of Django | queries "
        "| p95 within target |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for item in timings:
        lines.append(
            f"| {item.page} | `{item.url}` | {item.median_ms:.1f} ms | "
            f"{item.p95_ms:.1f} ms | {item.cpu_median_ms:.1f} ms | {item.queries} | "
            f"{item.verdict} |"
        )
    return lines


def _own_account():
    """The heavy player's own login, linked to their record (made on first use)."""
    from django.contrib.auth import get_user_model

    from players.models import Player

    account, _ = get_user_model().objects.get_or_create(username=f"{HEAVY_USERNAME}-own")
    Player.objects.filter(username=HEAVY_USERNAME, account=None).update(account=account)
    return account


def _volunteer_account():
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from players.roles import VOLUNTEERS

    account, _ = get_user_model().objects.get_or_create(username="bench-volunteer")
    account.groups.add(Group.objects.get_or_create(name=VOLUNTEERS)[0])
    return account


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pages", description=__doc__)
    parser.add_argument("--requests", type=int, default=30, help="timed requests per page")
    parser.add_argument(
        "--write",
        metavar="COMMAND",
        help="also write the table into docs/performance.md, naming COMMAND as what made it",
    )
    parser.add_argument(
        "--only",
        metavar="WORD",
        help="time only the pages whose name contains WORD (not with --write)",
    )
    args = parser.parse_args(argv)
    if args.only and args.write:
        parser.error("--only times part of the pages: it cannot --write the table")
    if not os.environ.get("DATABASE_URL"):
        parser.error("set DATABASE_URL to a database of the benchmark's own")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubrating.settings")

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from players.models import Club, Player

    # Timed as in production: no query log, no template debugging.
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["testserver"]
    call_command("migrate", verbosity=0)
    if not Player.objects.exists():
        print(f"building the data set in {connection.settings_dict['NAME']} ...")
        started = time.perf_counter()
        build(random.Random(SEED))
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        print(f"built in {time.perf_counter() - started:.0f} s")
    elif not Player.objects.filter(username=HEAVY_USERNAME).exists():
        parser.error("the database has players but not the benchmark's: give it an empty one")

    from django.utils import timezone

    # Timed as a server process runs: what is loaded at start left out of the garbage
    # collector's full collections (clubrating/wsgi.py does it at import).
    from clubrating.wsgi import freeze_loaded_objects

    freeze_loaded_objects()
    client = Client()
    # mid-way through the history: half of each player's rows lie after the day
    middle = timezone.localdate() - timedelta(days=HEAVY_GAMES)
    club = Club.objects.order_by("pk").first()
    world = World(
        player=HEAVY_USERNAME,
        player_games=HEAVY_GAMES,
        opponent=busiest_opponent(HEAVY_USERNAME),
        as_of=middle.isoformat(),
        since=middle.isoformat(),
        until=(middle + timedelta(days=30)).isoformat(),
        tournament="open-250",
        tournament_label="tournament of 78 players",
        big_tournament=BIG_TOURNAMENT,
        big_tournament_label=f"tournament of {BIG_TOURNAMENT_PLAYERS} players",
        club=club.pk,
        club_label=f"club of {PLAYERS // CLUBS} players",
        rated=PLAYERS,
    )
    # The heavy player's own login: their log page with a Report link on each row, My
    # page; and a volunteer's queue of reports.
    own_client, volunteer_client = Client(), Client()
    own_client.force_login(_own_account())
    volunteer_client.force_login(_volunteer_account())
    own_pages = [
        ("own log page (Report links), newest 50", f"/players/{HEAVY_USERNAME}/", LIST_TARGET),
        ("My page", "/me/", None),
    ]
    volunteer_pages = [("reports queue (volunteer)", "/reports/", None)]
    pages = public_pages(world)
    if args.only:
        pages = [page for page in pages if args.only in page[0]]
        own_pages = [page for page in own_pages if args.only in page[0]]
        volunteer_pages = [page for page in volunteer_pages if args.only in page[0]]
    load_before = os.getloadavg()[0]
    timings = time_pages(client, pages, args.requests)
    timings += time_pages(own_client, own_pages, args.requests)
    timings += time_pages(volunteer_client, volunteer_pages, args.requests)
    vendor = connection.vendor
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print()
    print(
        f"{PLAYERS:,} players with a rating under each maintained algorithm, "
        f"one with {HEAVY_GAMES:,} games; {BACKGROUND_HISTORY:,} other history rows; "
        f"{TOURNAMENTS} tournaments of {TOURNAMENT_GAMES:,} games; "
        f"{CLUB_NIGHT_GAMES:,} games of {CLUBS} clubs' evenings; "
        f"{vendor}, Django test Client in-process, DEBUG off; {os.cpu_count()} CPUs, "
        f"load average {load} (1, 5, 15 minutes) when done."
    )
    print()
    lines = table(timings, args.requests)
    print("\n".join(lines))
    if args.write:
        from bench.__main__ import DOC, machine, write_section

        heading = (
            f"Measured {timezone.localdate().isoformat()} on {machine(load_before)}, "
            f"{vendor} on the same machine, DEBUG off, with `{args.write}`."
        )
        write_section(DOC, "pages", "\n".join([heading, "", *lines]))
        print("\ndocs/performance.md: section bench:pages updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
