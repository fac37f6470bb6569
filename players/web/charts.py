"""The rank-and-rating chart of a player's log page, as geometry for an inline SVG.

Pure functions: the selectors' ``ChartPoint``s (date, rank, value) in, the numbers of an SVG
out (path data, markers, axis ticks, rank bands); ``templates/players/includes/
rating_chart.html`` draws them. Server-side SVG needs no script and no library, so
the chart works offline and on a phone.

The x axis is proportional to time. The y axis is the rank scale: under SAGC each
rank is a band and the index (-999..999) places the point inside its band; under the
rating algorithms y is the rating, with a band per rank where the scale has ranks
(100 points a rank), and plain value gridlines where it has none (GCR).
"""

from __future__ import annotations

import dataclasses
import html
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from django.utils.dates import MONTHS_3
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from players.selectors.players import ChartPoint
from players.web.numbers import count_text, plain_number
from ratings.engine.algorithms import registry
from ratings.engine.description import VALUE_SCALE, RankScale
from ratings.engine.ranks import STRONGEST_AMATEUR_STONES, WEAKEST_STONES, Rank

WIDTH = 720
HEIGHT = 300
MARGIN_LEFT = 66  # room for "1500" in the large type of a phone (site.css)
MARGIN_RIGHT = 16
MARGIN_TOP = 12
MARGIN_BOTTOM = 38
MAX_POINTS = 500  # a long history is downsampled to this many points (shape kept)


def _month_name(month: int) -> str:
    """The month's short name in the page's language ("Jan", "Fév", "Mrt"), ``month``
    from 0 (January); Django's own translations."""
    return str(MONTHS_3[month + 1]).title()


def scale_for(algorithm: str) -> RankScale:
    """The rank scale the algorithm describes itself with (``Algorithm.rank_scale``)."""
    known = registry().get(algorithm)
    return known.rank_scale if known is not None else VALUE_SCALE


@dataclass(frozen=True, slots=True)
class Marker:
    x: float
    y: float
    label: str


@dataclass(frozen=True, slots=True)
class Tick:
    position: float
    label: str


@dataclass(frozen=True, slots=True)
class Band:
    """One rank's horizontal band (alternate bands are shaded)."""

    top: float
    height: float
    label: str  # empty when there is no room for every label
    label_y: float
    shaded: bool


@dataclass(frozen=True, slots=True)
class Chart:
    width: int
    height: int
    left: float
    top: float
    right: float
    bottom: float
    path: str
    markers: list[Marker]
    last: Marker
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    bands: list[Band]
    y_title: str
    description: str

    @property
    def plot_width(self) -> float:
        return self.right - self.left

    @property
    def plot_height(self) -> float:
        return self.bottom - self.top

    @property
    def markers_svg(self) -> str:
        """A circle with a tooltip per point, as SVG markup (escaped here: hundreds of
        points are too many for a template loop on a page that must be quick)."""
        return "".join(
            f'<circle cx="{marker.x}" cy="{marker.y}" r="3">'
            f"<title>{html.escape(marker.label)}</title></circle>"
            for marker in self.markers
        )


@dataclass(frozen=True, slots=True)
class _Frame:
    """Where the plot lies in the SVG, and the days and values its edges stand for."""

    left: float
    right: float
    top: float
    bottom: float
    first_day: date
    span: int  # days from the left edge to the right one, never 0
    low: float  # the value at the bottom edge
    high: float  # the value at the top edge

    def x_of(self, day: date) -> float:
        return self.left + (day - self.first_day).days / self.span * (self.right - self.left)

    def y_of(self, value: float) -> float:
        return self.bottom - (value - self.low) / (self.high - self.low) * (self.bottom - self.top)


def rank_chart(
    points: Sequence[ChartPoint],
    scale: RankScale,
    *,
    integer_values: bool = False,
    value_label: str = "rating",
    max_points: int = MAX_POINTS,
) -> Chart | None:
    """The chart of ``points`` (in time order), or None when there is nothing to draw."""
    if not points:
        return None
    first_day, span = _time_range(points)
    units = [_y_units(point, scale) for point in points]
    low, high, bands_units, y_tick_units = _y_range(units, scale)
    frame = _Frame(
        left=MARGIN_LEFT,
        right=WIDTH - MARGIN_RIGHT,
        top=MARGIN_TOP,
        bottom=HEIGHT - MARGIN_BOTTOM,
        first_day=first_day,
        span=span,
        low=low,
        high=high,
    )
    markers = _markers(points, units, frame, scale, integer_values, max_points)
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        left=frame.left,
        top=frame.top,
        right=frame.right,
        bottom=frame.bottom,
        path="M" + "L".join(f"{marker.x} {marker.y}" for marker in markers),
        markers=markers,
        last=markers[-1],
        x_ticks=[
            Tick(round(frame.x_of(day), 1), label) for day, label in _month_ticks(first_day, span)
        ],
        y_ticks=[Tick(round(frame.y_of(value), 1), label) for value, label in y_tick_units],
        bands=_bands(bands_units, frame),
        y_title=_("Rank") if scale.kind != "value" else capfirst(_(value_label)),
        description=_chart_description(points, scale, integer_values),
    )


