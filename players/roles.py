"""The site's roles and the clubs each user holds them for: what services and
selectors check before a write and read to filter (the view decorators that turn them
into 403s and log-in redirects are ``players.permissions``).

Anonymous users read; volunteers (group ``volunteers``) enter and correct games;
committee members (group ``committee``) also resync, adjust, merge and manage
accounts; a player whose account the committee linked to their record reports mistakes
in their games. Staff (superusers) may do everything.

A role is held for every club (the account is in the role's group: the federation's
volunteers and committee) or for some clubs (``ClubRole`` rows); a user's rights are
the union. A club's volunteers act on the games entered for their club, its committee
on the club's members; acting for another club is refused with a 403 naming the club
and whom to ask (:func:`check_club`).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from players.models import Club, ClubRole, Membership, Player
from players.selectors.reports import linked_player

VOLUNTEERS = "volunteers"
COMMITTEE = "committee"
# role_clubs' answer for a role held for every club.
EVERY_CLUB = None


def _in_group(user, group: str) -> bool:
    if not user.is_authenticated or not user.is_active:
        return False
    if user.is_superuser:
        return True
    # Cached on the user object: a page asks several times (navigation, buttons).
    names = getattr(user, "_clubrating_groups", None)
    if names is None:
        names = set(user.groups.values_list("name", flat=True))
        user._clubrating_groups = names
    return group in names


def _club_grants(user) -> dict[str, frozenset[int]]:
    """The clubs ``user`` holds each role for through ClubRole (cached on the user)."""
    grants = getattr(user, "_clubrating_club_roles", None)
    if grants is None:
        found: dict[str, set[int]] = {VOLUNTEERS: set(), COMMITTEE: set()}
        for group, club_id in ClubRole.objects.filter(user_id=user.pk).values_list(
            "group__name", "club_id"
        ):
            found.setdefault(group, set()).add(club_id)
        grants = {group: frozenset(ids) for group, ids in found.items()}
        user._clubrating_club_roles = grants
    return grants


def role_clubs(user, role: str) -> frozenset[int] | None:
    """The clubs ``user`` acts for in ``role``: EVERY_CLUB (None) for a role held for
    every club, else the clubs' ids (empty: not at all). A club's committee members
    are its volunteers too."""
    if not user.is_authenticated or not user.is_active:
        return frozenset()
    if _in_group(user, COMMITTEE) or (role == VOLUNTEERS and _in_group(user, VOLUNTEERS)):
        return EVERY_CLUB
    grants = _club_grants(user)
    if role == COMMITTEE:
        return grants.get(COMMITTEE, frozenset())
    return grants.get(VOLUNTEERS, frozenset()) | grants.get(COMMITTEE, frozenset())


def holds_role(user, role: str) -> bool:
    """``user`` holds ``role`` for some club at least."""
    clubs = role_clubs(user, role)
    return clubs is EVERY_CLUB or bool(clubs)


def is_volunteer(user) -> bool:
    """Volunteers and committee members (the committee are volunteers too), of every
    club or of some."""
    return holds_role(user, VOLUNTEERS)


def is_committee(user) -> bool:
    return holds_role(user, COMMITTEE)


def is_federation_committee(user) -> bool:
    """The committee of every club: it creates clubs and grants club roles."""
    return role_clubs(user, COMMITTEE) is EVERY_CLUB


def may_act_for(user, role: str, club_id: int | None) -> bool:
    """``user`` acts in ``role`` for the club ``club_id`` (None: the federation's own
    records, for the roles held for every club)."""
    clubs = role_clubs(user, role)
    return clubs is EVERY_CLUB or (club_id is not None and club_id in clubs)


def clubs_of_player(player: Player, day=None) -> set[int]:
    """The clubs ``player`` belongs to on ``day`` (today: their current club too)."""
    memberships = Membership.objects.filter(player_id=player.pk)
    if day is not None:
        return set(memberships.on(day).values_list("club_id", flat=True))
    found = set(memberships.filter(end__isnull=True).values_list("club_id", flat=True))
    if player.club_id is not None:
        found.add(player.club_id)
    return found


def may_act_for_player(user, role: str, player: Player) -> bool:
    """``user`` acts in ``role`` for one of the clubs ``player`` belongs to now; a
    player of no club (a tournament visitor) is the federation committee's."""
    clubs = role_clubs(user, role)
    return clubs is EVERY_CLUB or bool(clubs & clubs_of_player(player))


