"""Writing adjustments: the committee's adjustments and the resyncs with national rating
lists (apply, preview, upload, revert)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from notifications.senders import rank_change_send
from players import stored_sentences as sentences
from players.models import (
    Adjustment,
    Player,
    ResyncBatch,
    ResyncUpload,
)
from players.resync import Outcome, ResyncPreview
from players.roles import COMMITTEE, check_player_scope
from players.selectors.players import national_ranks_before
from players.services.audit import adjustment_snapshot, audit, player_snapshot
from players.services.base import ServiceError, check_algorithm, next_seqs
from players.services.games import refresh_entry_ranks
from ratings.algorithms import primary_algorithm
from ratings.engine.algorithms import registry
from ratings.engine.egf import EgfAlgorithm
from ratings.engine.messages import Message
from ratings.engine.ranks import Rank
from ratings.recompute.dirty import Touch, mark_dirty


def adjustment_apply(
    *,
    user,
    player: Player,
    date: date,
    new_rank: Rank,
    value: Decimal | None = None,
    algorithm: str = "",
    reason: str = Adjustment.Reason.COMMITTEE,
    comment: str = "",
    batch: ResyncBatch | None = None,
) -> Adjustment:
    """Reset a player's rank (up or down) from ``date`` on, for one algorithm or all."""
    check_algorithm(algorithm)
    check_player_scope(user, COMMITTEE, player)
    if date > timezone.localdate():
        raise ServiceError(
            _("%(day)s is in the future") % {"day": date},
            [(None, "date", pgettext("problem", "in the future"))],
        )
    with transaction.atomic():
        (seq,) = next_seqs(1)
        adjustment = Adjustment.objects.create(
            seq=seq,
            date=date,
            player=player,
            algorithm=algorithm,
            new_rank=new_rank,
            value=value,
            reason=reason,
            comment=comment,
            resync_batch=batch,
            created_by=user,
        )
        audit(
            user,
            "adjustment_apply",
            adjustment,
            after=adjustment_snapshot(adjustment),
            summary=f"{player.username} -> {new_rank}",
        )
        if algorithm in ("", primary_algorithm()):  # the club rank: the player is told
            rank_change_send(adjustment)
        # a resync refreshes the entry ranks of its whole batch at once
        moved = refresh_entry_ranks([player]) if batch is None else []
        mark_dirty([Touch(date, None, algorithm), *moved])
    return adjustment


@dataclass(frozen=True)
class ResyncChange:
    """One player of a resync: a new national rank and/or, from the list, a rating on
    the GoR scale that the EGF algorithms restart the player from."""

    player: Player
    new_rank: Rank
    rating: Decimal | None = None
    rank_changes: bool = True


def egf_algorithms() -> list[str]:
    """The registered EGF GoR algorithms: the ones a GoR from a list is a value for."""
    return [name for name, cls in registry().items() if issubclass(cls, EgfAlgorithm)]


def resync_apply(
    *, user, changes: Sequence[ResyncChange], effective_date: date, note: str = ""
) -> ResyncBatch:
    """Reset the players whose national rank changed, as one batch.

    A changed rank is one adjustment for every algorithm (the algorithm's default value
    for the rank); a rating from the list is, in addition, one adjustment per EGF
    algorithm with that value, entered after it (so it is the one those algorithms keep).
    """
    if not changes:
        raise ServiceError(_("nobody's rank changes: nothing to apply"))
    for change in changes:
        check_player_scope(user, COMMITTEE, change.player)
    comment = Message(sentences.RESYNC_WITH_NOTE, note=note) if note else sentences.RESYNC
    rated_algorithms = egf_algorithms()
    with transaction.atomic():
        batch = ResyncBatch.objects.create(
            created_by=user, effective_date=effective_date, note=note
        )
        for change in changes:
            if change.rank_changes:
                _resync_rank(user, change, batch, comment)
            if change.rating is not None:
                _resync_rating(user, change, change.rating, batch, comment, rated_algorithms)
        audit(
            user,
            "resync_apply",
            batch,
            after={
                "players": [c.player.username for c in changes if c.rank_changes],
                "ratings": {
                    c.player.username: f"{c.rating:f}" for c in changes if c.rating is not None
                },
                "date": str(effective_date),
            },
            summary=Message(sentences.RESYNC_PLAYERS, players=len(changes)),
        )
        mark_dirty(refresh_entry_ranks([change.player for change in changes]))
    return batch


def _resync_rank(user, change: ResyncChange, batch: ResyncBatch, comment: str) -> None:
    """The player's new national rank, and its adjustment for every algorithm."""
    before = player_snapshot(change.player)
    Player.objects.filter(pk=change.player.pk).update(national_rank=change.new_rank)
    change.player.national_rank = change.new_rank
    audit(
        user,
        "player_national_rank",
        change.player,
        before=before,
        after=player_snapshot(change.player),
        summary=Message(sentences.RESYNC_OF_BATCH, batch=batch.pk),
    )
    adjustment_apply(
        user=user,
        player=change.player,
        date=batch.effective_date,
        new_rank=change.new_rank,
        reason=Adjustment.Reason.RESYNC,
        comment=comment,
        batch=batch,
    )


