"""Writing players: create, edit, bulk create, PIN and national-id checks, merges."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Count, F, Min, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from players import stored_sentences as sentences
from players.models import (
    Adjustment,
    AuditEntry,
    Club,
    Game,
    Player,
    TournamentPlayer,
)
from players.roles import COMMITTEE, VOLUNTEERS, check_club_scope, check_player_scope
from players.selectors.tournaments import tournaments_listing_both
from players.services.accounts import link
from players.services.audit import audit, audit_entry, game_snapshot, player_snapshot
from players.services.base import ServiceError, announce_club_games
from players.services.games import earliest_entry, refresh_entry_ranks, refresh_last_updated
from players.services.memberships import membership_move, membership_start
from players.services.tournaments import refresh_tournament_counts
from players.signals import player_shown_changed
from ratings.engine.messages import Message
from ratings.engine.ranks import Rank
from ratings.recompute.dirty import Touch, mark_dirty

EGD_PIN = re.compile(r"[0-9]{8}")


def pin_problem(egd_pin: str, player: Player | None = None) -> str | None:
    """Why ``egd_pin`` cannot be ``player``'s (or a new player's): an EGD PIN belongs to
    one person, so another record holding it already refuses it. None if it can."""
    if not egd_pin:
        return None
    # The EGD numbers its players with 8 digits (every PIN of its rating lists); a PIN
    # already stored (an import's) is left as it is, so that other fields can be edited.
    if not EGD_PIN.fullmatch(egd_pin) and egd_pin != getattr(player, "egd_pin", None):
        return _("'%(pin)s' is not an EGD PIN: the EGD's PINs are 8 digits, as 12345678") % {
            "pin": egd_pin
        }
    holders = Player.objects.filter(egd_pin=egd_pin, erased_at__isnull=True)
    if player is not None:
        holders = holders.exclude(pk=player.pk)
    holder = holders.first()
    if holder is None:
        return None
    return _("the EGD PIN %(pin)s is already on file, for %(holder)s") % {
        "pin": egd_pin,
        "holder": holder,
    }


def national_id_problem(national_id: str, player: Player | None = None) -> str | None:
    """Why ``national_id`` cannot be ``player``'s: a federation's id belongs to one
    record. None if it can."""
    if not national_id:
        return None
    holders = Player.objects.filter(national_id=national_id)
    if player is not None and player.pk is not None:
        holders = holders.exclude(pk=player.pk)
    holder = holders.first()
    if holder is None:
        return None
    return _("the national id %(national_id)s is already on file, for %(holder)s") % {
        "national_id": national_id,
        "holder": holder,
    }


def not_changed(player: Player) -> str:
    return _("%(username)s was not changed") % {"username": player.username}


def _pin_problems(egd_pin: str, player: Player | None = None) -> list[tuple[Any, str, str]]:
    problem = pin_problem(egd_pin, player)
    return [(None, "egd_pin", problem)] if problem else []


def player_create(
    *,
    user,
    username: str,
    full_name: str,
    entry_rank: Rank,
    club: Club | None = None,
    national_rank: Rank | None = None,
    egd_pin: str = "",
    family_name: str = "",
    given_name: str = "",
    country: str = "",
    federation_club: str = "",
    declared_rating: int | None = None,
) -> Player:
    """A new player. With ``family_name`` or ``given_name`` the full name is derived
    from them; else ``full_name`` is split (``models.split_full_name``)."""
    if club is not None:
        check_club_scope(
            user, VOLUNTEERS, club.pk, _("a new player of %(club)s") % {"club": club.name}
        )
    problems = []
    if Player.objects.filter(username=username).exists():
        problems.append((None, "username", pgettext("problem", "already taken")))
    problems += _pin_problems(egd_pin)
    named = Player(full_name=full_name, family_name=family_name, given_name=given_name)
    named.sync_names()
    problems += [(None, field, message) for field, message in named.name_length_problems()]
    if problems:
        raise ServiceError(_("%(username)s was not added") % {"username": username}, problems)
    with transaction.atomic():
        player = Player.objects.create(
            username=username,
            full_name=full_name,
            family_name=family_name,
            given_name=given_name,
            country=country,
            federation_club=federation_club,
            declared_rating=declared_rating,
            club=club,
            entry_rank=entry_rank,
            national_rank=national_rank if national_rank is not None else entry_rank,
            egd_pin=egd_pin,
        )
        audit(user, "player_create", player, after=player_snapshot(player), summary=username)
        if club is not None:
            membership_start(user=user, player=player, club_id=club.pk, day=None)
    return player


# The fields a committee member corrects on a player's record (the username stays: it
# is the record's address and the name the sheets use).
PLAYER_EDIT_FIELDS = (
    "given_name",
    "family_name",
    "full_name",
    "club",
    "country",
    "federation_club",
    "egd_pin",
    "national_id",
    "national_rank",
    "entry_rank",
    "active",
)


def player_update(*, user, player: Player, **changes: Any) -> Player:
    """Correct a player's record: any of ``PLAYER_EDIT_FIELDS``. Ranks are bounded as
    every rank is (SPEC section 1: 50k to 9d, 1p to 9p); an EGD PIN belongs to one
    record. A corrected entry rank is where the player's ratings start, so the ratings
    are recomputed from the player's first game or adjustment."""
    unknown = set(changes) - set(PLAYER_EDIT_FIELDS)
    if unknown:
        raise ValueError(f"not a field a player is corrected by: {', '.join(sorted(unknown))}")
    check_player_scope(user, COMMITTEE, player)
    _check_move(user, player, changes)
    changes, problems = _cleaned_changes(player, changes)
    if problems:
        raise ServiceError(not_changed(player), problems)
    with transaction.atomic():
        player = _locked_player(player.pk)
        before = player_snapshot(player)
        old_entry_rank, old_club_id = player.entry_rank, player.club_id
        _set_changes(player, changes)
        after = player_snapshot(player)
        if after == before:
            return player
        player.save(update_fields=list(changes))
        changed = ", ".join(key for key in after if after[key] != before.get(key))
        audit(
            user,
            "player_update",
            player,
            before=before,
            after=after,
            summary=f"{player.username}: {changed}",
        )
        membership_move(
            user=user,
            player=player,
            from_club_id=old_club_id,
            to_club_id=player.club_id,
            day=timezone.localdate(),
        )
        first = earliest_entry([player]) if player.entry_rank != old_entry_rank else None
        if first is not None:
            mark_dirty([Touch(first)])
        else:
            player_shown_changed.send(sender=Player, player_id=player.pk)
    return player


