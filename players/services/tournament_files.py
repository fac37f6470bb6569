from __future__ import annotations

import dataclasses
import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.db.models import Min
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from players import stored_sentences as sentences
from players.models import Club, Game, Player, Tournament, TournamentPlayer
from players.resync import name_key
from players.roles import VOLUNTEERS, check_club_scope
from players.services.audit import audit, player_snapshot
from players.services.base import ServiceError
from players.services.games import accepted_game_dates, game_date_problem
from players.services.imports import ImportResult, game_input, games_import, import_duplicates
from players.services.players import players_create
from players.services.tournaments import tournament_create
from players.translated import translated
from ratings.engine.formats import (
    FilePlayer,
    TournamentFile,
    TournamentInfo,
    declared_rating,
    rating_not_declared,
)
from ratings.engine.formats.ranklists import looks_binary
from ratings.engine.messages import Message
from ratings.engine.records import GameRecord

if TYPE_CHECKING:
    from django.contrib.auth.models import User

NOT_A_TOURNAMENT_FILE = gettext_lazy(
    "This is not a tournament file (it holds binary data): upload an EGD tournament "
    "result file (h9, h4…) or an OpenGotha XML file, as text."
)
EMPTY_TOURNAMENT_FILE = gettext_lazy("The file is empty: there is no tournament in it.")
UTF16_TOURNAMENT_FILE = gettext_lazy(
    "The file is saved as UTF-16: save it as UTF-8 (or ISO-8859-15, as OpenGotha writes "
    "h-files) and import it again."
)


def tournament_file_problem(data: bytes) -> str | None:
    """Why ``data`` cannot be a tournament file at all (empty, UTF-16, binary), or None.
    Said before reading: the h-file reader would list every line of noise as an error."""
    if not data.strip(b"\xef\xbb\xbf \t\r\n\f\v"):
        return str(EMPTY_TOURNAMENT_FILE)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return str(UTF16_TOURNAMENT_FILE)
    if looks_binary(data[:4096].decode("latin-1")):
        return str(NOT_A_TOURNAMENT_FILE)
    return None


@dataclass(frozen=True)
class PlayerMatch:
    """A player of the file and who they are on the site. ``how`` says why they matched
    ("EGD PIN", "national id", "username", "name", "--map"); a new player has no ``player``.
    ``conflict`` says why this match stops the import (the plan's problems say it with
    the line); ``namesakes`` are other active players with the same full name; ``notes``
    say what the file tells of a matched player that the import does not store as the
    file has it (an EGD PIN that contradicts the one on file)."""

    file_player: FilePlayer
    username: str
    player: Player | None = None
    how: str = ""
    conflict: str = ""
    namesakes: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def is_new(self) -> bool:
        return self.player is None


@dataclass
class ImportPlan:
    """What storing a tournament file would do. ``problems`` stop it."""

    file: TournamentFile
    matches: list[PlayerMatch]
    problems: list[str]
    tournament: Tournament | None  # already on file under the file's code
    games_on_file: int = 0  # of that tournament: then the file cannot be stored under it

    @property
    def new_players(self) -> list[PlayerMatch]:
        return [match for match in self.matches if match.is_new]

    @property
    def matched_players(self) -> list[PlayerMatch]:
        return [match for match in self.matches if not match.is_new]

    def records(self) -> list[GameRecord]:
        """The file's games under the site's usernames."""
        username = {match.file_player.username: match.username for match in self.matches}
        return [
            dataclasses.replace(record, white=username[record.white], black=username[record.black])
            for record in self.file.records
        ]

    def fingerprint(self) -> str:
        """A digest of what storing would do: the tournament, who each player is, the
        games. A confirmation is for the plan it was shown, not for a later one."""
        info = self.file.tournament
        parts = [
            repr((info.code, info.name, info.start, info.end, info.tournament_class)),
            repr(self.tournament.pk if self.tournament else None),
            *(repr((m.file_player.number, m.username, m.is_new)) for m in self.matches),
            *(
                repr((r.date, r.round, r.white, r.black, r.winner, r.handicap, r.komi))
                for r in self.file.records
            ),
        ]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:20]


