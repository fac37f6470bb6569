"""What the public pages do when the data they keep built changes: connected to the
signals of ``ratings.signals`` and ``players.signals`` by ``PlayersConfig.ready()``."""

from __future__ import annotations

import logging
from datetime import date

from django.dispatch import receiver

from players.public import tasks
from players.public.crosstable_cache import warm_after_recompute
from players.signals import player_shown_changed
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
