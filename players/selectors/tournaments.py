"""Reading tournaments: the list, one tournament, its crosstable, the codes taken."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction
from typing import NamedTuple

from django.db import connection
from django.db.models import (
    Case,
    F,
    IntegerField,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce, Concat
from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from players.fields import code_to_rank
from players.models import (
    Game,
    Player,
    Tournament,
    TournamentPlayer,
)
from players.selectors.games import GAME_JSON_VALUES
from players.translated import score_name
from ratings.engine.formats.egd import told_apart, written_round
from ratings.engine.formats.standings import SITE_CRITERIA, Round, criterion_label, place_players
from ratings.engine.ranks import Rank
from ratings.models import (
    HistoryRewrite,
    RatingHistory,
)


def tournament_list() -> QuerySet[Tournament]:
    """Tournaments, newest first, with their valid games and players counted and the
    dates of their first and last games (stored with the tournament: one query)."""
    return Tournament.objects.order_by("-start_date", "-first_game", "code")


def tournament_or_404(code: str) -> Tournament:
    try:
        return Tournament.objects.select_related("club").get(code=code)
    except Tournament.DoesNotExist:
        raise Http404(f"no tournament with the code '{code}'") from None


class CrosstablePlayer(NamedTuple):
    """What the crosstable shows of a player (values, not a model: 600 of them)."""

    pk: int
    username: str
    full_name: str
    entry_rank: Rank
    country: str
    federation_club: str


class RoundResult(NamedTuple):
    """One game of a player in the crosstable, from their side (a tuple: EGC 2013 has
    6,000 of them)."""

    opponent_number: int
    opponent: CrosstablePlayer
    colour: str  # "w" or "b"; "" when the file gave none (Game.colour_given)
    handicap: int
    result: str  # "+" win, "-" loss, "=" jigo
    corrected: bool = False  # corrected since it was stored (entered or imported)
    voided: bool = False  # voided since: shown marked, counted nowhere

    def __str__(self) -> str:
        handicap = f"/h{self.handicap}" if self.handicap else ""
        return f"{self.opponent_number}{self.result}{self.colour}{handicap}"


class FileRound(NamedTuple):
    """A round an imported file gives a player that is no game here: a forfeit (not
    rated: ``text`` "12+!", the opponent numbered as the crosstable numbers them), a bye
    ("0+") or a round not paired ("0-", "0=")."""

    text: str
    kind: str  # "forfeit", "bye" or "not paired"


@dataclass(slots=True)
class CrosstableRow:
    player: CrosstablePlayer
    rank: Rank  # as declared on the sheet or in the file, else the entry rank
    country: str = ""  # as the file gave it, else the player's
    club: str = ""  # as the file gave it (a club abbreviation), else the player's
    rounds: dict[int, list[RoundResult]] = field(default_factory=dict)
    wins: float = 0
    games: int = 0
    number: int = 0  # the row's position: the number round cells name opponents by
    place: str = ""  # the standing: shared by tied players (blank for a tie in an h-file)
    scores: list = field(default_factory=list)  # one per Crosstable.score_names
    after_rounds: list = field(default_factory=list)  # one per Crosstable.after_round_names
    value_before: float | None = None
    value_after: float | None = None
    rank_before: Rank | None = None  # at the tournament's first game (SAGC's tab shows it)
    rank_after: Rank | None = None
    # An imported file's own: the player's number there and each round as it wrote it;
    # and the rounds it gives that are no game here (a forfeit, a bye, not paired), by
    # round, as :class:`FileRound`.
    file_number: int = 0
    file_results: list = field(default_factory=list)
    file_rounds: dict[int, FileRound] = field(default_factory=dict)

    @property
    def change(self) -> float | None:
        if self.value_before is None or self.value_after is None:
            return None
        return self.value_after - self.value_before


@dataclass(slots=True)
class Crosstable:
    rounds: list[int]
    rows: list[CrosstableRow]
    game_count: int
    first_game: date | None
    last_game: date | None
    score_names: list[str] = field(default_factory=list)
    # An h-file's columns after the rounds (KPMC: NBW, Place), shown as written.
    after_round_names: list[str] = field(default_factory=list)
    standings: str = ""  # Tournament.standings: where the places come from
    ties: bool = False  # some players share a place
    corrected: int = 0  # games corrected since they were stored (entered or imported)
    voided: int = 0  # games voided since, shown in their rounds marked

    @property
    def placement(self) -> str:
        """How the players are placed, in words, for the page."""
        # "Points" once; the reader's "Column 4" in the page's language
        names = dict.fromkeys(score_name(name) for name in self.score_names if name)
        then = pgettext("placement criteria, one then the next", "then")
        criteria = f" {then} ".join(names) or _("the file's order")
        corrected = (
            " "
            + ngettext(
                "%(count)s game corrected since the import: the rounds show them as corrected "
                "(marked ✎).",
                "%(count)s games corrected since the import: the rounds show them as "
                "corrected (marked ✎).",
                self.corrected,
            )
            % {"count": self.corrected}
            if self.corrected
            else ""
        ) + self.voided_note
        if self.standings == Tournament.Standings.EGD:
            return (
                _(
                    "Places and tie-breakers as the tournament's h-file gives them "
                    "(%(criteria)s): the file's figures, not recomputed when a game is "
                    "corrected."
                )
                % {"criteria": criteria}
                + corrected
            )
        if self.standings == Tournament.Standings.OPENGOTHA:
            return (
                _(
                    "Places by the placement criteria of the tournament's OpenGotha file: "
                    "%(criteria)s, computed from the file at its import, not when a game is "
                    "corrected."
                )
                % {"criteria": criteria}
                + corrected
            )
        return (
            _(
                "Players in order of points (a win 1, a jigo ½), then SOS (the sum of their "
                "opponents' points), then SOSOS (the sum of their opponents' SOS)."
            )
            + self.voided_note
        )

    @property
    def voided_note(self) -> str:
        """The sentence on the games voided since, which the rounds still show."""
        if not self.voided:
            return ""
        return " " + ngettext(
            "%(count)s game voided since: the rounds show them struck through (marked ✗), "
            "counted in no score or rating.",
            "%(count)s games voided since: the rounds show them struck through (marked "
            "✗), counted in no score or rating.",
            self.voided,
        ) % {"count": self.voided}


def _file_order(
    entrants: list[TournamentPlayer], *, blank_is_unplaced: bool = False
) -> dict[int, tuple[int, int]]:
    """Each file player's (place, position): a blank place (a tie in an h-file) is the
    place of the line above; ``blank_is_unplaced`` (an OpenGotha file, whose ties share
    a place and whose players are listed by registration), after every place: a player
    OpenGotha's standings leave out, paired in no round."""
    order: dict[int, tuple[int, int]] = {}
    place = 0
    unplaced = len(entrants) + 1
    for entrant in entrants:
        text = entrant.place.strip().rstrip(".")
        place = int(text) if text.isdigit() else (unplaced if blank_is_unplaced else place)
        order[entrant.player_id] = (place, entrant.number)
    return order


