from __future__ import annotations

import dataclasses
import heapq
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from django.db.models import Q
from django.utils.translation import gettext as _

from players.models import Adjustment, Game, GameQuerySet, Player, Tournament, TournamentPlayer
from players.selectors.players import clubs_players
from players.translated import translated
from ratings.algorithms import primary_algorithm
from ratings.engine.base import Algorithm
from ratings.engine.formats import FilePlayer, TournamentFile, TournamentInfo, format_komi
from ratings.engine.formats.egd import egd_losses, place_columns, write_egd
from ratings.engine.formats.history import HISTORY_COLUMNS, history_cells
from ratings.engine.formats.opengotha import bye_token, write_opengotha
from ratings.engine.formats.ratinglists import ListedPlayer
from ratings.engine.records import COLUMNS, DEFAULT_EVEN_KOMI, GameRecord
from ratings.models import CurrentRating, RatingHistory
from ratings.selectors import (
    ADJUSTMENT_RECORD_COLUMNS,
    GAME_RECORD_COLUMNS,
    ROWS_PER_FETCH,
    history_rows,
    player_entries,
)


class NotExportable(ValueError):
    """A tournament no file can hold as it is; ``message`` says why (a read, not a
    refused write: nothing was to be stored)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def spreadsheet_safe(text: str) -> str:
    """A free-text cell a spreadsheet would run as a formula gets a leading quote
    (SPEC section 6)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def _site_player(player: Player, number: int, rank, country: str) -> FilePlayer:
    """A player of a game entered on the site, as a file lists them: their family and
    given names, country (else ``country``), club and EGD PIN."""
    return FilePlayer(
        number=number,
        surname=player.family_name or player.full_name or player.username,
        given_name=player.given_name if player.family_name else "",
        rank=rank,
        username=player.username,
        country=player.country or country,
        club=player.federation_club,
        pin=player.egd_pin,
        rating=player.declared_rating,
        national_id=player.national_id,
    )


def _entrant(
    entrant: TournamentPlayer,
    country: str,
    figures: bool = True,
    places_after: Iterable[int] = (),
) -> FilePlayer:
    """A player as the imported file listed them; without ``figures``, without the
    file's tie-breaker columns before the rounds, and of those after them only the
    ``places_after`` (their positions)."""
    after = entrant.after_rounds
    return FilePlayer(
        number=entrant.number,
        surname=entrant.family_name,
        given_name=entrant.given_name,
        rank=entrant.rank,
        username=entrant.player.username,
        country=entrant.country or country,
        club=entrant.club,
        pin=_entrant_pin(entrant),
        rating=entrant.rating,
        place=entrant.place,
        scores=tuple(entrant.scores) if figures else (),
        results=tuple(entrant.results),
        after_rounds=tuple(after)
        if figures
        else tuple(after[index] for index in places_after if index < len(after)),
        mcmahon_correction=entrant.mcmahon_correction,
        national_id=_entrant_national_id(entrant),
        written=tuple(entrant.file_attributes.items()),
    )


def _entrant_pin(entrant: TournamentPlayer) -> str:
    """The EGD PIN the file gave the entrant, unless the player's record holds another
    (then the site's, corrected since); none when the file gave none, whatever PIN the
    player gained from a later file: a tournament is written back as its file had it."""
    on_file = entrant.player.egd_pin
    if entrant.egd_pin and on_file and entrant.egd_pin != on_file:
        return on_file
    return entrant.egd_pin


def _entrant_national_id(entrant: TournamentPlayer) -> str:
    """The national id (OpenGotha's agaId) an OpenGotha file gave the entrant, by the
    same rule as the PIN; the player's for an h-file's entrant (the format has none)."""
    on_file = entrant.player.national_id
    if not entrant.file_attributes:
        return on_file
    given = entrant.file_attributes.get("agaId", "").strip()
    return on_file if given and on_file and given != on_file else given


