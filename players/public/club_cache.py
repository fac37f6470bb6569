"""A club's activity (games and active members per month over ACTIVITY_MONTHS), kept in
Django's cache per club until a write changes what it counts.

Counting it reads every game its members played in two years (at a million games,
about 4,000 rows by the players' indexes: 17 of the 20 ms the database spent on the
club's page, docs/performance.md), and it changes only when a game of the club or of
one of its members is entered, corrected, voided, imported or moved by a merge, when a
tournament's club changes, or when a membership starts or ends: each such write sends
``players.signals.club_games_changed`` (``players/public/receivers.py`` calls
:func:`forget_club_activity`).

Each club has a generation in the cache, a random token replaced when something it
counts changes, and its activity is kept with the generation it was counted under: an
entry of an older generation is counted again. The generation is replaced at once (so
that the writing request itself reads anew) and again once the write commits (a page
counted between the two, from what was not committed yet, is left under a generation
no one reads). A generation the cache lost is a new one: nothing stale is read. A
cache that cannot be reached (Redis down) only makes the page slower."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from datetime import date

from django.core.cache import cache
from django.db import transaction

from players.models import Club
from players.selectors.clubs import MonthActivity, club_activity

logger = logging.getLogger(__name__)

# Bumped when what is kept changes: a deployment never reads what the code before it kept.
FORMAT = 1
# A safety net for a write that changes the games without the signal (a raw SQL fix):
# the activity is counted again within the hour. The admin's edit of a player's club is
# a move of memberships, which sends it.
TIMEOUT_SECONDS = 60 * 60
# Tests set their own (tests/conftest.py), so that no test reads what another one left
# under the same ids.
key_salt = ""


def _generation_key(club_id: int) -> str:
    return f"club:activity-generation:{key_salt}:{club_id}"


def _activity_key(club_id: int) -> str:
    return f"club:activity:{FORMAT}:{key_salt}:{club_id}"


def club_activity_kept(club: Club, today: date) -> list[MonthActivity]:
    """:func:`players.selectors.clubs.club_activity` of ``club`` up to ``today``, from the
    cache when nothing it counts changed since (and the month is the same); else
    counted and kept. One read of the cache on a hit (the generation and the entry)."""
    generation_key, activity_key = _generation_key(club.pk), _activity_key(club.pk)
    month = today.replace(day=1)
    try:
        found = cache.get_many([generation_key, activity_key])
    except Exception:  # the cache's errors vary by backend; Redis down is one
        logger.warning("club cache unreadable: club %s counted uncached", club.pk, exc_info=True)
        return club_activity(club, today)
    generation = found.get(generation_key)
    kept = found.get(activity_key)
    if generation is not None and kept is not None and kept[:2] == (generation, month):
        return [MonthActivity(*row) for row in kept[2]]
    try:
        if generation is None:  # read before counting, as a hit's is
            generation = uuid.uuid4().hex
            if not cache.add(generation_key, generation, None):  # someone set one since
                generation = cache.get(generation_key) or generation
    except Exception:
        logger.warning("club cache unwritable: club %s counted uncached", club.pk, exc_info=True)
        return club_activity(club, today)
    activity = club_activity(club, today)
    rows = tuple((row.month, row.games, row.members) for row in activity)
    try:
        cache.set(activity_key, (generation, month, rows), TIMEOUT_SECONDS)
    except Exception:
        logger.warning("club cache unwritable: club %s not kept", club.pk, exc_info=True)
    return activity


def _new_generations(club_ids: Iterable[int]) -> None:
    try:
        cache.set_many({_generation_key(pk): uuid.uuid4().hex for pk in club_ids}, None)
    except Exception:  # the entries expire within TIMEOUT_SECONDS anyway
        logger.warning("club cache unwritable: activity of clubs %s not forgotten", club_ids)


def forget_club_activity(club_ids: Iterable[int]) -> None:
    """What is kept of the activity of ``club_ids`` is counted again on its next read:
    their generations replaced now, and again when the current transaction commits."""
    ids = sorted(set(club_ids))
    if not ids:
        return
    _new_generations(ids)
    transaction.on_commit(lambda: _new_generations(ids))