class _CrosstableGame(NamedTuple):
    """What the crosstable reads of a game: plain values and the two players, each
    loaded once (EGC 2013's 2,259 games as models with both players' every column cost
    a quarter of a second; as tuples they cost nothing)."""

    white_id: int
    black_id: int
    white_rank: Rank | None
    black_rank: Rank | None
    winner: str
    round: int
    handicap: int
    colour_given: bool
    revision: int  # 0 as stored; a correction of what was played moves it (Game.revision)
    date: date
    voided: bool
    white: CrosstablePlayer
    black: CrosstablePlayer


def _crosstable_games(tournament: Tournament) -> list[_CrosstableGame]:
    """The tournament's games by round, voided ones too (two queries: the games, their
    players)."""
    columns = (
        "white_id",
        "black_id",
        "white_rank",
        "black_rank",
        "winner",
        "round",
        "handicap",
        "colour_given",
        "revision",
    )
    games = list(
        tournament.games.annotate(voided=Q(voided_at__isnull=False))
        .order_by("round", "date", "seq")
        .values_list(*columns, "date", "voided")
    )
    ids = {game[0] for game in games} | {game[1] for game in games}
    players = {
        values[0]: CrosstablePlayer(*values)
        for values in Player.objects.filter(pk__in=ids).values_list(*CrosstablePlayer._fields)
    }
    return [_CrosstableGame._make((*game, players[game[0]], players[game[1]])) for game in games]


