"""The tables of the committee pages. Every cell is rendered from the row's own loaded
fields or from data handed to the table up front: no render method queries."""

from __future__ import annotations

import django_tables2 as tables
from django.core.exceptions import ObjectDoesNotExist
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from players.models import Adjustment, ResyncBatch
from players.resync import HOW_LABELS, OUTCOME_LABELS, Outcome
from players.translated import algorithm_name, translated
from players.web.numbers import plain_number
from players.web.tables import NO_WRAP, player_link

TABLE_TEMPLATE = "django_tables2/bootstrap5-responsive.html"
TABLE_ATTRS = {"class": "table table-sm align-middle"}
OUTCOME_BADGES = {
    Outcome.CHANGED: "text-bg-primary",
    Outcome.UNCHANGED: "text-bg-light border",
    Outcome.STALE: "text-bg-warning",
    Outcome.OUTDATED: "text-bg-danger",
    Outcome.CONFLICT: "text-bg-danger",
    Outcome.ABSENT: "text-bg-info",
    Outcome.SHARED_NAME: "text-bg-warning",
    Outcome.REPEATED: "text-bg-warning",
    Outcome.INACTIVE: "text-bg-warning",
    Outcome.BAD: "text-bg-danger",
    Outcome.UNKNOWN: "text-bg-secondary",
}
DASH = "—"


def badge(text: str | Promise, css: str):
    return format_html('<span class="badge {}">{}</span>', css, text)


class ResyncPreviewTable(tables.Table):
    """What applying a rank list does, line by line (rows are ``resync.PreviewRow``)."""

    # On a phone the table scrolls sideways: what changes comes first.
    line = tables.Column(_("Line"), empty_values=())
    written = tables.Column(_("As written"))
    outcome = tables.Column(_("Result"), attrs=NO_WRAP)
    current_rank = tables.Column(_("National now"), empty_values=())
    new_rank = tables.Column(_("Listed"), empty_values=())
    rating = tables.Column(_("Listed rating (GoR)"), empty_values=())
    player = tables.Column(_("Player"), empty_values=())
    club_rank = tables.Column(_("Club rank now"), empty_values=())
    effective_date = tables.DateColumn("Y-m-d", verbose_name=_("Effective"), attrs=NO_WRAP)
    last_rated = tables.Column(_("Last rated"), empty_values=(), attrs=NO_WRAP)
    note = tables.Column(_("Why"), empty_values=())

    class Meta:
        orderable = False
        template_name = TABLE_TEMPLATE
        attrs = {**TABLE_ATTRS, "id": "resync-preview"}
        row_attrs = {"data-outcome": lambda record: record.outcome.value}

    def __init__(self, rows, *, club_ranks, club_algorithm: str, **kwargs):
        super().__init__(rows, **kwargs)
        self.club_ranks = club_ranks
        self.columns["club_rank"].column.verbose_name = gettext("Club rank now (%(algorithm)s)") % {
            "algorithm": algorithm_name(club_algorithm)  # as its tab names it: SAGC
        }

    def render_outcome(self, value):
        return badge(OUTCOME_LABELS[value], OUTCOME_BADGES[value])

    def render_last_rated(self, record):
        """The line's age as the list says it: the date the player was last rated and,
        on the AGA's list, their membership."""
        day = f"{record.last_rated:%Y-%m-%d}" if record.last_rated else ""
        if record.membership:
            return f"{day} ({record.membership})" if day else record.membership
        return day

    def render_line(self, record):
        return record.line if record.line is not None else DASH

    def render_rating(self, record):
        return f"{record.rating:f}" if record.rating is not None else ""

    def render_player(self, record):
        if record.player is None:
            return DASH
        if record.how in ("", "username"):
            return player_link(record.player)
        return format_html(
            "{} <small>{}</small>",
            player_link(record.player),
            gettext("by %(how)s") % {"how": HOW_LABELS.get(record.how, record.how)},
        )

    def render_current_rank(self, record):
        if record.player is None:
            return ""
        return str(record.current_rank) if record.current_rank is not None else DASH

    def render_club_rank(self, record):
        if record.player is None:
            return ""
        rank = self.club_ranks.get(record.player.pk)
        return str(rank) if rank is not None else DASH

    def render_new_rank(self, record):
        if record.new_rank is None:
            return ""
        if record.outcome == Outcome.CHANGED:
            return format_html("<strong>{}</strong>", record.new_rank)
        return str(record.new_rank)


class ResyncBatchTable(tables.Table):
    id = tables.Column(_("Resync"), linkify=("committee_resync_batch", [tables.A("pk")]))
    effective_date = tables.DateColumn("Y-m-d", verbose_name=_("Effective"), attrs=NO_WRAP)
    adjustment_count = tables.Column(_("Players"))
    created_at = tables.DateTimeColumn("Y-m-d H:i", verbose_name=_("Applied"), attrs=NO_WRAP)
    created_by = tables.Column(_("By"))
    status = tables.Column(_("Status"), empty_values=())
    note = tables.Column(_("Note"))

    class Meta:
        model = ResyncBatch
        fields = ()
        sequence = (
            "id",
            "effective_date",
            "adjustment_count",
            "created_at",
            "created_by",
            "status",
            "note",
        )
        orderable = False
        template_name = TABLE_TEMPLATE
        attrs = TABLE_ATTRS
        empty_text = _("No resync yet.")

    def render_id(self, value):
        return f"#{value}"

    def render_status(self, record):
        if record.reverted_at:
            return badge(
                gettext("reverted %(date)s") % {"date": f"{record.reverted_at:%Y-%m-%d}"},
                "text-bg-secondary",
            )
        return badge(gettext("applied"), "text-bg-success")


