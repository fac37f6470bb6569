"""The read-only JSON API, version 1 (docs/api.md): players with their current ratings,
a player's history per algorithm, games and tournaments.

Field names are part of the contract: within v1 fields are only ever added, never
renamed or removed. Ranks are strings (``15k``, ``3d``, ``2p``), dates ISO, ratings
numbers: integers for an algorithm with whole-number indexes (SAGC), floats at full
precision for the others.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any
from urllib.parse import urlencode

from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from players.api.base import (
    API_VERSION,
    CURSOR_PARAMETERS,
    PAGE_PARAMETERS,
    ApiError,
    Params,
    api_view,
    not_found,
    paginate,
    paginate_by_key,
)
from players.lookup import player_from_text
from players.models import Game, Player, Tournament
from players.selectors import clubs as club_selectors
from players.selectors import games as game_selectors
from players.selectors import games_search
from players.selectors import games_search as search_selectors
from players.selectors import players as player_selectors
from players.selectors import ratings as rating_selectors
from players.selectors import tournaments as tournament_selectors
from players.selectors.ratings import StandingOfDay
from players.web.tournament_cache import kept_for_tournament
from ratings.algorithms import algorithms
from ratings.engine.base import Algorithm
from ratings.engine.formats.history import exact_value
from ratings.models import CurrentRating, RatingHistory, RatingSnapshot

# --- values -------------------------------------------------------------------------------


def _rank(rank) -> str | None:
    return None if rank is None else str(rank)


def _date(day) -> str | None:
    return None if day is None else day.isoformat()


def _url(request: HttpRequest, name: str, *args: Any, query: dict | None = None) -> str:
    path = reverse(name, args=args)
    if query:
        path += "?" + urlencode(query)
    return request.build_absolute_uri(path)


def _template(request: HttpRequest, name: str, field: str, sample: Any = None) -> str:
    """The absolute URL of an endpoint with ``{field}`` in the place of its argument."""
    sample = field if sample is None else sample
    return _url(request, name, sample).replace(f"/{sample}/", f"/{{{field}}}/")


def _algorithms() -> dict[str, Algorithm]:
    return {info.name: info for info in algorithms()}


# --- players -------------------------------------------------------------------------------


def _rating_json(rating: CurrentRating | StandingOfDay | None, info: Algorithm) -> dict | None:
    if rating is None:
        return None
    return {
        "rank": str(rating.rank),
        "value": exact_value(rating.value, info.integer_values),
        "games": rating.games,  # null in a list as_of a day, per-game algorithms
    }


def _player_json(
    request: HttpRequest,
    player: Player,
    ratings: Mapping[str, CurrentRating | StandingOfDay],
    infos: Iterable[Algorithm],
) -> dict:
    return {
        "username": player.username,
        "full_name": player.full_name,
        "club": {"id": player.club.pk, "name": player.club.name}
        if player.club is not None
        else None,
        "national_rank": _rank(player.national_rank),
        "entry_rank": _rank(player.entry_rank),
        "active": player.active,
        "last_updated": _date(player.last_updated),
        # every maintained algorithm, null where it has not rated the player yet
        "ratings": {info.name: _rating_json(ratings.get(info.name), info) for info in infos},
        "url": _url(request, "api_player", player.username),
    }


def _found(key, lookup, field: str, message: str):
    """What ``lookup`` finds for ``key`` (None for no key); 404 at ``field`` if nothing."""
    if key is None:
        return None
    found = lookup(key)
    if found is None:
        raise not_found(field, message)
    return found


def _player_or_404(username: str) -> Player:
    player = player_selectors.player_by_username(username) if "\x00" not in username else None
    if player is None:
        raise not_found(
            "username", _("no player with the username '%(username)s'") % {"username": username}
        )
    return player


def _algorithm_json(info: Algorithm, primary: bool, pending_from) -> dict:
    return {
        "name": info.name,
        "title": info.title,
        "primary": primary,
        "values": "integer" if info.integer_values else "float",
        "history": "per_game" if info.has_history else "month_end",
        "recompute_pending_from": _date(pending_from),
    }


def _endpoints(request: HttpRequest) -> dict[str, str]:
    return {
        "players": _url(request, "api_players"),
        "player": _template(request, "api_player", "username"),
        "player_history": _template(request, "api_player_history", "username"),
        "games": _url(request, "api_games"),
        "game": _template(request, "api_game", "id", sample=0),
        "tournaments": _url(request, "api_tournaments"),
        "tournament": _template(request, "api_tournament", "code"),
    }


@api_view
def index(request: HttpRequest) -> dict:
    Params(request, ())
    infos = algorithms()
    pending = rating_selectors.recompute_pending_from([info.name for info in infos])
    return {
        "api_version": API_VERSION,
        "algorithms": [
            _algorithm_json(info, position == 0, pending.get(info.name))
            for position, info in enumerate(infos)
        ],
        "endpoints": _endpoints(request),
    }


def _player_filters(params: Params, since, until) -> player_selectors.PlayerFilters:
    club_id = params.integer("club", default=0, minimum=1)
    return player_selectors.PlayerFilters(
        club=_found(
            club_id or None,
            club_selectors.club_by_pk,
            "club",
            _("no club number %(number)s") % {"number": club_id},
        ),
        active=params.boolean("active"),
        search=params.text("q"),
        since=since,
        until=until,
    )


def _past_day(params: Params, name: str):
    day = params.date(name)
    if day is not None and day > timezone.localdate():
        raise ApiError(
            400,
            name,
            _("%(day)s is after today: %(name)s asks for a past day") % {"day": day, "name": name},
        )
    return day


@api_view
def players(request: HttpRequest) -> dict:
    params = Params(request, ("club", "active", "q", "since", "until", "as_of", *PAGE_PARAMETERS))
    since, until = params.date_range()
    as_of = _past_day(params, "as_of")
    filters = _player_filters(params, since, until)
    page = paginate(request, params, player_selectors.players_filtered(filters))
    infos = algorithms()
    ratings = rating_selectors.ratings_of(
        [player.pk for player in page.rows], [info.name for info in infos], as_of
    )
    return {
        **page.envelope,
        **({"as_of": as_of.isoformat()} if as_of is not None else {}),
        "results": [
            _player_json(request, player, ratings.get(player.pk, {}), infos) for player in page.rows
        ],
    }


@api_view
def player(request: HttpRequest, username: str) -> dict:
    Params(request, ())
    found = _player_or_404(username)
    infos = algorithms()
    ratings = rating_selectors.current_ratings([found.pk], [info.name for info in infos])
    data = _player_json(request, found, ratings.get(found.pk, {}), infos)
    data["links"] = {
        "html": _url(request, "player_log", found.username),
        "games": _url(request, "api_games", query={"player": found.username}),
        "history": {
            info.name: _url(
                request, "api_player_history", found.username, query={"algorithm": info.name}
            )
            for info in infos
        },
    }
    return data


# --- a player's history ------------------------------------------------------------------

_RESULTS = {"W": {"W": "won", "B": "lost"}, "B": {"W": "lost", "B": "won"}}
# How SAGC stores an exact number among its factors: str(Fraction), "9/10" or "1".
_EXACT_NUMBER = re.compile(r"^-?\d+(?:/\d+)?$")


def _factors_json(factors: dict) -> dict:
    """An algorithm's factors with its numbers as JSON numbers: SAGC keeps them as exact
    fractions in strings ("1725001/30000"), which a client would have to parse; words
    ("promotion", "loss", a tournament class) stay strings."""
    return {
        key: _number(value) if isinstance(value, str) and _EXACT_NUMBER.match(value) else value
        for key, value in factors.items()
    }


def _number(text: str) -> int | float:
    exact = Fraction(text)
    return exact.numerator if exact.denominator == 1 else float(exact)


def _change_json(row: RatingHistory, info: Algorithm) -> dict:
    """What one history row says of a change, in the history and on a game."""
    return {
        "rank_before": str(row.rank_before),
        "value_before": exact_value(row.value_before, info.integer_values),
        "change": exact_value(row.change, info.integer_values),
        "value_after": exact_value(row.value_after, info.integer_values),
        "rank_after": str(row.rank_after),
        "factors": _factors_json(row.factors),
        "skipped": row.skipped or None,
    }


def _history_json(row: RatingHistory, info: Algorithm) -> dict:
    game = row.game
    source = game if game is not None else row.adjustment
    if game is None:
        result = None
    elif game.winner == Game.Winner.JIGO:
        result = "jigo"
    else:
        result = _RESULTS[row.colour][game.winner]
    return {
        "date": row.date.isoformat(),
        "kind": "game" if game is not None else "adjustment",
        "game_id": row.game_id,
        "adjustment_id": row.adjustment_id,
        "opponent": row.opponent.username,
        "opponent_rank": str(row.opponent_rank),
        # null for an adjustment, and for a game whose file gave no colour
        "colour": (row.colour or None) if game is None or game.colour_given else None,
        "colour_given": game.colour_given if game is not None else None,
        "handicap": game.handicap if game is not None else None,
        "komi": float(game.komi) if game is not None else None,
        "winner": game.winner if game is not None else None,
        "result": result,
        "status": game.status if game is not None else "adjustment",
        "tournament": (
            game.tournament.code if game is not None and game.tournament is not None else None
        ),
        "round": game.round if game is not None else None,
        "comment": source.comment if source is not None else "",
        **_change_json(row, info),
        # a game voided since the last recompute; its row goes with the next one
        "void": source is not None and source.is_void,
    }


def _snapshot_json(row: RatingSnapshot, info: Algorithm) -> dict:
    return {
        "date": row.date.isoformat(),
        "rank": str(row.rank),
        "value": exact_value(row.value, info.integer_values),
        "games": row.games,
    }


def _history_algorithm(params: Params) -> Algorithm:
    """The ``algorithm`` asked for, by default the primary one."""
    infos = _algorithms()
    name = params.text("algorithm") or next(iter(infos))
    if name not in infos:
        message = _("'%(name)s' is not maintained here; choose one of %(choices)s") % {
            "name": name,
            "choices": ", ".join(infos),
        }
        raise not_found("algorithm", message)
    return infos[name]


@api_view
def player_history(request: HttpRequest, username: str) -> dict:
    params = Params(request, ("algorithm", "order", "since", "until", *PAGE_PARAMETERS))
    info = _history_algorithm(params)
    newest_first = params.newest_first()
    since, until = params.date_range()
    found = _player_or_404(username)
    rows = rating_selectors.history_or_snapshots(found, info, since, until, newest_first)
    page = paginate(request, params, rows)
    row_json = _history_json if info.has_history else _snapshot_json
    return {
        "player": found.username,
        "algorithm": info.name,
        "kind": "per_game" if info.has_history else "month_end",
        "order": "newest" if newest_first else "oldest",
        **page.envelope,
        "results": [row_json(row, info) for row in page.rows],
    }


# --- games ---------------------------------------------------------------------------------


def _game_json(
    request: HttpRequest, game: Game, url_of: Callable[[int], str] | None = None
) -> dict:
    """``url_of`` a game's URL from its id (:func:`_game_urls`), for many games."""
    values = {
        name: getattr(game, name) if "__" not in name else _related(game, name)
        for name in game_selectors.GAME_JSON_VALUES
    }
    return _game_values_json(values, url_of or _game_urls(request))


