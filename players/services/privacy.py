"""A player's data on request: everything the site holds about them, and erasure.

Erasure replaces what identifies the person (username, full name, EGD PIN, club) and
keeps their games, so that their opponents' histories do not change. The audit trail
keeps the record of the erasure; the player's name is redacted from its earlier
entries, the one change the audit trail ever receives, because the law on personal
data asks for it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from notifications.models import MailProfile, OutgoingMail
from players.models import (
    Adjustment,
    AuditEntry,
    Game,
    GameReport,
    Player,
    RecordSheet,
    ResyncBatch,
    ResyncUpload,
    join_names,
)
from players.services.audit import adjustment_snapshot, audit, game_snapshot, player_snapshot
from players.services.base import ServiceError
from players.services.games import earliest_entry
from ratings.models import Checkpoint, CurrentRating, RatingHistory
from ratings.recompute.checkpoints import laid_out_state
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
            "club": player.club.name if player.club is not None else None,
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
    records merged into theirs (the same person's duplicates) are erased with it.

    Nothing that names them is left where a person or a backup could read it: the
    audit trail, their login (renamed and closed), the free texts of their games,
    adjustments, sheets and reports (and any other one naming them in full), the
    tournament files' lines, the engine checkpoints, the failed log-ins kept for the
    lockout, their mail and the mail to others naming them, and the rank lists waiting
    to be applied (``docs/operations.md``)."""
    if player.erased_at is not None:
        raise ServiceError(_("%(username)s was already erased") % {"username": player.username})
    with transaction.atomic():
        player = Player.objects.select_for_update().get(pk=player.pk)
        records = [player, *_records_merged_into(player)]
        for record in records:
            traces = _Traces.of(record)
            _replace_identity(record)
            _erase_account(record, traces)
            redactor = _Redactor(traces, record.username)
            scope = _Scope.of(record)
            _redact_audit_trail(redactor, scope, record)
            _redact_free_texts(redactor, scope)
            _rename_in_checkpoints(traces.username, record.username)
        # A rank list being previewed may name them; the committee uploads it again.
        ResyncUpload.objects.all().delete()
        after = {"username": player.username}
        if player.account is not None:
            after["account"] = player.account.username  # renamed and closed
        audit(user, "player_erase", player, after=after)
        # The replay orders some ties by username: replay from the player's first entry on.
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


@dataclass(frozen=True)
class _Traces:
    """What identified a record before its erasure: ``everywhere`` is redacted from
    every text that holds it (names in full, identifiers, the login), ``nearby`` only
    from the texts about the record's own games, adjustments, sheets and reports (a
    given or family name alone is another person's too)."""

    username: str
    everywhere: tuple[str, ...]
    nearby: tuple[str, ...]
    login: str | None

    @classmethod
    def of(cls, player: Player) -> _Traces:
        account = player.account
        everywhere = [
            player.full_name,
            join_names(player.family_name, player.given_name),
            player.egd_pin,
            player.national_id,
        ]
        nearby = [player.given_name, player.family_name]
        if account is not None:
            everywhere += [
                account.username,
                account.email,
                join_names(account.first_name, account.last_name),
            ]
            nearby += [account.first_name, account.last_name]
        # A short one (a national id "42", a full name "Li") would hit other words.
        short = [name for name in everywhere if len(name.strip()) < _SHORTEST_EVERYWHERE]
        return cls(
            username=player.username,
            everywhere=_distinct(everywhere, besides=[player.username, *short]),
            nearby=_distinct(nearby + short, besides=[player.username]),
            login=account.username if account is not None else None,
        )


# The shortest name or identifier redacted from every text, not only those about the
# record (the username always is, as it was).
_SHORTEST_EVERYWHERE = 5


def _distinct(names: list[str], besides: list[str]) -> tuple[str, ...]:
    """The non-blank ``names`` once each, longest first (a full name is replaced
    before the given name in it), but ``besides``."""
    kept = {name.strip() for name in names if name and name.strip()} - {
        name.strip() for name in besides
    }
    return tuple(sorted(kept, key=lambda name: (-len(name), name)))