def tournament_file(tournament: Tournament, *, country: str = "XX") -> TournamentFile:
    """A stored tournament's valid games, with their players as the file lists them.

    An imported tournament's players are the file's, in its order, with their place,
    tie-breakers, rounds as written, names, rank, country and club as the file gave them;
    a player of a game added on the site since comes after them. Once a game of the
    file was corrected or voided, the file's tie-breaker figures (points, SOS...) no
    longer describe the games: they are left out rather than written stale (the EGD
    reads the places and the rounds; the figures are the organiser's, and recomputing
    them would need the file's own criteria, which an h-file does not say). The places
    stay, in the first column and in a column after the rounds headed as one (KPMC's
    "Place"): they are the tournament's final placing, which its organisers decided and
    the EGD records, not a figure of the games (placing the players again by the site's
    points, SOS and SOSOS would misplace every McMahon tournament). A merge of a player's
    records or a comment is no change (``Game.is_corrected``). Other players have
    the rank they declared on their first game (else their entry rank), their names,
    country (else ``country``), club and EGD PIN as the site keeps them."""
    stored = list(tournament.games.select_related("white", "black", "tournament").in_replay_order())
    games = [game for game in stored if game.voided_at is None]  # the valid ones
    entrants = list(tournament.entrants.select_related("player").order_by("number"))
    changed = len(stored) > len(games) or any(game.is_corrected for game in games)
    after_width = max((len(entrant.after_rounds) for entrant in entrants), default=0)
    places_after = place_columns(tournament.after_round_names, after_width)
    players: dict[int, FilePlayer] = {
        entrant.player_id: _entrant(entrant, country, not changed, places_after)
        for entrant in entrants
    }
    records: list[GameRecord] = []
    for game in games:
        for player, declared in ((game.white, game.white_rank), (game.black, game.black_rank)):
            if player.pk not in players:
                rank = declared if declared is not None else player.entry_rank
                players[player.pk] = _site_player(player, len(players) + 1, rank, country)
        records.append(
            dataclasses.replace(
                game.to_record(),
                white_rank=players[game.white_id].rank,
                black_rank=players[game.black_id].rank,
            )
        )
    if not games and not (tournament.start_date and tournament.end_date):
        raise NotExportable(
            _("the tournament '%(code)s' has no dates and no games: nothing to export")
            % {"code": tournament.code}
        )
    info = _export_info(tournament, games, entrants, records, changed, places_after)
    return TournamentFile(info, list(players.values()), records)


def _export_info(
    tournament: Tournament,
    games: list[Game],
    entrants: list[TournamentPlayer],
    records: list[GameRecord],
    changed: bool,
    places_after: dict[int, str],
) -> TournamentInfo:
    """The stored tournament's details as a file heads them: its dates (else its games'),
    the komi of most of its even games, as many rounds as its file or games have, and
    the file's criteria and columns after the rounds unless a game changed since (then
    only the places)."""
    even_komi = Counter(record.komi for record in records if record.handicap == 0)
    written_rounds = max((len(entrant.results) for entrant in entrants), default=0)
    return TournamentInfo(
        code=tournament.code,
        name=tournament.name or tournament.code,
        start=tournament.start_date or games[0].date,
        end=tournament.end_date or max(game.date for game in games),
        tournament_class=tournament.egf_class,
        komi=even_komi.most_common(1)[0][0] if even_komi else DEFAULT_EVEN_KOMI,
        rounds=max([written_rounds, *(game.round for game in games)]),
        place=tournament.location,
        handicap_rule=tournament.handicap_rule,
        time=tournament.adjusted_time,
        comment=tournament.file_comment,
        time_control=tuple(tournament.time_control.items()),
        score_names=() if changed else tuple(tournament.score_names),
        mcmahon=tuple(tuple(pair) for pair in tournament.mcmahon),
        file_format=tournament.standings,
        after_round_names=(
            tuple(places_after.values()) if changed else tuple(tournament.after_round_names)
        ),
    )


RECORD_SHEET_COLUMNS = HISTORY_COLUMNS[1:]  # the log page's 12 columns


def _number(value: Decimal) -> str:
    """A stored decimal as a plain number: 2100.0000 -> 2100, 0.5000 -> 0.5."""
    return format(value.normalize(), "f")


# A game as the CSV writes it: what the replay reads, and the ranks declared on it.
GAME_CSV_COLUMNS = (*GAME_RECORD_COLUMNS, "white_rank", "black_rank")


class _EntryRanks:
    """The rank of each player on each row (SPEC section 2): the rank declared on the
    game, and on a player's first row, where the game declares none, their entry rank
    (the one the recompute starts them from: the command line reads it there, so it
    replays the file alike; in a search's file, where the first row is not where the
    player started, the file stays one the command line reads)."""

    def __init__(self) -> None:
        self.ranks = {username: entry.rank for username, entry in player_entries().items()}
        self.seen: set[str] = set()

    def on_row(self, username: str, declared) -> str:
        first = username not in self.seen
        self.seen.add(username)
        if declared is not None:
            return str(declared)
        return str(self.ranks[username]) if first else ""


