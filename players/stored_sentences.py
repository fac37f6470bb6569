"""Sentences the site stores in English and shows in the reader's language.

An audit entry's summary and a resync adjustment's comment are written once, in
English, and read by everyone in their own language. Each is a
``ratings.engine.messages.Message`` of a template marked here: the row stores its
English, exactly as it always did, and a page reads it back by its template
(``players.translated``: ``{{ value|translated }}``). A row older than its template,
or of none, shows as stored.

A count is ``%(name)d``: the English writes it whole, its noun in the plural ("1
games", as the rows always did); a page shows the sentence as :data:`COUNTED` makes
it, each count grouped as its language writes numbers ("2 226") and its noun in the
plural form its number takes ("1 partie", "2 parties"), English included.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from django.utils.translation import gettext_noop, ngettext, pgettext

from ratings.engine import messages as engine

# --- audit summaries ----------------------------------------------------------------
IMPORT = gettext_noop("import %(source)s")
# Not marked, as the other sentences with counts: a page shows them as COUNTED makes them.
IMPORTED = "%(source)s: %(games)d games, %(adjustments)d adjustments"
FROM_THE_FILE = gettext_noop("%(player)s: from the file of %(tournament)s")
SHEET_GAME = gettext_noop("sheet %(sheet)s: %(game)s")
MERGED_INTO = gettext_noop("%(duplicate)s merged into %(keep)s")
DECLARED_RATING_TAKEN = gettext_noop(
    "%(keep)s: the declared GoR of %(duplicate)s, who played first"
)
ACCOUNT_UNLINKED = gettext_noop("%(account)s -> no player record")
ROLE_CHANGED = gettext_noop("%(account)s: %(before)s -> %(after)s")
INVITATION_SENT = gettext_noop("invitation of %(account)s sent to %(email)s")
PASSWORD_CHOSEN = gettext_noop("%(account)s chose a password")
PASSWORD_CHANGED = gettext_noop("%(account)s changed their password")
CLUB_ROLE_REVOKED = gettext_noop("%(account)s: no longer %(role)s of %(club)s")
CLUB_ROLE_GRANTED = gettext_noop("%(account)s: %(role)s of %(club)s")
CLASS_CORRECTED = gettext_noop("%(tournament)s: class %(before)s -> %(after)s (%(reason)s)")
TOURNAMENT_CLUB = "%(tournament)s: club %(before)s -> %(after)s, %(games)d games moved"
RESYNC_PLAYERS = "%(players)d players"
RESYNC_OF_BATCH = gettext_noop("resync %(batch)s")
RESYNC_REVERTED = "%(adjustments)d adjustments voided"
JOINS_FROM_THE_START = gettext_noop("%(player)s joins club %(club)s from the start")
JOINS = gettext_noop("%(player)s joins club %(club)s from %(day)s")
LEAVES = gettext_noop("%(player)s leaves club %(club)s on %(day)s")
REPORT_OF_GAME = gettext_noop("game %(game)s: %(what)s")
FULL_RECOMPUTE_OF_EVERY_ALGORITHM = gettext_noop("full recompute of every algorithm from %(start)s")
FULL_RECOMPUTE = gettext_noop("full recompute of %(algorithm)s from %(start)s")
ACCOUNT_CREATED = gettext_noop("%(account)s (%(role)s)")

# Words a summary stores as a value, read in the reader's language.
NO_CLUB = gettext_noop("none")

# --- a resync adjustment's comment --------------------------------------------------
RESYNC_WITH_NOTE = gettext_noop("Resync with national rank (%(note)s)")
RESYNC = gettext_noop("Resync with national rank")

# The order a stored sentence is tried in: where one template's English also fits a
# more general one's, the specific one first (a club role's revoke before its grant,
# "from the start" before a day, every algorithm before one); the most general last.
SITE_TEMPLATES = (
    IMPORT,
    IMPORTED,
    FROM_THE_FILE,
    SHEET_GAME,
    MERGED_INTO,
    DECLARED_RATING_TAKEN,
    ACCOUNT_UNLINKED,
    INVITATION_SENT,
    PASSWORD_CHOSEN,
    PASSWORD_CHANGED,
    CLUB_ROLE_REVOKED,
    CLASS_CORRECTED,
    TOURNAMENT_CLUB,
    ROLE_CHANGED,
    CLUB_ROLE_GRANTED,
    RESYNC_PLAYERS,
    RESYNC_OF_BATCH,
    RESYNC_REVERTED,
    JOINS_FROM_THE_START,
    JOINS,
    LEAVES,
    REPORT_OF_GAME,
    FULL_RECOMPUTE_OF_EVERY_ALGORITHM,
    FULL_RECOMPUTE,
    RESYNC_WITH_NOTE,
    ACCOUNT_CREATED,
)


# --- how a stored sentence with counts reads where it is shown ------------------------


@dataclass(frozen=True, slots=True)
class CountedSentence:
    """A stored sentence with counts as a page shows it: ``sentence()``, in the active
    language, with a ``%(name)s`` for each value of the stored one, each count among
    them the phrase ``phrases[name](number)`` makes, whose ``%(count)s`` is the number
    grouped (a function each, calling ``ngettext`` with its own words: the catalogues
    hold each noun in every plural form of their language)."""

    sentence: Callable[[], str]
    phrases: Mapping[str, Callable[[int], str]]


def _games(number: int) -> str:
    return ngettext("%(count)s game", "%(count)s games", number)


def _adjustments(number: int) -> str:
    return ngettext("%(count)s adjustment", "%(count)s adjustments", number)


COUNTED: dict[str, CountedSentence] = {
    IMPORTED: CountedSentence(
        lambda: pgettext(
            "an import's audit summary: the file, then its games and its adjustments",
            "%(source)s: %(games)s, %(adjustments)s",
        ),
        {"games": _games, "adjustments": _adjustments},
    ),
    TOURNAMENT_CLUB: CountedSentence(
        lambda: pgettext(
            "a tournament's club changed: the games that moved with it",
            "%(tournament)s: club %(before)s -> %(after)s, %(games)s",
        ),
        {"games": lambda number: ngettext("%(count)s game moved", "%(count)s games moved", number)},
    ),
    RESYNC_PLAYERS: CountedSentence(
        lambda: "%(players)s",
        {"players": lambda number: ngettext("%(count)s player", "%(count)s players", number)},
    ),
    # A tournament file's games no algorithm rates (the import's preview).
    engine.FORFEITS_NOT_RATED: CountedSentence(
        lambda: "%(games)s",
        {
            "games": lambda number: ngettext(
                "%(count)s forfeited game (marked '!') not rated",
                "%(count)s forfeited games (marked '!') not rated",
                number,
            )
        },
    ),
    engine.UNFINISHED_NOT_RATED: CountedSentence(
        lambda: "%(games)s",
        {
            "games": lambda number: ngettext(
                "%(count)s game without a result ('?') not rated",
                "%(count)s games without a result ('?') not rated",
                number,
            )
        },
    ),
    engine.BY_DEFAULT_NOT_RATED: CountedSentence(
        lambda: "%(games)s",
        {
            "games": lambda number: ngettext(
                "%(count)s game won or lost by forfeit (*_BYDEF) not rated",
                "%(count)s games won or lost by forfeit (*_BYDEF) not rated",
                number,
            )
        },
    ),
    engine.BOTH_WON_OR_LOST_NOT_RATED: CountedSentence(
        lambda: "%(games)s",
        {
            "games": lambda number: ngettext(
                "%(count)s game where both won or both lost not rated",
                "%(count)s games where both won or both lost not rated",
                number,
            )
        },
    ),
    engine.NOT_PLAYED_YET_NOT_RATED: CountedSentence(
        lambda: "%(games)s",
        {
            "games": lambda number: ngettext(
                "%(count)s game without a result yet (RESULT_UNKNOWN) not rated",
                "%(count)s games without a result yet (RESULT_UNKNOWN) not rated",
                number,
            )
        },
    ),
    RESYNC_REVERTED: CountedSentence(
        lambda: "%(adjustments)s",
        {
            "adjustments": lambda number: ngettext(
                "%(count)s adjustment voided", "%(count)s adjustments voided", number
            )
        },
    ),
}
