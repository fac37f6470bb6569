"""The public pages' tables. Every ``render_*`` reads only what the selector loaded
(``select_related`` or annotations): no table queries per row."""

from __future__ import annotations

import functools
from fractions import Fraction
from urllib.parse import quote

import django_tables2 as tables
from django.db.models import QuerySet
from django.urls import reverse
from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy
from django_tables2.data import TableData
from django_tables2.utils import AttributeDict, OrderBy, OrderByTuple

from players.models import Game
from players.selectors.clubs import MembershipSpan, clubs_on
from players.selectors.player_log import PlayerLog
from players.selectors.ratings import RatingsOfDay
from players.selectors.tournaments import Crosstable
from players.translated import score_name, translated
from players.web.explanations import how_html, stored_change
from players.web.numbers import count_text, decimal_text, shown_change, shown_value
from players.web.pagination import PageFirstData
from players.web.tables import (
    COLOUR_NOT_GIVEN_TITLE,
    COLOURS,
    NUMBER,
    NUMBER_WIDE_SCREENS_ONLY,
    RESPONSIVE_TEMPLATE,
    TABLE_ATTRS,
    WIDE_SCREENS_ONLY,
    colour_not_given,
    escape_cell,
    escaped,
)
from ratings.engine.base import Algorithm


def player_url(username: str) -> str:
    """The log page's URL (``reverse`` once per page, not once per row)."""
    return _player_url_prefix() + quote(username) + "/"


@functools.cache
def _player_url_prefix() -> str:
    placeholder = "placeholder"
    return reverse("player_log", args=[placeholder]).removesuffix(f"{placeholder}/")


def _date_cell(day) -> str:
    return day.isoformat() if day else "\u2014"


class RatingsOfDayData(TableData):
    """The list as of a day (``RatingsOfDay``: its rows read once), sorted, counted and
    cut into pages in memory. Its own order (strongest first, then by username) is no
    column's, as the current list's queryset's is not: no header shows as sorted."""

    data: RatingsOfDay

    def __len__(self) -> int:
        return len(self.data)

    def order_by(self, aliases) -> None:
        accessors = []
        for alias in aliases:
            bound = self.table.columns[OrderBy(alias).bare]
            # the column's order_by is as it is sorted now: the opposite if asked so
            if alias[0] != bound.order_by_alias[0]:
                accessors += bound.order_by.opposite
            else:
                accessors += bound.order_by
        self.data = self.data.order_by(*(accessor.for_queryset() for accessor in accessors))


class RowsInOneCall(tables.Table):
    """A table whose body is rendered by one call per page.

    django-tables2 resolves every cell on its own (signature inspection, accessor and
    attribute lookups: about 0.1 ms a cell), which alone took a 50-row page of the
    busiest tables past the 50 ms the pages must render in. Here every visible column
    has a ``render_<name>(record)`` method, and the table's template prints
    ``{{ table.body_html }}``: the same methods, called once per cell directly. The
    header, sorting and pagination stay django-tables2's.
    """

    def body_html(self) -> str:
        cells = [
            (self.cell_attrs(bound), getattr(self, f"render_{bound.name}"))
            for bound in self.columns
        ]
        rows = [self.row_html(row.record, cells) for row in self.paginated_rows]
        if not rows:
            return format_html(
                '<tr><td colspan="{}">{}</td></tr>', len(cells), self.empty_text or ""
            )
        # safe: each cell is escaped unless its render method built it with format_html
        return mark_safe("".join(rows))

    @staticmethod
    def cell_attrs(bound) -> str:
        """A cell's attributes, with its column's header as ``data-label``: a table of
        class ``stacked-on-phone`` shows each row as a block of labelled lines on a phone
        (site.css)."""
        return AttributeDict({**bound.attrs["td"], "data-label": bound.header}).as_html()

    def row_html(self, record, cells) -> str:
        return "<tr>" + self.cells_html(record, cells) + "</tr>"

    @staticmethod
    def cells_html(record, cells) -> str:
        return "".join(f"<td {attrs}>{escape_cell(render(record))}</td>" for attrs, render in cells)