def _time_range(points: Sequence[ChartPoint]) -> tuple[date, int]:
    """The x axis' first day and its span in days: a month around a single day."""
    first_day, last_day = points[0].date, points[-1].date
    if first_day == last_day:
        first_day, last_day = first_day - timedelta(days=15), last_day + timedelta(days=15)
    return first_day, (last_day - first_day).days


def _markers(
    points: Sequence[ChartPoint],
    units: Sequence[float],
    frame: _Frame,
    scale: RankScale,
    integer_values: bool,
    max_points: int,
) -> list[Marker]:
    """The points drawn, at most ``max_points`` of them keeping the line's shape."""
    xy = [
        (frame.x_of(point.date), frame.y_of(unit))
        for point, unit in zip(points, units, strict=True)
    ]
    return [
        Marker(round(xy[i][0], 1), round(xy[i][1], 1), _describe(points[i], scale, integer_values))
        for i in downsample(xy, max_points)
    ]


def _bands(bands_units: Sequence[tuple[float, float, str]], frame: _Frame) -> list[Band]:
    """The ranks' bands, alternate ones shaded, labelled at most about eight times."""
    bands = []
    label_every = max(1, math.ceil(len(bands_units) / 8))
    for number, (band_low, band_high, label) in enumerate(bands_units):
        band_top, band_bottom = frame.y_of(band_high), frame.y_of(band_low)
        bands.append(
            Band(
                top=round(band_top, 1),
                height=round(band_bottom - band_top, 1),
                label=label if number % label_every == 0 else "",
                label_y=round((band_top + band_bottom) / 2, 1),
                shaded=number % 2 == 1,
            )
        )
    return bands


def _chart_description(points: Sequence[ChartPoint], scale: RankScale, integer_values: bool) -> str:
    """What a screen reader says of the chart: its first and last point, and how many."""
    return ngettext(
        "From %(first)s to %(last)s, %(count)s point",
        "From %(first)s to %(last)s, %(count)s points",
        len(points),
    ) % {
        "first": _describe(points[0], scale, integer_values),
        "last": _describe(points[-1], scale, integer_values),
        "count": count_text(len(points)),
    }


def _y_units(point: ChartPoint, scale: RankScale) -> float:
    if scale.kind == "index":
        # the band of the rank, the index placing the point inside it (0 mid-band)
        return point.rank.stones + (point.value + scale.limit + 1) / (2 * scale.limit + 2)
    return float(point.value)


def _rank_label(stones: int) -> str:
    if WEAKEST_STONES <= stones <= STRONGEST_AMATEUR_STONES:
        return str(Rank(stones))
    return ""


def _y_range(
    units: Sequence[float], scale: RankScale
) -> tuple[float, float, list[tuple[float, float, str]], list[tuple[float, str]]]:
    """(low, high, rank bands as (low, high, label), value ticks as (value, label))."""
    lowest, highest = min(units), max(units)
    if scale.kind == "index":
        first, last = math.floor(lowest), math.floor(highest)
        first, last = _at_least_three(first, last)
        bands = [(float(s), float(s + 1), _rank_label(s)) for s in range(first, last + 1)]
        return float(first), float(last + 1), bands, []
    if scale.kind == "points":
        per_rank, base = scale.points_per_rank, scale.bottom_of_1d
        first = math.floor((lowest - base) / per_rank)
        last = math.floor((highest - base) / per_rank)
        first, last = _at_least_three(first, last)
        bands = [
            (base + per_rank * s, base + per_rank * (s + 1), _rank_label(s))
            for s in range(first, last + 1)
        ]
        low, high = base + per_rank * first, base + per_rank * (last + 1)
        return low, high, bands, _value_ticks(low, high)
    padding = max((highest - lowest) * 0.08, 10.0)
    low, high = lowest - padding, highest + padding
    return low, high, [], _value_ticks(low, high)


def _at_least_three(first: int, last: int) -> tuple[int, int]:
    """Show a band either side of a history that never left one or two ranks."""
    if last - first < 2:
        first, last = first - 1, last + 1
    return first, last


def _value_ticks(low: float, high: float) -> list[tuple[float, str]]:
    """About five round values between ``low`` and ``high``."""
    raw_step = (high - low) / 5
    magnitude = 10 ** math.floor(math.log10(raw_step))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw_step)
    value = math.ceil(low / step) * step
    ticks = []
    while value <= high:
        ticks.append((value, f"{value:g}"))
        value += step
    return ticks


def _describe(point: ChartPoint, scale: RankScale, integer_values: bool) -> str:
    value = point.value
    if scale.kind == "index":  # an index counts within its rank: both, the index signed
        shown = f"{int(value):+d}".replace("-", "\u2212")
        return f"{point.date.isoformat()}: {point.rank} {shown}"
    shown = plain_number(int(value) if integer_values else value)
    rank = f"{point.rank}, " if scale.kind != "value" else ""
    return f"{point.date.isoformat()}: {rank}{shown}"