@dataclass(frozen=True)
class _Scope:
    """The objects about the record: its own, its games, adjustments, reports, the
    sheets of its games and its login, as the audit trail names them (type, id)."""

    games: frozenset[int]
    adjustments: frozenset[int]
    reports: frozenset[int]
    sheets: frozenset[int]
    # The admin's log entries of the record and of its login.
    admin_entries: frozenset[int]
    account: int | None
    player: int

    @classmethod
    def of(cls, player: Player) -> _Scope:
        games = Game.objects.filter(Q(white=player) | Q(black=player))
        return cls(
            games=frozenset(games.values_list("pk", flat=True)),
            adjustments=frozenset(
                Adjustment.objects.filter(player=player).values_list("pk", flat=True)
            ),
            reports=frozenset(
                GameReport.objects.filter(
                    Q(player=player) | Q(game__in=games.values("pk"))
                ).values_list("pk", flat=True)
            ),
            sheets=frozenset(
                games.filter(record_sheet__isnull=False).values_list("record_sheet", flat=True)
            ),
            admin_entries=frozenset(
                LogEntry.objects.filter(
                    Q(content_type=ContentType.objects.get_for_model(Player), object_id=player.pk)
                    | Q(
                        content_type=ContentType.objects.get_for_model(get_user_model()),
                        object_id=player.account_id,
                    )
                ).values_list("pk", flat=True)
            ),
            account=player.account_id,
            player=player.pk,
        )

    def audit_objects(self) -> set[tuple[str, str]]:
        objects = {("player", str(self.player))}
        for object_type, ids in (
            ("game", self.games),
            ("adjustment", self.adjustments),
            ("gamereport", self.reports),
            ("recordsheet", self.sheets),
        ):
            objects.update((object_type, str(pk)) for pk in ids)
        if self.account is not None:
            objects.add(("user", str(self.account)))
        return objects


def _erase_account(player: Player, traces: _Traces) -> None:
    """Rename and close the player's own login (it stays, linked, for the audit entries
    it signs), and drop the failed log-ins kept under either name."""
    logins = [traces.username] + ([traces.login] if traces.login else [])
    for model in (AccessAttempt, AccessFailureLog, AccessLog):
        model.objects.filter(username__in=logins).delete()
    account = player.account
    if account is None:
        return
    # Their mail, sent or waiting, and their mail settings (an address waiting for its
    # confirmation): the outbox keeps what it sent, names and links included.
    mail_to_them = Q(user=account)
    if account.email:
        mail_to_them |= Q(to__iexact=account.email)
    OutgoingMail.objects.filter(mail_to_them).delete()
    MailProfile.objects.filter(user=account).delete()
    accounts = get_user_model().objects
    username = player.username
    if accounts.filter(username=username).exclude(pk=account.pk).exists():
        username = f"{player.username}-{account.pk}"
    account.username = username
    account.first_name = account.last_name = account.email = ""
    account.is_active = False
    account.set_unusable_password()
    account.save()


class _Redactor:
    """Replaces a record's traces in a text, or in every string of a JSON value."""

    def __init__(self, traces: _Traces, replacement: str) -> None:
        self.replacement = replacement
        # Usernames as stored (slugs: ``li`` is not ``Li``); names whatever their case.
        self.everywhere = [_name_pattern(traces.username)] + [
            _name_pattern(name, re.IGNORECASE) for name in traces.everywhere
        ]
        self.nearby = [_name_pattern(name, re.IGNORECASE) for name in traces.nearby]
        self.usernames = set(Player.objects.values_list("username", flat=True))
        self.needles = [traces.username, *traces.everywhere]

    def redact(self, value, nearby: bool):
        if isinstance(value, str):
            for pattern in self.everywhere + self.nearby if nearby else self.everywhere:
                value = pattern.sub(self._replace, value)
            return value
        if isinstance(value, dict):
            return {key: self.redact(item, nearby) for key, item in value.items()}
        if isinstance(value, list):
            return [self.redact(item, nearby) for item in value]
        return value

    def _replace(self, match: re.Match) -> str:
        """A ``-`` next to the name counts as a separator only if a known username
        stands on its other side (``2024-02-01 li-olivia W``, not ``li-wei``)."""
        text, start, end = match.string, match.start(), match.end()
        if start > 0 and text[start - 1] == "-":
            before = re.split(r"\s", text[: start - 1])[-1]
            if before not in self.usernames:
                return match.group(0)
        if end < len(text) and text[end] == "-":
            after = re.split(r"\s", text[end + 1 :])[0]
            if after not in self.usernames:
                return match.group(0)
        return self.replacement