class AdjustmentTable(tables.Table):
    """Adjustments (of a batch or of one player); rows have ``player``, ``created_by``
    and ``resync_batch`` loaded."""

    date = tables.DateColumn("Y-m-d", attrs=NO_WRAP, verbose_name=_("Date"))
    seq = tables.Column(_("Entry"))
    player = tables.Column(_("Player"))
    full_name = tables.Column(_("Name"), accessor="player__full_name")
    algorithm = tables.Column(_("Algorithm"), empty_values=())
    new_rank = tables.Column(_("New rank"))
    value = tables.Column(_("Value"), empty_values=())
    reason = tables.Column(_("Reason"), empty_values=())
    comment = tables.Column(_("Comment"))
    created_by = tables.Column(_("By"))
    status = tables.Column(_("Status"), empty_values=())

    class Meta:
        model = Adjustment
        fields = ()
        sequence = (
            "date",
            "seq",
            "player",
            "full_name",
            "new_rank",
            "algorithm",
            "value",
            "reason",
            "comment",
            "created_by",
            "status",
        )
        orderable = False
        template_name = TABLE_TEMPLATE
        attrs = {**TABLE_ATTRS, "id": "adjustments"}
        row_attrs = {
            "class": lambda record: "table-secondary" if record.is_void else "",
            "data-player": lambda record: record.player.username,
        }
        empty_text = _("No adjustments.")

    def render_player(self, record):
        return player_link(record.player)

    def render_comment(self, value):
        # A resync's comment is stored in English, a sentence of a marked template.
        return translated(value)

    def render_algorithm(self, value):
        # As its tab names it ("EGF 2021"), not its code (egf-2021).
        return algorithm_name(value) if value else gettext("all")

    def render_value(self, value):
        return value.normalize() if value is not None else gettext("default")

    def render_reason(self, record):
        if record.resync_batch_id:
            return format_html(
                '<a href="{}">{}</a>',
                reverse("committee_resync_batch", args=[record.resync_batch_id]),
                gettext("resync #%(number)s") % {"number": record.resync_batch_id},
            )
        return record.get_reason_display()

    def render_status(self, record):
        if record.is_void:
            return badge(pgettext_lazy("an adjustment", "void"), "text-bg-danger")
        return badge(pgettext_lazy("an adjustment", "valid"), "text-bg-success")


def _running_for(seconds: int) -> str:
    return gettext("running for %(seconds)s s") % {"seconds": seconds}


def _linked_player(account):
    try:
        return account.player
    except ObjectDoesNotExist:
        return None


def _club_roles(account) -> list[SafeString]:
    """The roles ``account`` holds for one club each, naming the club (as its page says
    them); prefetched by ``selectors.accounts.accounts``."""
    held = []
    for grant in account.club_roles.all():
        values = {"url": grant.club.get_absolute_url(), "club": grant.club.name}
        if grant.group.name == "committee":
            words = gettext('Committee of <a href="%(url)s">%(club)s</a>')
        else:
            words = gettext('Volunteer of <a href="%(url)s">%(club)s</a>')
        escaped = {name: conditional_escape(value) for name, value in values.items()}
        # the sentence is the catalogue's (the account page's own), its values escaped
        # plain text, not a badge: a link on a badge's colour does not read (axe-core's
        # contrast)
        held.append(format_html("<span>{}</span>", mark_safe(words % escaped)))
    return held


class AccountTable(tables.Table):
    username = tables.Column(_("Username"), linkify=("committee_account", [tables.A("pk")]))
    role = tables.Column(_("Role"), empty_values=(), orderable=False)
    player = tables.Column(_("Player record"), empty_values=(), orderable=False)
    last_login = tables.DateTimeColumn("Y-m-d H:i", verbose_name=_("Last login"))
    date_joined = tables.DateTimeColumn("Y-m-d", verbose_name=_("Created"))
    flags = tables.Column(_("Flags"), empty_values=(), orderable=False)

    class Meta:
        orderable = False
        template_name = TABLE_TEMPLATE
        attrs = {**TABLE_ATTRS, "id": "accounts"}

    def render_role(self, record):
        if record.in_committee:
            return badge(pgettext_lazy("a role", "committee"), "text-bg-primary")
        if record.in_volunteers:
            return badge(pgettext_lazy("a role", "volunteer"), "text-bg-info")
        if held := _club_roles(record):
            return format_html_join(" ", "{}", ((role,) for role in held))
        if _linked_player(record) is not None:
            return badge(pgettext_lazy("a role", "player"), "text-bg-light border")
        return badge(pgettext_lazy("a role", "reader"), "text-bg-light border")

    def render_player(self, record):
        player = _linked_player(record)
        if player is None:
            return "\u2014"
        return format_html('<a href="{}">{}</a>', player.get_absolute_url(), player.username)

    def render_flags(self, record):
        flags = []
        if record.is_superuser:
            flags.append(badge(_("superuser"), "text-bg-dark"))
        elif record.is_staff:
            flags.append(badge(_("staff"), "text-bg-dark"))
        if not record.is_active:
            flags.append(badge(_("inactive"), "text-bg-secondary"))
        return format_html(" ".join(["{}"] * len(flags)), *flags) if flags else ""