def _check_move(user, player: Player, changes: dict[str, Any]) -> None:
    """A move is a committee's of both clubs: the club left (a member of two clubs
    edited by their other club's committee leaves it only by its own) and the club
    joined (no club may be given a member by another club's committee)."""
    if "club" not in changes:
        return
    club = changes["club"]
    if (club.pk if club is not None else None) == player.club_id:
        return
    if player.club is not None:
        check_club_scope(
            user,
            COMMITTEE,
            player.club_id,
            _("%(name)s's membership of %(club)s")
            % {"name": player.full_name, "club": player.club.name},
        )
    if club is not None:
        check_club_scope(user, COMMITTEE, club.pk, _("a move to %(club)s") % {"club": club.name})


def _cleaned_changes(
    player: Player, changes: dict[str, Any]
) -> tuple[dict[str, Any], list[tuple[Any, str, str]]]:
    """``changes`` with their texts stripped (the country upper-cased), and what refuses
    them: a rank out of bounds, no name, a country that is no two-letter code, an EGD
    PIN or national id that is malformed or another record's."""
    changes = dict(changes)
    problems = _rank_problems(player, changes)
    for name in ("full_name", "given_name", "family_name", "federation_club", "national_id"):
        if name in changes:
            changes[name] = (changes[name] or "").strip()
    if "full_name" in changes and not changes["full_name"]:
        problems.append((None, "full_name", _("a player needs a name")))
    names = [changes.get(name, getattr(player, name)) for name in ("given_name", "family_name")]
    if {"given_name", "family_name"} & set(changes) and not any(names):
        problems.append((None, "family_name", _("a player needs a name")))
    if "country" in changes:
        country = changes["country"] = (changes["country"] or "").strip().upper()
        if country and not (len(country) == 2 and country.isascii() and country.isalpha()):
            problems.append(
                (
                    None,
                    "country",
                    _("'%(country)s' is not a two-letter country code") % {"country": country},
                )
            )
    if "egd_pin" in changes:
        changes["egd_pin"] = (changes["egd_pin"] or "").strip()
        problems += _pin_problems(changes["egd_pin"], player)
    problem = national_id_problem(changes.get("national_id", ""), player)
    if problem:
        problems.append((None, "national_id", problem))
    return changes, problems