def _name_pattern(name: str, flags: int = 0) -> re.Pattern:
    """``name`` as a whole word of a summary or value (see ``_Redactor._replace`` for a
    ``-`` next to it)."""
    return re.compile(rf"(?<![\w.]){re.escape(name)}(?![\w.])", flags)


def _redact_audit_trail(redactor: _Redactor, scope: _Scope, record: Player) -> None:
    """Replace the record's traces in every audit entry, its given and family names in
    the entries about it, and its snapshots' identity (``player_snapshot``) by the
    erased one. All entries are read, not only those of the record's own objects:
    merges, resyncs and imports name players too. An erasure is rare and a club's audit
    trail a few hundred thousand rows at most."""
    about = scope.audit_objects()
    own = ("player", str(record.pk))
    erased = {key: value for key, value in player_snapshot(record).items() if key in _IDENTITY}
    entries = AuditEntry.objects.only(
        "pk", "object_type", "object_id", "summary", "before", "after"
    ).iterator()
    for entry in entries:
        key = (entry.object_type, entry.object_id)
        nearby = key in about
        redacted = {
            field: redactor.redact(getattr(entry, field), nearby)
            for field in ("summary", "before", "after")
        }
        if key == own:
            for field in ("before", "after"):
                if isinstance(redacted[field], dict):
                    redacted[field] = {
                        name: erased.get(name, value) for name, value in redacted[field].items()
                    }
        if any(redacted[field] != getattr(entry, field) for field in redacted):
            AuditEntry.objects.filter(pk=entry.pk).update(**redacted)


# The fields of a player's snapshot that say who they are (``_replace_identity``).
_IDENTITY = (
    "username",
    "full_name",
    "family_name",
    "given_name",
    "country",
    "federation_club",
    "club",
    "egd_pin",
    "national_id",
)


def _redact_free_texts(redactor: _Redactor, scope: _Scope) -> None:
    """Replace the traces in the texts people typed: comments and void reasons of games
    and adjustments, sheet and resync notes, reports and their answers, and the admin's
    log of its changes (which names the object it changed). The rows about
    the record are read, and any other one holding a trace in full (found by the
    database). A game or adjustment changed moves its version, so that a form opened
    before cannot write the name back."""
    for model, fields, own_ids, versioned in (
        (Game, ("comment", "void_reason"), scope.games, True),
        (Adjustment, ("comment", "void_reason"), scope.adjustments, True),
        (GameReport, ("text", "answer"), scope.reports, False),
        (RecordSheet, ("note",), scope.sheets, False),
        (ResyncBatch, ("note",), frozenset(), False),
        (LogEntry, ("object_repr", "change_message"), scope.admin_entries, False),
        # Mail to others that names them (a digest's opponent, a report's answer).
        (OutgoingMail, ("subject", "text", "html"), frozenset(), False),
    ):
        holding = Q(pk__in=own_ids)
        for needle in redactor.needles:
            for field in fields:
                holding |= Q(**{f"{field}__icontains": needle})
        for row in model.objects.filter(holding).only("pk", *fields).iterator():
            nearby = row.pk in own_ids
            redacted = {field: redactor.redact(getattr(row, field), nearby) for field in fields}
            changed = {
                field: value for field, value in redacted.items() if value != getattr(row, field)
            }
            if changed:
                if versioned:
                    changed["version"] = F("version") + 1
                model.objects.filter(pk=row.pk).update(**changed)


def _rename_in_checkpoints(old: str, new: str) -> None:
    """The engine's states are keyed by username: a checkpoint taken before the erasure
    holds the old one. Renamed in place, the checkpoint stays valid for the replay."""
    # The state is JSON text: the name as a JSON string, escaped as the replay writes it
    # or as a jsonb column gave it back (a checkpoint stored before the column was text).
    holding = Q(state__contains=json.dumps(old)) | Q(
        state__contains=json.dumps(old, ensure_ascii=False)
    )
    for checkpoint in Checkpoint.objects.filter(holding).only("pk", "state"):
        state = json.loads(checkpoint.state)
        renamed = _renamed(state, old, new)
        if renamed != state:
            Checkpoint.objects.filter(pk=checkpoint.pk).update(state=laid_out_state(renamed))


def _renamed(value, old: str, new: str):
    if isinstance(value, dict):
        return {
            (new if key == old else key): _renamed(item, old, new) for key, item in value.items()
        }
    if isinstance(value, list):
        return [_renamed(item, old, new) for item in value]
    return new if value == old else value
