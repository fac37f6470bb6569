"""The lab's calibration chart, as geometry for an inline SVG (as players/web/charts.py
draws the rank chart: no script, no library, works offline and on a phone).

Predicted chance of White on x, White's observed score on y, both 0..100 %; the
diagonal is a perfect calibration; one point per non-empty bin at its mean
prediction and mean score, its area proportional to the bin's games.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.translation import ngettext

from players.web.charts import Tick
from players.web.numbers import count_text, percent_text

WIDTH = 360
HEIGHT = 340
MARGIN_LEFT = 48
MARGIN_RIGHT = 22
MARGIN_TOP = 12
MARGIN_BOTTOM = 44
MAX_RADIUS = 14.0
MIN_RADIUS = 3.0
TICKS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


@dataclass(frozen=True, slots=True)
class CalibrationPoint:
    x: float
    y: float
    r: float
    label: str


@dataclass(frozen=True, slots=True)
class CalibrationChart:
    width: int
    height: int
    left: float
    top: float
    right: float
    bottom: float
    points: list[CalibrationPoint]
    path: str  # the line through the points, in bin order
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    description: str

    @property
    def points_svg(self) -> str:
        """A circle with a tooltip per point, as SVG markup (escaped here)."""
        return "".join(
            f'<circle cx="{point.x}" cy="{point.y}" r="{point.r}">'
            f"<title>{html.escape(point.label)}</title></circle>"
            for point in self.points
        )


def percent(value: float) -> str:
    return percent_text(value)


def calibration_chart(bins: Sequence[dict]) -> CalibrationChart | None:
    """The chart of a report's calibration bins, or None when no bin has games."""
    filled = [item for item in bins if item.get("games")]
    if not filled:
        return None
    left, right = MARGIN_LEFT, WIDTH - MARGIN_RIGHT
    top, bottom = MARGIN_TOP, HEIGHT - MARGIN_BOTTOM

    def x_of(value: float) -> float:
        return round(left + value * (right - left), 1)

    def y_of(value: float) -> float:
        return round(bottom - value * (bottom - top), 1)

    most = max(item["games"] for item in filled)
    points = []
    for item in filled:
        # the area, not the radius, grows with the games
        radius = max(MIN_RADIUS, MAX_RADIUS * math.sqrt(item["games"] / most))
        games = item["games"]
        points.append(
            CalibrationPoint(
                x=x_of(item["predicted"]),
                y=y_of(item["observed"]),
                r=round(radius, 1),
                label=ngettext(
                    "%(bin)s: %(games)s game, predicted %(predicted)s, White scored %(observed)s",
                    "%(bin)s: %(games)s games, predicted %(predicted)s, White scored %(observed)s",
                    games,
                )
                % {
                    "bin": f"{percent(item['low'])}\u2013{percent(item['high'])}",
                    "games": games,
                    "predicted": percent(item["predicted"]),
                    "observed": percent(item["observed"]),
                },
            )
        )
    path = "M" + "L".join(f"{point.x} {point.y}" for point in points)
    total = sum(item["games"] for item in filled)
    return CalibrationChart(
        width=WIDTH,
        height=HEIGHT,
        left=left,
        top=top,
        right=right,
        bottom=bottom,
        points=points,
        path=path,
        x_ticks=[Tick(x_of(value), percent(value)) for value in TICKS],
        y_ticks=[Tick(y_of(value), percent(value)) for value in TICKS],
        description=ngettext(
            "%(bins)s bins of predictions over %(count)s game; "
            "points on the diagonal are perfectly calibrated",
            "%(bins)s bins of predictions over %(count)s games; "
            "points on the diagonal are perfectly calibrated",
            total,
        )
        % {"bins": len(filled), "count": count_text(total)},
    )