def _rank_problems(player: Player, changes: dict[str, Any]) -> list[tuple[Any, str, str]]:
    """The entry and national ranks the player would have that are no ranks (a player
    may have no national rank)."""
    problems: list[tuple[Any, str, str]] = []
    for name in ("entry_rank", "national_rank"):
        rank = changes.get(name, getattr(player, name))
        if not (rank is None and name == "national_rank") and not isinstance(rank, Rank):
            problems.append(
                (
                    None,
                    name,
                    _("%(rank)s is not a rank (50k to 9d, 1p to 9p)") % {"rank": repr(rank)},
                )
            )
    return problems


def _locked_player(pk: int) -> Player:
    """The player, locked until the transaction ends; an erased record is refused."""
    # Only the player's row is locked: PostgreSQL cannot lock the nullable side of
    # the outer join to the club.
    player = Player.objects.select_for_update(of=("self",)).select_related("club").get(pk=pk)
    if player.erased_at is not None:
        raise ServiceError(
            _("%(username)s's record was erased: it cannot be changed")
            % {"username": player.username}
        )
    return player


def _set_changes(player: Player, changes: dict[str, Any]) -> None:
    """Set ``changes`` on the (unsaved) player, the full name and the two names kept in
    step; a name too long for its column is refused (nothing is written yet: leaving
    the transaction writes nothing)."""
    for name, value in changes.items():
        setattr(player, name, value)
    player.sync_names()  # the full name follows the two names (or splits into them)
    too_long = player.name_length_problems()
    if too_long:
        raise ServiceError(
            not_changed(player),
            [(None, field, message) for field, message in too_long],
        )


def players_create(*, user, players: Sequence[Player], summary: str) -> list[Player]:
    """Store new players at once (an import brings hundreds), each audited as
    :func:`player_create` audits one; the national rank defaults to the entry rank.
    Refuses them all if a username is taken. Call inside the caller's transaction."""
    usernames = [player.username for player in players]
    taken = sorted(Player.objects.filter(username__in=usernames).values_list("username", flat=True))
    if taken:
        raise ServiceError(
            ngettext(
                "the username %(usernames)s is taken",
                "the usernames %(usernames)s are taken",
                len(taken),
            )
            % {"usernames": ", ".join(taken)},
            [
                (None, "username", _("'%(username)s' is already taken") % {"username": username})
                for username in taken
            ],
        )
    for player in players:
        if player.national_rank is None:
            player.national_rank = player.entry_rank
    created = Player.objects.bulk_create(players, batch_size=1000)
    AuditEntry.objects.bulk_create(
        [
            audit_entry(
                user, "player_create", player, after=player_snapshot(player), summary=summary
            )
            for player in created
        ],
        batch_size=1000,
    )
    return created


