"""A player's data on request: everything the site holds about them, and erasure.

Erasure replaces what identifies the person (username, full name, EGD PIN, club) and
keeps their games, so that their opponents' histories do not change. The audit trail
keeps the record of the erasure; the player's name is redacted from its earlier
entries, the one change the audit trail ever receives, because the law on personal
data asks for it.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from players.models import Adjustment, AuditEntry, Game, Player
from players.services.audit import adjustment_snapshot, audit, game_snapshot
from players.services.base import ServiceError
from players.services.games import earliest_entry
from ratings.models import CurrentRating, RatingHistory
from ratings.recompute.dirty import Touch, mark_dirty

ERASED_NAME = "Erased player"


def player_data_export(player: Player) -> dict[str, Any]:
    """Everything stored about ``player``, as JSON-able data."""
    games = (
        Game.objects.filter(Q(white=player) | Q(black=player))
        .select_related("white", "black", "tournament")
        .in_replay_order()
    )
    history = (
        RatingHistory.objects.filter(player=player)
        .select_related("opponent")
        .order_by("algorithm", "position")
    )
    return {
        "exported_at": timezone.now().isoformat(),
        "player": {
            "username": player.username,
            "full_name": player.full_name,
            "club": player.club.name if player.club_id else None,
            "entry_rank": str(player.entry_rank),
            "national_rank": str(player.national_rank) if player.national_rank else None,
            "egd_pin": player.egd_pin,
            "national_id": player.national_id,
            "active": player.active,
            "created_at": player.created_at.isoformat(),
            "last_updated": player.last_updated.isoformat() if player.last_updated else None,
        },
        "games": [game_snapshot(game) for game in games],
        "adjustments": [
            adjustment_snapshot(adjustment)
            for adjustment in Adjustment.objects.filter(player=player)
            .select_related("player")
            .order_by("date", "seq")
        ],
        "ratings": [
            {"algorithm": algorithm, "rank": str(rank), "value": value, "games": games_played}
            for algorithm, rank, value, games_played in CurrentRating.objects.filter(
                player=player
            ).values_list("algorithm", "rank", "value", "games")
        ],
        "history": [
            {
                "algorithm": row.algorithm,
                "date": row.date.isoformat(),
                "opponent": row.opponent.username,
                "change": row.change,
                "value_after": row.value_after,
                "rank_after": str(row.rank_after),
            }
            for row in history
        ],
    }


def player_erase(*, user, player: Player) -> Player:
    """Replace what identifies ``player``; keep their games for their opponents. The
    records merged into theirs (the same person's duplicates) are erased with it."""
    if player.erased_at is not None:
        raise ServiceError(f"{player.username} was already erased")
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player.pk)
        records = [player, *_records_merged_into(player)]
        for record in records:
            old_names = [name for name in (record.username, record.full_name) if name]
            _replace_identity(record)
            _redact_audit_trail(old_names, record.username)
        audit(user, "player_erase", player, after={"username": player.username})
        # Engine checkpoints hold usernames: replay from the player's first entry on.
        earliest = earliest_entry(records)
        if earliest is not None:
            mark_dirty([Touch(earliest)])
    return player


def _records_merged_into(player: Player) -> list[Player]:
    """The records merged into ``player``'s, and those merged into them, as the merges'
    audit entries name them (a merged record is kept, inactive, for the audit trail),
    locked for the erasure. Not ``selectors.players.merged_records``: that one reads
    the direct merges the log page names."""
    found: dict[int, Player] = {}
    keep_ids = [player.pk]
    while keep_ids:
        names = [
            after["duplicate"]
            for after in AuditEntry.objects.filter(
                action="player_merge", object_type="player", object_id__in=map(str, keep_ids)
            ).values_list("after", flat=True)
            if isinstance(after, dict) and after.get("duplicate")
        ]
        duplicates = Player.objects.select_for_update().filter(
            username__in=names, erased_at__isnull=True
        )
        keep_ids = [record.pk for record in duplicates if record.pk not in found]
        found.update((record.pk, record) for record in duplicates)
    found.pop(player.pk, None)
    return sorted(found.values(), key=lambda record: record.pk)


def _replace_identity(player: Player) -> None:
    player.username = f"erased-{player.pk}"
    player.given_name, player.family_name = ERASED_NAME, str(player.pk)
    player.egd_pin = ""
    player.national_id = ""
    player.country = ""
    player.federation_club = ""
    player.club = None
    player.active = False
    player.erased_at = timezone.now()
    player.save()
    # The tournament files' lists keep the place and games, not who it was.
    player.tournament_entries.update(
        given_name=ERASED_NAME,
        family_name=str(player.pk),
        country="",
        club="",
        egd_pin="",
        file_attributes={},
    )


def _name_pattern(name: str) -> re.Pattern:
    """``name`` as a whole word of a summary or value. Usernames hold ``-`` and so do
    game summaries (``2024-02-01 li-olivia W``): a ``-`` next to the name counts as a
    separator only if a known username stands on its other side."""
    return re.compile(rf"(?<![\w.]){re.escape(name)}(?![\w.])")


def _redact_audit_trail(old_names: list[str], replacement: str) -> None:
    """Replace ``old_names`` in every audit entry. All entries are read, not only those
    of the player's own objects: merges, resyncs and imports name players too. An
    erasure is rare and a club's audit trail a few hundred thousand rows at most."""
    usernames = set(Player.objects.values_list("username", flat=True))
    patterns = [_name_pattern(name) for name in old_names]

    def whole_word(match: re.Match) -> bool:
        text, start, end = match.string, match.start(), match.end()
        if start > 0 and text[start - 1] == "-":
            before = re.split(r"\s", text[: start - 1])[-1]
            if before not in usernames:
                return False
        if end < len(text) and text[end] == "-":
            after = re.split(r"\s", text[end + 1 :])[0]
            if after not in usernames:
                return False
        return True

    def redact(value):
        if isinstance(value, str):
            for pattern in patterns:
                value = pattern.sub(
                    lambda match: replacement if whole_word(match) else match.group(0), value
                )
            return value
        if isinstance(value, dict):
            return {key: redact(item) for key, item in value.items()}
        if isinstance(value, list):
            return [redact(item) for item in value]
        return value

    for entry in AuditEntry.objects.only("pk", "summary", "before", "after").iterator():
        redacted = {
            field: redact(getattr(entry, field)) for field in ("summary", "before", "after")
        }
        if any(redacted[field] != getattr(entry, field) for field in redacted):
            AuditEntry.objects.filter(pk=entry.pk).update(**redacted)
