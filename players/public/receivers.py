"""What the public pages do when the data they keep built changes: connected to the
signals of ``ratings.signals`` and ``players.signals`` by ``PlayersConfig.ready()``."""

from __future__ import annotations

from datetime import date

from django.dispatch import receiver

from players.public import tasks
from players.public.club_cache import forget_club_activity
from players.selectors.clubs import clubs_of_players
from players.signals import club_games_changed, player_shown_changed
from ratings.signals import history_rewritten


def queue_warming(algorithm: str, replayed_from: date | None) -> None:
    """Queue the build of ``algorithm``'s tab of the tournaments rewritten from
    ``replayed_from``, once the recompute commits (at once when it has)."""
    tasks.warm_rewritten_tournament_pages.delay_on_commit(
        algorithm, None if replayed_from is None else replayed_from.isoformat()
    )


@receiver(history_rewritten, dispatch_uid="players.public.warm_rewritten_tournaments")
def warm_rewritten_tournaments(
    sender, *, algorithm: str, replayed_from: date | None, **kwargs
) -> None:
    """Have ``algorithm``'s tab of the tournaments the recompute rewrote built, so that
    their first visitor does not wait for it: in a task of its own, not in the
    recompute's (the next recompute need not wait for the pages)."""
    queue_warming(algorithm, replayed_from)


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