class RatingListTable(RowsInOneCall):
    """CurrentRating rows joined with their player and club, or the list as of a day
    (``RatingsOfDay``)."""

    rank = tables.Column(verbose_name=gettext_lazy("Rank"), order_by=("rank", "value"))
    name = tables.Column(
        accessor="player__full_name",
        verbose_name=gettext_lazy("Name"),
        order_by=("player__full_name", "player__username"),
    )
    club = tables.Column(
        accessor="player__club__name", verbose_name=gettext_lazy("Club"), attrs=WIDE_SCREENS_ONLY
    )
    value = tables.Column(verbose_name=gettext_lazy("Index"), attrs=NUMBER)
    games = tables.Column(verbose_name=gettext_lazy("Games"), attrs=NUMBER)
    last_updated = tables.Column(verbose_name=gettext_lazy("Last updated"), attrs=WIDE_SCREENS_ONLY)

    class Meta:
        template_name = "players/tables/rows_in_one_call.html"
        attrs = {**TABLE_ATTRS, "id": "rating-list"}
        orderable = True
        empty_text = gettext_lazy("No rated player matches these filters.")

    def __init__(self, ratings, *, algorithm: Algorithm, as_of=None, **kwargs) -> None:
        data = (
            RatingsOfDayData(ratings)
            if isinstance(ratings, RatingsOfDay)
            else PageFirstData(ratings)
        )
        super().__init__(data, **kwargs)
        self.algorithm = algorithm
        value = self.columns["value"].column
        value.verbose_name = capfirst(_(algorithm.value_label))
        if algorithm.rank_scale.kind == "index":
            # An index is comparable within a rank only (SAGC: 15k at -999 is above 23k
            # at -900): sorting by it sorts by rank, then index (the page says so).
            value.order_by = OrderByTuple(("rank", "value"))
        if as_of is not None:
            # the rows of a past day: the date of each player's last change up to it
            self.columns["last_updated"].column.verbose_name = _("Last change")

    def render_rank(self, record) -> str:
        return str(record.rank)

    def render_name(self, record) -> str:
        player = record.player
        return format_html(
            '<a href="{}">{}</a> <span class="text-body-secondary small">{}</span>',
            player_url(player.username),
            player.full_name or player.username,
            player.username,
        )

    def render_club(self, record) -> str:
        club = record.player.club
        return club.name if club is not None else "\u2014"

    def render_value(self, record) -> str:
        return shown_value(record.value, self.algorithm.integer_values)

    def render_games(self, record) -> str:
        return str(record.games)

    def render_last_updated(self, record) -> str:
        return _date_cell(record.last_updated)


def new_value_header(value_label: str) -> str:
    """The log's "New <value>" column header, one whole message per value label the
    algorithms use ("Nouvel indice" needs the word itself, and the French ladder's level
    must not read as the rank column's "Nouveau niveau"); another label is composed."""
    headers = {
        "index": pgettext("log column", "New index"),
        "GoR": pgettext("log column", "New GoR"),
        "level": pgettext("log column", "New level"),
        "rating": pgettext("log column", "New rating"),
    }
    if value_label in headers:
        return headers[value_label]
    return capfirst(_("New %(value_label)s") % {"value_label": _(value_label)})


