"""The algorithm lab's page: public, no login."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext
from django.views.decorators.http import require_safe

from players.public.lab_tables import ComparisonTable, detail_tables
from players.selectors.algorithms import algorithm_or_404
from players.web.tabs import algorithm_tabs
from ratings.algorithms import algorithms
from ratings.lab import selectors as lab_selectors


@require_safe
def lab(request: HttpRequest) -> HttpResponse:
    infos = algorithms()
    selected = algorithm_or_404(request.GET.get("algorithm"))
    page = lab_selectors.lab_page(infos, selected)
    tabs = algorithm_tabs(request, infos, selected, infos[0].name)
    links = {info.name: f"{link or '?'}#lab-detail" for info, link, _active in tabs}
    context = {
        "entries": page.entries,
        "comparison": ComparisonTable(page.entries, links=links),
        "algorithm": selected,
        "algorithm_tabs": tabs,
        "entry": page.entry,
        "chart": page.entry.chart,
        **detail_tables(page.entry.metrics),
        "pending": page.pending,
        # the algorithms a recompute is pending for, as one value of the page's sentence
        "pending_titles": ", ".join(gettext(item.info.short_title) for item in page.pending),
    }
    return render(request, "ratings/lab.html", context)
