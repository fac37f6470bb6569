"""What every service shares: the ServiceError family, the system user, sequence numbers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db.models import F
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from players.models import (
    EntrySequence,
    Game,
)
from players.selectors.accounts import SYSTEM_USERNAME
from players.signals import club_games_changed
from ratings.engine.algorithms import algorithm_names
from ratings.selectors import IDS_PER_QUERY


class Problem(NamedTuple):
    """One thing wrong with a refused write: ``where`` it is (a row, a line, a game; None
    for the write as a whole), the ``field`` it is about ("" for none) and the
    ``message`` a person reads. A tuple, so ``for where, field, message in ...`` reads it."""

    where: Any
    field: str
    message: str


# What a service names a problem as: a Problem, or the (where, field, message) it is.
ProblemLike = Problem | tuple[Any, str, str]


def as_problem(item: ProblemLike) -> Problem:
    return item if isinstance(item, Problem) else Problem(*item)


class ServiceError(Exception):
    """A write that was refused; nothing was stored. ``errors`` are its Problems."""

    def __init__(self, message: str, errors: Iterable[ProblemLike] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.errors: list[Problem] = [as_problem(item) for item in errors]


class ConcurrentEditError(ServiceError):
    """The row changed since the user loaded it (optimistic concurrency)."""


class DuplicateGamesError(ServiceError):
    """Games that look like ones already on file (or like each other)."""


def system_user():
    """The account that imports and commands act as when no user is named. It can
    never log in: inactive, with an unusable password, no role. If someone made it a
    login before these rules (a committee member could create it), that is undone here."""
    accounts = get_user_model().objects
    user, created = accounts.get_or_create(
        username=SYSTEM_USERNAME, defaults={"is_active": False, "password": make_password(None)}
    )
    if not created and (
        user.is_active or user.is_staff or user.is_superuser or user.has_usable_password()
    ):
        user.is_active = user.is_staff = user.is_superuser = False
        user.set_unusable_password()
        user.save(update_fields=["is_active", "is_staff", "is_superuser", "password"])
        user.groups.clear()
    return user


def next_seqs(count: int) -> range:
    """Reserve ``count`` consecutive entry numbers. The UPDATE takes the counter's row
    lock (PostgreSQL) or the write lock (SQLite) until the caller's transaction ends, so
    concurrent sheets get distinct, increasing numbers."""
    EntrySequence.objects.get_or_create(pk=1)
    EntrySequence.objects.filter(pk=1).update(last=F("last") + count)
    last = EntrySequence.objects.values_list("last", flat=True).get(pk=1)
    return range(last - count + 1, last + 1)


ID_CHUNK = IDS_PER_QUERY  # ids in one IN (...) list, the bound the replay's reads keep


def announce_club_games(*, clubs: Iterable[int | None] = (), players: Iterable[Any] = ()) -> None:
    """Say that a write changed the games of ``clubs`` (their ids; None, the
    federation's, is left out) or of ``players`` (players or their ids), or the clubs'
    members: what a club's page counts in its activity (``signals.club_games_changed``).
    Call inside the write's transaction."""
    club_ids = frozenset(pk for pk in clubs if pk is not None)
    player_ids = frozenset(getattr(player, "pk", player) for player in players)
    if club_ids or player_ids:
        club_games_changed.send(sender=Game, club_ids=club_ids, player_ids=player_ids)


def check_algorithm(algorithm: str) -> None:
    if algorithm and algorithm not in algorithm_names():
        raise ServiceError(
            _("'%(algorithm)s' is not an algorithm") % {"algorithm": algorithm},
            [(None, "algorithm", pgettext("problem", "unknown algorithm"))],
        )
