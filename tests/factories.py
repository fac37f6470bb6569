"""Small builders that keep related objects consistent across the database tests."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from players.models import Club, ClubRole, Membership, Player, Tournament
from players.services.adjustments import adjustment_apply
from players.services.games import GameInput, record_sheet_submit
from ratings.engine.ranks import parse_rank
from ratings.recompute.run import recompute_pending


def play(volunteer, *games: GameInput):
    """Records ``games`` on one sheet entered by ``volunteer`` (duplicates allowed) and
    runs the recompute it asks for; returns the stored games."""
    result = record_sheet_submit(user=volunteer, games=list(games), allow_duplicates=True)
    recompute_pending()
    return result.games


def user(username: str = "vera", *groups: str):
    account, _ = get_user_model().objects.get_or_create(username=username)
    if groups:
        account.groups.set(Group.objects.filter(name__in=groups))
    return account


def volunteer(username: str = "vera"):
    return user(username, "volunteers")


def committee_member(username: str = "connie"):
    return user(username, "volunteers", "committee")


def club(name: str = "Cape Town Go Club", founded: date | None = None) -> Club:
    return Club.objects.get_or_create(name=name, defaults={"founded": founded})[0]


def player(username: str, rank: str = "10k", **extra) -> Player:
    """A player; with ``club``, a member of it since before the site's records (as the
    migration made every player of a club)."""
    created = Player.objects.create(
        username=username,
        full_name=extra.pop("full_name", username.title()),
        entry_rank=parse_rank(rank),
        national_rank=parse_rank(rank),
        **extra,
    )
    if created.club_id is not None:
        Membership.objects.create(player=created, club_id=created.club_id)
    return created


def club_role(account, role: str, club: Club):
    """``account`` holds ``role`` ("volunteers" or "committee") for ``club`` only."""
    group, _ = Group.objects.get_or_create(name=role)
    ClubRole.objects.get_or_create(user=account, group=group, club=club)
    account._clubrating_club_roles = None
    return account


def club_volunteer(username: str, club: Club):
    return club_role(user(username), "volunteers", club)


def club_committee_member(username: str, club: Club):
    return club_role(user(username), "committee", club)


def game(white: Player, black: Player, winner: str = "W", on: date = date(2024, 3, 1), **extra):
    """A GameInput with the seed's defaults."""
    if "komi" in extra and extra["komi"] is not None:
        extra["komi"] = Decimal(str(extra["komi"]))
    return GameInput(date=on, white=white, black=black, winner=winner, **extra)


def tournament(code: str = "club-open", name: str = "Club Open", **extra) -> Tournament:
    return Tournament.objects.get_or_create(code=code, defaults={"name": name, **extra})[0]


def volunteer_with_password(username: str, password: str):
    """A volunteer who logs in through the login form (browser tests). The group is made
    if missing: a transactional test's flush removes the rows the migrations made."""
    group, _ = Group.objects.get_or_create(name="volunteers")
    account = get_user_model().objects.create_user(username, password=password)
    account.groups.add(group)
    return account


def committee_with_password(username: str, password: str):
    """A committee member who logs in through the login form (browser tests)."""
    account = volunteer_with_password(username, password)
    group, _ = Group.objects.get_or_create(name="committee")
    account.groups.add(group)
    return account


def adjustment(player: Player, on: date, rank: str, *, user, **extra):
    """A committee reset of ``player`` to ``rank`` from ``on``: for every algorithm, or
    the one ``algorithm=`` names (with a ``value`` in its scale)."""
    if extra.get("value") is not None:
        extra["value"] = Decimal(str(extra["value"]))
    return adjustment_apply(user=user, player=player, date=on, new_rank=parse_rank(rank), **extra)
