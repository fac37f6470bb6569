"""The lab page's tables: the algorithms compared, and one algorithm's figures by group
and by calibration bin. Rows are plain dicts and LabEntry objects already loaded:
nothing here queries."""

from __future__ import annotations

import django_tables2 as tables
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from players.translated import translated
from players.web.numbers import percent_text, plain_number
from players.web.tables import NUMBER, TABLE_ATTRS, WIDE_SCREENS_ONLY
from ratings.lab.charts import percent

DASH = "\u2014"
RESPONSIVE_TEMPLATE = "django_tables2/bootstrap5-responsive.html"


def share_text(value: float | None) -> str:
    return DASH if value is None else percent_text(value, 1)


def figure_text(value: float | None, places: int = 3) -> str:
    return DASH if value is None else plain_number(value, places)


class _Figures(tables.Table):
    """The figures every row shows; ``record`` is a summary dict of the engine's lab."""

    games = tables.Column(verbose_name=gettext_lazy("Games"), attrs=NUMBER, empty_values=())
    favourite = tables.Column(
        verbose_name=gettext_lazy("Favourite won"), attrs=NUMBER, empty_values=()
    )
    log_loss = tables.Column(verbose_name=gettext_lazy("Log loss"), attrs=NUMBER, empty_values=())
    brier = tables.Column(verbose_name=gettext_lazy("Brier"), attrs=NUMBER, empty_values=())

    class Meta:
        attrs = TABLE_ATTRS
        orderable = False
        template_name = RESPONSIVE_TEMPLATE

    def figures(self, record) -> dict:
        return record

    def render_games(self, record) -> str:
        return str(self.figures(record).get("games", 0))

    def render_favourite(self, record) -> str:
        figures = self.figures(record)
        share = figures.get("favourite_share")
        if share is None:
            return DASH
        ties = figures.get("no_favourite", 0)
        if not ties:
            return share_text(share)
        return format_html(
            '{}<span class="d-block text-body-secondary small" title="{}">{}</span>',
            share_text(share),
            _("decisive games predicted at exactly 50%"),
            _("%(count)s at 50%%") % {"count": ties},
        )

    def render_log_loss(self, record) -> str:
        return figure_text(self.figures(record).get("log_loss"))

    def render_brier(self, record) -> str:
        return figure_text(self.figures(record).get("brier"))


class ComparisonTable(_Figures):
    """One row per maintained algorithm (a LabEntry), its last report's headline."""

    algorithm = tables.Column(verbose_name=gettext_lazy("Algorithm"), empty_values=())
    computed = tables.Column(
        verbose_name=gettext_lazy("Computed on"), attrs=WIDE_SCREENS_ONLY, empty_values=()
    )

    class Meta(_Figures.Meta):
        sequence = ("algorithm", "games", "favourite", "log_loss", "brier", "computed")
        attrs = {**TABLE_ATTRS, "id": "lab-comparison"}
        empty_text = gettext_lazy("No maintained algorithm.")

    def __init__(self, entries, *, links: dict[str, str], **kwargs) -> None:
        self.links = links
        super().__init__(entries, **kwargs)

    def figures(self, record) -> dict:
        return record.metrics

    def render_algorithm(self, record) -> str:
        return format_html(
            '<a href="{}" title="{}">{}</a>',
            self.links[record.info.name],
            _(record.info.title),
            _(record.info.short_title),
        )

    def render_games(self, record) -> str:
        return DASH if record.report is None else str(record.report.games_counted)

    def render_computed(self, record) -> str:
        if record.report is None:
            return _("not yet")
        return timezone.localtime(record.report.computed_at).strftime("%Y-%m-%d %H:%M")


class BreakdownTable(_Figures):
    """One algorithm's figures by group (rank band, handicap or status)."""

    label = tables.Column(verbose_name=gettext_lazy("Group"))

    class Meta(_Figures.Meta):
        sequence = ("label", "games", "favourite", "log_loss", "brier")

    def __init__(self, rows, *, key: str, title: str | Promise, **kwargs) -> None:
        super().__init__(rows, attrs={**TABLE_ATTRS, "id": f"lab-{key}"}, **kwargs)
        self.columns["label"].column.verbose_name = title

    def render_label(self, value) -> str:
        return translated(value)  # the engine's English (ratings.engine.lab), as stored


class CalibrationTable(tables.Table):
    """The calibration bins: the chart's numbers, for reading and screen readers."""

    bin = tables.Column(verbose_name=gettext_lazy("P(White)"), empty_values=())
    games = tables.Column(verbose_name=gettext_lazy("Games"), attrs=NUMBER)
    predicted = tables.Column(verbose_name=gettext_lazy("Predicted"), attrs=NUMBER, empty_values=())
    observed = tables.Column(
        verbose_name=gettext_lazy("White scored"), attrs=NUMBER, empty_values=()
    )

    class Meta:
        attrs = {**TABLE_ATTRS, "id": "lab-calibration"}
        orderable = False
        template_name = RESPONSIVE_TEMPLATE

    def render_bin(self, record) -> str:
        return f"{percent(record['low'])}\u2013{percent(record['high'])}"

    def render_predicted(self, record) -> str:
        return share_text(record["predicted"])

    def render_observed(self, record) -> str:
        return share_text(record["observed"])


BREAKDOWN_TITLES = (
    ("by_rank_band", gettext_lazy("Rank of the weaker player")),
    ("by_handicap", gettext_lazy("Handicap")),
    ("by_status", gettext_lazy("Game status")),
)


def detail_tables(metrics: dict) -> dict:
    """The tables of one algorithm's report under the comparison: its calibration and
    its breakdowns (those the report has)."""
    return {
        "calibration": CalibrationTable(metrics.get("calibration", [])),
        "breakdowns": [
            BreakdownTable(metrics[key], key=key, title=title)
            for key, title in BREAKDOWN_TITLES
            if key in metrics
        ],
    }