def _differs(pin: str, player: Player, national_id: str = "") -> bool:
    """Two different EGD PINs, or national ids: two different people, whatever their
    names."""
    return bool(pin and player.egd_pin and pin != player.egd_pin) or bool(
        national_id and player.national_id and national_id != player.national_id
    )


def _pin_notes(file_player: FilePlayer, player: Player | None) -> tuple[str, ...]:
    """What the preview says of a matched player's EGD PIN: the file's, gained when
    they have none; when it contradicts the one on file (a ``--map`` may name a player
    whose PIN differs), the site's is kept, never overwritten by a file."""
    pin = file_player.pin
    if player is None or not pin or pin == player.egd_pin:
        return ()
    if not player.egd_pin:
        return (_("gains the file's EGD PIN %(pin)s") % {"pin": pin},)
    return (
        _(
            "the file's EGD PIN %(pin)s is not the one on file (%(on_file)s): %(on_file)s "
            "is kept; correct the player's record if the file is right"
        )
        % {"pin": pin, "on_file": player.egd_pin},
    )


def _rating_notes(file_player: FilePlayer) -> tuple[str, ...]:
    """What the preview says of a rating the file gives that is no declared GoR (the
    player starts from their rank)."""
    reason = rating_not_declared(file_player)
    return (
        (_("%(reason)s; starts from the rank") % {"reason": translated(reason)},) if reason else ()
    )


class _Matcher:
    def __init__(self, mapping: Mapping[str, str], new_usernames: Mapping[str, str]) -> None:
        self.mapping = dict(mapping)
        self.new_usernames = dict(new_usernames)
        self.active = list(Player.objects.filter(active=True).select_related("club"))
        self.by_pin: dict[str, list[Player]] = defaultdict(list)
        self.by_name: dict[str, list[Player]] = defaultdict(list)
        for player in self.active:
            if player.egd_pin:
                self.by_pin[player.egd_pin].append(player)
            self.by_name[name_key(player.full_name)].append(player)
        self.by_username = {player.username: player for player in self.active}
        self.by_national_id = {p.national_id: p for p in self.active if p.national_id}
        on_site = set(Player.objects.values_list("username", flat=True))
        self.on_site = {username.lower() for username in on_site}
        # Chosen new usernames are reserved first, so no suggestion takes one of them.
        self.taken = on_site | set(self.new_usernames.values())
        self.chosen: dict[str, FilePlayer] = {}
        self.problems: list[str] = []

    def _conflict(self, match: PlayerMatch, reason: str, hint: str = "") -> PlayerMatch:
        values = {
            "name": match.file_player.full_name,
            "line": match.file_player.line,
            "reason": reason,
            "hint": hint,
        }
        if hint:
            self.problems.append(_("%(name)s (line %(line)s): %(reason)s; %(hint)s") % values)
        else:
            self.problems.append(_("%(name)s (line %(line)s): %(reason)s") % values)
        return dataclasses.replace(match, conflict=reason)

    def _namesakes(self, file_player: FilePlayer, username: str) -> tuple[str, ...]:
        same_name = self.by_name.get(name_key(file_player.full_name), [])
        return tuple(sorted(p.username for p in same_name if p.username != username))

    def match(self, file_player: FilePlayer) -> PlayerMatch:
        found = self._match(file_player)
        return dataclasses.replace(
            found,
            namesakes=self._namesakes(file_player, found.username),
            notes=_pin_notes(file_player, found.player) + _rating_notes(file_player),
        )

    def _match(self, file_player: FilePlayer) -> PlayerMatch:
        pin = file_player.pin
        if file_player.username in self.mapping:
            target = self.mapping.pop(file_player.username)
            player = self.by_username.get(target)
            if player is None:
                return self._conflict(
                    PlayerMatch(file_player, target),
                    _("--map names '%(username)s', no active player") % {"username": target},
                )
            return PlayerMatch(file_player, player.username, player, "--map")
        if file_player.username in self.new_usernames:
            return self._new_by_choice(file_player, self.new_usernames.pop(file_player.username))
        if pin and self.by_pin.get(pin):
            holders = self.by_pin[pin]
            match = PlayerMatch(file_player, holders[0].username, holders[0], "EGD PIN")
            if len(holders) > 1:
                names = ", ".join(sorted(p.username for p in holders))
                return self._conflict(
                    match, _("EGD PIN %(pin)s belongs to %(names)s") % {"pin": pin, "names": names}
                )
            return match
        national_id = file_player.national_id
        player = self.by_national_id.get(national_id) if national_id else None
        if player is not None and not _differs(pin, player):
            return PlayerMatch(file_player, player.username, player, "national id")
        player = self.by_username.get(file_player.username)
        if player is not None and not _differs(pin, player, national_id):
            return PlayerMatch(file_player, player.username, player, "username")
        namesakes = [
            p
            for p in self.by_name.get(name_key(file_player.full_name), [])
            if not _differs(pin, p, national_id)
        ]
        if namesakes:
            match = PlayerMatch(file_player, namesakes[0].username, namesakes[0], "name")
            if len(namesakes) > 1:
                names = ", ".join(sorted(p.username for p in namesakes))
                return self._conflict(
                    match,
                    _("several players have this name (%(names)s)") % {"names": names},
                    _("give the right one with --map %(username)s=USERNAME")
                    % {"username": file_player.username},
                )
            return match
        return PlayerMatch(file_player, self.new_username(file_player.username))

    def _new_by_choice(self, file_player: FilePlayer, username: str) -> PlayerMatch:
        """A new player under the username the user chose for them."""
        match = PlayerMatch(file_player, username)
        if username.lower() in self.on_site:
            return self._conflict(
                match, _("the username '%(username)s' is taken") % {"username": username}
            )
        other = self.chosen.setdefault(username, file_player)
        if other is not file_player:
            return self._conflict(
                match,
                _("the username '%(username)s' is also chosen for line %(line)s")
                % {"username": username, "line": other.line},
            )
        holders = self.by_pin.get(file_player.pin, []) if file_player.pin else []
        if holders:
            return self._conflict(
                match,
                _("EGD PIN %(pin)s is already %(username)s's: one person, one record")
                % {"pin": file_player.pin, "username": holders[0].username},
            )
        return match

    def new_username(self, suggestion: str) -> str:
        username, suffix = suggestion, 2
        while username in self.taken:
            username = f"{suggestion}-{suffix}"
            suffix += 1
        self.taken.add(username)
        return username


