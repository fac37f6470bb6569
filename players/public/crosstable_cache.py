"""A tournament's crosstable, rendered once and kept until anything it shows changes
(:mod:`players.web.tournament_cache`). What the page shows besides the table (the counts,
dates, how players are placed) is kept with it, so a hit reads neither the games nor the
history: the tournament and its fingerprint, two queries."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.http import HttpRequest
from django.utils.safestring import SafeString

from players.models import Tournament
from players.public.tables import CrosstableTable
from players.selectors.algorithms import AlgorithmInfo
from players.selectors.tournaments import tournament_crosstable
from players.web.tournament_cache import kept_for_tournament


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
    request: HttpRequest, tournament: Tournament, algorithm: AlgorithmInfo
) -> CrosstablePage:
    """The crosstable of ``tournament`` under ``algorithm``, printed as django-tables2
    prints it (``{% render_table %}``), from the cache when nothing it shows changed."""

    def build() -> CrosstablePage:
        crosstable = tournament_crosstable(tournament, algorithm.name)
        return CrosstablePage(
            game_count=crosstable.game_count,
            player_count=sum(row.games > 0 for row in crosstable.rows),
            row_count=len(crosstable.rows),
            first_game=crosstable.first_game,
            last_game=crosstable.last_game,
            placement=crosstable.placement,
            table_html=CrosstableTable(crosstable, algorithm=algorithm).as_html(request),
        )

    return kept_for_tournament("crosstable", tournament, algorithm.name, build)