def _game_cells(row, entry: _EntryRanks) -> list:
    """A game's cells of the game record CSV from its row of ``GAME_CSV_COLUMNS``, read
    by name."""
    white, black, code = row.white__username, row.black__username, row.tournament__code
    cells = {
        "date": row.date.isoformat(),
        "white": spreadsheet_safe(white),
        "black": spreadsheet_safe(black),
        "white_rank": entry.on_row(white, row.white_rank),
        "black_rank": entry.on_row(black, row.black_rank),
        "handicap": row.handicap,
        "komi": format_komi(Fraction(row.komi)),
        "winner": row.winner,
        "status": row.status,
        "board_size": row.board_size,
        "tournament": spreadsheet_safe(code or ""),
        "tournament_class": row.tournament__egf_class or "",
        "round": row.round,
        "time_minutes": "" if row.time_minutes is None else row.time_minutes,
        "comment": spreadsheet_safe(row.comment),
    }
    return [cells.get(column, "") for column in COLUMNS]


def _adjustment_cells(row, entry: _EntryRanks) -> list:
    """An adjustment's cells from its row of ``ADJUSTMENT_RECORD_COLUMNS``, by name."""
    username = row.player__username
    # The new rank goes in white_rank. A player whose first row this is starts from it
    # on the command line (SPEC section 2): the adjustment resets them anyway.
    entry.seen.add(username)
    cells = {
        "date": row.date.isoformat(),
        "white": spreadsheet_safe(username),
        "black": spreadsheet_safe(username),
        "white_rank": str(row.new_rank),
        "status": "adjustment",
        "value": "" if row.value is None else _number(row.value),
        "algorithm": row.algorithm,
        "comment": spreadsheet_safe(row.comment),
    }
    return [cells.get(column, "") for column in COLUMNS]


def game_record_rows(selected: GameQuerySet | None = None) -> Iterator[list]:
    """Every valid game and adjustment as the game record CSV of SPEC section 2, header
    first, in replay order (date, round, entry; an adjustment at round 0 of its date),
    each game with the ranks declared on it and each player's entry rank on their
    first row. ``python -m ratings rate`` replays it
    to the site's history. Three queries, streamed in chunks. With ``selected`` (the
    games search's games): those games only, no adjustments."""
    entry = _EntryRanks()
    games = (
        ((row.date, row.round, row.seq), False, row)
        for row in (Game.objects.valid() if selected is None else selected)
        .in_replay_order()
        .values_list(*GAME_CSV_COLUMNS, named=True)
        .iterator(chunk_size=ROWS_PER_FETCH)
    )
    adjustments = (
        ((row.date, 0, row.seq), True, row)
        for row in (Adjustment.objects.valid() if selected is None else Adjustment.objects.none())
        .order_by("date", "seq")
        .values_list(*ADJUSTMENT_RECORD_COLUMNS, named=True)
        .iterator(chunk_size=ROWS_PER_FETCH)
    )
    yield list(COLUMNS)
    for _key, is_adjustment, row in heapq.merge(games, adjustments, key=lambda item: item[0]):
        yield _adjustment_cells(row, entry) if is_adjustment else _game_cells(row, entry)


def record_sheet_rows(player: Player, engine: Algorithm) -> Iterator[list]:
    """The player's record sheet under ``engine`` (an algorithm with a history), header
    first, oldest row first: the log page's 12 columns with the numbers
    ``export_history`` prints. One query, streamed."""
    yield list(RECORD_SHEET_COLUMNS)
    # Games whose file gave no colour: "?" in the colour column, as an h-file writes it,
    # and the winner's username in the winner column (W or B would name a colour nobody
    # played; the log page's Winner names the winner too).
    no_colour = set(
        Game.objects.filter(Q(white=player) | Q(black=player), colour_given=False).values_list(
            "seq", flat=True
        )
    )
    colour_at = RECORD_SHEET_COLUMNS.index("colour")
    winner_at = RECORD_SHEET_COLUMNS.index("winner")
    opponent_at = RECORD_SHEET_COLUMNS.index("opponent")
    comment_at = RECORD_SHEET_COLUMNS.index("comment")
    rows = RatingHistory.objects.filter(algorithm=engine.name, player=player)
    for row in history_rows(rows.order_by("position")):
        cells = history_cells(row, engine)[1:]
        if row.seq in no_colour and not row.is_adjustment:
            cells[colour_at] = "?"
            # A game row (not an adjustment) has a colour.
            if row.winner is not None and row.colour is not None and row.winner.value in ("W", "B"):
                won = row.winner.value == row.colour.value
                opponent = cells[opponent_at]
                cells[winner_at] = spreadsheet_safe(player.username if won else opponent)
        cells[opponent_at] = spreadsheet_safe(cells[opponent_at])
        cells[comment_at] = spreadsheet_safe(cells[comment_at])
        yield cells