class RecordSheetTable(RowsInOneCall):
    """A player's RatingHistory rows under one algorithm, in the seed's 12 columns, and
    under each row (hidden until asked for) how its change was computed."""

    opponent = tables.Column(verbose_name=gettext_lazy("Opponent"))
    opponent_rank = tables.Column(verbose_name=gettext_lazy("Opp. rank"))
    # On a phone every column stays: the rows stack, each cell under its label.
    colour = tables.Column(verbose_name=gettext_lazy("Colour"))
    # H: the handicap's abbreviation, as on the paper record sheet
    handicap = tables.Column(verbose_name=pgettext_lazy("handicap", "H"), accessor="game__handicap")
    komi = tables.Column(verbose_name=gettext_lazy("Komi"), accessor="game__komi")
    winner = tables.Column(
        verbose_name=gettext_lazy("Winner"),
        accessor="game__winner",
        attrs={"td": {"class": "text-nowrap"}},
    )
    status = tables.Column(verbose_name="GSF", accessor="game__status")
    change = tables.Column(verbose_name=gettext_lazy("Change"), attrs=NUMBER)
    value_after = tables.Column(verbose_name=gettext_lazy("New index"), attrs=NUMBER)
    rank_after = tables.Column(verbose_name=gettext_lazy("New rank"))
    date = tables.Column(verbose_name=gettext_lazy("Date"), attrs={"td": {"class": "text-nowrap"}})
    # On the log page of a player who changed clubs: the club(s) of that day.
    club = tables.Column(empty_values=(), verbose_name=gettext_lazy("Club"))
    comments = tables.Column(verbose_name=gettext_lazy("Comments"))
    # Only on the player's own log page: a link to report a mistake in the game.
    report = tables.Column(verbose_name="", empty_values=())

    class Meta:
        template_name = "players/tables/rows_in_one_call.html"
        attrs = {
            **TABLE_ATTRS,
            "id": "record-sheet",
            "class": TABLE_ATTRS["class"] + " small stacked-on-phone",
        }
        orderable = False
        empty_text = gettext_lazy("No games yet.")

    def __init__(
        self,
        rows,
        *,
        algorithm: Algorithm,
        reported: set[int] | None = None,
        player=None,
        player_name: str = "",
        memberships: list[MembershipSpan] | None = None,
        **kwargs,
    ) -> None:
        """``reported``: on the player's own page, the ids of their games with an open
        report (the others get a "Report" link); None elsewhere (no column). ``player``:
        the log page's player, whose opponents link to the head-to-head page;
        ``player_name`` names the sheet's player without those links (a game without
        colours names its winner)."""
        if reported is None:
            kwargs["exclude"] = (*kwargs.get("exclude", ()), "report")
        if not memberships:  # a visitor's, or a sheet printed without it
            kwargs["exclude"] = (*kwargs.get("exclude", ()), "club")
        self.memberships = memberships or []
        super().__init__(PageFirstData(rows), **kwargs)
        self.reported = reported or set()
        self.report_url = reverse("game_report", args=[0]).removesuffix("0/report/")
        self.algorithm = algorithm
        # each game's opponent links to the two players' head-to-head page
        self.head_to_head_prefix = (
            player_url(player.username) + "vs/" if player is not None else None
        )
        if player is not None:
            player_name = player.full_name or player.username
        self.player_name = player_name
        self.columns["value_after"].column.verbose_name = new_value_header(algorithm.value_label)
        # the factor each status gives the change (SAGC's GSF), else the status
        factors = algorithm.status_factors
        self.status_factors = (
            {status.value: decimal_text(factor) for status, factor in factors.by_status.items()}
            if factors is not None
            else None
        )
        if factors is None:
            self.columns["status"].column.verbose_name = _("Status")
        else:
            self.columns["status"].column.verbose_name = factors.symbol
        # the words of each row, translated once per table, not once per cell
        self.words = {
            "adjustment": _("adjustment"),
            "all_games": _("All their games"),
            "vs": pgettext("head-to-head", "vs"),
            "jigo": _("Jigo"),
            "win": _("win"),
            "loss": _("loss"),
            "how": _("How was this computed?"),
            "reported": _("reported"),
            "report": _("Report"),
        }

    def render_club(self, record) -> str:
        return clubs_on(self.memberships, record.date)

    def render_opponent(self, record) -> str:
        opponent = record.opponent
        link = format_html(
            '<a href="{}">{}</a>',
            player_url(opponent.username),
            opponent.full_name or opponent.username,
        )
        if record.adjustment_id:
            return format_html(
                '{} <span class="badge text-bg-secondary">{}</span>', link, self.words["adjustment"]
            )
        if self.head_to_head_prefix is not None:
            return format_html(
                '{} <a class="small head-to-head" href="{}{}/" title="{}">{}</a>',
                link,
                self.head_to_head_prefix,
                quote(opponent.username),
                self.words["all_games"],
                self.words["vs"],
            )
        return link

    def render_opponent_rank(self, record) -> str:
        return str(record.opponent_rank)

    def render_colour(self, record) -> str:
        if record.game is not None and not record.game.colour_given:
            return colour_not_given()
        return str(COLOURS.get(record.colour, ""))

    def render_handicap(self, record) -> str:
        return str(record.game.handicap) if record.game is not None else ""

    def render_komi(self, record) -> str:
        if record.game is None:
            return ""
        return decimal_text(record.game.komi, 1)

    def render_winner(self, record) -> str:
        game = record.game
        if game is None:
            return ""
        if game.winner == Game.Winner.JIGO:
            return self.words["jigo"]
        won = game.winner == record.colour
        # Who won, then this player's result: "White won" and a "loss" badge (the
        # winner's colour beside "lost" read "White lost" of a game White won). A game
        # without colours names its winner instead.
        if game.colour_given:
            result = str(RESULTS[game.winner])  # "White won", "Black won"
        else:
            opponent = record.opponent
            winner = self.player_name if won else (opponent.full_name or opponent.username)
            result = _("%(winner)s won") % {"winner": winner}
        return format_html(
            '{} <span class="badge {}">{}</span>',
            result,
            "text-bg-success" if won else "text-bg-light border",
            self.words["win"] if won else self.words["loss"],
        )

    def render_status(self, record) -> str:
        game = record.game
        if game is None:
            return ""
        if self.status_factors is not None:
            return self.status_factors.get(game.status, "")
        return game.get_status_display()

    def render_change(self, record) -> str:
        if record.adjustment_id:
            # An adjustment's own "change" is no game's: show what it moved (a resync
            # from 7k to 6k is not "0"): the rank, else the value within the rank (an
            # index counts within its rank, so across ranks its difference means little).
            if record.rank_before != record.rank_after:
                change = f"{record.rank_before} \u2192 {record.rank_after}"
            else:
                change = shown_change(
                    record.value_after - record.value_before, self.algorithm.integer_values
                )
        else:
            change = shown_change(record.change, self.algorithm.integer_values)
        return format_html(
            '<button type="button" class="btn btn-link btn-sm p-0 change-toggle"'
            ' data-bs-toggle="collapse" data-bs-target="#how-{}" aria-expanded="false"'
            ' aria-controls="how-{}" title="{}">{}</button>',
            record.pk,
            record.pk,
            self.words["how"],
            change,
        )

    def render_value_after(self, record) -> str:
        return format_html(
            '<span title="{}">{}</span>',
            record.value_after,
            shown_value(record.value_after, self.algorithm.integer_values),
        )

    def render_rank_after(self, record) -> str:
        return str(record.rank_after)

    def render_date(self, record) -> str:
        return record.date.isoformat()

    def render_report(self, record) -> str:
        if record.game_id is None or record.game.is_void:
            return ""
        if record.game_id in self.reported:
            return format_html(
                '<span class="badge text-bg-warning">{}</span>', self.words["reported"]
            )
        return format_html(
            '<a class="report-link" href="{}{}/report/">{}</a>',
            self.report_url,
            record.game_id,
            self.words["report"],
        )

    def render_comments(self, record) -> str:
        parts = []
        source = record.game or record.adjustment
        if record.game is not None and record.game.tournament_id:
            tournament = record.game.tournament
            link = format_html(
                '<a href="{}">{}</a>',
                reverse("tournament_detail", args=[tournament.code]),
                tournament.name or tournament.code,
            )
            if record.game.round:
                # the sentence escaped, then its values put in (the link is HTML already)
                link = mark_safe(
                    escape(_("%(tournament)s, round %(round)s"))
                    % {"tournament": link, "round": escape(record.game.round)}
                )
            parts.append(link)
        if source is not None and source.comment:
            # An adjustment's comment may be a resync's, stored in English from a marked
            # template; a game's is the volunteer's own words.
            comment = translated(source.comment) if record.game is None else source.comment
            parts.append(format_html('<span class="user-text">{}</span>', comment))
        if record.skipped:
            parts.append(
                format_html(
                    '<span class="text-body-secondary">{}</span>',
                    _("not rated: %(reason)s") % {"reason": translated(record.skipped)},
                )
            )
        return format_html_join("; ", "{}", ((part,) for part in parts))

    def row_html(self, record, cells) -> str:
        """The row, then the hidden row that tells how its change was computed."""
        how = how_html(self.algorithm, stored_change(record))
        return (
            f"<tr>{self.cells_html(record, cells)}</tr>"
            f'<tr class="collapse how-row" id="how-{record.pk}">'
            f'<td colspan="{len(cells)}">{how}</td></tr>'
        )


