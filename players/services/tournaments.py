"""Writing tournaments: create, codes, counts of games and players."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Min

from players.models import (
    Game,
    Tournament,
)
from players.services.audit import audit, jsonable
from players.services.base import ID_CHUNK, ServiceError
from ratings.recompute.bulk import update_rows


def refresh_tournament_counts(tournament_ids: Iterable[int | None]) -> None:
    """Store the valid games, distinct players and first and last game dates of each
    tournament of ``tournament_ids`` (None: a game of no tournament, ignored). Two
    grouped queries per 500 tournaments: the counts and dates, then the distinct
    (tournament, player) pairs of both colours."""
    ids = sorted({pk for pk in tournament_ids if pk is not None})
    for chunk in (ids[start : start + ID_CHUNK] for start in range(0, len(ids), ID_CHUNK)):
        games = Game.objects.valid().filter(tournament_id__in=chunk)
        counts = {
            pk: (count, first, last)
            for pk, count, first, last in games.values_list("tournament_id")
            .annotate(count=Count("pk"), first=Min("date"), last=Max("date"))
            .order_by()
        }
        players: dict[int, int] = dict.fromkeys(chunk, 0)
        pairs = (
            games.order_by()
            .values_list("tournament_id", "white_id")
            .union(games.order_by().values_list("tournament_id", "black_id"))
        )
        for pk, _player in pairs:
            players[pk] += 1
        update_rows(
            Tournament,
            ("game_count", "player_count", "first_game", "last_game"),
            [
                (
                    counts.get(pk, (0,))[0],
                    players[pk],
                    *counts.get(pk, (0, None, None))[1:],
                    pk,
                )
                for pk in chunk
            ],
        )


# Paths under /tournaments/ that are pages, not tournaments: no code may be called so.
RESERVED_TOURNAMENT_CODES = frozenset({"new", "import"})


_TOURNAMENT_CODE_CHARACTERS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
)


def tournament_code_problem(code: str) -> str | None:
    """Why ``code`` cannot name a tournament (whether it is taken aside), or None."""
    max_length = Tournament._meta.get_field("code").max_length
    if not code or len(code) > max_length or not set(code) <= _TOURNAMENT_CODE_CHARACTERS:
        return f"'{code}' is not a code: letters, digits, - and _ only (at most {max_length})"
    if code.lower() in RESERVED_TOURNAMENT_CODES:
        return f"'{code}' is reserved: choose another code"
    return None


def tournament_create(
    *,
    user,
    code: str,
    name: str,
    start_date: date | None = None,
    end_date: date | None = None,
    egf_class: str = Tournament.EgfClass.A,
    summary: str = "",
) -> Tournament:
    """A new tournament, so that sheets and imports can name its code. ``summary`` says
    where it came from in the audit trail (default: its code)."""
    problems = []
    code_problem = tournament_code_problem(code)
    if code_problem:
        problems.append((None, "code", code_problem))
    elif Tournament.objects.filter(code=code).exists():
        problems.append((None, "code", f"the code '{code}' is taken"))
    if egf_class not in Tournament.EgfClass.values:
        problems.append((None, "egf_class", f"'{egf_class}' is not an EGF class (A, B, C or D)"))
    if start_date and end_date and end_date < start_date:
        problems.append((None, "end_date", f"the end {end_date} is before the start {start_date}"))
    if end_date and not start_date:
        problems.append((None, "start_date", "a tournament with an end date needs a start date"))
    if problems:
        raise ServiceError("the tournament was not added", problems)
    try:
        # The unique code settles a race with another volunteer adding the same code.
        with transaction.atomic():
            tournament = Tournament.objects.create(
                code=code,
                name=name,
                start_date=start_date,
                end_date=end_date,
                egf_class=egf_class,
            )
            audit(
                user,
                "tournament_create",
                tournament,
                after={
                    "code": code,
                    "name": name,
                    "start_date": jsonable(start_date),
                    "end_date": jsonable(end_date),
                    "egf_class": egf_class,
                },
                summary=summary or code,
            )
    except IntegrityError:
        message = f"the code '{code}' is taken"
        raise ServiceError("the tournament was not added", [(None, "code", message)]) from None
    return tournament
