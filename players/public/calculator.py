"""The what-if calculator's page: public, no login."""

from __future__ import annotations

from typing import Any, TypedDict

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_safe

from players.public.calculator_forms import PLAYER_OPTIONS, CalculatorForm
from players.selectors.players import player_usernames
from players.translated import translated
from players.web.explanations import how_html
from players.web.numbers import shown_change, shown_value
from ratings.algorithms import algorithms
from ratings.calculator import results as calculator
from ratings.engine.algorithms import get_algorithm
from ratings.engine.ranks import Rank
from ratings.engine.sagc import Sagc, opponent_factor


@require_safe
def calculator_page(request: HttpRequest) -> HttpResponse:
    infos = algorithms()
    names = [info.name for info in infos]
    form = CalculatorForm(request.GET or None, algorithms=names)
    results = []
    if form.is_bound and form.is_valid():
        results = calculator.results(form.calculator_input(), infos, timezone.localdate())
    return render(
        request,
        "ratings/calculator.html",
        {
            "form": form,
            "results": [_shown(item) for item in results],
            "players": player_usernames(),
            "datalist_id": PLAYER_OPTIONS,
        },
    )


class _Cell(TypedDict):
    """One side's row after one result."""

    change: str
    rank: Rank
    value: str


class _Side(TypedDict):
    colour: str
    name: str
    source: str  # as SideState's
    meetings: int | None
    rank: Rank
    value: str  # empty when the algorithm could not rate the game
    cells: list[_Cell]  # one per outcome, in the order of AlgorithmResult.outcomes


def _shown(item: calculator.AlgorithmResult) -> dict[str, Any]:
    """One algorithm's result as the page shows it: values and changes formatted, and
    the "how was this computed" panel of each of the four rows."""
    info = item.info
    integer = info.integer_values
    sides: list[_Side] = []
    for white, side in ((True, item.white), (False, item.black)):
        state = None
        if item.result is not None:
            state = item.result.white if white else item.result.black
        sides.append(
            {
                "colour": pgettext("player", "White") if white else pgettext("player", "Black"),
                "name": side.contestant.name,
                "source": side.source,
                "meetings": side.meetings,
                "rank": state.rank if state is not None else side.contestant.rank,
                "value": shown_value(float(state.value), integer) if state is not None else "",
                "cells": [],
            }
        )
    panels = []
    for outcome in item.outcomes:
        white_won = outcome.winner.value == "W"
        for shown, row in zip(sides, (outcome.white, outcome.black), strict=True):
            shown["cells"].append(
                {
                    "change": shown_change(row.change, integer),
                    "rank": row.rank_after,
                    "value": shown_value(float(row.value_after), integer),
                }
            )
            panels.append(
                {
                    "title": (
                        _("White wins: %(side)s (%(name)s)")
                        if white_won
                        else _("Black wins: %(side)s (%(name)s)")
                    )
                    % {"side": shown["colour"], "name": shown["name"]},
                    "html": how_html(info, row.stored_change()),
                }
            )
    return {
        "info": info,
        "opponent_factor": _opponent_factor_note(item),
        "error": item.error,
        "skipped": translated(item.skipped),
        "p_white": item.result.p_white if item.result is not None else None,
        "sides": sides,
        "panels": panels,
        "rated_per_game": info.has_history,
    }


def _opponent_factor_note(item: calculator.AlgorithmResult) -> str:
    """SAGC: how often each side met the other in the games the engine remembers
    (``opponent_memory``), and the opponent factor that gives."""
    if item.white.meetings is None:
        return ""
    memory = get_algorithm(Sagc.name).params.opponent_memory
    parts = []
    for white, side in ((True, item.white), (False, item.black)):
        meetings = side.meetings or 0
        factor = f"{opponent_factor(meetings):g}"
        if not meetings:
            part = (
                _("White has not met Black, OF %(factor)s")
                if white
                else _("Black has not met White, OF %(factor)s")
            ) % {"factor": factor}
        else:
            part = (
                _("White met Black %(times)s×, OF %(factor)s")  # noqa: RUF001 (times)
                if white
                else _("Black met White %(times)s×, OF %(factor)s")  # noqa: RUF001
            ) % {"times": meetings, "factor": factor}
        parts.append(part)
    return _("Opponent factor, from each side's last %(memory)s games: %(sides)s.") % {
        "memory": memory,
        "sides": "; ".join(parts),
    }