def plan_tournament_import(
    file: TournamentFile,
    mapping: Mapping[str, str] | None = None,
    new_usernames: Mapping[str, str] | None = None,
) -> ImportPlan:
    """Match the file's players to the site's players and say what importing would do.

    A player matches, in this order: the one named by ``mapping`` (file username ->
    site username), the active player with their EGD PIN, the active player with their
    national id (OpenGotha's agaId), the active player with their suggested username,
    the one active player with their full name (case and spacing aside). A username or
    name match is refused when both have EGD PINs, or national ids, that differ.
    Everyone else is a new player under their suggested username (``-2``... if taken),
    or under the one ``new_usernames`` (file username -> new username) gives them.
    """
    matcher = _Matcher(mapping or {}, new_usernames or {})
    matches = [matcher.match(file_player) for file_player in file.players]
    problems = matcher.problems
    problems += [
        _("--map %(name)s=...: the file has no player suggested as '%(name)s'") % {"name": name}
        for name in [*matcher.mapping, *matcher.new_usernames]
    ]
    claimed: dict[int, list[int]] = defaultdict(list)
    for index, match in enumerate(matches):
        if match.player is not None:
            claimed[match.player.pk].append(index)
    for indexes in claimed.values():
        if len(indexes) > 1:
            username = matches[indexes[0]].username
            lines = ", ".join(str(matches[index].file_player.line) for index in indexes)
            values = {"lines": lines, "username": username}
            problems.append(
                _("lines %(lines)s all match %(username)s: give the others with --map") % values
            )
            for index in indexes:
                matches[index] = dataclasses.replace(
                    matches[index], conflict=_("lines %(lines)s all match %(username)s") % values
                )
    date_problem = tournament_dates_problem(file)
    if date_problem:
        problems.append(date_problem)
    code = file.tournament.code
    tournament = Tournament.objects.filter(code=code).first()
    games_on_file = tournament.games.count() if tournament is not None else 0
    if games_on_file:
        problems.append(
            ngettext(
                "the tournament '%(code)s' is already on file with %(count)s game (import "
                "under another code with --code)",
                "the tournament '%(code)s' is already on file with %(count)s games (import "
                "under another code with --code)",
                games_on_file,
            )
            % {"code": code, "count": number_format(games_on_file, force_grouping=True)}
        )
    return ImportPlan(file, matches, problems, tournament, games_on_file)


