"""Reads for the printable club-night sheet, /clubs/<n>/sheet/: the club's active
players with their current rank, and the handicap and komi for each rank difference
under the SAGC rules (the seed: every 10 points of komi count as one stone,
``ratings.engine.sagc.effective_handicap``)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from django.utils.translation import gettext as _

from players.models import Club, Player
from ratings.engine.sagc import effective_handicap
from ratings.models import CurrentRating

MAX_HANDICAP = 9
EVEN_KOMI = Fraction(13, 2)  # an even game: 6.5 (effective handicap 0)
HANDICAP_KOMI = Fraction(1, 2)  # a handicap game: 0.5, White wins a tie
BLANK_ROWS = 24  # games a printed sheet has room for


@dataclass(frozen=True, slots=True)
class HandicapRow:
    """The game to play between two players ``difference`` ranks apart."""

    difference: str
    handicap: int
    komi: Fraction


def handicap_table() -> list[HandicapRow]:
    """For each rank difference, the stones and komi whose effective handicap is that
    difference (capped at nine stones): SAGC's "correct handicap", a differential of
    0. One rank apart is one stone (Black plays first) at 0.5 komi."""
    rows = [HandicapRow(_("0 (same rank)"), 0, EVEN_KOMI)]
    for difference in range(1, MAX_HANDICAP + 1):
        label = (
            str(difference)
            if difference < MAX_HANDICAP
            else _("%(difference)s or more") % {"difference": difference}
        )
        rows.append(HandicapRow(label, difference, HANDICAP_KOMI))
    return rows


def effective(row: HandicapRow) -> int:
    """What SAGC counts the row's game as (the tests check it is the difference)."""
    return effective_handicap(row.handicap, row.komi)


def active_players(club: Club, algorithm: str) -> list[Player]:
    """The club's active players, strongest first by their current rank and value
    under ``algorithm`` (the site's primary: the club's ranks), unrated ones last by
    username; each has ``club_rating`` (a CurrentRating or None). Two queries."""
    ratings = {
        rating.player_id: rating
        for rating in CurrentRating.objects.filter(
            algorithm=algorithm, player__club=club, player__active=True
        )
    }
    players = list(club.players.filter(active=True).order_by("username"))
    for player in players:
        player.club_rating = ratings.get(player.pk)

    def strongest_first(player: Player):
        rating = player.club_rating
        if rating is None:
            return (1, 0, 0, 0)
        return (0, -rating.rank.stones, -rating.rank.pro, -rating.value)

    return sorted(players, key=strongest_first)  # stable: username breaks ties