@dataclass(frozen=True)
class EgdExport:
    """An h9 file and what it cannot carry (a komi, board size or status it writes
    otherwise, an EGD PIN it leaves out). The file says it too, in comment lines on
    top, so that whoever receives it sees it."""

    text: str
    losses: list[str]


def _tournament_for_export(tournament: Tournament, country: str, blank_allowed: bool = False):
    """The stored tournament as a file lists it, ``country`` (two letters; blank where
    ``blank_allowed``) for players whose country the site does not know."""
    if blank_allowed and not country:
        return tournament_file(tournament, country="")
    if len(country) != 2 or not country.isascii() or not country.isalpha():
        raise NotExportable(
            _("'%(country)s' is not a two-letter country code") % {"country": country}
        )
    return tournament_file(tournament, country=country.upper())


def tournament_egd(tournament: Tournament, *, country: str = "XX") -> EgdExport:
    """The tournament's valid games as an EGD h9 file that ``read_egd`` reads back to the
    same tournament (an imported one as its file had it). ``country`` (two letters) is
    written for players whose country the site does not know. Raises ``NotExportable``
    when there is nothing to write or no h-file can hold it."""
    exported = _tournament_for_export(tournament, country)
    if not exported.records:
        raise NotExportable(
            _("the tournament '%(code)s' has no valid games: an h-file needs at least one")
            % {"code": tournament.code}
        )
    # A bye as OpenGotha's own h-file writes it: its worth (the site keeps it "0+").
    bye = bye_token(exported.tournament) if exported.tournament.file_format == "opengotha" else "0+"
    try:
        text = write_egd(exported, bye=bye)
    except ValueError as error:
        raise NotExportable(
            _("%(code)s cannot be written as an h-file: %(error)s")
            % {"code": tournament.code, "error": translated(error.args[0])}
        ) from None
    losses = egd_losses(exported)
    # One comment line each (a line starting with ';'); brackets would read as a header.
    notes = "".join(
        "; Not carried by this file: "
        + " ".join(loss.split()).replace("[", "(").replace("]", ")")
        + "\n"
        for loss in losses
    )
    return EgdExport(notes + text, losses)


def tournament_opengotha(tournament: Tournament, *, country: str = "") -> str:
    """The tournament as an OpenGotha XML file (players, games, byes, forfeits, the
    placement criteria) that OpenGotha opens and ``read_opengotha`` reads back to the
    same players, games and standings. Raises ``NotExportable`` when there is nothing
    to write or OpenGotha cannot hold it (two players of one name). A player of no known
    country has none (OpenGotha allows a blank one) unless ``country`` says one."""
    exported = _tournament_for_export(tournament, country, blank_allowed=True)
    if not exported.players:
        raise NotExportable(
            _("the tournament '%(code)s' has no players: an OpenGotha file needs some")
            % {"code": tournament.code}
        )
    try:
        return write_opengotha(exported)
    except ValueError as error:
        raise NotExportable(
            _("%(code)s cannot be written as an OpenGotha file: %(error)s")
            % {"code": tournament.code, "error": translated(error.args[0])}
        ) from None


# --- the club's players for tournament software -------------------------------------

# The EGF algorithm whose GoR the EGF list gives (the one in force since 2021).
LIST_GOR_ALGORITHM = "egf-2021"


def club_list_players() -> list[ListedPlayer]:
    """The club's active players (those of the rating list) with their club rank (the
    primary algorithm's, else their national rank) and their GoR in ``egf-2021``, by
    family and given name (three queries)."""
    players = list(
        Player.objects.filter(clubs_players())
        .filter(active=True, erased_at__isnull=True)
        .select_related("club")
        .order_by("family_name", "given_name", "username")
    )
    ids = [player.pk for player in players]
    ranks = dict(
        CurrentRating.objects.filter(algorithm=primary_algorithm(), player__in=ids).values_list(
            "player_id", "rank"
        )
    )
    gors = dict(
        CurrentRating.objects.filter(algorithm=LIST_GOR_ALGORITHM, player__in=ids).values_list(
            "player_id", "value"
        )
    )
    return [
        ListedPlayer(
            surname=player.family_name or player.full_name or player.username,
            given_name=player.given_name if player.family_name else "",
            rank=ranks.get(player.pk) or player.national_rank or player.entry_rank,
            gor=gors.get(player.pk),
            pin=player.egd_pin,
            national_id=player.national_id,
            country=player.country,
            club=player.federation_club or (player.club.name if player.club else ""),
        )
        for player in players
        if (ranks.get(player.pk) or player.national_rank or player.entry_rank) is not None
    ]
