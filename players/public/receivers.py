"""What the public pages do when the data they keep built changes: connected to the
signals of ``ratings.signals`` and ``players.signals`` by ``PlayersConfig.ready()``."""

from __future__ import annotations

import logging
from datetime import date

from django.dispatch import receiver

from players.public import tasks
from players.public.club_cache import forget_club_activity
from players.public.crosstable_cache import warm_after_recompute
from players.selectors.clubs import clubs_of_players
from players.signals import club_games_changed, player_shown_changed
from ratings.signals import history_rewritten

logger = logging.getLogger(__name__)


@receiver(history_rewritten, dispatch_uid="players.public.warm_rewritten_tournaments")
def warm_rewritten_tournaments(
    sender, *, algorithm: str, replayed_from: date | None, **kwargs
) -> None:
    """Build ``algorithm``'s tab of the tournaments the recompute rewrote, so that their
    first visitor does not wait for it (the worker is done with the recompute)."""
    warmed = warm_after_recompute(algorithm, replayed_from)
    logger.info("%s: warmed %d tournament pages from %s", algorithm, warmed, replayed_from)


@receiver(player_shown_changed, dispatch_uid="players.public.warm_tournaments_of_player")
def warm_tournaments_of_player(sender, *, player_id: int, **kwargs) -> None:
    """Queue the build of every tab of the player's tournaments, once the edit commits."""
    tasks.warm_tournament_pages_of_player.delay_on_commit(player_id)


@receiver(club_games_changed, dispatch_uid="players.public.forget_club_activity")
def forget_activity_of_clubs(
    sender, *, club_ids: frozenset[int], player_ids: frozenset[int], **kwargs
) -> None:
    """The activity kept for the clubs and the players' clubs is counted again on the
    club page's next visit."""
    forget_club_activity(club_ids | clubs_of_players(player_ids) if player_ids else club_ids)


@receiver(player_shown_changed, dispatch_uid="players.public.forget_club_activity_of_player")
def forget_activity_of_players_clubs(sender, *, player_id: int, **kwargs) -> None:
    """A player's club edited (their record's club is their clubs' member count): the
    activity of the clubs they are or were of is counted again."""
    forget_club_activity(clubs_of_players([player_id]))
