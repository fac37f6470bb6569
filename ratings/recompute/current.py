"""The current ratings (``CurrentRating``) an algorithm's replay ends with, whatever its
kind: the recompute of a per-game history and the holistic pass both end here."""

from __future__ import annotations

from django.db.models import QuerySet

from players.fields import rank_to_code
from ratings.engine.base import RatingState
from ratings.models import CurrentRating
from ratings.recompute import staging
from ratings.selectors import IDS_PER_QUERY


def replace_current(
    algorithm: str, state: RatingState, ids: dict[str, int], *, only: set[int] | None = None
) -> None:
    """Make the current ratings those of ``state``, rewriting only the players whose
    rank, value or games changed: a recompute after one new game changes two players of
    thousands, and rewriting them all would leave the rating list's table full of dead
    rows until it is vacuumed (a slower list meanwhile).

    ``only``: the ids of the players that may have changed (the others' current ratings
    stay, unread); ``state`` holds those of them that are rated.

    Called while the writes are staged (and without ``only``), the rows are staged and
    the database compares them with those stored when the writes are applied
    (``staging.Writes.rows_replacing``): the changed ones updated in place, rather than
    read, deleted and inserted in the write transaction."""
    new = {
        ids[username]: (rank_to_code(player.rank), float(player.value), player.games)
        for username, player in state.players.items()
        if username in ids
    }
    columns = ("algorithm", "player_id", "rank", "value", "games", "factors")
    stored = CurrentRating.objects.filter(algorithm=algorithm)
    writes = staging.current()
    if writes.staged and only is None:
        changed = new
        current = writes.rows_replacing(stored, columns, key=("algorithm", "player_id"))
    else:
        changed = _changed(stored, new, only)
        current = writes.rows(CurrentRating, columns)
    with current:
        for player_id, (rank, value, games) in changed.items():
            current.add((algorithm, player_id, rank, value, games, "{}"))


def _changed(
    stored: QuerySet[CurrentRating],
    new: dict[int, tuple[int, float, int]],
    only: set[int] | None,
) -> dict[int, tuple[int, float, int]]:
    """The current ratings of ``new`` that differ from those ``stored`` (of the players
    ``only``, when given), the stored ones that differ deleted."""
    old = _stored(stored, only)
    stale = [player_id for player_id, values in old.items() if new.get(player_id) != values]
    if only is None and len(stale) * 2 > len(old):
        stored.delete()
        return new
    for start in range(0, len(stale), IDS_PER_QUERY):
        stored.filter(player_id__in=stale[start : start + IDS_PER_QUERY]).delete()
    return {player_id: values for player_id, values in new.items() if old.get(player_id) != values}


def _stored(
    stored: QuerySet[CurrentRating], only: set[int] | None
) -> dict[int, tuple[int, float, int]]:
    """The current ratings stored (of the players ``only``, when given), by player id."""
    columns = ("player_id", "rank", "value", "games")
    if only is None:
        rows = list(stored.values_list(*columns))
    else:
        chosen = sorted(only)
        rows = []
        for start in range(0, len(chosen), IDS_PER_QUERY):
            some = stored.filter(player_id__in=chosen[start : start + IDS_PER_QUERY])
            rows += some.values_list(*columns)
    return {player_id: (rank_to_code(rank), value, games) for player_id, rank, value, games in rows}