_WHERE_THE_DATES_ARE = {
    "egd": gettext_lazy("its DT header"),
    "opengotha": gettext_lazy("the OpenGotha dates (beginDate, endDate)"),
}


def tournament_dates_problem(file: TournamentFile, today: date | None = None) -> str | None:
    """Why the file's dates cannot be its games' (``game_date_problem``, the rule of a
    game's date on every form and import), said once for the file: its games take their
    dates from the tournament's, so every game would fail alike. None if they can."""
    info = file.tournament
    days = [info.start, info.end, *(record.date for record in file.records)]
    problem = next(
        (found for day in (min(days), max(days)) if (found := game_date_problem(day, today))),
        None,
    )
    if problem is None:
        return None
    where = _WHERE_THE_DATES_ARE.get(info.file_format) or _("its dates")
    return _(
        "the file is dated %(start)s to %(end)s (%(where)s): %(problem)s; a tournament is "
        "accepted %(accepted)s: correct the file's dates and import it again"
    ) % {
        "start": info.start,
        "end": info.end,
        "where": where,
        "problem": problem,
        "accepted": accepted_game_dates(today),
    }


def plan_duplicates(plan: ImportPlan) -> list[str]:
    """The file's games that look like games already on file (or like each other), as
    :func:`tournament_import` would refuse them: shown in the preview, before the
    import is confirmed, with the same sentences (so that "import anyway" ticked there
    confirms them). A new player has no stored game: stand-ins with ids no stored
    player has, so that only a game listed twice in the file can match theirs."""
    players: dict[str, Player] = {
        match.username: match.player for match in plan.matched_players if match.player
    }
    for index, match in enumerate(plan.new_players, start=1):
        players[match.username] = Player(pk=-index, username=match.username)
    return import_duplicates(
        [(record, game_input(record, players, {})) for record in plan.records()]
    )


def games_of_the_tournament_on_file(plan: ImportPlan, duplicates: Sequence[str]) -> int:
    """How many of ``duplicates`` (:func:`plan_duplicates`) are games of the tournament
    already on file under the file's code: all the file's games, and the file was simply
    imported before (one query)."""
    ids = [game_id for warning in duplicates if (game_id := getattr(warning, "game_id", None))]
    if plan.tournament is None or not ids:
        return 0
    return plan.tournament.games.filter(pk__in=ids).count()


def tournament_import(
    *,
    user,
    plan: ImportPlan,
    allow_duplicates: bool = False,
    dry_run: bool = False,
    source: str = "",
    club: Club | None = None,
) -> ImportResult:
    """Store a planned import at once: the tournament (unless already on file), the new
    players (from the file's name, rank and EGD PIN) and the games; all or nothing.
    A new tournament is ``club``'s (None: the federation's), and so are its games: the
    club's volunteers correct and void them. Games added to a tournament on file are
    its club's, and only its club's volunteers (or the federation's) add them.
    Raises ``ServiceError`` (nothing stored) if the plan has problems or a game is
    refused."""
    if plan.problems:
        raise ServiceError(
            _("the file cannot be imported as it is; nothing was stored"),
            [(None, "", problem) for problem in plan.problems],
        )
    try:
        with transaction.atomic():
            tournament, new_tournaments = _file_tournament(user, plan, club, source)
            _keep_file_details(tournament, plan.file.tournament)
            players = _file_players(user, plan, source)
            result = games_import(
                user=user,
                records=plan.records(),
                allow_duplicates=allow_duplicates,
                source=source,
                club_id=tournament.club_id,
            )
            _store_entrants(tournament, plan, players)
            if dry_run:
                transaction.set_rollback(True)
    except IntegrityError:
        # Someone stored the tournament or one of the new usernames since the plan was made.
        raise ServiceError(
            _(
                "the tournament or a new player was stored by someone else meanwhile; nothing "
                "was stored: look at the plan again"
            )
        ) from None
    return ImportResult(
        games=result.games,
        adjustments=0,
        new_players=[match.username for match in plan.new_players],
        new_tournaments=new_tournaments,
    )