class RecomputeTable(tables.Table):
    """The maintained algorithms (rows are ``selectors.recompute.AlgorithmStatus``); each
    row's button submits the page's one full-recompute form (``form="full-recompute"``)."""

    name = tables.Column(_("Algorithm"))
    status = tables.Column(_("Status"), empty_values=())
    dirty_from = tables.Column(_("Dirty from"), accessor="state__dirty_from", empty_values=())
    last_started = tables.DateTimeColumn(
        "Y-m-d H:i:s", accessor="state__last_started", verbose_name=_("Last started")
    )
    last_finished = tables.DateTimeColumn(
        "Y-m-d H:i:s", accessor="state__last_finished", verbose_name=_("Last finished")
    )
    last_duration = tables.Column(_("Duration"), accessor="state__last_duration")
    last_from = tables.DateColumn(
        "Y-m-d", accessor="state__last_from", verbose_name=_("Replayed from"), attrs=NO_WRAP
    )
    last_rows = tables.Column(_("Rows written"), accessor="state__last_rows")
    last_error = tables.Column(_("Last error"), accessor="state__last_error")
    actions = tables.Column(_("Action"), empty_values=())

    class Meta:
        orderable = False
        template_name = TABLE_TEMPLATE
        attrs = {**TABLE_ATTRS, "id": "recompute-states"}
        row_attrs = {"data-algorithm": lambda record: record.name}

    def render_name(self, record):
        return format_html(
            "<strong>{}</strong><br><small>{}</small>", record.name, gettext(record.title)
        )

    def render_status(self, record):
        if record.stalled:
            values = {
                "when": timezone.localtime(record.running_since).strftime("%Y-%m-%d %H:%M:%S"),
                "where": record.state.running_on or gettext("an unknown process"),
            }
            return format_html(
                "{}<br><small>{}</small>",
                badge(gettext("stalled"), "text-bg-danger"),
                gettext(
                    "started %(when)s on %(where)s, which has stopped answering; the next "
                    "sweep starts it again"
                )
                % values,
            )
        if record.running_since is not None:
            elapsed = int(record.elapsed_seconds)
            if record.percent_done is not None:
                return format_html(
                    '{}<div class="progress mt-1" role="progressbar" aria-valuenow="{}" '
                    'aria-valuemin="0" aria-valuemax="100"><div class="progress-bar '
                    'progress-width-{}">{} / {}</div></div>',
                    badge(_running_for(elapsed), "text-bg-info"),
                    record.percent_done,
                    # The Content-Security-Policy refuses style attributes: the width
                    # is one of site.css's classes, in steps of 5%.
                    5 * round(record.percent_done / 5),
                    record.progress_done,
                    record.progress_total,
                )
            return badge(_running_for(elapsed), "text-bg-info")
        if record.state is not None and record.state.is_pending:
            return badge(gettext("pending"), "text-bg-warning")
        if record.state is None or record.state.last_finished is None:
            return badge(gettext("never run"), "text-bg-light border")
        return badge(gettext("up to date"), "text-bg-success")

    def render_dirty_from(self, value):
        return value.isoformat() if value else DASH

    def render_last_duration(self, value):
        return f"{plain_number(value, 2)} s"

    def render_last_error(self, value):
        return format_html('<code class="text-danger">{}</code>', value)

    def render_actions(self, record):
        return format_html(
            '<button type="submit" form="full-recompute" name="algorithm" value="{}" '
            'class="btn btn-sm btn-outline-primary text-nowrap">{}</button>',
            record.name,
            gettext("Full recompute"),
        )


class GameTable(tables.Table):
    """A few games (rows have ``white``, ``black`` and ``tournament`` loaded)."""

    number = tables.Column(_("Game"), accessor="pk", linkify=("game_detail", [tables.A("pk")]))
    date = tables.DateColumn("Y-m-d", attrs=NO_WRAP, verbose_name=_("Date"))
    white = tables.Column(pgettext_lazy("player", "White"))
    black = tables.Column(pgettext_lazy("player", "Black"))
    handicap = tables.Column(_("H"))
    winner = tables.Column(_("Winner"))
    status = tables.Column(_("Status"))
    tournament = tables.Column(_("Tournament"))

    class Meta:
        orderable = False
        template_name = TABLE_TEMPLATE
        attrs = {**TABLE_ATTRS, "id": "games-between"}

    def render_white(self, record):
        return player_link(record.white)

    def render_black(self, record):
        return player_link(record.black)

    def render_status(self, record):
        return record.get_status_display()
