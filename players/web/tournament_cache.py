"""What a tournament's page or API document builds from its games, kept in Django's cache
until anything it shows changes.

EGC 2013 (600 players, 3,000 games) takes about 90 ms of CPU to read and print as a
crosstable, 30 to 40 ms as the API's games; both are asked for far more often than the
tournament changes. The key holds the tournament (what its row tells the page: code,
standings, score names), the algorithm and ``crosstable_fingerprint`` (one query: its
games, its file's players, its players' last save, the algorithm's last recompute that
rewrote its games' history rows), so no write has to remember the cache: the first
request after it builds anew under a new key, and the old entry expires unread. A
recompute from a day after the tournament leaves its key, and its entry, as they were."""

from __future__ import annotations

import hashlib
import logging
import pickle
import zlib
from collections.abc import Callable
from typing import TypeVar

from django.core.cache import cache

from players.models import Tournament
from players.selectors.tournaments import crosstable_fingerprint

Kept = TypeVar("Kept")
logger = logging.getLogger(__name__)

# Bumped when what is kept (or how it is printed) changes: a deployment never serves
# what the code before it built.
# 2: rounds without a colour, the file's figures marked; 3: the SAGC rank before;
# 4: players with a game counted apart, corrected rounds marked, score columns named
# alike told apart; 5: both of 3 and 4; 6: a round marked corrected when what was
# played changed (Game.revision, filled by a migration), not when a merge moved it;
# 7: the key holds the last recompute reaching the tournament's games
# (HistoryRewrite), not the algorithm's last one; 8: a game voided since shown in its
# round, struck through and marked, and counted in the sentence on the placement;
# 9: an h-file's unnamed column ("Column 4") named in the page's language
FORMAT = 9
# A day: an entry no request reads again leaves the cache on its own.
TIMEOUT_SECONDS = 24 * 60 * 60
# Tests set their own (tests/conftest.py), so that no test reads what another one left
# under the same ids.
key_salt = ""


def kept_for_tournament(
    kind: str,
    tournament: Tournament,
    algorithm: str,
    build: Callable[[], Kept],
    *,
    also: tuple = (),
) -> Kept:
    """What ``build()`` returns for ``tournament`` under ``algorithm`` ("" for what no
    algorithm shows), from the cache when nothing it shows has changed since, else built
    and kept. ``also``: what else the value depends on (the site's address in URLs).

    Kept pickled and compressed: EGC 2013's crosstable is about 2 MB of HTML, a tenth of
    that in zlib, which Redis sends and stores in a fraction of the time. A cache that
    cannot be reached (Redis down) only makes the page slower: it is built each time."""
    shown = (
        FORMAT,
        key_salt,
        tournament.pk,
        tournament.code,
        tournament.standings,
        tournament.score_names,
        tournament.after_round_names,
        also,
        crosstable_fingerprint(tournament, algorithm),
    )
    digest = hashlib.sha256(repr(shown).encode()).hexdigest()
    key = f"tournament:{kind}:{tournament.pk}:{algorithm}:{digest}"
    try:
        stored = cache.get(key)
    except Exception:  # the cache's errors vary by backend; Redis down is one
        logger.warning("tournament cache unreadable: %s built uncached", key, exc_info=True)
        return build()
    if stored is not None:
        return pickle.loads(zlib.decompress(stored))  # our own entry, under our key
    value = build()
    packed = zlib.compress(pickle.dumps(value, pickle.HIGHEST_PROTOCOL), 1)
    try:
        cache.set(key, packed, TIMEOUT_SECONDS)
    except Exception:
        logger.warning("tournament cache unwritable: %s not kept", key, exc_info=True)
    return value