# A game's points by its winner, White's then Black's, as floats (the row's total) and
# as fractions (the standings); made once, not per game.
_POINTS: dict[str, tuple[float, float, Fraction, Fraction]] = {
    Game.Winner.WHITE: (1.0, 0.0, Fraction(1), Fraction(0)),
    Game.Winner.BLACK: (0.0, 1.0, Fraction(0), Fraction(1)),
}
_JIGO_POINTS = (0.5, 0.5, Fraction(1, 2), Fraction(1, 2))
# A game's result from White's side and Black's, by its winner.
_RESULTS: dict[str, tuple[str, str]] = {
    Game.Winner.WHITE: ("+", "-"),
    Game.Winner.BLACK: ("-", "+"),
    Game.Winner.JIGO: ("=", "="),
}


def _history_of_games(games: QuerySet, algorithm: str) -> QuerySet[RatingHistory]:
    """The history rows of ``games`` (a query of their ids) under ``algorithm``, found
    through the index on the game. Given ``algorithm = ...`` SQLite walks the
    (algorithm, position) index instead, every row of the algorithm: 0.3 s at 200,000
    games for a tournament's 780 rows, against 13 ms. Comparing the algorithm through
    an expression leaves it no index to take but the game's."""
    return RatingHistory.objects.alias(row_algorithm=Concat(F("algorithm"), Value(""))).filter(
        game__in=games, row_algorithm=algorithm
    )


def tournament_crosstable(tournament: Tournament, algorithm: str) -> Crosstable:
    """The tournament's players in their standings, with each round's games and their
    rating before and after the tournament under ``algorithm``.

    An imported tournament is placed as its file has it (an h-file's places and
    columns; an OpenGotha file's criteria, computed at import), a tournament entered
    on the site by points, SOS and SOSOS (:mod:`ratings.engine.formats.standings`).
    Four queries, five for an imported tournament (its file's players)."""
    all_games = _crosstable_games(tournament)
    games = [game for game in all_games if not game.voided]
    voided = [game for game in all_games if game.voided]
    entrants = _crosstable_entrants(tournament)
    rows, played = _crosstable_rows(entrants, games)
    ordered, score_names, after_round_names = _crosstable_order(tournament, entrants, rows, played)
    shown_voided = _crosstable_rounds(rows, games, voided)
    file_rounds = _file_rounds(ordered)
    _crosstable_values(tournament, algorithm, rows)
    return Crosstable(
        rounds=sorted({game.round for game in (*games, *shown_voided)} | file_rounds),
        rows=ordered,
        game_count=len(games),
        first_game=games[0].date if games else None,
        last_game=max(game.date for game in games) if games else None,
        score_names=score_names,
        after_round_names=after_round_names,
        standings=tournament.standings,
        ties=any(row.place != str(row.number) for row in ordered),
        corrected=sum(game.revision != 0 for game in games),
        voided=len(shown_voided),
    )


def _crosstable_entrants(tournament: Tournament) -> list:
    """The players of an imported tournament's file, by their number there (none for a
    tournament entered on the site)."""
    if not tournament.standings:
        return []
    return list(
        tournament.entrants.select_related("player")
        .only(
            "number",
            "place",
            "rank",
            "country",
            "club",
            "scores",
            "after_rounds",
            "results",  # for the rounds that are no game (a forfeit, a bye)
            "tournament",  # the related manager sets it on each row
            "player",
            *(f"player__{name}" for name in CrosstablePlayer._fields[1:]),
        )
        .order_by("number")
    )


def _crosstable_row(
    rows: dict[int, CrosstableRow], player: CrosstablePlayer, declared: Rank | None
) -> CrosstableRow:
    """The player's row, made at their first appearance with the rank they declared."""
    if player.pk not in rows:
        rows[player.pk] = CrosstableRow(
            player,
            declared or player.entry_rank,
            country=player.country,
            club=player.federation_club,
        )
    return rows[player.pk]