def player_merge(*, user, keep: Player, duplicate: Player, note: str = "") -> Player:
    """Move the duplicate record's games, adjustments and lines in imported tournament
    files (``TournamentPlayer``) to the record to keep, and mark the duplicate inactive
    (never deleted: the audit trail refers to it).

    Refused when the two records played each other, or are both on the players' list of
    one imported tournament: then they are two people (a file lists each player once;
    two lines of one file cannot become one without choosing whose number, place and
    figures stand, and the other players' rounds name both numbers). Void games
    between them stay with the duplicate (they count for nothing and a game cannot have
    the same player on both sides). The record kept takes the duplicate's declared GoR
    when the duplicate played first: the EGF algorithms start a player at the GoR of
    their earliest tournament file, as an import sets it. The ratings are marked dirty
    from the earliest game or adjustment of either record, so the replay starts before
    both and rewrites every history row of the duplicate.
    """
    if keep.pk == duplicate.pk:
        message = _("choose two different records: this is the record to keep")
        raise ServiceError(message, [(None, "duplicate", message)])
    check_player_scope(user, COMMITTEE, keep)
    check_player_scope(user, COMMITTEE, duplicate)
    with transaction.atomic():
        keep, duplicate = _lock_pair(keep, duplicate)
        _refuse_two_people(keep, duplicate)
        keep_first, duplicate_first = earliest_entry([keep]), earliest_entry([duplicate])
        earliest = min(
            (day for day in (keep_first, duplicate_first) if day is not None), default=None
        )
        moved = _move_records(user, keep, duplicate)
        if (
            duplicate.declared_rating is not None
            and duplicate_first is not None
            and (keep_first is None or duplicate_first < keep_first)
            and keep.declared_rating != duplicate.declared_rating
        ):
            _take_declared_rating(user, keep, duplicate)
        _retire_duplicate(user, keep, duplicate, moved, note)
        refresh_last_updated([keep, duplicate])
        refresh_tournament_counts(game.tournament_id for game in moved.games)
        announce_club_games(players=[keep, duplicate])
        refresh_entry_ranks([keep, duplicate])  # both replay from the earliest anyway
        if earliest is not None and (moved.games or moved.adjustments):
            mark_dirty(
                [Touch(earliest)] + [Touch(game.date, game.tournament_id) for game in moved.games]
            )
    keep.refresh_from_db()
    return keep


def _lock_pair(keep: Player, duplicate: Player) -> tuple[Player, Player]:
    """Both records, locked in a fixed order, so that two merges of the same records
    (either way round) cannot both pass the checks."""
    locked = {
        p.pk: p
        for p in Player.objects.select_for_update()
        .filter(pk__in=[keep.pk, duplicate.pk])
        .order_by("pk")
    }
    return locked[keep.pk], locked[duplicate.pk]


def _refuse_two_people(keep: Player, duplicate: Player) -> None:
    """Raise a ServiceError when the record to keep is inactive, or when the two played
    each other or are both listed by one imported tournament (two people)."""
    if not keep.active:
        message = _("%(username)s is inactive: keep an active record") % {"username": keep.username}
        raise ServiceError(message, [(None, "keep", message)])
    between = Game.objects.valid().filter(
        Q(white=keep, black=duplicate) | Q(white=duplicate, black=keep)
    )
    played = between.aggregate(count=Count("pk"), first=Min("date"))
    if played["count"]:
        message = ngettext(
            "%(keep)s and %(duplicate)s played each other (%(count)s game, the first "
            "on %(first)s): they are two people, not two records of one person",
            "%(keep)s and %(duplicate)s played each other (%(count)s games, the first "
            "on %(first)s): they are two people, not two records of one person",
            played["count"],
        ) % {
            "keep": keep.username,
            "duplicate": duplicate.username,
            "count": played["count"],
            "first": played["first"],
        }
        raise ServiceError(message, [(None, "duplicate", message)])
    both_listed = tournaments_listing_both(keep, duplicate)
    if both_listed:
        message = ngettext(
            "%(keep)s and %(duplicate)s are both players of the imported tournament "
            "%(tournaments)s: a tournament file lists each player once, so they are two "
            "people, not two records of one person",
            "%(keep)s and %(duplicate)s are both players of the imported tournaments "
            "%(tournaments)s: a tournament file lists each player once, so they are two "
            "people, not two records of one person",
            len(both_listed),
        ) % {
            "keep": keep.username,
            "duplicate": duplicate.username,
            "tournaments": ", ".join(both_listed),
        }
        raise ServiceError(message, [(None, "duplicate", message)])


@dataclass(frozen=True)
class _Moved:
    """What a merge moved from the duplicate to the record kept."""

    games: list[Game]
    before: dict[int, dict]  # each moved game's snapshot before the move, by pk
    adjustments: list[Adjustment]
    entries: list


