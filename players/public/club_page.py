"""What the club page writes in one call rather than through the template language,
or once per process."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import date

from crispy_forms.utils import render_crispy_form
from django.http import QueryDict
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from players.models import Game
from players.public.forms import RatingListFilterForm
from players.public.tables import player_url

# Filter forms kept per process: a club's page is mostly visited with no filter or a
# few (a day, a sort, a page), and every entry is a few kilobytes.
FILTER_FORMS_KEPT = 256


def recent_games_rows(games: Sequence[Game]) -> SafeString:
    """The rows of the club's recent games (date, White, Black, result, handicap), in
    one call: 20 rows through the template language were a tenth of the page's time."""
    results = {"W": _("White won"), "B": _("Black won")}
    jigo = _("Jigo")

    def player_cell(player) -> SafeString:
        return format_html(
            '<a href="{}">{}</a>', player_url(player.username), player.full_name or player.username
        )

    return format_html_join(
        "\n",
        "<tr><td>{}</td>\n          <td>{}</td>\n          <td>{}</td>\n          <td>{}</td>\n"
        "          <td>{}</td></tr>",
        (
            (
                game.date.isoformat(),
                player_cell(game.white),
                player_cell(game.black),
                results.get(game.winner, jigo),
                game.handicap,
            )
            for game in games
        ),
    )


def club_filter_form_html(
    query: QueryDict, *, clear_url: str, language: str, today: date
) -> SafeString:
    """The club page's filter form as ``{% crispy form %}`` writes it for ``query`` (the
    request's GET), written once per process for each query, language and day.

    crispy-forms writes each field through its template pack: about 4.5 ms a page, a
    seventh of the club page's CPU. The club page's form (no club field, whose choices
    count the clubs' players) holds nothing read from the database: what it shows is
    the query as typed, with the errors its fields find in it; only "after today"
    depends on the day, and the words on the language."""
    fields = RatingListFilterForm.base_fields  # not the page's number, for one
    items = tuple(
        sorted((key, value) for key in query if key in fields for value in query.getlist(key))
    )
    return _club_filter_form_html(items, clear_url, language, today)


@functools.lru_cache(maxsize=FILTER_FORMS_KEPT)
def _club_filter_form_html(
    items: tuple[tuple[str, str], ...], clear_url: str, language: str, today: date
) -> SafeString:
    query = QueryDict(mutable=True)
    for key, value in items:
        query.appendlist(key, value)
    form = RatingListFilterForm(query, with_club=False, clear_url=clear_url)
    form.is_valid()
    # safe: crispy-forms' own output, as the template tag would insert it
    return mark_safe(render_crispy_form(form))
