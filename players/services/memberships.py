"""Writing memberships: a player joins a club from a day, leaves it on a day, moves
from one club to another (one ends, the other starts, the same day). ``Player.club``
follows the player's current membership (the earliest started of two). Call inside the
caller's transaction; each change is audited."""

from __future__ import annotations

from datetime import date

from players import stored_sentences as sentences
from players.models import Membership, Player
from players.services.audit import audit
from players.services.base import announce_club_games
from ratings.engine.messages import Message


def _snapshot(membership: Membership) -> dict:
    return {
        "player": membership.player.username,
        "club": membership.club_id,
        "start": membership.start.isoformat() if membership.start else None,
        "end": membership.end.isoformat() if membership.end else None,
    }


def membership_start(*, user, player: Player, club_id: int, day: date | None) -> Membership:
    """``player`` is a member of the club from ``day`` (None: since before the site's
    records, as for a player entered with their club)."""
    membership = Membership.objects.create(player=player, club_id=club_id, start=day)
    audit(
        user,
        "membership_start",
        membership,
        after=_snapshot(membership),
        summary=(
            Message(sentences.JOINS, player=player.username, club=membership.club.name, day=day)
            if day
            else Message(
                sentences.JOINS_FROM_THE_START, player=player.username, club=membership.club.name
            )
        ),
    )
    announce_club_games(clubs=[club_id])
    return membership


def membership_end(*, user, player: Player, club_id: int, day: date) -> None:
    """``player``'s current membership of the club ends: ``day`` is their first day
    out. A membership that started that very day is removed (it never held)."""
    for membership in Membership.objects.filter(player=player, club_id=club_id, end=None):
        before = _snapshot(membership)
        if membership.start is not None and membership.start >= day:
            membership.delete()
            after = None
        else:
            membership.end = day
            membership.save(update_fields=["end"])
            after = _snapshot(membership)
        audit(
            user,
            "membership_end",
            membership,
            before=before,
            after=after,
            summary=Message(
                sentences.LEAVES, player=player.username, club=membership.club.name, day=day
            ),
        )
        announce_club_games(clubs=[club_id])


def membership_move(
    *, user, player: Player, from_club_id: int | None, to_club_id: int | None, day: date
) -> None:
    """``player`` moves from one club to the other on ``day`` (either may be None:
    joining a first club, leaving the last)."""
    if from_club_id == to_club_id:
        return
    if from_club_id is not None:
        membership_end(user=user, player=player, club_id=from_club_id, day=day)
    if to_club_id is not None:
        membership_start(user=user, player=player, club_id=to_club_id, day=day)