def _crosstable_rows(
    entrants: list, games: list[_CrosstableGame]
) -> tuple[dict[int, CrosstableRow], dict[int, list[Round]]]:
    """A row per player (the file's entrants first, with their places and scores), the
    games and wins counted; and each player's rounds as the standings count them."""
    rows: dict[int, CrosstableRow] = {}
    for entrant in entrants:
        player = CrosstablePlayer(
            *(getattr(entrant.player, name) for name in CrosstablePlayer._fields)
        )
        row = _crosstable_row(rows, player, entrant.rank)
        row.place, row.scores = entrant.place, list(entrant.scores)
        row.after_rounds = list(entrant.after_rounds)
        row.country = entrant.country or row.country
        row.club = entrant.club or row.club
        row.file_number, row.file_results = entrant.number, entrant.results
    played: dict[int, list[Round]] = defaultdict(list)
    for game in games:
        white = rows.get(game.white_id) or _crosstable_row(rows, game.white, game.white_rank)
        black = rows.get(game.black_id) or _crosstable_row(rows, game.black, game.black_rank)
        white.games += 1
        black.games += 1
        white_wins, black_wins, white_points, black_points = _POINTS.get(game.winner, _JIGO_POINTS)
        white.wins += white_wins
        black.wins += black_wins
        played[game.white_id].append(Round(game.black_id, white_points))
        played[game.black_id].append(Round(game.white_id, black_points))
    return rows, played


def _crosstable_order(
    tournament: Tournament,
    entrants: list,
    rows: dict[int, CrosstableRow],
    played: dict[int, list[Round]],
) -> tuple[list[CrosstableRow], list[str], list[str]]:
    """The rows in the standings' order, numbered, their scores and after-round columns
    padded to one width; with the names of those columns."""
    placed = place_players(
        {pk: played.get(pk, []) for pk in rows},
        SITE_CRITERIA,
        order=sorted(rows, key=lambda pk: (-rows[pk].rank.stones, rows[pk].player.username)),
    )
    if entrants:
        file_order = _file_order(
            entrants, blank_is_unplaced=tournament.standings == Tournament.Standings.OPENGOTHA
        )
        after = len(file_order)
        position = {entry.player: index for index, entry in enumerate(placed)}
        ordered = sorted(
            rows.values(),
            key=lambda row: file_order.get(row.player.pk, (after, after + position[row.player.pk])),
        )
        score_names = [criterion_label(name) for name in tournament.score_names]
    else:
        for entry in placed:
            rows[entry.player].place = str(entry.place)
            rows[entry.player].scores = list(entry.scores)
        ordered = [rows[entry.player] for entry in placed]
        score_names = [criterion_label(name) for name in SITE_CRITERIA]
    width = max((len(row.scores) for row in ordered), default=0)
    score_names = (score_names + [""] * width)[:width]
    if entrants:
        score_names = told_apart(score_names)
    after_width = max((len(row.after_rounds) for row in ordered), default=0)
    after_names = list(tournament.after_round_names) if entrants else []
    after_round_names = (after_names + [""] * after_width)[:after_width]
    for number, row in enumerate(ordered, start=1):
        row.number = number
        row.scores += [""] * (width - len(row.scores))
        row.after_rounds += [""] * (after_width - len(row.after_rounds))
    return ordered, score_names, after_round_names


def _crosstable_rounds(
    rows: dict[int, CrosstableRow],
    games: list[_CrosstableGame],
    voided: list[_CrosstableGame],
) -> list[_CrosstableGame]:
    """Each game in its round on both players' rows; the voided games shown (returned)."""
    for game in games:
        _add_round_results(rows[game.white_id], rows[game.black_id], game, corrected=True)
    # A voided game stays in its round, marked, where both its players have a row (a
    # player whose every game was voided is no one's result to show).
    shown_voided = [game for game in voided if game.white_id in rows and game.black_id in rows]
    for game in shown_voided:
        _add_round_results(rows[game.white_id], rows[game.black_id], game, voided=True)
    return shown_voided


def _file_rounds(ordered: list[CrosstableRow]) -> set[int]:
    """Give each row the rounds its file wrote that are no game here (a forfeit, which no
    algorithm rates, a bye, a round not paired: :class:`FileRound`), an opponent named
    by their number in the crosstable; the rounds that have one."""
    number_of = {row.file_number: row.number for row in ordered if row.file_number}
    rounds: set[int] = set()
    for row in ordered:
        for round_number, written in enumerate(row.file_results, start=1):
            if round_number in row.rounds or not isinstance(written, str):
                continue
            found = written_round(written.strip())
            if found is None or found.outcome == "?":
                continue
            if found.opponent == 0:
                kind = "bye" if found.outcome == "+" else "not paired"
                row.file_rounds[round_number] = FileRound(f"0{found.outcome}", kind)
            elif found.forfeit and found.opponent in number_of:
                text = f"{number_of[found.opponent]}{found.outcome}!{found.colour}"
                row.file_rounds[round_number] = FileRound(text, "forfeit")
            else:
                continue
            rounds.add(round_number)
    return rounds