class SnapshotTable(tables.Table):
    date = tables.Column(verbose_name=gettext_lazy("Month end"))
    rank = tables.Column(verbose_name=gettext_lazy("Rank"))
    value = tables.Column(verbose_name=gettext_lazy("Rating"), attrs=NUMBER)
    games = tables.Column(verbose_name=gettext_lazy("Games"), attrs=NUMBER)

    class Meta:
        template_name = RESPONSIVE_TEMPLATE
        attrs = {**TABLE_ATTRS, "id": "snapshots"}
        orderable = False
        empty_text = gettext_lazy("No month-end standings yet.")

    def render_date(self, value) -> str:
        return value.isoformat()

    def render_rank(self, value) -> str:
        return str(value)

    def render_value(self, value) -> str:
        # rounded to whole points, as the pages show a rating
        return format_html('<span title="{}">{}</span>', value, shown_value(value, False))


def log_table(log: PlayerLog) -> tables.Table:
    """The log page's table: the record sheet, or the month-end standings of an
    algorithm that rates all games at once."""
    if not log.algorithm.has_history:
        return SnapshotTable(log.rows)
    return RecordSheetTable(
        log.rows,
        algorithm=log.algorithm,
        reported=log.reported,
        player=log.player,
        # The seed's columns, and a Club column for a player who changed clubs (or
        # belongs to two): the header names a player's one club.
        memberships=log.memberships if len(log.memberships) > 1 else None,
    )


