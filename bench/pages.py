"""``python -m bench.pages``: server time of the heaviest public pages.

Needs ``DATABASE_URL`` naming a database of its own (it is migrated, then filled
once): 10,000 players in 20 clubs with a current rating under every maintained
algorithm, 200,000 background history rows, one player with 2,000 games and their
2,000 SAGC history rows, and 500 tournaments of 200,000 games (one of EGC 2013's size,
600 players over 10 rounds; the others about 80 players over 10 rounds) with their
EGF 2021 history rows, all written with ``bulk_create`` (no recompute: the pages only
read; the tournaments' stored counts as the services keep them). Then, with Django's
test Client in this process (so the time is the server's: resolving, the view, its
queries and the templates; no network), it times each page after three warm-up
requests: median and 95th percentile of ``--requests`` requests, and the queries of
one request. The heavy player's own login (their log page with Report links, My
page) and a volunteer's queue of reports are timed too. Prints a markdown table
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
CLUBS = 20
HEAVY_GAMES = 2_000
BACKGROUND_HISTORY = 200_000
HEAVY_USERNAME = "heavy-player"
TOURNAMENTS = 500
TOURNAMENT_GAMES = 200_000
BIG_TOURNAMENT_PLAYERS = 600  # EGC 2013 had 594
TOURNAMENT_ROUNDS = 10
BIG_TOURNAMENT = "big-open"
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

    @property
    def median_ms(self) -> float:
        return statistics.median(self.seconds) * 1000

    @property
    def p95_ms(self) -> float:
        return statistics.quantiles(self.seconds, n=20, method="inclusive")[18] * 1000

    @property
    def cpu_median_ms(self) -> float:
        return statistics.median(self.cpu_seconds) * 1000


def build(rng: random.Random) -> None:
    """Fill an empty database with the benchmark's players, games and ratings."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from players.models import Club, EntrySequence, Game, Player
    from ratings.engine.ranks import Rank
    from ratings.models import CurrentRating, RatingHistory, RecomputeState
    from ratings.recompute.dirty import maintained_algorithms

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
        games = Game.objects.bulk_create(
            [
                Game(
                    seq=number + 1,
                    date=start + timedelta(days=number * 2),
                    white=heavy if number % 2 else rng.choice(others),
                    black=rng.choice(others) if number % 2 else heavy,
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


def time_page(client, page: str, url: str, requests: int) -> Timing:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(3):  # warm-up: templates compiled, caches filled
        response = client.get(url)
        if response.status_code != 200:
            raise RuntimeError(f"{url} answered {response.status_code}")
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    # read now: the next request clears the connection's query log
    query_count = len(queries.captured_queries)
    seconds, cpu_seconds = [], []
    for _ in range(requests):
        started, cpu_started = time.perf_counter(), time.process_time()
        client.get(url)
        seconds.append(time.perf_counter() - started)
        cpu_seconds.append(time.process_time() - cpu_started)
    return Timing(page, url, seconds, cpu_seconds, query_count)


def table(timings: Sequence[Timing], requests: int) -> list[str]:
    lines = [
        f"| page | URL | median | p95 ({requests} requests) | median CPU of Django | queries |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for item in timings:
        lines.append(
            f"| {item.page} | `{item.url}` | {item.median_ms:.1f} ms | "
            f"{item.p95_ms:.1f} ms | {item.cpu_median_ms:.1f} ms | {item.queries} |"
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

    from players.permissions import VOLUNTEERS

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
        help="time only the pages whose name contains WORD (e.g. tournament)",
    )
    args = parser.parse_args(argv)
    if args.only and args.write:
        parser.error("--write records every page: give it without --only")
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
    as_of = (timezone.localdate() - timedelta(days=HEAVY_GAMES)).isoformat()
    pages = [
        ("rating list, first page", "/"),
        ("rating list as of a day, first page", f"/?as_of={as_of}"),
        ("rating list, page 150", "/?page=150"),
        ("rating list, sorted by name", "/?sort=name"),
        ("log page, newest 50 of 2,000", f"/players/{HEAVY_USERNAME}/"),
        ("log page, oldest 50 of 2,000", f"/players/{HEAVY_USERNAME}/?page=40"),
        (f"tournaments, first page of {TOURNAMENTS}", "/tournaments/"),
        (f"tournaments, page 10 of {TOURNAMENTS}", "/tournaments/?page=10"),
        ("tournament of 78 players", "/tournaments/open-250/"),
        (f"tournament of {BIG_TOURNAMENT_PLAYERS} players", f"/tournaments/{BIG_TOURNAMENT}/"),
        (f"API tournaments, first page of {TOURNAMENTS}", "/api/v1/tournaments/"),
        ("API tournament of 78 players", "/api/v1/tournaments/open-250/"),
        (
            f"API tournament of {BIG_TOURNAMENT_PLAYERS} players",
            f"/api/v1/tournaments/{BIG_TOURNAMENT}/",
        ),
        ("games search, first page", "/games/"),
        ("games search, a player's games, page 20", f"/games/?player={HEAVY_USERNAME}&page=20"),
        ("games search, a date range", f"/games/?since={as_of}&until={as_of}"),
        (
            f"club-night sheet, {PLAYERS // CLUBS} players",
            f"/clubs/{Club.objects.order_by('pk').first().pk}/sheet/",
        ),
        (
            "head-to-head, busiest opponent",
            f"/players/{HEAVY_USERNAME}/vs/{busiest_opponent(HEAVY_USERNAME)}/",
        ),
    ]
    # The heavy player's own login: their log page with a Report link on each row, My
    # page; and a volunteer's queue of reports.
    own_client, volunteer_client = Client(), Client()
    own_client.force_login(_own_account())
    volunteer_client.force_login(_volunteer_account())
    own_pages = [
        ("own log page (Report links), newest 50", f"/players/{HEAVY_USERNAME}/"),
        ("My page", "/me/"),
    ]
    volunteer_pages = [("reports queue (volunteer)", "/reports/")]
    if args.only:
        pages = [(page, url) for page, url in pages if args.only in page]
        own_pages = [(page, url) for page, url in own_pages if args.only in page]
        volunteer_pages = [(page, url) for page, url in volunteer_pages if args.only in page]
    load_before = os.getloadavg()[0]
    timings = [time_page(client, page, url, args.requests) for page, url in pages]
    timings += [time_page(own_client, page, url, args.requests) for page, url in own_pages]
    timings += [
        time_page(volunteer_client, page, url, args.requests) for page, url in volunteer_pages
    ]
    vendor = connection.vendor
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print()
    print(
        f"{PLAYERS:,} players with a rating under each maintained algorithm, "
        f"one with {HEAVY_GAMES:,} games; {BACKGROUND_HISTORY:,} other history rows; "
        f"{TOURNAMENTS} tournaments of {TOURNAMENT_GAMES:,} games; "
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
