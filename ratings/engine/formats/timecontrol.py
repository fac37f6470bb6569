"""A tournament's time control as OpenGotha keeps it, and the EGF class and adjusted time
derived from it as the EGF's rules (and OpenGotha's ``Tournament.egfClass`` and
``egfAdjustedTime``) derive them.

OpenGotha's ``GeneralParameterSet`` says the basic time (minutes), the complementary
time system (sudden death, standard byo-yomi, Canadian byo-yomi, Fischer) with its
parameters, and whether the tournament is played on the internet (``bInternet``). The
adjusted time is the basic time plus 45 byo-yomi periods (standard byo-yomi), or the
time of 60 moves of Canadian byo-yomi, or 120 Fischer increments. The class:

=========================  ======================  ======================
class                      byo-yomi, sudden death  Fischer
=========================  ======================  ======================
A                          basic 60, adjusted 75   basic 45, adjusted 75
B                          basic 40, adjusted 50   basic 30, adjusted 50
C                          basic 25, adjusted 30   basic 20, adjusted 30
D (internet, at best)      basic 40, adjusted 50   basic 30, adjusted 50
=========================  ======================  ======================

(minutes, at least). A tournament below C's times (OpenGotha's class X) is not one the
EGF rates; the site has no such class and rates it as D, its lowest weight, saying so.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..messages import Message, gettext_noop

# The GeneralParameterSet attributes of the time control, as OpenGotha writes them.
TIME_ATTRIBUTES = (
    "basicTime",
    "bInternet",
    "canByoYomiTime",
    "complementaryTimeSystem",
    "fischerTime",
    "nbMovesCanTime",
    "stdByoYomiTime",
)
# Marked: a tournament stores the words as its file comment, which its page shows in
# the reader's language (an h-file's ``CM`` of the same words too).
SYSTEMS = {
    "SUDDENDEATH": gettext_noop("Sudden death"),
    "STDBYOYOMI": gettext_noop("Standard byo-yomi"),
    "CANBYOYOMI": gettext_noop("Canadian byo-yomi"),
    "FISCHER": gettext_noop("Fischer"),
}
# (class, basic seconds, adjusted seconds) at least, best first.
# Per class: its letter and the least basic and adjusted time, in seconds.
_Classes = tuple[tuple[str, int, int], ...]
_BYOYOMI_CLASSES: _Classes = (("A", 3600, 4500), ("B", 2400, 3000), ("C", 1500, 1800))
_FISCHER_CLASSES: _Classes = (("A", 2700, 4500), ("B", 1800, 3000), ("C", 1200, 1800))
_INTERNET_BYOYOMI: _Classes = (("D", 2400, 3000),)
_INTERNET_FISCHER: _Classes = (("D", 1800, 3000),)


@dataclass(frozen=True, slots=True)
class TimeControl:
    """OpenGotha's time parameters, with its defaults for what a file leaves out."""

    basic_minutes: int = 60
    system: str = "CANBYOYOMI"
    std_byoyomi_seconds: int = 30
    canadian_moves: int = 15
    canadian_seconds: int = 300
    fischer_seconds: int = 10
    internet: bool = False

    @classmethod
    def from_attributes(cls, attributes: dict[str, str]) -> TimeControl:
        """As OpenGotha's reader takes them (``time`` for a file older than
        ``basicTime``; ``byoYomi="false"`` for sudden death in old files)."""

        def number(name: str, default: int) -> int:
            try:
                return int(attributes.get(name, "").strip())
            except ValueError:
                return default

        system = "CANBYOYOMI" if attributes.get("byoYomi", "true") == "true" else "SUDDENDEATH"
        system = attributes.get("complementaryTimeSystem", "").strip().upper() or system
        return cls(
            basic_minutes=number("basicTime", number("time", 60)),
            system=system if system in SYSTEMS else "CANBYOYOMI",
            std_byoyomi_seconds=number("stdByoYomiTime", 30),
            canadian_moves=number("nbMovesCanTime", 15),
            canadian_seconds=number("canByoYomiTime", 300),
            fischer_seconds=number("fischerTime", 10),
            internet=attributes.get("bInternet", "false").strip() == "true",
        )

    def attributes(self) -> dict[str, str]:
        """The GeneralParameterSet attributes OpenGotha reads this time control from."""
        return {
            "basicTime": str(self.basic_minutes),
            "bInternet": "true" if self.internet else "false",
            "canByoYomiTime": str(self.canadian_seconds),
            "complementaryTimeSystem": self.system,
            "fischerTime": str(self.fischer_seconds),
            "nbMovesCanTime": str(self.canadian_moves),
            "stdByoYomiTime": str(self.std_byoyomi_seconds),
        }

    @property
    def adjusted_seconds(self) -> int:
        """The EGF adjusted time, in seconds (OpenGotha's ``egfAdjustedTime``)."""
        basic = self.basic_minutes * 60
        if self.system == "STDBYOYOMI":
            return basic + 45 * self.std_byoyomi_seconds
        if self.system == "CANBYOYOMI":
            return basic + 60 * self.canadian_seconds // max(self.canadian_moves, 1)
        if self.system == "FISCHER":
            return basic + 120 * self.fischer_seconds
        return basic

    @property
    def adjusted_minutes(self) -> int:
        """As OpenGotha's h-file writes it in ``TM``: whole minutes, rounded down."""
        return self.adjusted_seconds // 60

    def description(self) -> str:
        """The complementary time as the h-file's ``CM`` says it (OpenGotha's words)."""
        return SYSTEMS[self.system]

    def _details(self) -> Message:
        values = {
            "basic": self.basic_minutes,
            "adjusted": _minutes(self.adjusted_seconds),
            "where": Message(gettext_noop(", on the internet")) if self.internet else "",
        }
        if self.system == "STDBYOYOMI":
            template = gettext_noop(
                "basic time %(basic)s min, byo-yomi %(seconds)s s%(where)s: adjusted time "
                "%(adjusted)s"
            )
            values["seconds"] = self.std_byoyomi_seconds
        elif self.system == "CANBYOYOMI":
            template = gettext_noop(
                "basic time %(basic)s min, %(moves)s moves in %(period)s (Canadian byo-yomi)"
                "%(where)s: adjusted time %(adjusted)s"
            )
            values |= {"moves": self.canadian_moves, "period": _minutes(self.canadian_seconds)}
        elif self.system == "FISCHER":
            template = gettext_noop(
                "basic time %(basic)s min, Fischer %(seconds)s s a move%(where)s: adjusted "
                "time %(adjusted)s"
            )
            values["seconds"] = self.fischer_seconds
        else:
            template = gettext_noop(
                "basic time %(basic)s min, sudden death%(where)s: adjusted time %(adjusted)s"
            )
        return Message(template, **values)

    def egf_class(self) -> tuple[str, Message]:
        """The EGF class (A to D) and why, as OpenGotha derives it (a Message: the pages
        say it in their language)."""
        fischer = self.system == "FISCHER"
        if self.internet:
            classes = _INTERNET_FISCHER if fischer else _INTERNET_BYOYOMI
        else:
            classes = _FISCHER_CLASSES if fischer else _BYOYOMI_CLASSES
        basic, adjusted = self.basic_minutes * 60, self.adjusted_seconds
        for letter, least_basic, least_adjusted in classes:
            if basic >= least_basic and adjusted >= least_adjusted:
                needs = (
                    Message(gettext_noop("an internet tournament is class D at best"))
                    if self.internet
                    else Message(
                        gettext_noop(
                            "class %(letter)s needs a basic time of %(basic)s and an "
                            "adjusted time of %(adjusted)s"
                        ),
                        letter=letter,
                        basic=_minutes(least_basic),
                        adjusted=_minutes(least_adjusted),
                    )
                )
                reason = Message(
                    gettext_noop("class %(letter)s: %(details)s (%(needs)s)"),
                    letter=letter,
                    details=self._details(),
                    needs=needs,
                )
                return letter, reason
        return "D", Message(
            gettext_noop(
                "class D: %(details)s, below class %(floor)s's times (OpenGotha's class X: "
                "not one the EGF rates); rated as D, the lowest weight: correct it if needed"
            ),
            details=self._details(),
            floor="D" if self.internet else "C",
        )


def _minutes(seconds: int) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"{minutes} min" + (f" {rest} s" if rest else "")