def first_player_refused(user, role: str, players: Iterable[Player]) -> Player | None:
    """The first of ``players`` (by username) whom ``user`` may not act for in
    ``role`` (none of their current clubs is the user's), or None. Two queries for any
    number of players: a page's button that would be refused is not shown."""
    clubs = role_clubs(user, role)
    if clubs is EVERY_CLUB:
        return None
    by_id = {player.pk: player for player in players}
    theirs: dict[int, set[int]] = {pk: set() for pk in by_id}
    for pk, player in by_id.items():
        if player.club_id is not None:
            theirs[pk].add(player.club_id)
    current = Membership.objects.filter(player_id__in=by_id, end__isnull=True)
    for player_id, club_id in current.values_list("player_id", "club_id"):
        theirs[player_id].add(club_id)
    refused = [by_id[pk] for pk, found in theirs.items() if not found & clubs]
    return min(refused, key=lambda player: player.username, default=None)


class ClubRefusal(PermissionDenied):
    """A 403 for acting outside one's clubs: the message says whose the record is, the
    remedy whom to ask (the 403 page shows both)."""

    def __init__(self, message: str, remedy: str) -> None:
        super().__init__(message)
        self.remedy = remedy


def _who_to_ask(club: Club | None) -> str:
    users = get_user_model().objects.filter(is_active=True).order_by("username")
    federation = list(
        users.filter(groups__name=COMMITTEE, is_superuser=False).values_list("username", flat=True)[
            :5
        ]
    )
    if federation:
        asked = _("the federation's committee (%(names)s)") % {"names": ", ".join(federation)}
    else:
        asked = _("the federation's committee")
    if club is None:
        return _("Ask %(asked)s: these records are the federation's.") % {"asked": asked}
    committee = list(
        users.filter(club_roles__club=club, club_roles__group__name=COMMITTEE).values_list(
            "username", flat=True
        )[:5]
    )
    if committee:
        asked = _("%(club)s's committee (%(names)s) or %(federation)s") % {
            "club": club.name,
            "names": ", ".join(committee),
            "federation": asked,
        }
    return _(
        "Ask %(asked)s to do it, or to give your account a role for %(club)s if you help run it."
    ) % {"asked": asked, "club": club.name}


def game_refused(number: int) -> str:
    """A game as a refusal's ``what`` names it ("Game 11 is Pretoria Go Club's: ..."; in
    French with its article, "La partie 11 relève de ...")."""
    return pgettext("what a refusal is about", "game %(number)s") % {"number": number}


def refuse(user, role: str, club: Club | None, what: str) -> ClubRefusal:
    """The refusal for ``user`` acting in ``role`` on ``what`` of ``club``."""
    # One whole sentence per case, so that each language words it its own way; ``what``
    # is the caller's (marked for translation there).
    if club is None and role == VOLUNTEERS:
        message = _(
            "%(what)s is the federation's: only the federation's volunteers may change it, "
            "and your account is not among them."
        )
    elif club is None:
        message = _(
            "%(what)s is the federation's: only the federation's committee may change it, "
            "and your account is not among them."
        )
    elif role == VOLUNTEERS:
        message = _(
            "%(what)s is %(club)s's: only %(club)s's volunteers may change it, "
            "and your account is not among them."
        )
    else:
        message = _(
            "%(what)s is %(club)s's: only %(club)s's committee may change it, "
            "and your account is not among them."
        )
    words = {"what": what, "club": club.name if club is not None else ""}
    return ClubRefusal(capfirst(message % words), _who_to_ask(club))


def check_club(user, role: str, club_id: int | None, what: str) -> None:
    """Raise a ClubRefusal unless ``user`` acts in ``role`` for ``club_id``."""
    if not may_act_for(user, role, club_id):
        club = Club.objects.filter(pk=club_id).first() if club_id is not None else None
        raise refuse(user, role, club, what)


