"""``python -m bench.asof``: the rating list as of a date and the games search at scale.

Times, on the database of ``DATABASE_URL`` as ``bench.database`` leaves it (games
imported with ``import_games``, then recomputed), the pages of issue 19 items 4 and 5:
``/?as_of=`` and ``/api/v1/players/?as_of=`` at three days of the history (a year in,
the middle, the day before the last game), GCR's list of a day, and the games search
``/games/`` and ``/api/v1/games/`` with each filter, deep pages included. Each page is
timed as ``bench.pages`` times it (Django's test Client in this process, DEBUG off,
three warm-up requests, then ``--requests``), with the CPU time of this process and of
the PostgreSQL backend serving it.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/NAME RATINGS_ALGORITHMS=sagc,gcr \\
        python -m bench.asof [--requests 10] [--only asof|games]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from datetime import timedelta


def _urls(only: str | None) -> list[tuple[str, str]]:
    from django.db.models import Count, Max, Min

    from players.models import Game, Player, Tournament
    from ratings.algorithms import maintained_algorithms

    dates = Game.objects.aggregate(first=Min("date"), last=Max("date"))
    first, last = dates["first"], dates["last"]
    early = first + timedelta(days=365)
    middle = first + (last - first) / 2
    recent = last - timedelta(days=1)
    listed: list[tuple[str, str]] = []
    if only in (None, "asof"):
        for label, day in (("a year in", early), ("middle", middle), ("day before last", recent)):
            listed.append((f"as of {label}, first page", f"/?as_of={day}"))
        listed.append(("as of middle, last page", f"/?as_of={middle}&page=200"))
        listed.append(("as of middle, by name", f"/?as_of={middle}&sort=name"))
        listed.append(("as of middle, ranks 10k-1k", f"/?as_of={middle}&rank_from=10k&rank_to=1k"))
        listed.append(("as of middle, everyone", f"/?as_of={middle}&everyone=on"))
        listed.append(("API players as of middle", f"/api/v1/players/?as_of={middle}"))
        if "gcr" in maintained_algorithms():
            listed.append(("GCR as of middle", f"/?algorithm=gcr&as_of={middle}"))
            listed.append(("GCR API as of middle", f"/api/v1/players/?as_of={middle}"))
        listed.append(("current list (for scale)", "/"))
    if only in (None, "games"):
        busiest = (
            Game.objects.values("white").annotate(n=Count("id")).order_by("-n").first()["white"]
        )
        player = Player.objects.get(pk=busiest)
        opponent = (
            Game.objects.filter(white=player)
            .values("black")
            .annotate(n=Count("id"))
            .order_by("-n")
            .first()["black"]
        )
        rival = Player.objects.get(pk=opponent)
        tournament = (
            Tournament.objects.annotate(n=Count("games")).order_by("-n").values("code").first()
        )
        since, until = middle, middle + timedelta(days=30)
        # Depths relative to the table: the middle page and the last of 50 games, by the
        # old page numbers and by the cursor of the game just before each (the key the
        # "Older" link of the page before carries), and the Last link.
        newest_first = Game.objects.valid().order_by("-date", "-round", "-seq")
        pages = max(1, -(-newest_first.count() // 50))
        middle_page = max(1, pages // 2)

        def cursor(page_number: int) -> str:
            above = newest_first.values_list("date", "round", "seq")[(page_number - 1) * 50 - 1]
            return f"{above[0].isoformat()}.{above[1]}.{above[2]}"

        listed += [
            ("games, first page", "/games/"),
            ("games, page 100", "/games/?page=100"),
            (f"games, page {middle_page:,} (the middle)", f"/games/?page={middle_page}"),
            (f"games, page {pages:,} (the last)", f"/games/?page={pages}"),
            ("games, the middle by cursor", f"/games/?before={cursor(middle_page)}"),
            ("games, the last page by cursor", f"/games/?before={cursor(pages)}"),
            ("games, Last", "/games/?page=last"),
            ("games of a player", f"/games/?player={player.username}"),
            ("games of a player, page 10", f"/games/?player={player.username}&page=10"),
            (
                "games of two players",
                f"/games/?player={player.username}&opponent={rival.username}",
            ),
            ("games in a month", f"/games/?since={since}&until={until}"),
            ("games of a tournament", f"/games/?tournament={tournament['code']}"),
            ("tournament games", "/games/?status=tournament"),
            ("internet games", "/games/?status=internet"),
            ("games at handicap 9", "/games/?handicap=9"),
            ("games at handicap 9, page 50", "/games/?handicap=9&page=50"),
            (
                "a player's games at handicap 2 in a year",
                f"/games/?player={player.username}&handicap=2&since={middle}"
                f"&until={middle + timedelta(days=365)}",
            ),
            ("API games, first page", "/api/v1/games/"),
            ("API games, page 1,000", "/api/v1/games/?page=1000"),
            ("API games, the middle by cursor", f"/api/v1/games/?before={cursor(middle_page)}"),
            ("API games of a player", f"/api/v1/games/?player={player.username}"),
            ("API games in a month", f"/api/v1/games/?since={since}&until={until}"),
            ("API tournament games", "/api/v1/games/?status=tournament"),
        ]
    return listed


def _backend_cpu() -> float | None:
    from bench.dbsteps import _cpu_seconds, _server_pid

    return _cpu_seconds(_server_pid())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.asof", description=__doc__)
    parser.add_argument("--requests", type=int, default=10, help="timed requests per page")
    parser.add_argument("--only", choices=("asof", "games"))
    parser.add_argument("--match", help="only the pages whose label contains this")
    args = parser.parse_args(argv)
    if not os.environ.get("DATABASE_URL"):
        parser.error("set DATABASE_URL to the benchmark's database")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubrating.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.test import Client

    from bench.pages import time_page

    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["testserver"]
    client = Client()
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    print(
        f"| page | URL | median | p95 ({args.requests} requests) | median CPU of Django "
        "| server CPU per request | queries |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for page, url in _urls(args.only):
        if args.match and args.match not in page:
            continue
        server_started = _backend_cpu()
        timing = time_page(client, page, url, args.requests)
        server = _backend_cpu()
        server_ms = (
            (server - server_started) * 1000 / (args.requests + 4)
            if server is not None and server_started is not None
            else None
        )
        print(
            f"| {page} | `{url}` | {timing.median_ms:.1f} ms | {timing.p95_ms:.1f} ms | "
            f"{timing.cpu_median_ms:.1f} ms | "
            f"{'' if server_ms is None else f'{server_ms:.1f} ms'} | {timing.queries} |",
            flush=True,
        )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    started = time.perf_counter()
    code = main()
    print(f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    sys.exit(code)