def _related(game: Game, name: str) -> Any:
    """``white__username`` of a game; None where the relation is empty (no tournament)."""
    relation, field = name.split("__")
    related = getattr(game, relation)
    return None if related is None else getattr(related, field)


def _game_values_json(values: Mapping[str, Any], url_of: Callable[[int], str]) -> dict:
    """A game's JSON from its ``game_selectors.GAME_JSON_VALUES``, by name: a
    tournament's thousands of games are read as values, not models."""
    return {
        "id": values["pk"],
        "seq": values["seq"],
        "date": values["date"].isoformat(),
        "round": values["round"],
        "white": values["white__username"],
        "black": values["black__username"],
        "white_rank": _rank(values["white_rank"]),
        "black_rank": _rank(values["black_rank"]),
        "handicap": values["handicap"],
        "komi": float(values["komi"]),
        "winner": values["winner"],
        # False: the file gave no colour; white and black are the pair as stored
        "colour_given": values["colour_given"],
        "status": values["status"],
        "board_size": values["board_size"],
        "time_minutes": values["time_minutes"],
        "tournament": values["tournament__code"],
        "comment": values["comment"],
        "void": values["voided_at"] is not None,
        "url": url_of(values["pk"]),
    }


def _game_urls(request: HttpRequest) -> Callable[[int], str]:
    """A game's API URL from its id, the URL resolved once rather than per game."""
    before, after = _url(request, "api_game", 0).rsplit("/0/", 1)
    return lambda pk: f"{before}/{pk}/{after}"


