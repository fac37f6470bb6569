"""The current ratings (``CurrentRating``) an algorithm's replay ends with, whatever its
kind: the recompute of a per-game history and the holistic pass both end here."""

from __future__ import annotations

from django.db import connection

from players.fields import rank_to_code
from ratings.engine.base import RatingState
from ratings.models import CurrentRating
from ratings.recompute import staging
from ratings.selectors import PLAYER_IDS, fetch_for_players


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
        changed = _changed(algorithm, new, only)
        current = writes.rows(CurrentRating, columns)
    with current:
        for player_id, (rank, value, games) in changed.items():
            current.add((algorithm, player_id, rank, value, games, "{}"))


def _changed(
    algorithm: str,
    new: dict[int, tuple[int, float, int]],
    only: set[int] | None,
) -> dict[int, tuple[int, float, int]]:
    """The current ratings of ``new`` that differ from those stored (of the players
    ``only``, when given), the stored ones that differ deleted."""
    old = _stored(algorithm, only)
    stale = [player_id for player_id, values in old.items() if new.get(player_id) != values]
    if only is None and len(stale) * 2 > len(old):
        CurrentRating.objects.filter(algorithm=algorithm).delete()
        return new
    if stale:
        fetch_for_players(
            f"DELETE FROM {_table()} WHERE algorithm = %s AND {{players}}",
            [algorithm, PLAYER_IDS],
            stale,
        )
    return {player_id: values for player_id, values in new.items() if old.get(player_id) != values}


# The current ratings are read and the stale ones deleted as SQL: built by the ORM, the
# two statements cost a back-dated entry's 111 players 0.8 ms of CPU, about three
# times the statements'.


def _stored(algorithm: str, only: set[int] | None) -> dict[int, tuple[int, float, int]]:
    """The current ratings stored (of the players ``only``, when given), by player id:
    (rank code, value, games)."""
    rows = fetch_for_players(
        f"SELECT player_id, rank, value, games FROM {_table()} "
        "WHERE algorithm = %s AND {players}",
        [algorithm, PLAYER_IDS],
        only,
    )
    return {player_id: (rank, value, games) for player_id, rank, value, games in rows}


def _table() -> str:
    return connection.ops.quote_name(CurrentRating._meta.db_table)