def _add_round_results(
    white: CrosstableRow,
    black: CrosstableRow,
    game: _CrosstableGame,
    *,
    corrected: bool = False,
    voided: bool = False,
) -> None:
    """The game in its round, from each side (``corrected``: mark it if it was)."""
    white_result, black_result = _RESULTS.get(game.winner, ("-", "-"))
    white_colour, black_colour = ("w", "b") if game.colour_given else ("", "")
    marks = {"corrected": corrected and game.revision != 0, "voided": voided}
    white.rounds.setdefault(game.round, []).append(
        RoundResult(black.number, game.black, white_colour, game.handicap, white_result, **marks)
    )
    black.rounds.setdefault(game.round, []).append(
        RoundResult(white.number, game.white, black_colour, game.handicap, black_result, **marks)
    )


def _crosstable_values(
    tournament: Tournament, algorithm: str, rows: dict[int, CrosstableRow]
) -> None:
    """Each row's value and rank before and after the tournament under ``algorithm``
    (one query)."""
    # The rank as its stored code: no converter on each of the 6,000 rows of EGC 2013,
    # a rank made for each row's last one.
    history = (
        _history_of_games(tournament.games.values("pk"), algorithm)
        .order_by("position")
        .values_list(
            "player_id",
            "value_before",
            "value_after",
            Cast("rank_before", IntegerField()),
            Cast("rank_after", IntegerField()),
        )
    )
    rank_codes: dict[int, int | None] = {}
    first_rank_codes: dict[int, int | None] = {}
    for player_id, value_before, value_after, first_rank_code, rank_code in history:
        row = rows.get(player_id)
        if row is None:  # a game voided since the last recompute
            continue
        if row.value_before is None:
            row.value_before, first_rank_codes[player_id] = value_before, first_rank_code
        row.value_after, rank_codes[player_id] = value_after, rank_code
    for player_id, rank_code in rank_codes.items():
        rows[player_id].rank_after = None if rank_code is None else code_to_rank(rank_code)
    for player_id, rank_code in first_rank_codes.items():
        rows[player_id].rank_before = None if rank_code is None else code_to_rank(rank_code)


def tournaments_rated_since(day: date | None, *, limit: int) -> list[Tournament]:
    """At most ``limit`` tournaments with a game on or after ``day`` (any day when None),
    a void one too (its history rows stood until the recompute): those a recompute
    from ``day`` rewrote the values of, whose key ``crosstable_fingerprint`` moves.
    Those with a game on ``day`` or before it come first (the one whose entry or
    correction moved the recompute there, whoever reads it next), then the latest last
    game first. One query, on the tournaments' stored dates and the void games."""
    voided = Game.objects.filter(voided_at__isnull=False, tournament__isnull=False)
    spans_day: Case | Value = Value(1)
    if day is None:
        valid = Q(last_game__isnull=False)
    else:
        valid = Q(last_game__gte=day)
        voided = voided.filter(date__gte=day)
        spans_day = Case(When(first_game__lte=day, then=Value(0)), default=Value(1))
    tournaments = Tournament.objects.filter(valid | Q(pk__in=voided.values("tournament_id")))
    order = (spans_day, F("last_game").desc(nulls_last=True), "code")
    return list(tournaments.order_by(*order)[:limit])


def tournaments_of_player(player_id: int, *, limit: int) -> list[Tournament]:
    """At most ``limit`` tournaments ``player_id`` played a game in or is listed in by a
    tournament file, the latest last game first (those without a valid game last)."""
    played = Game.objects.filter(Q(white_id=player_id) | Q(black_id=player_id))
    listed = TournamentPlayer.objects.filter(player_id=player_id)
    return list(
        Tournament.objects.filter(
            Q(pk__in=played.values("tournament_id")) | Q(pk__in=listed.values("tournament_id"))
        ).order_by(F("last_game").desc(nulls_last=True), "code")[:limit]
    )


