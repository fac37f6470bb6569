"""Sentences the engine writes for a person, kept translatable without Django.

The engine is English (the command line prints it as it is). A sentence a page shows
(a bad rank, a refused file's row, why a file's rating is no declaration, what an
h-file cannot carry) is a :class:`Message`: the English text itself, which every
caller reads as a ``str``, carrying its template (marked with :func:`gettext_noop`,
so ``makemessages`` extracts it) and the values of its named placeholders, so that
the pages translate the template and put the values back in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def gettext_noop(message: str) -> str:
    """Marks an English word the pages show translated (``makemessages`` finds it by
    this name, as Django's own ``gettext_noop``); the engine keeps the English."""
    return message


class Count(int):
    """A count a :class:`Message` says in running text ("all 1,234 games"): English
    groups it with commas, and a page groups it as its language writes numbers
    (``players.translated``: "1 234" in French). Any other number of a message (a line,
    a round, a PIN) stays as it is."""

    def __str__(self) -> str:
        return f"{int(self):,}"

    def __reduce__(self):
        return (Count, (int(self),))


class Message(str):
    """``template % values`` in English, with ``template`` and ``values`` kept."""

    template: str
    values: Mapping[str, Any]

    def __new__(cls, template: str, **values: Any) -> Message:
        message = super().__new__(cls, template % values if values else template)
        message.template = template
        message.values = values
        return message

    def __reduce__(self):
        return (_message, (self.template, dict(self.values)))


def _message(template: str, values: Mapping[str, Any]) -> Message:
    return Message(template, **values)


# Why an algorithm did not rate a game, as a history row stores it (``skipped``): the
# English the Message makes, which a page reads back by its template to translate it
# (``players.translated``). Each names its values; the English of a row is unchanged.
NOT_THE_RATED_BOARD = gettext_noop("%(algorithm)s rates 19x19 games only, not %(board)s")
NO_RULE_FOR_THE_BOARD = gettext_noop("no rule for a %(board)s board")
TOO_MANY_HANDICAP_STONES = gettext_noop(
    "EGF GoR does not rate games with more than %(most)s handicap stones (%(given)s given)"
)
NOT_A_TOURNAMENT_CLASS = gettext_noop("'%(given)s' is not a tournament class (A, B, C or D)")
# Why an adjustment's value was refused when it is replayed (the row's ``skipped``).
NOT_AN_SAGC_INDEX = gettext_noop(
    "an SAGC index is a whole number in -%(limit)s..%(limit)s, not %(value)s"
)
BELOW_THE_BARRIER = gettext_noop(
    "a French ladder level is not below the barrier %(barrier)s, not %(level)s"
)
# The games a tournament file gives that no algorithm rates, as its reader notes them
# (``TournamentFile.notes``). Not marked: a page says each count in the plural form of
# its number (``players.stored_sentences.COUNTED``).
FORFEITS_NOT_RATED = "%(games)d forfeited games (marked '!') not rated"
UNFINISHED_NOT_RATED = "%(games)d games without a result ('?') not rated"
BY_DEFAULT_NOT_RATED = "%(games)d games won or lost by forfeit (*_BYDEF) not rated"
BOTH_WON_OR_LOST_NOT_RATED = "%(games)d games where both won or both lost not rated"
NOT_PLAYED_YET_NOT_RATED = "%(games)d games without a result yet (RESULT_UNKNOWN) not rated"
STORED_TEMPLATES = (
    NOT_THE_RATED_BOARD,
    NO_RULE_FOR_THE_BOARD,
    TOO_MANY_HANDICAP_STONES,
    NOT_A_TOURNAMENT_CLASS,
    NOT_AN_SAGC_INDEX,
    BELOW_THE_BARRIER,
)


def refused(error: ValueError) -> str:
    """What a refused value's ``ValueError`` says: its Message as it was raised
    (``str(error)`` would keep the English only); another error's text as it is."""
    if len(error.args) == 1 and isinstance(error.args[0], Message):
        return error.args[0]
    return str(error)


def board(size: int) -> str:
    """A board's size as the sentences above name it: ``9x9``."""
    return f"{size}x{size}"