def check_player(user, role: str, player: Player, what: str | None = None) -> None:
    """Raise a ClubRefusal unless ``user`` acts in ``role`` for a club of ``player``."""
    if not may_act_for_player(user, role, player):
        first = min(clubs_of_player(player), default=None)
        club = Club.objects.filter(pk=first).first() if first is not None else None
        # The player's name, not the username: the refusal's first letter is capitalised,
        # which would misspell a username ("Siphoz21's record").
        raise refuse(user, role, club, what or _("%(name)s's record") % {"name": player.full_name})


def _held_to_clubs(user, role: str) -> bool:
    """Services check the clubs of the users who hold ``role`` or club roles: which
    role a write needs at all is the page's decorator (a service called by a command or
    a test acts for whom it is told)."""
    return holds_role(user, role) or any(_club_grants(user).values())


def check_club_scope(user, role: str, club_id: int | None, what: str) -> None:
    """What a service checks: :func:`check_club` for a user held to clubs."""
    if user is not None and user.is_authenticated and _held_to_clubs(user, role):
        check_club(user, role, club_id, what)


def check_player_scope(user, role: str, player: Player, what: str | None = None) -> None:
    """What a service checks: :func:`check_player` for a user held to clubs."""
    if user is not None and user.is_authenticated and _held_to_clubs(user, role):
        check_player(user, role, player, what)


def check_federation(user, what: str) -> None:
    """Raise a ClubRefusal unless ``user`` is on the federation's committee (creating
    clubs, giving a role for every club)."""
    if not is_federation_committee(user):
        raise refuse(user, COMMITTEE, None, what)


def account_clubs(account) -> frozenset[int] | None:
    """The clubs an account is of: those it holds a role for and its player's
    (EVERY_CLUB for an account holding a role for every club)."""
    clubs = role_clubs(account, VOLUNTEERS)
    if clubs is EVERY_CLUB:
        return EVERY_CLUB
    player = linked_player(account)
    return clubs | frozenset(clubs_of_player(player) if player is not None else ())


def _clubs_not_managed(user, account) -> frozenset[int] | None:
    """The clubs of ``account`` that keep ``user`` from managing it (empty: ``user``
    manages it; EVERY_CLUB: only the federation's committee does). The federation's
    committee manages every account, a club's committee the accounts of its club
    (holding roles for its clubs only, or holding none and linked to one of its members;
    an account of no club, no role and no player, is any committee's)."""
    if is_federation_committee(user):
        return frozenset()
    clubs = account_clubs(account)
    if clubs is not EVERY_CLUB and not clubs:
        return frozenset()  # an account of no club (a new login, no role yet)
    mine = role_clubs(user, COMMITTEE) or frozenset()  # EVERY_CLUB returned above
    # An account's roles are its rights: one holding a role for a club not among the
    # user's is not theirs to manage, or a link to choose its password, sent where they
    # say, would give them its rights in that club.
    held = role_clubs(account, VOLUNTEERS)
    if clubs is EVERY_CLUB or held is EVERY_CLUB:
        return EVERY_CLUB
    if held:
        return held - mine
    return frozenset() if clubs & mine else clubs


def manages_account(user, account) -> bool:
    """``user`` manages ``account`` (:func:`_clubs_not_managed`)."""
    others = _clubs_not_managed(user, account)
    return others is not EVERY_CLUB and not others


def check_account(user, account) -> None:
    """Raise a ClubRefusal unless ``user`` manages ``account`` (:func:`manages_account`)."""
    others = _clubs_not_managed(user, account)
    if others is EVERY_CLUB or others:
        club_id = None if not others else min(others)  # refused for the first of them
        what = _("the account %(username)s") % {"username": account.get_username()}
        check_club(user, COMMITTEE, club_id, what)


def check_federation_scope(user, what: str) -> None:
    """What a service checks: :func:`check_federation` for a user held to clubs."""
    if user is not None and user.is_authenticated and _held_to_clubs(user, COMMITTEE):
        check_federation(user, what)


def check_account_scope(user, account) -> None:
    """What a service checks: :func:`check_account` for a user held to clubs."""
    if user is not None and user.is_authenticated and _held_to_clubs(user, COMMITTEE):
        check_account(user, account)