def _move_records(user, keep: Player, duplicate: Player) -> _Moved:
    """Move the duplicate's games (but those against the record kept: void ones),
    adjustments and tournament files' lines to the record kept, each game and line
    audited."""
    moved_games = list(
        Game.objects.select_related("white", "black", "tournament")
        .filter(Q(white=duplicate) | Q(black=duplicate))
        .exclude(Q(white=keep) | Q(black=keep))
    )
    before = {game.pk: game_snapshot(game) for game in moved_games}
    Game.objects.filter(pk__in=before, white=duplicate).update(white=keep, version=F("version") + 1)
    Game.objects.filter(pk__in=before, black=duplicate).update(black=keep, version=F("version") + 1)
    moved_adjustments = list(Adjustment.objects.filter(player=duplicate).order_by("seq"))
    Adjustment.objects.filter(player=duplicate).update(player=keep, version=F("version") + 1)
    # The file's line (number, place, rounds, declared rank and GoR) goes with the
    # games it describes: else the tournament lists the person twice, the line with
    # no games and the record kept after the file's players.
    moved_entries = list(
        duplicate.tournament_entries.select_related("tournament").order_by(
            "tournament__start_date", "tournament__code"
        )
    )
    duplicate.tournament_entries.update(player=keep)
    games_after = Game.objects.select_related("white", "black", "tournament").filter(pk__in=before)
    AuditEntry.objects.bulk_create(
        [
            AuditEntry(
                user=user,
                action="game_reassign",
                object_type="game",
                object_id=str(game.pk),
                summary=Message(
                    sentences.MERGED_INTO, duplicate=duplicate.username, keep=keep.username
                ),
                before=before[game.pk],
                after=game_snapshot(game),
            )
            for game in games_after
        ]
        + [
            audit_entry(
                user,
                "tournament_entry_reassign",
                entry,
                before=_entry_snapshot(entry, duplicate),
                after=_entry_snapshot(entry, keep),
                summary=Message(
                    sentences.MERGED_INTO, duplicate=duplicate.username, keep=keep.username
                ),
            )
            for entry in moved_entries
        ]
    )
    return _Moved(moved_games, before, moved_adjustments, moved_entries)


def _take_declared_rating(user, keep: Player, duplicate: Player) -> None:
    """The record kept takes the declared GoR of the duplicate, who played first."""
    keep_before = player_snapshot(keep)
    keep.declared_rating = duplicate.declared_rating
    keep.save(update_fields=["declared_rating"])
    audit(
        user,
        "player_update",
        keep,
        before=keep_before,
        after=player_snapshot(keep),
        summary=Message(
            sentences.DECLARED_RATING_TAKEN, keep=keep.username, duplicate=duplicate.username
        ),
    )


def _retire_duplicate(user, keep: Player, duplicate: Player, moved: _Moved, note: str) -> None:
    """Mark the duplicate inactive and merged (its login follows to the record kept if
    that has none), and audit the merge."""
    duplicate_before = player_snapshot(duplicate)
    duplicate.active = False
    duplicate.merged_into = keep
    duplicate.save(update_fields=["active", "merged_into"])
    if duplicate.account_id is not None and keep.account_id is None:
        # The player's own login follows their games to the record kept.
        account = duplicate.account
        duplicate.account = None
        duplicate.save(update_fields=["account"])
        link(user, account, keep)
    summary = Message(sentences.MERGED_INTO, duplicate=duplicate.username, keep=keep.username)
    details = {
        "kept": keep.username,
        "duplicate": duplicate.username,
        "games": sorted(moved.before),
        "adjustments": [adjustment.seq for adjustment in moved.adjustments],
        "tournament_entries": [entry.tournament.code for entry in moved.entries],
        "note": note,
    }
    audit(user, "player_merge", keep, after=details, summary=summary)
    audit(
        user,
        "player_deactivate",
        duplicate,
        before=duplicate_before,
        after=player_snapshot(duplicate) | {"merged_into": keep.username, "note": note},
        summary=summary,
    )


def _entry_snapshot(entry: TournamentPlayer, player: Player) -> dict[str, Any]:
    """A tournament file's line as the audit trail keeps it, on ``player``'s record."""
    return {
        "tournament": entry.tournament.code,
        "number": entry.number,
        "player": player.username,
    }