def _file_tournament(
    user: User, plan: ImportPlan, club: Club | None, source: str
) -> tuple[Tournament, list[str]]:
    """The tournament the file's games go to, and the codes of the tournaments created
    for it: the one on file under the file's code (its club's volunteers, or the
    federation's, add games to it), else a new one of ``club``'s."""
    tournament = plan.tournament
    if tournament is not None:
        check_club_scope(
            user,
            VOLUNTEERS,
            tournament.club_id,
            _("the tournament %(code)s") % {"code": tournament.code},
        )
        return tournament, []
    info = plan.file.tournament
    tournament = tournament_create(
        user=user,
        code=info.code,
        name=info.name[:200],
        start_date=info.start,
        end_date=info.end,
        egf_class=info.tournament_class,
        club=club,
        summary=Message(sentences.IMPORT, source=source),
    )
    return tournament, [tournament.code]


def _file_players(user: User, plan: ImportPlan, source: str) -> dict[int, Player]:
    """Every player of the file on the site, by their number in the file: the new ones
    created, the matched ones given what the file tells that they lack. The free
    national ids and PINs are read before the new players take theirs."""
    free_ids = _free_national_ids(plan)
    free_pins = _free_pins(plan)
    created = players_create(
        user=user,
        players=[_new_player(match, free_ids) for match in plan.new_players],
        summary=Message(sentences.IMPORT, source=source),
    )
    players = {
        match.file_player.number: player
        for match, player in zip(plan.new_players, created, strict=True)
    }
    _fill_matched_players(user, plan, plan.file.tournament, free_ids, free_pins)
    for player, file_player in _matched(plan):
        players[file_player.number] = player
    return players


def _new_player(match: PlayerMatch, free_ids: Mapping[int, str]) -> Player:
    """A player new to the site, unsaved, as the file gives them."""
    file_player = match.file_player
    return Player(
        username=match.username,
        full_name=file_player.full_name[:200] or match.username,
        family_name=file_player.surname[:150],
        given_name=file_player.given_name[:150],
        country=_country(file_player.country),
        federation_club=file_player.club[:50],
        declared_rating=_rating(file_player),
        entry_rank=file_player.rank,
        egd_pin=file_player.pin,
        national_id=free_ids.get(file_player.number, ""),
    )


def _country(text: str) -> str:
    """An ISO 3166 two-letter code, as the files give it (some old files write UK)."""
    text = text.strip().upper()
    return text if len(text) == 2 and text.isascii() and text.isalpha() else ""


def _rating(file_player: FilePlayer) -> int | None:
    rating = declared_rating(file_player)
    return int(rating) if rating is not None else None


def _keep_file_details(tournament: Tournament, info: TournamentInfo) -> None:
    """What the file says of the tournament besides its dates and class: the EGD header
    (PC, HA, TM, CM) and where its standings come from, to show and write back."""
    tournament.location = info.place[:200]
    tournament.handicap_rule = info.handicap_rule[:50]
    tournament.adjusted_time = info.time[:50]
    tournament.file_comment = info.comment[:500]
    tournament.time_control = dict(info.time_control)
    tournament.standings = info.file_format
    tournament.score_names = list(info.score_names)
    tournament.mcmahon = [list(pair) for pair in info.mcmahon]
    tournament.after_round_names = list(info.after_round_names)
    tournament.save(
        update_fields=[
            "location",
            "handicap_rule",
            "adjusted_time",
            "file_comment",
            "time_control",
            "standings",
            "score_names",
            "mcmahon",
            "after_round_names",
        ]
    )


def _free_national_ids(plan: ImportPlan) -> dict[int, str]:
    """The file's national ids (AGA IDs) no player on file holds, by the number of the
    file's player they are to go to. An id the file gives twice goes to neither: one
    id, one person."""
    return _unheld(plan.matches, "national_id", "national_id")


def _free_pins(plan: ImportPlan) -> dict[int, str]:
    """The EGD PINs the file gives its matched players that no player on file holds,
    likewise. A player matched by name (or username, national id, ``--map``) without a
    PIN gains the file's: an earlier file that had none never makes a later one lose it."""
    return _unheld(plan.matched_players, "pin", "egd_pin")