def _month_ticks(first_day: date, span_days: int) -> list[tuple[date, str]]:
    """First days of months (or years) inside the range, at most about six."""
    months = span_days / 30.44
    step = next((s for s in (1, 2, 3, 6, 12, 24, 60) if months / s <= 6), 120)
    month_index = first_day.year * 12 + first_day.month  # the month after first_day's
    if step >= 12:
        month_index = (month_index + 11) // 12 * 12  # a January
    else:
        month_index = (month_index + step - 1) // step * step
    end = first_day + timedelta(days=span_days)
    ticks: list[tuple[date, str]] = []
    while True:
        year, month = divmod(month_index, 12)
        day = date(year, month + 1, 1)
        if day > end:
            break
        if step >= 12:
            label = str(year)
        elif month == 0 or not ticks:
            label = f"{_month_name(month)} {year}"
        else:
            label = _month_name(month)
        ticks.append((day, label))
        month_index += step
    return ticks


def downsample(xy: Sequence[tuple[float, float]], threshold: int) -> list[int]:
    """Indexes of at most ``threshold`` points that keep the line's shape
    (largest-triangle-three-buckets); the first and last point are always kept."""
    count = len(xy)
    if threshold >= count or threshold < 3:
        return list(range(count))
    bucket = (count - 2) / (threshold - 2)
    kept = [0]
    previous = 0
    for i in range(threshold - 2):
        start = int(i * bucket) + 1
        end = int((i + 1) * bucket) + 1
        next_start, next_end = end, min(int((i + 2) * bucket) + 1, count)
        following = xy[next_start:next_end] or [xy[-1]]
        average_x = sum(p[0] for p in following) / len(following)
        average_y = sum(p[1] for p in following) / len(following)
        ax, ay = xy[previous]
        best, best_area = start, -1.0
        for j in range(start, end):
            bx, by = xy[j]
            area = abs((ax - average_x) * (by - ay) - (ax - bx) * (average_y - ay))
            if area > best_area:
                best, best_area = j, area
        kept.append(best)
        previous = best
    kept.append(count - 1)
    return kept


ACTIVITY_HEIGHT = 160
ACTIVITY_BAR = 24  # each month's width: two bars side by side


@dataclass(frozen=True, slots=True)
class ActivityBar:
    x: float
    games_height: float
    members_height: float
    games_y: float
    members_y: float
    label: str  # the month's tick: its initial
    title: str  # what a pointer or a screen reader reads
    year: int | None = None  # written under the tick: January's and the first month's


def activity_svg(bars: Sequence[ActivityBar]) -> SafeString:
    """The bars' SVG elements in one call (24 months of five numbers each through the
    template language took a fifth of a club page's time), numbers written as SVG wants
    them (a point, never the language's decimal comma)."""
    base = ACTIVITY_HEIGHT - MARGIN_BOTTOM
    return mark_safe(
        "".join(
            f"<g><title>{html.escape(bar.title)}</title>"
            f'<rect x="{bar.x:g}" y="{bar.games_y:g}" width="10" height="{bar.games_height:g}" '
            'class="activity-games" fill="#0d6efd"/>'
            f'<rect x="{bar.x + 11:g}" y="{bar.members_y:g}" width="10" '
            f'height="{bar.members_height:g}" class="activity-members" fill="#fd7e14"/>'
            f'<text x="{bar.x:g}" y="{base + 14}" font-size="10" fill="currentColor">'
            f"{html.escape(bar.label)}</text>"
            # the year under its January and under the first month, so a reader knows
            # which months these are
            + (
                f'<text x="{bar.x:g}" y="{base + 27}" font-size="10" fill="currentColor">'
                f"{bar.year}</text>"
                if bar.year
                else ""
            )
            + "</g>"
            for bar in bars
        )
    )


def activity_bars(months: Sequence) -> tuple[list[ActivityBar], int]:
    """A club's months (``MonthActivity``) as bars of an inline SVG: games and active
    members side by side, to one scale; with the scale's top."""
    top = max([1, *(m.games for m in months), *(m.members for m in months)])
    base = ACTIVITY_HEIGHT - MARGIN_BOTTOM
    usable = base - MARGIN_TOP
    bars = []
    for index, month in enumerate(months):
        games = round(usable * month.games / top, 1)
        members = round(usable * month.members / top, 1)
        bar = _bar(index, month, games, members, base)
        if index == 0 or month.month.month == 1:
            bar = dataclasses.replace(bar, year=month.month.year)
        bars.append(bar)
    return bars, top


def _bar(index: int, month, games: float, members: float, base: int) -> ActivityBar:
    return ActivityBar(
        x=MARGIN_LEFT + index * ACTIVITY_BAR,
        games_height=games,
        members_height=members,
        games_y=base - games,
        members_y=base - members,
        label=_month_name(month.month.month - 1)[0],
        title=f"{month.month:%Y-%m}: "
        + ngettext("%(count)s game", "%(count)s games", month.games)
        % {"count": count_text(month.games)}
        + ", "
        + ngettext("%(count)s active member", "%(count)s active members", month.members)
        % {"count": count_text(month.members)},
    )