def _named(params: Params, name: str, lookup, missing: str):
    """The row a filter parameter names (None when not given); 404 if there is none,
    saying ``missing`` (a sentence with the value as ``%(value)s``)."""
    value = params.text(name)
    return _found(value or None, lookup, name, missing % {"value": value})


def _game_player(params: Params, name: str) -> Player | None:
    """The player a filter names as on the record sheet and the games search (username,
    name in either order, EGD PIN): 404 if nobody, 400 if several or a merged record."""
    text = params.text(name)
    if not text:
        return None
    try:
        return player_from_text(text)
    except ValidationError as error:
        raise ApiError(404 if error.code == "unknown" else 400, name, error.messages[0]) from None


@api_view
def games(request: HttpRequest) -> dict:
    names = (*games_search.FILTER_NAMES, "include_void", "order")
    params = Params(request, (*names, *PAGE_PARAMETERS, *CURSOR_PARAMETERS))
    since, until = params.date_range()
    lowest, highest = games_search.HANDICAP_RANGE
    filters = search_selectors.GameFilters(
        player=_game_player(params, "player"),
        opponent=_game_player(params, "opponent"),
        tournament=_named(
            params,
            "tournament",
            tournament_selectors.tournament_by_code,
            _("no tournament with the code '%(value)s'"),
        ),
        status=params.choice("status", Game.Status.values),
        handicap=params.integer("handicap", default=None, minimum=lowest, maximum=highest),
        since=since,
        until=until,
        include_void=bool(params.boolean("include_void")),
        newest_first=params.newest_first(),
    )
    page = paginate_by_key(request, params, filters, game_selectors.GAME_JSON_FIELDS)
    url_of = _game_urls(request)
    return {**page.envelope, "results": [_game_json(request, game, url_of) for game in page.rows]}