def _resync_rating(
    user,
    change: ResyncChange,
    rating: Decimal,
    batch: ResyncBatch,
    comment: str,
    algorithms: list[str],
) -> None:
    """The list's rating of the player, one adjustment per EGF algorithm (entered after
    the rank's, so it is the one those algorithms keep)."""
    for algorithm in algorithms:
        adjustment_apply(
            user=user,
            player=change.player,
            date=batch.effective_date,
            new_rank=change.new_rank,
            value=rating,
            algorithm=algorithm,
            reason=Adjustment.Reason.RESYNC,
            comment=f"{comment}, rating {rating:f} from the list",
            batch=batch,
        )


def resync_apply_preview(
    *,
    user,
    preview: ResyncPreview,
    use_ratings: bool = False,
    include_stale: bool = False,
    note: str = "",
    upload: ResyncUpload | None = None,
) -> ResyncBatch:
    """Apply what a preview shows: its changed lines and, with ``use_ratings``, the
    list's ratings of every listed player (changed or not); with ``include_stale``, the
    lines of players last rated long before the list too. Never a line older than the
    player's last resync (``Outcome.OUTDATED``). Refused, storing nothing, when nothing
    would change or the changes carry more than one effective date.

    The kept ``upload`` the preview was read from is used up in the same transaction,
    so that a second click on the apply button (or a second tab) applies nothing twice.
    """
    applied = {Outcome.CHANGED, Outcome.STALE} if include_stale else {Outcome.CHANGED}
    rows = [
        row
        for row in preview.rows
        if (row.outcome in applied and (row.new_rank != row.current_rank or use_ratings))
        or (use_ratings and row.outcome == Outcome.UNCHANGED and row.rating is not None)
    ]
    if not rows:
        raise ServiceError(_("Nobody's national rank changes: there is nothing to apply."))
    # Every row kept is of a listed line (changed, stale, unchanged), which carries the
    # line's rank and date: the "is not None" filters below only narrow the types.
    dates = sorted({row.effective_date for row in rows if row.effective_date is not None})
    if len(dates) > 1:
        raise ServiceError(
            _(
                "The changes have more than one effective date (%(dates)s). A resync is one "
                "batch with one date: split the list, or leave the dates out of the lines "
                "and give the date in the form."
            )
            % {"dates": ", ".join(str(day) for day in dates)}
        )
    players = Player.objects.select_related("club").in_bulk([row.player.pk for row in rows])
    changes = [
        ResyncChange(
            players[row.player.pk],
            row.new_rank,
            rating=row.rating if use_ratings else None,
            rank_changes=row.outcome != Outcome.UNCHANGED and row.new_rank != row.current_rank,
        )
        for row in rows
        if row.new_rank is not None
    ]
    with transaction.atomic():
        if upload is not None and not ResyncUpload.objects.filter(pk=upload.pk).delete()[0]:
            raise ServiceError(_("This list was already applied: see the earlier resyncs."))
        return resync_apply(user=user, changes=changes, effective_date=dates[0], note=note)


# Uploads are kept a day: long enough to check a preview and apply it.
RESYNC_UPLOAD_KEPT = timedelta(days=1)


def resync_upload_store(*, user, name: str, data: bytes) -> ResyncUpload:
    """Keep a previewed list for its apply; forget those older than a day."""
    with transaction.atomic():
        ResyncUpload.objects.filter(created_at__lt=timezone.now() - RESYNC_UPLOAD_KEPT).delete()
        return ResyncUpload.objects.create(
            token=uuid.uuid4(), created_by=user, name=name[:255], data=data
        )


def resync_revert(*, user, batch_id: int) -> ResyncBatch:
    """Undo a whole resync: its adjustments are voided and national ranks restored."""
    with transaction.atomic():
        batch = ResyncBatch.objects.select_for_update().get(pk=batch_id)
        if batch.reverted_at is not None:
            raise ServiceError(_("resync %(number)s was already reverted") % {"number": batch.pk})
        now = timezone.now()
        adjustments = list(batch.adjustments.select_related("player").filter(voided_at=None))
        for adjustment in adjustments:
            check_player_scope(
                user, COMMITTEE, adjustment.player, _("resync %(number)s") % {"number": batch.pk}
            )
        restored_ranks = national_ranks_before(batch)
        players = [adjustment.player for adjustment in adjustments]
        for adjustment in adjustments:
            before = adjustment_snapshot(adjustment)
            adjustment.voided_at, adjustment.voided_by = now, user
            adjustment.void_reason = f"resync {batch.pk} reverted"
            adjustment.version += 1
            adjustment.save()
            audit(
                user,
                "adjustment_void",
                adjustment,
                before=before,
                after=adjustment_snapshot(adjustment),
            )
            restored = restored_ranks.get(adjustment.player_id)
            if restored is not None:
                Player.objects.filter(pk=adjustment.player_id).update(national_rank=restored)
        batch.reverted_at, batch.reverted_by = now, user
        batch.save(update_fields=["reverted_at", "reverted_by"])
        audit(
            user,
            "resync_revert",
            batch,
            summary=Message(sentences.RESYNC_REVERTED, adjustments=len(adjustments)),
        )
        mark_dirty([Touch(batch.effective_date), *refresh_entry_ranks(players)])
    return batch
