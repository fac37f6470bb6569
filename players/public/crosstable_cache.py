"""A tournament's crosstable, rendered once and kept until anything it shows changes
(:mod:`players.web.tournament_cache`). What the page shows besides the table (the counts,
dates, how players are placed) is kept with it, so a hit reads neither the games nor the
history: the tournament and its fingerprint, two queries.

The table depends on nothing of the request (it is not sorted or paginated) but its
language: it is kept once per language, and the worker builds it in each of the site's
languages after a recompute or a player's edit (:func:`warm_crosstables`), so that the
first visitor after a write finds it kept too, whichever language they read."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from django.conf import settings
from django.utils import translation
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from players.models import Tournament
from players.public.tables import CrosstableTable
from players.selectors.tournaments import (
    Crosstable,
    tournament_crosstable,
    tournaments_of_player,
    tournaments_rated_since,
)
from players.web.tournament_cache import kept_for_tournament
from ratings.algorithms import algorithms
from ratings.engine.base import Algorithm

logger = logging.getLogger(__name__)

# Tournaments warmed at most after one write or recompute. A tournament the recompute
# rewrote had its games replayed, and building its table costs about half that (EGC
# 2013, per tab: 175 ms of CPU against about 400 ms for the algorithm's replay of it,
# docs/performance.md), so up to ten tournaments the warming stays a fraction of the
# recompute (EGC-sized ones: under 2 s of CPU per algorithm). A recompute that touches
# more came from far back, or is a full one (hundreds of tournaments at federation
# scale, minutes of building); the latest, which visitors read, come first, and the
# rest build on their first request as before.
# Each table is printed in each of the site's languages (its games read once): the
# printing's share of a build, three times, is not timed yet (docs/performance.md's
# figures are of one language).
WARM_LIMIT = 10


@dataclass(frozen=True, slots=True)
class CrosstablePage:
    """What the tournament page shows of its crosstable (what its template reads)."""

    game_count: int
    # The players of its valid games: the list of tournaments' and the API's count.
    player_count: int
    # Every row: with an imported file's players who played no valid game (withdrawn,
    # or their games voided); as many as player_count for a tournament entered here.
    row_count: int
    first_game: date | None
    last_game: date | None
    placement: str
    table_html: SafeString

    @property
    def players_without_games(self) -> int:
        return self.row_count - self.player_count


def crosstable_page(
    tournament: Tournament,
    algorithm: Algorithm,
    read: Callable[[], Crosstable] | None = None,
) -> CrosstablePage:
    """The crosstable of ``tournament`` under ``algorithm``, printed as django-tables2
    prints it (``{% render_table %}``) in the active language, from the cache when
    nothing it shows changed. ``read``: what reads its games (the warming reads them once
    for every language)."""

    def build() -> CrosstablePage:
        crosstable = (
            read() if read is not None else tournament_crosstable(tournament, algorithm.name)
        )
        return CrosstablePage(
            game_count=crosstable.game_count,
            player_count=sum(row.games > 0 for row in crosstable.rows),
            row_count=len(crosstable.rows),
            first_game=crosstable.first_game,
            last_game=crosstable.last_game,
            placement=crosstable.placement,
            # No request: what the table prints must not depend on one (it is kept
            # under a key that holds none, and built by the worker too).
            table_html=CrosstableTable(crosstable, algorithm=algorithm).as_html(None),
        )

    # Its headers and titles are in the page's language: kept once per language.
    return kept_for_tournament(
        "crosstable", tournament, algorithm.name, build, also=(get_language(),)
    )


def shown_algorithms() -> list[Algorithm]:
    """The algorithms a tournament's page has a tab for: those with per-game rows."""
    return [info for info in algorithms() if info.has_history]


def warm_crosstables(tournaments: Iterable[Tournament], shown: Sequence[Algorithm]) -> int:
    """Build and keep the crosstable of each of ``tournaments`` under each of ``shown``
    in each of the site's languages, where it is not kept already, as the page does on a
    miss; the number of tables built or found (a table in every language counts once).
    The games are read once per table; only its printing is done per language. A
    table that fails to build is logged and skipped: its next visitor builds it."""
    warmed = 0
    for tournament in tournaments:
        for algorithm in shown:
            read = functools.cache(
                functools.partial(tournament_crosstable, tournament, algorithm.name)
            )
            try:
                for code, _name in settings.LANGUAGES:
                    with translation.override(code):
                        crosstable_page(tournament, algorithm, read)
            except Exception:  # warming only saves a visitor the wait
                logger.exception(
                    "could not warm the crosstable of %s under %s", tournament.code, algorithm.name
                )
            else:
                warmed += 1
    return warmed


def warm_after_recompute(algorithm: str, replayed_from: date | None) -> int:
    """After a recompute of ``algorithm`` from ``replayed_from`` (None: in full), warm its
    tab of the tournaments whose values it rewrote, at most ``WARM_LIMIT`` of them."""
    shown = [info for info in shown_algorithms() if info.name == algorithm]
    if not shown:  # GCR: no tab of its own
        return 0
    return warm_crosstables(tournaments_rated_since(replayed_from, limit=WARM_LIMIT), shown)


def warm_player_tournaments(player_id: int) -> int:
    """After an edit of a player that needs no recompute (a name, country or club), warm
    every tab of the tournaments they played in, at most ``WARM_LIMIT`` of them."""
    tournaments = tournaments_of_player(player_id, limit=WARM_LIMIT)
    return warm_crosstables(tournaments, shown_algorithms())
