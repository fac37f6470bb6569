"""The tables of the volunteer pages. Every cell is rendered from the row's own loaded
fields (the selectors load related rows up front): no render method queries."""

from __future__ import annotations

import json

import django_tables2 as tables
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from players.models import AuditEntry, Game, RecordSheet
from players.selectors.audit import audit_diff
from players.selectors.games import DONE, PENDING, RUNNING
from players.translated import algorithm_name, translated
from players.web.numbers import change_text, value_text
from players.web.tables import COLOURS, NO_WRAP, colour_not_given, player_link
from ratings.models import RatingHistory

TABLE_TEMPLATE = "django_tables2/bootstrap5-responsive.html"
# A colour and a sign per recompute status (the word itself is there for screen readers
# and in the tooltip): seven algorithms fit on one line.
STATUS_LABELS = {
    DONE: pgettext_lazy("recompute status", "done"),
    RUNNING: pgettext_lazy("recompute status", "running"),
    PENDING: pgettext_lazy("recompute status", "pending"),
}
STATUS_BADGES = {
    DONE: ("text-bg-success", "✓"),
    RUNNING: ("text-bg-info", "↻"),
    PENDING: ("text-bg-warning", "…"),
}


class SheetGamesTable(tables.Table):
    """The games of a record sheet, each with its recompute status."""

    # The game's one number: its page's address and title, the audit's object id.
    number = tables.Column(_("Game"), accessor="pk", linkify=("game_detail", [tables.A("pk")]))
    date = tables.DateColumn("Y-m-d", attrs=NO_WRAP, verbose_name=_("Date"))
    white = tables.Column(pgettext_lazy("player", "White"))
    black = tables.Column(pgettext_lazy("player", "Black"))
    handicap = tables.Column(_("H"))
    komi = tables.Column(_("Komi"))
    winner = tables.Column(_("Winner"))
    status = tables.Column(_("Status"))
    tournament = tables.Column(_("Tournament"), empty_values=())
    comment = tables.Column(_("Comment"))
    recompute = tables.Column(
        _("Ratings"), empty_values=(), orderable=False, attrs={"td": {"class": "sheet-recompute"}}
    )

    class Meta:
        model = Game
        fields = ()
        sequence = (
            "number",
            "date",
            "white",
            "black",
            "handicap",
            "komi",
            "winner",
            "status",
            "tournament",
            "comment",
            "recompute",
        )
        orderable = False
        template_name = TABLE_TEMPLATE
        attrs = {"class": "table table-sm align-middle"}
        row_attrs = {
            "class": lambda record: "table-secondary" if record.is_void else "",
            "data-game": lambda record: record.pk,
        }

    def render_white(self, record):
        return player_link(record.white)

    def render_black(self, record):
        return player_link(record.black)

    def render_status(self, record):
        if record.is_void:
            return format_html(
                '<span class="badge text-bg-danger">{}</span>', pgettext_lazy("a game", "void")
            )
        return record.get_status_display()

    def render_tournament(self, record):
        if not record.tournament_id:
            return "—"
        if not record.round:
            return record.tournament.code
        return gettext("%(code)s r%(round)s") % {
            "code": record.tournament.code,
            "round": record.round,
        }

    def render_recompute(self, record):
        # Each algorithm named as its tab names it ("Échelle française"), as on the
        # game's page; its code stays in data-algorithm.
        return format_html_join(
            " ",
            '<span class="badge {colour}" title="{name}: {label}" data-algorithm="{code}" '
            'data-status="{status}">{name} {sign}<span class="visually-hidden"> {label}</span>'
            "</span>",
            (
                {
                    "colour": STATUS_BADGES[state.status][0],
                    "sign": STATUS_BADGES[state.status][1],
                    "code": state.algorithm,
                    "name": algorithm_name(state.algorithm),
                    "status": state.status,
                    "label": STATUS_LABELS[state.status],
                }
                for state in record.recompute
            ),
        )


class SheetTable(tables.Table):
    """Recent record sheets."""

    id = tables.Column(_("Sheet"), linkify=True)
    entered_at = tables.DateTimeColumn("Y-m-d H:i", verbose_name=_("Entered"))
    entered_by = tables.Column(_("By"), accessor="entered_by__username")
    # a shared site's volunteers see every club's sheets: say whose evening each is
    club = tables.Column(_("Club"), accessor="club__name", default="—")
    received_on = tables.DateColumn("Y-m-d", verbose_name=_("Received"))
    game_count = tables.Column(_("Games"))
    note = tables.Column(_("Note"))

    class Meta:
        model = RecordSheet
        fields = ()
        sequence = (
            "id",
            "entered_at",
            "entered_by",
            "club",
            "received_on",
            "game_count",
            "note",
        )
        orderable = False
        template_name = TABLE_TEMPLATE
        attrs = {"class": "table table-sm"}

    def render_game_count(self, record):
        if record.void_count:
            return ngettext(
                "%(games)s (%(void)s void)", "%(games)s (%(void)s void)", record.void_count
            ) % {
                "games": record.game_count,
                "void": record.void_count,
            }
        return record.game_count

    def render_note(self, value):
        return value if len(value) <= 80 else value[:79] + "…"


