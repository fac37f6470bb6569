"""The public downloads: the games CSV, a player's record sheet CSV, tournaments as h-files
and OpenGotha XML."""

from __future__ import annotations

from django.contrib import messages
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    StreamingHttpResponse,
)
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from players.public.views import game_search_filters
from players.selectors import games_search
from players.selectors.algorithms import algorithm_or_404
from players.selectors.exports import (
    NotExportable,
    club_list_players,
    game_record_rows,
    record_sheet_rows,
    tournament_egd,
    tournament_opengotha,
)
from players.selectors.players import player_or_404
from players.selectors.tournaments import tournament_or_404
from players.web.downloads import csv_download, wrong_filter_response
from ratings.engine.formats.ratinglists import ENCODING as LIST_ENCODING
from ratings.engine.formats.ratinglists import write_aga_list, write_egf_list, write_ffg_list


def _tournament_download(
    request, code: str, refusal: str, write, extension: str, content_type, country: str = "XX"
):
    """A tournament's file as a download, or its page saying why there is none
    (``refusal``, a sentence with the reason as ``%(reason)s``); ``country`` for players
    of no known country unless the request says one."""
    tournament = tournament_or_404(code)
    try:
        text = write(tournament, country=request.GET.get("country", country))
    except NotExportable as error:
        messages.error(request, refusal % {"reason": error.message})
        return redirect(tournament)
    response = HttpResponse(text, content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{tournament.code}.{extension}"'
    return response


@require_safe
def tournament_export_egd(request: HttpRequest, code: str) -> HttpResponse:
    """The tournament as an EGD h9 file (``?country=ZA`` for players of no known country)."""
    return _tournament_download(
        request,
        code,
        _("No h-file: %(reason)s."),
        lambda tournament, country: tournament_egd(tournament, country=country).text,
        "h9",
        "text/plain",
    )


@require_safe
def tournament_export_opengotha(request: HttpRequest, code: str) -> HttpResponse:
    """The tournament as an OpenGotha XML file (``?country=ZA`` as for the h-file; else
    a blank country, as OpenGotha writes one it does not know)."""
    return _tournament_download(
        request,
        code,
        _("No OpenGotha file: %(reason)s."),
        tournament_opengotha,
        "xml",
        "application/xml",
        "",
    )


@require_safe
def games_export_csv(request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
    """Every valid game and adjustment in the game record CSV of SPEC section 2; with
    the games search's filters (``/games/``'s query), the games it finds (no
    adjustments: the search is of games). A wrong filter is a 400 saying which: the
    CSV of every game is not what was asked."""
    filename = f"games-{timezone.localdate().isoformat()}.csv"
    form, filters = game_search_filters(request)
    if filters is None:
        return wrong_filter_response(form)
    if not filters.any:
        return csv_download(game_record_rows(), filename)
    return csv_download(game_record_rows(games_search.games(filters).order_by()), filename)


@require_safe
def player_sheet_csv(request: HttpRequest, username: str) -> StreamingHttpResponse:
    """The record sheet of the log page, oldest row first (``?algorithm=``)."""
    player = player_or_404(username)
    algorithm = algorithm_or_404(request.GET.get("algorithm"))
    if not algorithm.has_history:
        raise Http404(f"{algorithm.title} rates all games at once: it keeps no record sheet")
    rows = record_sheet_rows(player, algorithm)
    return csv_download(rows, f"{player.username}-{algorithm.name}.csv")


# The club's rating list in the formats OpenGotha reads for its player database.
_CLUB_LISTS = {
    "egf": write_egf_list,
    "ffg": write_ffg_list,
    "aga": lambda players, _day: write_aga_list(players),
}


@require_safe
def club_list_opengotha(request: HttpRequest, kind: str) -> HttpResponse:
    """The club's players with their club ranks (and, in the EGF list, their GoR) in one
    of the rating list formats OpenGotha reads (``kind``: egf, ffg or aga), in the
    ISO-8859-15 it reads them in."""
    if kind not in _CLUB_LISTS:
        raise Http404(_("OpenGotha reads the EGF, FFG and AGA lists: egf, ffg or aga"))
    write = _CLUB_LISTS[kind]
    day = timezone.localdate()
    text = write(club_list_players(), day)
    response = HttpResponse(
        text.encode(LIST_ENCODING, errors="replace"),
        content_type=f"text/plain; charset={LIST_ENCODING}",
    )
    filename = f"club-{kind}-{day.isoformat()}.txt"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
