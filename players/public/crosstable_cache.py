"""A tournament's crosstable, rendered once and kept in Django's cache until anything it
shows changes.

EGC 2013's crosstable (600 players, 3,000 games, 13,000 cells) takes about 90 ms of CPU
to read and print; the page asks for it far more often than its tournament changes. The
key holds the tournament, the algorithm and ``crosstable_fingerprint`` (one query:
its games, its file's players, its players' last save, the algorithm's last recompute),
so a write never has to remember the cache: the next request after it builds the table
again. What the page shows besides the table (the counts, dates, how players are placed)
is kept with it, so a hit reads neither the games nor the history."""

from __future__ import annotations

import hashlib
import pickle
import zlib
from dataclasses import dataclass
from datetime import date

from django.core.cache import cache
from django.http import HttpRequest
from django.utils.safestring import SafeString, mark_safe

from players.models import Tournament
from players.public.tables import CrosstableTable
from players.selectors.algorithms import AlgorithmInfo
from players.selectors.tournaments import crosstable_fingerprint, tournament_crosstable

# Bumped when what is kept (or how the table is printed) changes: a deployment never
# serves a table rendered by the code before it.
FORMAT = 1
# A day: an entry that is never read again leaves the cache on its own (a write makes
# a new key rather than replacing the old one).
TIMEOUT_SECONDS = 24 * 60 * 60
# Tests set their own, so that no test reads a table another one left.
key_salt = ""


@dataclass(frozen=True, slots=True)
class CrosstablePage:
    """What the tournament page shows of its crosstable (what its template reads)."""

    game_count: int
    player_count: int
    first_game: date | None
    last_game: date | None
    placement: str
    table_html: SafeString


def _key(tournament: Tournament, algorithm: str) -> str:
    shown = (
        FORMAT,
        key_salt,
        tournament.pk,
        tournament.code,
        tournament.standings,
        tournament.score_names,
        tournament.after_round_names,
        crosstable_fingerprint(tournament, algorithm),
    )
    digest = hashlib.sha256(repr(shown).encode()).hexdigest()
    return f"crosstable:{tournament.pk}:{algorithm}:{digest}"


def _built(request: HttpRequest, tournament: Tournament, algorithm: AlgorithmInfo):
    crosstable = tournament_crosstable(tournament, algorithm.name)
    table = CrosstableTable(crosstable, algorithm=algorithm)
    return CrosstablePage(
        game_count=crosstable.game_count,
        player_count=len(crosstable.rows),
        first_game=crosstable.first_game,
        last_game=crosstable.last_game,
        placement=crosstable.placement,
        table_html=mark_safe(table.as_html(request)),
    )


def crosstable_page(
    request: HttpRequest, tournament: Tournament, algorithm: AlgorithmInfo
) -> CrosstablePage:
    """The crosstable of ``tournament`` under ``algorithm``, from the cache when nothing
    it shows has changed since it was rendered (two queries fewer: the tournament's
    fingerprint instead of its games, players and history), else built and kept.

    Kept compressed: EGC 2013's table is about 2 MB of HTML, a tenth of that in zlib,
    which Redis sends and stores in a fraction of the time."""
    key = _key(tournament, algorithm.name)
    kept = cache.get(key)
    if kept is not None:
        page = pickle.loads(zlib.decompress(kept))  # our own entry, under our key
        if isinstance(page, CrosstablePage):
            return page
    page = _built(request, tournament, algorithm)
    cache.set(key, zlib.compress(pickle.dumps(page), 1), TIMEOUT_SECONDS)
    return page