class GameColourTable(tables.Table):
    """A table of a game's players with a Colour column. ``colour_given`` is the game's:
    off, the column says "not given" rather than the stored pair's W and B."""

    def __init__(self, *args, colour_given: bool = True, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.colour_given = colour_given

    def render_player(self, value):
        return player_link(value)

    def render_algorithm(self, value):
        return algorithm_name(value)  # the code as the tabs name it ("Échelle française")

    def render_colour(self, value):
        if self.colour_given:
            return str(COLOURS.get(value, value))
        return colour_not_given()


class GameHistoryTable(GameColourTable):
    """A game's rows in each algorithm's history."""

    algorithm = tables.Column(_("Algorithm"))
    player = tables.Column(_("Player"))
    colour = tables.Column(_("Colour"))
    rank_before = tables.Column(_("Rank"))
    value_before = tables.Column(_("Before"))
    change = tables.Column(_("Change"))
    value_after = tables.Column(_("After"))
    rank_after = tables.Column(_("New rank"))
    skipped = tables.Column(_("Not rated because"))

    class Meta:
        model = RatingHistory
        fields = ()
        sequence = (
            "algorithm",
            "player",
            "colour",
            "rank_before",
            "value_before",
            "change",
            "value_after",
            "rank_after",
            "skipped",
        )
        orderable = False
        template_name = TABLE_TEMPLATE
        attrs = {"class": "table table-sm"}

    def render_value_before(self, value):
        return value_text(value)

    def render_change(self, value):
        return change_text(value)

    def render_value_after(self, value):
        return value_text(value)

    def render_skipped(self, value):
        return translated(value)  # the engine's English reason, in the page's language


class StandingsAroundTable(GameColourTable):
    """The month-end standings around a game of the algorithms without per-game rows
    (GCR): ``players.selectors.games.StandingsAround``."""

    algorithm = tables.Column(_("Algorithm"))
    player = tables.Column(_("Player"))
    colour = tables.Column(_("Colour"))
    before = tables.Column(_("Month end before"), empty_values=())
    after = tables.Column(_("Month end after"), empty_values=())
    now = tables.Column(_("Now"), empty_values=())

    class Meta:
        orderable = False
        template_name = TABLE_TEMPLATE
        attrs = {"class": "table table-sm", "id": "standings-around"}

    @staticmethod
    def _standing(value) -> str:
        if value is None:
            return "—"
        dated = f" ({value.date.isoformat()})" if hasattr(value, "date") else ""
        return f"{value.rank} · {value_text(value.value)}{dated}"

    def render_before(self, value):
        return self._standing(value)

    def render_after(self, value):
        return self._standing(value)

    def render_now(self, value):
        return self._standing(value)


def _audit_cell(value) -> str:
    """A snapshot value as a volunteer reads it: text as is, but an empty text and a
    missing value told apart ("" and —); numbers, lists and flags as JSON."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return value or '""'
    return json.dumps(value, ensure_ascii=False)


class AuditTable(tables.Table):
    """The audit trail; each row opens to show its before and after side by side."""

    # On a phone the table scrolls sideways rather than folding each cell into a column
    # of single words.
    at = tables.DateTimeColumn("Y-m-d H:i:s", verbose_name=_("When"), attrs=NO_WRAP)
    user = tables.Column(_("Who"), accessor="user__username", default="—", attrs=NO_WRAP)
    action = tables.Column(_("Action"), attrs=NO_WRAP)
    club = tables.Column(_("Whose"), accessor="club__name", default=_("federation"))
    object = tables.Column(_("Object"), empty_values=(), attrs=NO_WRAP)
    summary = tables.Column(_("Summary"), attrs={"td": {"class": "audit-summary user-text"}})
    changes = tables.Column(_("Before → after"), empty_values=())

    class Meta:
        model = AuditEntry
        fields = ()
        sequence = ("at", "user", "action", "club", "object", "summary", "changes")
        orderable = False
        template_name = TABLE_TEMPLATE
        attrs = {"class": "table table-sm align-top audit-table"}
        row_attrs = {"data-audit": lambda record: record.pk}

    def render_action(self, record):
        return record.action_label

    def render_summary(self, value):
        # Stored in English; a sentence of a marked template reads in the page's language.
        return translated(value)

    def render_object(self, record):
        label = f"{record.object_label} {record.object_id}".strip()
        if record.object_type == "game" and record.object_id.isdigit():
            return format_html(
                '<a href="{}">{}</a>', reverse("game_detail", args=[record.object_id]), label
            )
        return label

    def render_changes(self, record):
        if record.before is None and record.after is None:
            return "—"
        changes = audit_diff(record.before, record.after)
        rows = [(c.key, _audit_cell(c.before), _audit_cell(c.after), c.changed) for c in changes]
        return render_to_string(
            "audit/_changes.html",
            {
                "rows": rows,
                "changed": sum(1 for row in rows if row[3]),
                "has_before": record.before is not None,
                "has_after": record.after is not None,
            },
        )