class TournamentTable(RowsInOneCall):
    name = tables.Column(verbose_name=gettext_lazy("Tournament"))
    dates = tables.Column(
        empty_values=(), verbose_name=gettext_lazy("Dates"), order_by=("start_date",)
    )
    egf_class = tables.Column(verbose_name=gettext_lazy("Class"))
    game_count = tables.Column(verbose_name=gettext_lazy("Games"), attrs=NUMBER)
    player_count = tables.Column(verbose_name=gettext_lazy("Players"), attrs=NUMBER)

    class Meta:
        template_name = "players/tables/rows_in_one_call.html"
        attrs = {**TABLE_ATTRS, "id": "tournaments"}
        orderable = False
        empty_text = gettext_lazy("No tournaments yet.")

    def render_name(self, record) -> str:
        return format_html(
            '<a href="{}">{}</a> <span class="text-body-secondary small">{}</span>',
            record.get_absolute_url(),
            record.name or record.code,
            record.code,
        )

    def render_dates(self, record) -> str:
        return date_range(
            record.start_date or record.first_game, record.end_date or record.last_game
        )

    def render_egf_class(self, record) -> str:
        return record.egf_class  # the letter; the tournament's page says its weight

    # Grouped as the tournament's own page and its import write them (2,226; 2 226).
    def render_game_count(self, record) -> str:
        return count_text(record.game_count)

    def render_player_count(self, record) -> str:
        return count_text(record.player_count)


def date_range(first, last) -> str:
    if first is None:
        return "\u2014"
    if last is None or last == first:
        return first.isoformat()
    return f"{first.isoformat()} \u2013 {last.isoformat()}"


class RoundColumn(tables.Column):
    """One round of the crosstable: ``5+b/h2`` = beat number 5 with Black, two stones
    (its cells are :meth:`CrosstableTable.round_html`)."""

    def __init__(self, number: int, **kwargs) -> None:
        super().__init__(empty_values=(), orderable=False, **kwargs)
        self.number = number


class ScoreColumn(tables.Column):
    """One tie-breaker of the standings: as the file wrote it, or computed (3.5)."""

    def __init__(self, index: int, *, field: str = "scores", **kwargs) -> None:
        super().__init__(empty_values=(), orderable=False, **kwargs)
        self.index = index
        self.field = field  # "scores", or "after_rounds": an h-file's columns after the rounds

    def render(self, record) -> str:
        values = getattr(record, self.field)
        value = values[self.index] if self.index < len(values) else ""
        return decimal_text(value, 1) if isinstance(value, Fraction) else str(value)


# After a round cell whose game was corrected since it was stored (its title says so).
CORRECTED_MARK = '<sup class="round-corrected" aria-hidden="true">\u270e</sup>'
CORRECTED_CLASS = ' class="text-nowrap"'  # the mark stays by its round
# After a round cell whose game was voided since (struck through; its title says so).
VOIDED_MARK = '<sup class="round-voided" aria-hidden="true">\u2717</sup>'
FILE_FIGURES_TITLE = gettext_lazy(
    "As the tournament's file has it: not recomputed when a game is corrected"
)


