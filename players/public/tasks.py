"""Celery tasks of the public pages: thin wrappers around what the pages keep. Registered
with Celery when ``PlayersConfig.ready()`` imports the receivers that queue them."""

from __future__ import annotations

import logging
from datetime import date

from celery import shared_task

from players.public.crosstable_cache import warm_after_recompute, warm_player_tournaments
from ratings.tasks import QueuedTask

logger = logging.getLogger(__name__)


# The name it had as players.tasks: a message queued before the move still finds it.
@shared_task(
    base=QueuedTask, ignore_result=True, name="players.tasks.warm_tournament_pages_of_player"
)
def warm_tournament_pages_of_player(player_id: int) -> int:
    """Build the tournament pages an edit of ``player_id`` changed (their name, country
    or club is in every crosstable they appear in), so that visitors find them kept.
    Never fails: a page left cold only costs its next visitor the build."""
    try:
        return warm_player_tournaments(player_id)
    except Exception:
        logger.exception("could not warm the tournament pages of player %s", player_id)
        return 0


@shared_task(base=QueuedTask, ignore_result=True)
def warm_rewritten_tournament_pages(algorithm: str, replayed_from: str | None) -> int:
    """Build ``algorithm``'s tab of the tournaments its recompute rewrote from
    ``replayed_from`` (ISO date; None: in full), so that their first visitor does not wait
    for it. Queued once the recompute commits, apart from it: the recompute's worker is
    free for the next one. Never fails: a page left cold only costs its next visitor
    the build."""
    start = None if replayed_from is None else date.fromisoformat(replayed_from)
    try:
        warmed = warm_after_recompute(algorithm, start)
    except Exception:
        logger.exception("could not warm the tournament pages of %s", algorithm)
        return 0
    logger.info("%s: warmed %d tournament pages from %s", algorithm, warmed, start)
    return warmed
