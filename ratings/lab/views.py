"""The algorithm lab's page: public, no login."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from players.selectors.algorithms import algorithm_or_404, algorithms
from players.web.tabs import algorithm_tabs
from ratings.lab import selectors as lab_selectors
from ratings.lab.tables import BreakdownTable, CalibrationTable, ComparisonTable

BREAKDOWNS = (
    ("by_rank_band", "Rank of the weaker player"),
    ("by_handicap", "Handicap"),
    ("by_status", "Game status"),
)


@require_safe
def lab(request: HttpRequest) -> HttpResponse:
    infos = algorithms()
    selected = algorithm_or_404(request.GET.get("algorithm"))
    entries = lab_selectors.lab_entries(infos)
    tabs = algorithm_tabs(request, infos, selected, infos[0].name)
    links = {info.name: f"{link or '?'}#lab-detail" for info, link, _active in tabs}
    entry = next(item for item in entries if item.info.name == selected.name)
    metrics = entry.metrics
    return render(
        request,
        "ratings/lab.html",
        {
            "entries": entries,
            "comparison": ComparisonTable(entries, links=links),
            "algorithm": selected,
            "algorithm_tabs": tabs,
            "entry": entry,
            "chart": entry.chart,
            "calibration": CalibrationTable(metrics.get("calibration", [])),
            "breakdowns": [
                BreakdownTable(metrics[key], key=key, title=title)
                for key, title in BREAKDOWNS
                if key in metrics
            ],
            "pending": [item for item in entries if item.pending_from is not None],
        },
    )