def _with_th(attrs: dict, th: dict) -> dict:
    """A column's ``attrs`` with more attributes on its header cell."""
    return {**attrs, "th": {**attrs.get("th", {}), **th}} if th else attrs


# A round cell's title after the opponent's name when the file gave no colour.
NO_COLOUR_SUFFIX = gettext_lazy("; colour not given")


def _round_columns(crosstable: Crosstable) -> list[tuple[str, RoundColumn]]:
    """A column per round, headed R1, R2... (the organisers' abbreviation); round 0
    holds the games of no round."""
    return [
        (
            f"round_{number}",
            RoundColumn(
                number,
                verbose_name=pgettext("round", "R%(number)s") % {"number": number}
                if number
                else _("Games"),
            ),
        )
        for number in crosstable.rounds
    ]


def _score_columns(crosstable: Crosstable) -> list[tuple[str, ScoreColumn]]:
    """A column per tie-breaker, then one per column an h-file has after the rounds; an
    imported tournament's are the file's figures, kept as it had them (their headers'
    titles say so)."""
    from_file = {"title": FILE_FIGURES_TITLE} if crosstable.standings else {}
    return [
        (
            f"score_{index}",
            ScoreColumn(
                index,
                verbose_name=score_name(name) or "—",
                attrs=_with_th(NUMBER if index == 0 else NUMBER_WIDE_SCREENS_ONLY, from_file),
            ),
        )
        for index, name in enumerate(crosstable.score_names)
    ] + [
        (
            f"after_{index}",
            ScoreColumn(
                index,
                field="after_rounds",
                verbose_name=score_name(name) or "—",
                attrs=_with_th(NUMBER, from_file),
            ),
        )
        for index, name in enumerate(crosstable.after_round_names)
    ]


