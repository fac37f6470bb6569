"""The public pages (no login): the rating list and its CSV, a player's log page,
tournaments and clubs. Thin views: a form parses, a selector reads, a table shows."""

from __future__ import annotations

import dataclasses

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_safe
from django_tables2 import RequestConfig

from players.lookup import player_from_text, player_index
from players.models import Club
from players.public import games_pages
from players.public.club_cache import club_activity_kept
from players.public.club_page import club_filter_form_html, recent_games_rows
from players.public.crosstable_cache import crosstable_page, shown_algorithms
from players.public.forms import GameSearchForm, RatingListFilterForm
from players.public.tables import (
    ClubTable,
    GameListTable,
    RatingListTable,
    RecordSheetTable,
    TournamentTable,
    log_table,
)
from players.roles import COMMITTEE, is_committee, may_act_for, may_act_for_player
from players.selectors import club_night, head_to_head
from players.selectors import clubs as clubs_selectors
from players.selectors import ratings as ratings_selectors
from players.selectors import tournaments as tournaments_selectors
from players.selectors.algorithms import algorithm_or_404
from players.selectors.clubs import ACTIVE_MONTHS, club_or_404, unrated_members
from players.selectors.games_search import GameFilters
from players.selectors.player_log import player_log as player_log_selector
from players.selectors.players import log_rows, player_or_404, ratings_by_algorithm
from players.selectors.ratings import (
    rating_list_csv_rows,
    recompute_notice,
    tournament_recompute_notice,
)
from players.selectors.tournaments import tournament_or_404
from players.web.charts import (
    ACTIVITY_BAR,
    ACTIVITY_HEIGHT,
    MARGIN_BOTTOM,
    MARGIN_LEFT,
    MARGIN_RIGHT,
    activity_bars,
    activity_svg,
    rank_chart,
)
from players.web.downloads import csv_attachment, wrong_filter_response
from players.web.forms import sentence
from players.web.numbers import shown_rating
from players.web.pagination import PER_PAGE, BoundedRequestConfig
from players.web.tables import TABLE_ATTRS
from players.web.tabs import algorithm_tabs, page_query
from ratings.algorithms import algorithms


def _filtered_ratings(request: HttpRequest, algorithm, club: Club | None):
    form = RatingListFilterForm(
        request.GET,
        with_club=club is None,
        clear_url=(reverse("club_detail", args=[club.pk]) if club is not None else reverse("home")),
    )
    form.is_valid()  # errors show at their fields; the valid filters still apply
    filters = form.filters(timezone.localdate())
    if club is not None:
        filters = dataclasses.replace(filters, club=club)
    return form, ratings_selectors.rating_list(algorithm.name, filters)


def _rating_list_context(request: HttpRequest, club: Club | None = None) -> dict:
    algorithm = algorithm_or_404(request.GET.get("algorithm"))
    infos = algorithms()
    form, ratings = _filtered_ratings(request, algorithm, club)
    as_of = form.cleaned_data.get("as_of")
    table = RatingListTable(ratings, algorithm=algorithm, as_of=as_of)
    if club is not None:
        table.columns.hide("club")  # the page is the club's
    BoundedRequestConfig(request, paginate={"per_page": PER_PAGE}).configure(table)
    csv_query = page_query(request, club=str(club.pk) if club is not None else None)
    return {
        "algorithm": algorithm,
        "algorithm_tabs": algorithm_tabs(request, infos, algorithm, infos[0].name),
        "form": form,
        "table": table,
        "csv_url": reverse("rating_list_csv") + csv_query,
        "notice": recompute_notice(algorithm.name),
        # A search that finds nobody offers the closest names.
        "did_you_mean": (
            player_index().suggest(form.cleaned_data["search"])
            if form.cleaned_data.get("search") and not table.paginator.count
            else []
        ),
        "as_of": as_of,
        # a club's page: its filter form as written once for the same query
        "form_html": (
            club_filter_form_html(
                request.GET,
                clear_url=reverse("club_detail", args=[club.pk]),
                language=translation.get_language(),
                today=timezone.localdate(),
            )
            if club is not None
            else None
        ),
    }


@require_safe
def rating_list(request: HttpRequest) -> HttpResponse:
    return render(request, "players/rating_list.html", _rating_list_context(request))


@require_safe
def rating_list_csv(request: HttpRequest) -> HttpResponse:
    """All rows of the rating list as filtered and sorted on the page (not just one
    page), values at full precision."""
    algorithm = algorithm_or_404(request.GET.get("algorithm"))
    form, ratings = _filtered_ratings(request, algorithm, None)
    if form.errors:  # the page shows them at their fields; a file cannot
        return wrong_filter_response(form)
    table = RatingListTable(ratings, algorithm=algorithm)
    BoundedRequestConfig(request, paginate=False).configure(table)
    ordered = table.data.data  # the queryset in the order the page shows
    day = form.cleaned_data.get("as_of") or timezone.localdate()
    rows = rating_list_csv_rows(ordered, algorithm.integer_values)
    return csv_attachment(rows, f"ratings-{algorithm.name}-{day.isoformat()}.csv")