def _unheld(matches: list[PlayerMatch], attribute: str, field: str) -> dict[int, str]:
    """Each file player's identifier (``attribute`` of the file player) that no player
    holds in ``field`` and that the file gives no one else, by the file player's number
    (one query)."""
    given: dict[str, list[int]] = defaultdict(list)
    for match in matches:
        if value := getattr(match.file_player, attribute):
            given[value].append(match.file_player.number)
    held = set(Player.objects.filter(**{f"{field}__in": list(given)}).values_list(field, flat=True))
    return {
        numbers[0]: value
        for value, numbers in given.items()
        if len(numbers) == 1 and value not in held
    }


def _fill_matched_players(
    user,
    plan: ImportPlan,
    info: TournamentInfo,
    free_ids: Mapping[int, str],
    free_pins: Mapping[int, str],
) -> None:
    """Players already on file get the EGD PIN, country, club and national id the file
    gives when they have none (a PIN or id no one else holds: ``free_pins``,
    ``free_ids``), and its declared GoR when this tournament is their earliest on file
    (a GoR starts a player new to the EGF algorithms: the one of their first
    tournament). A PIN or id on file is never overwritten (the preview says when the
    file's differs)."""
    matched = _matched(plan)
    earliest = _earliest_games([player.pk for player, _file_player in matched])
    for player, file_player in matched:
        before = player_snapshot(player)
        changed = []
        country = _country(file_player.country)
        if country and not player.country:
            player.country = country
            changed.append("country")
        if file_player.club and not player.federation_club:
            player.federation_club = file_player.club[:50]
            changed.append("federation_club")
        pin = free_pins.get(file_player.number, "")
        if pin and not player.egd_pin:
            player.egd_pin = pin
            changed.append("egd_pin")
        national_id = free_ids.get(file_player.number, "")
        if national_id and not player.national_id:
            player.national_id = national_id
            changed.append("national_id")
        rating = _rating(file_player)
        first = earliest.get(player.pk)
        earliest_here = first is None or info.start < first
        if rating is not None and earliest_here and player.declared_rating != rating:
            player.declared_rating = rating
            changed.append("declared_rating")
        if changed:
            player.save(update_fields=changed)
            audit(
                user,
                "player_update",
                player,
                before=before,
                after=player_snapshot(player),
                summary=Message(
                    sentences.FROM_THE_FILE, player=player.username, tournament=info.code
                ),
            )


def _matched(plan: ImportPlan) -> list[tuple[Player, FilePlayer]]:
    """The plan's players already on file, each with the file's player it matched."""
    return [(match.player, match.file_player) for match in plan.matches if match.player is not None]


def _earliest_games(player_ids: list[int]) -> dict[int, date]:
    """Each player's earliest valid game date (two grouped queries)."""
    earliest: dict[int, date] = {}
    for side in ("white", "black"):
        rows = (
            Game.objects.valid()
            .filter(**{f"{side}_id__in": player_ids})
            .values_list(f"{side}_id")
            .annotate(first=Min("date"))
        )
        for player_id, first in rows:
            if player_id not in earliest or first < earliest[player_id]:
                earliest[player_id] = first
    return earliest


def _store_entrants(tournament: Tournament, plan: ImportPlan, players: dict[int, Player]) -> None:
    """The file's players as it lists them (TournamentPlayer rows), in one query."""
    TournamentPlayer.objects.bulk_create(
        TournamentPlayer(
            tournament=tournament,
            player=players[file_player.number],
            number=file_player.number,
            place=file_player.place[:10],
            family_name=file_player.surname[:150],
            given_name=file_player.given_name[:150],
            rank=file_player.rank,
            country=_country(file_player.country),
            club=file_player.club[:50],
            rating=file_player.rating,  # as written: -900 is 30k's GoR, not a start
            egd_pin=file_player.pin[:20],
            scores=list(file_player.scores),
            results=list(file_player.results),
            after_rounds=list(file_player.after_rounds),
            mcmahon_correction=file_player.mcmahon_correction,
            file_attributes=dict(file_player.written),
        )
        for file_player in (match.file_player for match in plan.matches)
    )