@api_view
def game(request: HttpRequest, pk: int) -> dict:
    Params(request, ())
    found = game_selectors.game_by_pk(pk)
    if found is None:
        raise not_found("id", _("no game number %(number)s") % {"number": pk})
    infos = {name: info for name, info in _algorithms().items() if info.has_history}
    ratings: dict[str, dict | None] = dict.fromkeys(infos)
    for row in game_selectors.game_ratings(found, infos):
        side = "white" if row.colour == "W" else "black"
        sides = ratings[row.algorithm]
        if sides is None:
            sides = ratings[row.algorithm] = {}
        sides[side] = _change_json(row, infos[row.algorithm])
    links = {
        "white": _url(request, "api_player", found.white.username),
        "black": _url(request, "api_player", found.black.username),
        "tournament": (
            _url(request, "api_tournament", found.tournament.code)
            if found.tournament is not None
            else None
        ),
    }
    # per algorithm White's and Black's change; null where it has no rows (not rated yet, void)
    return {**_game_json(request, found), "ratings": ratings, "links": links}


# --- tournaments ------------------------------------------------------------------------


def _tournament_json(request: HttpRequest, tournament: Tournament) -> dict:
    return {
        "code": tournament.code,
        "name": tournament.name,
        "tournament_class": tournament.egf_class,
        "start_date": _date(tournament.start_date),
        "end_date": _date(tournament.end_date),
        "first_game": _date(tournament.first_game),
        "last_game": _date(tournament.last_game),
        "player_count": tournament.player_count,
        "game_count": tournament.game_count,
        "url": _url(request, "api_tournament", tournament.code),
    }


@api_view
def tournaments(request: HttpRequest) -> dict:
    params = Params(request, ("since", "until", *PAGE_PARAMETERS))
    since, until = params.date_range()
    rows = tournament_selectors.tournaments_within(since=since, until=until)
    page = paginate(request, params, rows, rows_first=False)
    return {**page.envelope, "results": [_tournament_json(request, row) for row in page.rows]}


@api_view
def tournament(request: HttpRequest, code: str) -> dict:
    Params(request, ())
    found = tournament_selectors.tournament_counted(code)
    if found is None:
        raise not_found("code", _("no tournament with the code '%(value)s'") % {"value": code})
    url_of = _game_urls(request)
    games = kept_for_tournament(
        "api-games",
        found,
        "",  # no algorithm's values in it
        lambda: [
            _game_values_json(values, url_of)
            for values in tournament_selectors.tournament_games(found)
        ],
        also=(url_of(0),),  # the site's address, in each game's URL
    )
    return {
        **_tournament_json(request, found),
        "links": {
            "html": _url(request, "tournament_detail", found.code),
            "games": _url(request, "api_games", query={"tournament": found.code}),
        },
        "games": games,
    }
