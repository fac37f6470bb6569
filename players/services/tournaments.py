"""Writing tournaments: create, codes, counts of games and players."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Min
from django.utils.translation import gettext as _

from players import stored_sentences as sentences
from players.models import (
    Club,
    Game,
    Tournament,
)
from players.roles import COMMITTEE, VOLUNTEERS, check_club_scope
from players.services.audit import audit, audit_entry, jsonable
from players.services.base import ID_CHUNK, Problem, ServiceError, announce_club_games
from ratings.engine.messages import Message
from ratings.recompute.bulk import update_rows
from ratings.recompute.dirty import Touch, mark_dirty


def refresh_tournament_counts(tournament_ids: Iterable[int | None]) -> None:
    """Store the valid games, distinct players and first and last game dates of each
    tournament of ``tournament_ids`` (None: a game of no tournament, ignored). Two
    grouped queries per 500 tournaments: the counts and dates, then the distinct
    (tournament, player) pairs of both colours."""
    ids = sorted({pk for pk in tournament_ids if pk is not None})
    for chunk in (ids[start : start + ID_CHUNK] for start in range(0, len(ids), ID_CHUNK)):
        games = Game.objects.valid().filter(tournament_id__in=chunk)
        counts = {
            pk: (count, first, last)
            for pk, count, first, last in games.values_list("tournament_id")
            .annotate(count=Count("pk"), first=Min("date"), last=Max("date"))
            .order_by()
        }
        players: dict[int, int] = dict.fromkeys(chunk, 0)
        pairs = (
            games.order_by()
            .values_list("tournament_id", "white_id")
            .union(games.order_by().values_list("tournament_id", "black_id"))
        )
        for pk, _player in pairs:
            players[pk] += 1
        update_rows(
            Tournament,
            ("game_count", "player_count", "first_game", "last_game"),
            [
                (
                    counts.get(pk, (0,))[0],
                    players[pk],
                    *counts.get(pk, (0, None, None))[1:],
                    pk,
                )
                for pk in chunk
            ],
        )


# Paths under /tournaments/ that are pages, not tournaments: no code may be called so.
RESERVED_TOURNAMENT_CODES = frozenset({"new", "import"})


_TOURNAMENT_CODE_CHARACTERS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
)


def tournament_code_problem(code: str) -> str | None:
    """Why ``code`` cannot name a tournament (whether it is taken aside), or None."""
    max_length = Tournament._meta.get_field("code").max_length
    assert isinstance(max_length, int)  # the code is a CharField: it has one
    if not code or len(code) > max_length or not set(code) <= _TOURNAMENT_CODE_CHARACTERS:
        return _("'%(code)s' is not a code: letters, digits, - and _ only (at most %(max)s)") % {
            "code": code,
            "max": max_length,
        }
    if code.lower() in RESERVED_TOURNAMENT_CODES:
        return _("'%(code)s' is reserved: choose another code") % {"code": code}
    return None


def _code_taken(code: str) -> str:
    return _("the code '%(code)s' is taken") % {"code": code}


def _not_a_class(egf_class: str) -> str:
    return _("'%(class)s' is not an EGF class (A, B, C or D)") % {"class": egf_class}


def _tournament_problems(
    code: str, start_date: date | None, end_date: date | None, egf_class: str
) -> list[Problem]:
    """What refuses a new tournament: its code (malformed or taken), its class, its
    dates (an end before the start, an end without a start)."""
    problems: list[Problem] = []
    code_problem = tournament_code_problem(code)
    if code_problem:
        problems.append(Problem(None, "code", code_problem))
    elif Tournament.objects.filter(code=code).exists():
        problems.append(Problem(None, "code", _code_taken(code)))
    if egf_class not in Tournament.EgfClass.values:
        problems.append(Problem(None, "egf_class", _not_a_class(egf_class)))
    if start_date and end_date and end_date < start_date:
        problems.append(
            Problem(
                None,
                "end_date",
                _("the end %(end)s is before the start %(start)s")
                % {"end": end_date, "start": start_date},
            )
        )
    if end_date and not start_date:
        problems.append(
            Problem(None, "start_date", _("a tournament with an end date needs a start date"))
        )
    return problems


def tournament_create(
    *,
    user,
    code: str,
    name: str,
    start_date: date | None = None,
    end_date: date | None = None,
    egf_class: str = Tournament.EgfClass.A,
    club: Club | None = None,
    summary: str = "",
) -> Tournament:
    """A new tournament, so that sheets and imports can name its code, held by ``club``
    (None: the federation's; a club's volunteers create their own club's only: its
    imported games are then the club's to correct and void). ``summary`` says where it
    came from in the audit trail (default: its code)."""
    check_club_scope(user, VOLUNTEERS, club.pk if club else None, _("a tournament of this club"))
    problems = _tournament_problems(code, start_date, end_date, egf_class)
    if problems:
        raise ServiceError(_("the tournament was not added"), problems)
    try:
        # The unique code settles a race with another volunteer adding the same code.
        with transaction.atomic():
            tournament = Tournament.objects.create(
                code=code,
                name=name,
                start_date=start_date,
                end_date=end_date,
                egf_class=egf_class,
                club=club,
            )
            audit(
                user,
                "tournament_create",
                tournament,
                after={
                    "code": code,
                    "name": name,
                    "start_date": jsonable(start_date),
                    "end_date": jsonable(end_date),
                    "egf_class": egf_class,
                    "club": club.name if club else None,
                },
                summary=summary or code,
            )
    except IntegrityError:
        raise ServiceError(
            _("the tournament was not added"), [(None, "code", _code_taken(code))]
        ) from None
    return tournament


def tournament_class_set(*, user, tournament: Tournament, egf_class: str, reason: str) -> bool:
    """Correct a tournament's EGF class (a committee decision: the class weighs every
    change of its games in the EGF algorithms), audited with ``reason``; the EGF
    algorithms are recomputed from the tournament's first game. False when the class
    was already ``egf_class`` (nothing written)."""
    if egf_class not in Tournament.EgfClass.values:
        raise ServiceError(
            _("the class was not changed"), [(None, "egf_class", _not_a_class(egf_class))]
        )
    if not reason.strip():
        raise ServiceError(
            _("the class was not changed"), [(None, "reason", _("say why the class is corrected"))]
        )
    # imported here: adjustments imports games, which imports this module
    from players.services.adjustments import egf_algorithms

    with transaction.atomic():
        # Locked: two corrections at once would each audit the other's "before".
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if locked.egf_class == egf_class:
            return False
        before = locked.egf_class
        locked.egf_class = egf_class
        locked.save(update_fields=["egf_class"])
        audit(
            user,
            "tournament_class",
            locked,
            before={"egf_class": before},
            after={"egf_class": egf_class},
            summary=Message(
                sentences.CLASS_CORRECTED,
                tournament=locked.code,
                before=before,
                after=egf_class,
                reason=reason.strip(),
            ),
        )
        first = locked.first_game or locked.start_date
        if first is not None:
            mark_dirty([Touch(first, locked.pk, algorithm) for algorithm in egf_algorithms()])
    tournament.egf_class = egf_class
    return True


def tournament_club_set(*, user, tournament: Tournament, club: Club | None) -> bool:
    """Give ``tournament`` to ``club`` (None: the federation's) with the games that are
    its club's because they are its games: those of no record sheet (an imported
    file's, as an import and migration players 0017 give them). A game entered on a
    record sheet stays its sheet's club's, as it was entered. One transaction; audited
    once for each club concerned, so that each one's committee reads it in its audit.
    False when the tournament was ``club``'s already (nothing written). Only the roles
    of both clubs (or the federation's) may do it."""
    new_club_id = club.pk if club is not None else None
    with transaction.atomic():
        # Locked: an import adding games to it takes its club from this row.
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        old_club_id = locked.club_id
        if old_club_id == new_club_id:
            return False
        what = _("the tournament %(code)s") % {"code": locked.code}
        check_club_scope(user, COMMITTEE, old_club_id, what)
        check_club_scope(user, COMMITTEE, new_club_id, _("a tournament of this club"))
        names: dict[int | None, str | None] = {None: None}
        names.update(
            Club.objects.filter(pk__in=[old_club_id, new_club_id]).values_list("pk", "name")
        )
        locked.club_id = new_club_id
        locked.save(update_fields=["club"])
        moved = Game.objects.filter(tournament=locked, record_sheet__isnull=True).update(
            club_id=new_club_id
        )
        before = {"club": names[old_club_id]}
        after = {"club": names[new_club_id], "games": moved}
        summary = Message(
            sentences.TOURNAMENT_CLUB,
            tournament=locked.code,
            before=names[old_club_id] or sentences.NO_CLUB,
            after=names[new_club_id] or sentences.NO_CLUB,
            games=moved,
        )
        audit(user, "tournament_club", locked, before=before, after=after, summary=summary)
        if old_club_id is not None:
            entry = audit_entry(
                user, "tournament_club", locked, before=before, after=after, summary=summary
            )
            entry.club_id = old_club_id  # the club it left reads it too
            entry.save(force_insert=True)
        announce_club_games(clubs=[old_club_id, new_club_id])
    tournament.club_id = new_club_id
    return True