class CrosstableTable(RowsInOneCall):
    """A tournament's players in place order; a column per round (built per tournament).
    All of them on one page: EGC 2013's 594 players over 10 rounds are 11,000 cells,
    a second through django-tables2's cell by cell rendering."""

    number = tables.Column(verbose_name="#")
    place = tables.Column(verbose_name=gettext_lazy("Place"), empty_values=())
    player = tables.Column(verbose_name=gettext_lazy("Player"), empty_values=())
    rank = tables.Column(verbose_name=gettext_lazy("Rank"), empty_values=())
    country = tables.Column(verbose_name=gettext_lazy("Country"), empty_values=())
    club = tables.Column(
        verbose_name=gettext_lazy("Club"), empty_values=(), attrs=WIDE_SCREENS_ONLY
    )
    value_before = tables.Column(
        verbose_name=gettext_lazy("Before"),
        attrs=NUMBER_WIDE_SCREENS_ONLY,
    )
    value_after = tables.Column(verbose_name=gettext_lazy("After"), attrs=NUMBER)
    change = tables.Column(
        verbose_name=gettext_lazy("Change"),
        empty_values=(),
        attrs={"td": {"class": "text-end fw-semibold"}, "th": {"class": "text-end"}},
    )

    class Meta:
        template_name = "players/tables/rows_in_one_call.html"
        attrs = {**TABLE_ATTRS, "id": "crosstable"}
        orderable = False
        empty_text = gettext_lazy("No games in this tournament yet.")

    def __init__(self, crosstable: Crosstable, *, algorithm: Algorithm) -> None:
        round_columns = _round_columns(crosstable)
        score_columns = _score_columns(crosstable)
        super().__init__(
            crosstable.rows,
            extra_columns=round_columns + score_columns,
            sequence=(
                "number",
                "place",
                "player",
                "rank",
                "country",
                "club",
                *(name for name, _ in round_columns),
                *(name for name, _ in score_columns),
                "...",
            ),
            # The place is its own column only where it is not the row's number (ties).
            exclude=() if crosstable.ties else ("place",),
        )
        self.algorithm = algorithm
        self._round_titles(crosstable)
        for name, column in round_columns:  # the cells of RowsInOneCall
            setattr(self, f"render_{name}", functools.partial(self.round_html, column.number))
        for name, score in score_columns:
            setattr(self, f"render_{name}", functools.partial(self.score_html, score.render))
        self._value_headers(algorithm)

    def _round_titles(self, crosstable: Crosstable) -> None:
        """The words of the round cells' titles, escaped once for the whole table."""
        self.corrected_suffix = (
            _(" · corrected since the import")
            if crosstable.standings
            else _(" · corrected since entered")
        )
        self.no_colour_suffix = escaped(NO_COLOUR_SUFFIX)
        self.voided_suffix = escaped(_(" · voided"))
        # A round the file gives that is no game here (selectors.tournaments.FileRound).
        self.file_round_titles = {
            "forfeit": escaped(_("won or lost by forfeit: not rated")),
            "bye": escaped(pgettext("a round of a tournament", "bye")),
            "not paired": escaped(_("not paired this round")),
        }
        # each player's name escaped once, for the title of each of their opponents' cells
        self.opponent_titles = {
            row.number: escaped(row.player.full_name or row.player.username)
            for row in crosstable.rows
        }

    def _value_headers(self, algorithm: Algorithm) -> None:
        """The value columns' headers, naming the algorithm."""
        label = _(algorithm.short_title)
        self.columns["value_before"].column.verbose_name = _("%(algorithm)s before") % {
            "algorithm": label
        }
        self.columns["value_after"].column.verbose_name = _("%(algorithm)s after") % {
            "algorithm": label
        }

    # Every cell of this table is built as escaped HTML by its render method, and the
    # rows are joined as they are: EGC 2013's crosstable is 13,000 cells, and a check
    # and an escape of each took a tenth of the page's time.
    def row_html(self, record, cells) -> str:
        return (
            "<tr>"
            + "".join([f"<td {attrs}>{render(record)}</td>" for attrs, render in cells])
            + "</tr>"
        )

    def round_html(self, number: int, record) -> str:
        results = record.rounds.get(number)
        if not results:
            written = record.file_rounds.get(number)
            if written is None:
                return ""
            # the text is digits, +, -, =, !, w, b: nothing to escape
            return (
                f'<span title="{self.file_round_titles[written.kind]}" '
                f'class="text-body-secondary">{written.text}</span>'
            )
        titles = self.opponent_titles
        no_colour, voided = self.no_colour_suffix, self.voided_suffix
        # the results' text is digits, +, -, =, w, b, /h: nothing to escape
        return ", ".join(
            [
                f'<span title="{titles[result.opponent_number]}'
                f'{"" if result.colour else no_colour}{voided}" class="text-nowrap">'
                f"<del>{result}</del>{VOIDED_MARK}</span>"
                if result.voided
                else f'<span title="{titles[result.opponent_number]}'
                f"{'' if result.colour else no_colour}"
                f'{self.corrected_suffix if result.corrected else ""}"'
                f"{CORRECTED_CLASS if result.corrected else ''}>{result}"
                f"{CORRECTED_MARK if result.corrected else ''}</span>"
                for result in results
            ]
        )

    @staticmethod
    def score_html(render, record) -> str:
        return escaped(render(record))

    def render_player(self, record) -> str:
        player = record.player
        return (
            f'<a href="{escaped(player_url(player.username))}">'
            f"{escaped(player.full_name or player.username)}</a>"
        )

    def render_number(self, record) -> str:
        return str(record.number)

    def render_rank(self, record) -> str:
        return escaped(record.rank) if record.rank else ""

    def render_place(self, record) -> str:
        return escaped(record.place)

    def render_country(self, record) -> str:
        return escaped(record.country)

    def render_club(self, record) -> str:
        return escaped(record.club)

    def render_value_before(self, record) -> str:
        return self._value_cell(record.value_before, record.rank_before)

    def render_value_after(self, record) -> str:
        return self._value_cell(record.value_after, record.rank_after)

    def _value_cell(self, value: float | None, rank) -> str:
        """A value before or after the tournament; an index (SAGC's) with its rank, as
        the index alone does not say it."""
        if value is None:  # not recomputed yet
            return "\u2014"
        shown = shown_value(value, self.algorithm.integer_values)
        return f"{rank} {shown}" if self.algorithm.rank_scale.kind == "index" else shown

    def render_change(self, record) -> str:
        change = record.change
        if change is None:
            return ""
        return shown_change(change, self.algorithm.integer_values)


