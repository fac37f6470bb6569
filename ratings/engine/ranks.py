"""Go ranks as integers of stones (SPEC section 1).

``30k = -30 … 1k = -1``, ``1d = 0 … 9d = 8``. Entry grades down to 50k are kept
as a player's true entry grade; professional ranks ``1p…9p`` are kept as such and
each algorithm decides what they are worth (SAGC: 9d; EGF: ``2700 + 30·(n - 1)``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .messages import Message, gettext_noop

WEAKEST_STONES = -50  # 50k, the weakest entry grade accepted
FLOOR_STONES = -30  # 30k, where every algorithm starts weaker players
STRONGEST_AMATEUR_STONES = 8  # 9d

_RANK_RE = re.compile(r"^\s*(\d{1,2})\s*(k|kyu|d|dan|p|pro)\s*$", re.IGNORECASE)


class RankError(ValueError):
    """A rank that SPEC section 1 does not accept; the message names the bad value (a
    :class:`~ratings.engine.messages.Message`, which the pages translate)."""

    @property
    def message(self) -> str:
        return self.args[0]


@dataclass(frozen=True, order=True, slots=True)
class Rank:
    """A rank; ordering is by strength (``1p`` above ``9d``).

    ``stones`` is the amateur scale (pros sit at 9d = 8 on it); ``pro`` is 1..9
    for a professional rank, else 0.
    """

    stones: int
    pro: int = 0

    def __post_init__(self) -> None:
        if self.pro:
            if not 1 <= self.pro <= 9 or self.stones != STRONGEST_AMATEUR_STONES:
                raise RankError(
                    Message(gettext_noop("invalid professional rank %(pro)sp"), pro=self.pro)
                )
        elif not WEAKEST_STONES <= self.stones <= STRONGEST_AMATEUR_STONES:
            raise RankError(
                Message(gettext_noop("rank out of range: %(stones)s stones"), stones=self.stones)
            )

    @classmethod
    def pro_rank(cls, n: int) -> Rank:
        return cls(STRONGEST_AMATEUR_STONES, n)

    @property
    def is_pro(self) -> bool:
        return self.pro > 0

    @property
    def is_dan(self) -> bool:
        return self.stones >= 0

    def __str__(self) -> str:
        if self.pro:
            return f"{self.pro}p"
        if self.stones >= 0:
            return f"{self.stones + 1}d"
        return f"{-self.stones}k"

    def floored(self, floor_stones: int = FLOOR_STONES) -> Rank:
        """The amateur rank an algorithm starts this player at: weaker than the floor
        becomes the floor, a professional becomes 9d."""
        if self.pro:
            return Rank(STRONGEST_AMATEUR_STONES)
        return Rank(max(self.stones, floor_stones))


def parse_rank(text: str) -> Rank:
    """Parse ``15k``, ``15 kyu``, ``3d``, ``3 dan``, ``2p`` in any case, with spaces."""
    match = _RANK_RE.match(text or "")
    if not match:
        raise RankError(
            Message(
                gettext_noop("'%(text)s' is not a rank (expected e.g. 15k, 3d or 1p)"), text=text
            )
        )
    number, kind = int(match.group(1)), match.group(2).lower()[0]
    if kind == "k":
        if not 1 <= number <= -WEAKEST_STONES:
            raise RankError(
                Message(
                    gettext_noop("'%(text)s' is not a rank: kyu ranks run from 50k to 1k"),
                    text=text.strip(),
                )
            )
        return Rank(-number)
    if kind == "d":
        if not 1 <= number <= STRONGEST_AMATEUR_STONES + 1:
            raise RankError(
                Message(
                    gettext_noop("'%(text)s' is not a rank: dan ranks run from 1d to 9d"),
                    text=text.strip(),
                )
            )
        return Rank(number - 1)
    if not 1 <= number <= 9:
        raise RankError(
            Message(
                gettext_noop("'%(text)s' is not a rank: professional ranks run from 1p to 9p"),
                text=text.strip(),
            )
        )
    return Rank.pro_rank(number)
