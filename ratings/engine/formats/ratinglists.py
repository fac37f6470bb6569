"""The club's rating list in the formats OpenGotha reads for its player database (its
``RatingList``: the EGF rating list, the FFG's "échelle" and the AGA's TDList), so that a
tournament director loads the club's players with their club ranks before a club
tournament, and the results come back as an OpenGotha file.

OpenGotha reads them by position (ISO-8859-15, a line each):

* EGF: the PIN in columns 1-8 (digits: a line without one is skipped), "Name Firstname"
  in 11-47 (the first word is the name: a space inside it is written ``_``), the
  country in 49-51, the club in 53-56, the grade in 60-62, the GoR in 71-74; the
  publication date is what follows ``(`` on a line, ``(27 Dec 2018)``.
* FFG: "NAME Firstname" in 0-37 (starting with a letter), the rating in 38-42 (the
  FFG's scale: GoR - 2050), the licence status in 44, the licence in 46-52, the club
  in 54-57, the country in 59-60; the date after ``Echelle au``.
* AGA: tab-separated "Name, Firstname", AGA ID, membership type (``Forgn``: no
  country, anything else: US), rating (the AGA's scale: ``d.5`` is the middle of d dan,
  ``-k.5`` of k kyu), expiry date, club.

OpenGotha ranks a player from the list's rating (or, for the EGF list, from the grade
if the director chooses "rank from grade"): the FFG and AGA lists give the club rank's
rating, so the rank comes out as the club's; the EGF list gives the grade as the club
rank and the GoR the club's EGF algorithm gives the player (the club rank's GoR for a
player it has not rated).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from ..egf import grade_rating
from ..ranks import Rank
from . import ascii_text

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
ENCODING = "iso-8859-15"  # what OpenGotha reads rating lists in


@dataclass(frozen=True, slots=True)
class ListedPlayer:
    """A club player as the lists give them: ``rank`` the club rank, ``gor`` the GoR
    of the club's EGF algorithm (None: not rated there)."""

    surname: str
    given_name: str
    rank: Rank
    gor: float | None = None
    pin: str = ""
    national_id: str = ""
    country: str = ""
    club: str = ""


def _latin(text: str) -> str:
    """``text`` as OpenGotha reads it (ISO-8859-15): other letters spelt in ASCII."""
    try:
        text.encode(ENCODING)
    except UnicodeEncodeError:
        return ascii_text(text)
    return text


def _word(text: str) -> str:
    """One word: OpenGotha takes the name up to the first space."""
    return "_".join(_latin(text).split())


def _grade(rank: Rank) -> str:
    """A grade OpenGotha reads: 30k..1k, 1d..9d, 1p..9p."""
    if rank.pro or rank.stones >= 0:
        return str(rank)
    return f"{min(-rank.stones, 30)}k"


def _gor(player: ListedPlayer) -> int:
    return round(player.gor if player.gor is not None else grade_rating(player.rank))


def write_egf_list(players: Iterable[ListedPlayer], day: date) -> str:
    """The EGF rating list OpenGotha reads: players with an EGD PIN only (OpenGotha
    skips a line without one)."""
    lines = [f"({day.day} {MONTHS[day.month - 1]} {day.year})", ""]
    for player in players:
        if not (player.pin.isdigit() and len(player.pin) == 8):
            continue
        name = f"{_word(player.surname) or 'x'} {_word(player.given_name) or 'x'}"
        lines.append(
            f" {player.pin}  {name[:37]:<37} {player.country[:2]:<3} {_word(player.club)[:4]:<4}"
            f"   {_grade(player.rank):>3}   --   {_gor(player):>4}"
        )
    return "\n".join(lines) + "\n"


def write_ffg_list(players: Iterable[ListedPlayer], day: date) -> str:
    """The FFG's list as OpenGotha reads it, every player at the rating of their club
    rank (so OpenGotha ranks them as the club does)."""
    lines = [f"Echelle au {day.isoformat()}"]
    for player in players:
        surname = _word(player.surname)
        if not surname[:1].isascii() or not surname[:1].isalpha():
            surname = "X" + surname
        name = f"{surname.upper()} {_word(player.given_name) or 'x'}"
        rating = round(grade_rating(player.rank)) - 2050
        lines.append(
            f"{name[:37]:<38}{rating:>5} - {'':7} {_word(player.club)[:4]:<4} "
            f"{player.country[:2]:<2}"
        )
    return "\n".join(lines) + "\n"


def _aga_rating(rank: Rank) -> str:
    """The middle of the club rank on the AGA's scale (1d: 1.5, 1k: -1.5)."""
    if rank.pro:
        return "9.50"
    if rank.stones >= 0:  # 1d has no stones over 1 dan
        return f"{rank.stones + 1}.50"
    return f"-{min(-rank.stones, 30)}.50"


def write_aga_list(players: Iterable[ListedPlayer]) -> str:
    """The AGA's TDList as OpenGotha reads it, every player at the middle of their club
    rank; a player not of the US is a foreign member (OpenGotha then leaves the country
    blank rather than writing US)."""
    lines = []
    for player in players:
        membership = "Full" if player.country == "US" else "Forgn"
        fields = [
            f"{_latin(player.surname) or 'x'}, {_latin(player.given_name) or 'x'}",
            player.national_id if player.national_id.isdigit() else "",
            membership,
            _aga_rating(player.rank),
            "",
            _word(player.club)[:4],
        ]
        lines.append("\t".join(field.replace("\t", " ") for field in fields))
    return "\n".join(lines) + "\n"