def tournament_codes() -> list[str]:
    """The codes the tournament field suggests, the latest tournaments first."""
    return list(Tournament.objects.values_list("code", flat=True)[:200])


def crosstable_fingerprint(tournament: Tournament, algorithm: str) -> tuple:
    """Values that change whenever the crosstable of ``tournament`` under ``algorithm``
    would, read in one query:

    - its games, void ones too: their number, highest id, and sums of their versions
      and players (an entry or import adds games; a correction, void or merge moves a
      game's ``version``; a merge moves its players);
    - its file's players: their number and sums of their ids and players (an import
      writes them anew; a merge moves their player);
    - the latest ``Player.updated_at`` of the players of either (every save of a
      player moves it: a name, country, club or rank edited, an erasure);
    - the latest recompute of the algorithm that rewrote its history from the day of
      the tournament's last game (void ones too: their rows stand until then) or
      earlier (``HistoryRewrite``). The crosstable shows the values and ranks of the
      history rows of its games, nothing later, and a recompute leaves the values of
      the rows before its day as they were: tonight's club game, replayed from tonight,
      leaves every earlier tournament's key as it was, and its cached page read.

    The tournament's own row (standings, score names) is read with the page anyway; the
    cache key takes what the crosstable shows of it (``players.public.crosstable_cache``)."""
    game = Game._meta.db_table
    entrant = TournamentPlayer._meta.db_table
    player = Player._meta.db_table
    rewrite = HistoryRewrite._meta.db_table
    sql = f"""
        SELECT g.n, g.last_id, g.versions, g.whites, g.blacks, e.n, e.ids, e.players,
            (SELECT MAX(updated_at) FROM {player} WHERE id IN (
                SELECT white_id FROM {game} WHERE tournament_id = %s
                UNION SELECT black_id FROM {game} WHERE tournament_id = %s
                UNION SELECT player_id FROM {entrant} WHERE tournament_id = %s)),
            (SELECT id FROM {rewrite} WHERE algorithm = %s AND from_day <= g.last_day
             ORDER BY from_day DESC LIMIT 1)
        FROM (SELECT COUNT(*) AS n, MAX(id) AS last_id, SUM(version) AS versions,
                SUM(white_id) AS whites, SUM(black_id) AS blacks, MAX(date) AS last_day
              FROM {game} WHERE tournament_id = %s) AS g,
             (SELECT COUNT(*) AS n, SUM(id) AS ids, SUM(player_id) AS players
              FROM {entrant} WHERE tournament_id = %s) AS e"""
    pk = tournament.pk
    with connection.cursor() as cursor:
        cursor.execute(sql, [pk, pk, pk, algorithm, pk, pk])
        return tuple(cursor.fetchone())


def tournaments_listing_both(one: Player, other: Player) -> list[str]:
    """The codes of the imported tournaments whose file lists both players, the earliest
    first (one query): a file lists each player once, so such two are two people."""
    return list(
        Tournament.objects.filter(entrants__player=one)
        .filter(entrants__player=other)
        .order_by("start_date", "code")
        .values_list("code", flat=True)
    )


def tournaments_within(*, since: date | None, until: date | None) -> QuerySet[Tournament]:
    """Tournaments, newest first, counted (see ``selectors.tournament_list``); with
    dates, those that overlap the range: from the start date (else the first game) to
    the end date (else the last game); a tournament with one of the two lasts a day."""
    rows = tournament_list().annotate(
        starts=Coalesce("start_date", "first_game", "end_date", "last_game"),
        ends=Coalesce("end_date", "last_game", "start_date", "first_game"),
    )
    if since is not None:
        rows = rows.filter(ends__gte=since)
    if until is not None:
        rows = rows.filter(starts__lte=until)
    return rows


def tournament_by_code(code: str) -> Tournament | None:
    """The tournament of that code, without its counts (a filter of the games)."""
    return Tournament.objects.filter(code=code).first() if "\x00" not in code else None


def tournament_counted(code: str) -> Tournament | None:
    return tournament_list().filter(code=code).first()


def tournament_games(tournament: Tournament) -> QuerySet:
    """The tournament's valid games by round, as dictionaries of ``GAME_JSON_VALUES``."""
    return tournament.games.valid().order_by("round", "date", "seq").values(*GAME_JSON_VALUES)