@require_safe
def player_log(request: HttpRequest, username: str) -> HttpResponse:
    algorithm = algorithm_or_404(request.GET.get("algorithm"))
    log = player_log_selector(
        player_or_404(username), algorithm, viewer=request.user, today=timezone.localdate()
    )
    table = log_table(log)
    BoundedRequestConfig(request, paginate={"per_page": PER_PAGE}).configure(table)
    chart = rank_chart(
        log.points,
        algorithm.rank_scale,
        integer_values=algorithm.integer_values,
        value_label=algorithm.value_label,
    )
    context = {
        **log.context(),
        "primary_value": shown_rating(log.primary_rating, log.primary),
        "algorithm_value": shown_rating(log.rating, algorithm),
        "algorithm_tabs": algorithm_tabs(request, log.tabs, algorithm, log.primary.name),
        "table": table,
        "chart": chart,
        # The committee's links lead to pages of the player's clubs' committees only.
        "may_correct_player": is_committee(request.user)
        and may_act_for_player(request.user, COMMITTEE, log.player),
    }
    return render(request, "players/player_log.html", context)


@require_safe
def head_to_head_choose(request: HttpRequest, username: str) -> HttpResponse:
    """The log page's "head-to-head with" form: to the two players' page, or back to
    the log page with a message when the text names no other player (it is read as on
    the record sheet and the games search: username, name in either order, EGD PIN)."""
    player = player_or_404(username)
    text = request.GET.get("opponent", "").strip()
    try:
        found = player_from_text(text, first_name_will_do=True) if text else None
    except ValidationError as error:
        messages.error(
            request, _("Head-to-head: %(problem)s") % {"problem": sentence(error.messages[0])}
        )
        return redirect(player)
    if found is None or found.pk == player.pk:
        messages.error(
            request,
            _("Head-to-head: '%(text)s' is %(player)s; type another player.")
            % {"text": text, "player": player.username}
            if found
            else _("Type the opponent's username, name or EGD PIN."),
        )
        return redirect(player)
    return redirect("head_to_head", username=player.username, opponent=found.username)


@require_safe
def head_to_head_page(request: HttpRequest, username: str, opponent: str) -> HttpResponse:
    page = head_to_head.head_to_head(player_or_404(username), player_or_404(opponent), algorithms())
    table = GameListTable(
        page.games,
        attrs={**TABLE_ATTRS, "id": "head-to-head-games"},
        empty_text=_("These two players have no game against each other."),
    )
    BoundedRequestConfig(request, paginate={"per_page": PER_PAGE}).configure(table)
    context = {"player": page.player, "opponent": page.opponent, "record": page.record}
    context.update(expectations=page.expectations, table=table)
    return render(request, "players/head_to_head.html", context)


def game_search_filters(request: HttpRequest) -> tuple[GameSearchForm, GameFilters | None]:
    """The games search's form and, when they are all valid, its filters (None
    otherwise: a wrong filter selects nothing, it is not left out)."""
    form = GameSearchForm(request.GET, clear_url=reverse("game_search"))
    if not form.is_valid():
        return form, None
    return form, form.filters()


def _wrong_filters_text(form: GameSearchForm) -> str:
    """What the table says when a filter is wrong: which, and that nothing is listed."""
    labels = [
        str(form.fields[name].label or name.capitalize())
        if name in form.fields
        else _("the search")
        for name in form.errors
    ]
    return ngettext(
        "No games listed: correct the %(filters)s filter above.",
        "No games listed: correct the %(filters)s filters above.",
        len(labels),
    ) % {"filters": ", ".join(labels)}


@require_safe
def game_search(request: HttpRequest) -> HttpResponse:
    """The games, newest first, a page at a time (``players.public.games_pages``: by
    key at any depth, by number for a small search and for old links). A wrong filter
    lists no game and offers no CSV."""
    form, filters = game_search_filters(request)
    if filters is None:
        context: dict[str, object] = {
            "table": GameListTable([], empty_text=_wrong_filters_text(form)),
            "count_text": "",
            "page_links": [],
            "csv_url": None,
            "filtering": True,
        }
        return render(request, "games/game_search.html", {"form": form, **context})
    wanted = games_pages.PageWanted.from_query(request.GET)
    if wanted is None:
        messages.warning(request, _("That page of games does not exist: here are the newest."))
        return redirect(reverse("game_search") + page_query(request, before=None, after=None))
    shown = games_pages.page_shown(filters, wanted)
    if isinstance(shown, games_pages.Elsewhere):  # past either end: the page at that end
        query = page_query(request, before=None, after=None, **shown.changes)
        return redirect(reverse("game_search") + query)
    csv_query = page_query(request, before=None, after=None, per_page=None)
    context = {
        "table": GameListTable(shown.page.rows),
        "count_text": shown.count_text,
        "page_links": games_pages.page_links(request, shown),
        "csv_url": reverse("games_export_csv") + csv_query,
        "filtering": filters.any,
    }
    return render(request, "games/game_search.html", {"form": form, **context})