class ClubTable(RowsInOneCall):
    """The clubs with their players counted (``club_list``): a hundred clubs on a page,
    each cell rendered in one call (RowsInOneCall)."""

    name = tables.Column(verbose_name=gettext_lazy("Club"))
    founded = tables.Column(verbose_name=gettext_lazy("Founded"), default="\u2014")
    player_count = tables.Column(verbose_name=gettext_lazy("Players"), attrs=NUMBER)
    active_count = tables.Column(
        verbose_name=gettext_lazy("Active players"),
        attrs=NUMBER,
    )

    class Meta:
        template_name = "players/tables/rows_in_one_call.html"
        attrs = {**TABLE_ATTRS, "id": "clubs"}
        orderable = False
        empty_text = gettext_lazy("No clubs yet.")

    def render_name(self, record) -> str:
        return format_html('<a href="{}">{}</a>', club_url(record), record.name)

    def render_founded(self, record) -> str:
        return record.founded.isoformat() if record.founded else "\u2014"

    def render_player_count(self, record) -> int:
        return record.player_count

    def render_active_count(self, record) -> int:
        return record.active_count


def club_url(club) -> str:
    return reverse("club_detail", args=[club.pk])


RESULTS = {
    "W": gettext_lazy("White won"),
    "B": gettext_lazy("Black won"),
    "D": gettext_lazy("Jigo"),
}


class GameListTable(RowsInOneCall):
    """Games, newest first (Game rows with their players and tournament): the
    head-to-head page's (``attrs`` and ``empty_text`` name the page's) and the games
    search's."""

    date = tables.Column(verbose_name=gettext_lazy("Date"))
    white = tables.Column(verbose_name=pgettext_lazy("player", "White"))
    black = tables.Column(verbose_name=pgettext_lazy("player", "Black"))
    handicap = tables.Column(verbose_name=gettext_lazy("Handicap"), attrs=NUMBER)
    komi = tables.Column(verbose_name=gettext_lazy("Komi"), attrs=NUMBER)
    result = tables.Column(accessor="winner", verbose_name=gettext_lazy("Result"))
    tournament = tables.Column(verbose_name=gettext_lazy("Tournament"), attrs=WIDE_SCREENS_ONLY)

    class Meta:
        template_name = "players/tables/rows_in_one_call.html"
        attrs = {**TABLE_ATTRS, "id": "games"}
        orderable = False
        empty_text = gettext_lazy("No game matches these filters.")

    def __init__(self, games, **kwargs) -> None:
        # A queryset is paged by the table (its rows picked first); a list is a page
        # already (the games search's, found by key).
        super().__init__(PageFirstData(games) if isinstance(games, QuerySet) else games, **kwargs)

    def row_html(self, record, cells) -> str:
        # The game's number on its row: the pages by key are checked row by row.
        return f'<tr data-game="{record.pk}">' + self.cells_html(record, cells) + "</tr>"

    def render_date(self, record) -> str:
        return _date_cell(record.date)

    def render_white(self, record) -> str:
        return self._side(record, record.white)

    def render_black(self, record) -> str:
        return self._side(record, record.black)

    @staticmethod
    def _side(record, player) -> str:
        """A player of the game; with a "?" when the file gave no colour (the pair is
        stored as White and Black all the same)."""
        link = format_html('<a href="{}">{}</a>', player_url(player.username), player)
        if record.colour_given:
            return link
        return format_html(
            '{} <span class="text-body-secondary" title="{}">(?)</span>',
            link,
            COLOUR_NOT_GIVEN_TITLE,
        )

    def render_handicap(self, record) -> str:
        return str(record.handicap)

    def render_komi(self, record) -> str:
        return decimal_text(record.komi, 1)

    def render_result(self, record) -> str:
        if record.colour_given or record.winner == Game.Winner.JIGO:
            return str(RESULTS[record.winner])
        winner = record.white if record.winner == Game.Winner.WHITE else record.black
        return _("%(winner)s won") % {"winner": winner.full_name or winner.username}

    def render_tournament(self, record) -> str:
        tournament = record.tournament
        if tournament is None:
            return "\u2014"
        return format_html('<a href="{}">{}</a>', tournament.get_absolute_url(), tournament.name)