@require_safe
def tournament_list(request: HttpRequest) -> HttpResponse:
    table = TournamentTable(tournaments_selectors.tournament_list())
    BoundedRequestConfig(request, paginate={"per_page": PER_PAGE}).configure(table)
    return render(request, "players/tournament_list.html", {"table": table})


def _tournament_default_algorithm(infos) -> str:
    """A tournament's result as its players know it: the EGF (or French) change of the
    tournament when such an algorithm is maintained, else the primary algorithm."""
    blocks = [info for info in infos if info.has_history and info.rates_tournaments_as_blocks]
    return (blocks or infos)[0].name


@require_safe
def tournament_detail(request: HttpRequest, code: str) -> HttpResponse:
    tournament = tournament_or_404(code)
    infos = shown_algorithms()
    default = _tournament_default_algorithm(infos)
    algorithm = algorithm_or_404(request.GET.get("algorithm"), default)
    if not algorithm.has_history:  # GCR has no per-game rows to sum
        algorithm = algorithm_or_404(default)
    return render(
        request,
        "players/tournament_detail.html",
        {
            "tournament": tournament,
            "crosstable": crosstable_page(tournament, algorithm),
            "algorithm": algorithm,
            "algorithm_tabs": algorithm_tabs(request, infos, algorithm, default),
            "notice": tournament_recompute_notice(algorithm.name, tournament),
            # Its class is corrected by the committee of its club (or the federation's).
            "may_correct_class": is_committee(request.user)
            and may_act_for(request.user, COMMITTEE, tournament.club_id),
        },
    )


@require_safe
def club_list(request: HttpRequest) -> HttpResponse:
    table = ClubTable(clubs_selectors.club_list(timezone.localdate()))
    BoundedRequestConfig(request, paginate={"per_page": PER_PAGE}).configure(table)
    return render(
        request,
        "players/club_list.html",
        {"table": table, "active_months": ACTIVE_MONTHS},
    )


@require_safe
def club_detail(request: HttpRequest, pk: int) -> HttpResponse:
    club = club_or_404(pk)
    context = _rating_list_context(request, club=club)
    bars, top = activity_bars(club_activity_kept(club, timezone.localdate()))
    recent_games = clubs_selectors.club_recent_games(club)
    context |= {
        "club": club,
        "unrated": unrated_members(club, context["algorithm"].name),
        "people": clubs_selectors.club_people(club),
        "recent_games": recent_games,
        "recent_games_rows": recent_games_rows(recent_games),
        "sheets": clubs_selectors.club_sheets(club),
        "tournaments": clubs_selectors.club_tournaments(club),
        "resyncs": clubs_selectors.club_resyncs(club),
        "activity": bars,
        "activity_svg": activity_svg(bars),
        "activity_top": top,
        "activity_width": MARGIN_LEFT + ACTIVITY_BAR * len(bars) + MARGIN_RIGHT,
        "activity_height": ACTIVITY_HEIGHT,
        "activity_base": ACTIVITY_HEIGHT - MARGIN_BOTTOM,
    }
    return render(request, "players/club_detail.html", context)


@require_safe
def club_night_sheet(request: HttpRequest, pk: int) -> HttpResponse:
    """The blank record sheet of a club evening, to print: the club's active players
    and their current ranks, the handicap and komi for each rank difference, and empty
    rows with the columns the volunteer types in."""
    club = club_or_404(pk)
    primary = algorithms()[0]
    return render(
        request,
        "players/club_night_sheet.html",
        {
            "club": club,
            "algorithm": primary,
            # each player with their value as every page shows one (a true minus sign)
            "players": [
                (player, shown_rating(player.club_rating, primary))
                for player in club_night.active_players(club, primary.name)
            ],
            "handicaps": club_night.handicap_table(),
            "blank_rows": range(club_night.BLANK_ROWS),
            "today": timezone.localdate(),
        },
    )


@require_safe
def player_sheet_print(request: HttpRequest, username: str) -> HttpResponse:
    """A player's whole record sheet under one algorithm (``?algorithm=``), newest
    first, laid out to print (static/css/print.css)."""
    player = player_or_404(username)
    algorithm = algorithm_or_404(request.GET.get("algorithm"))
    if not algorithm.has_history:
        raise Http404(
            _("%(algorithm)s rates all games at once: it keeps no record sheet")
            % {"algorithm": _(algorithm.title)}
        )
    table = RecordSheetTable(
        log_rows(player, algorithm.name),
        algorithm=algorithm,
        player_name=player.full_name or player.username,
    )
    RequestConfig(request, paginate=False).configure(table)
    rating = ratings_by_algorithm(player).get(algorithm.name)
    return render(
        request,
        "players/player_sheet_print.html",
        {
            "player": player,
            "algorithm": algorithm,
            "rating": rating,
            "value": shown_rating(rating, algorithm),
            "table": table,
            "today": timezone.localdate(),
        },
    )
