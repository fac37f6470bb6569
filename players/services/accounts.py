"""Writing accounts: roles, invitations by mail, passwords chosen by their owners, the
link to a player."""

from __future__ import annotations

from typing import Any

from axes.utils import reset as reset_login_lockout
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import IntegrityError, models, transaction
from django.urls import reverse
from django.utils.translation import get_language, gettext, override, pgettext
from django.utils.translation import gettext_lazy as _

from clubrating.usernames import canonical_username
from notifications import tokens
from notifications.models import MailKind
from notifications.services import absolute, account_notice, email_set, mail_create
from players import stored_sentences as sentences
from players.models import (
    Club,
    ClubRole,
    Player,
)
from players.roles import (
    COMMITTEE,
    VOLUNTEERS,
    check_account_scope,
    check_club,
    check_federation_scope,
    check_player_scope,
    is_federation_committee,
)
from players.selectors.accounts import SYSTEM_USERNAME, is_reserved_username
from players.services.audit import audit
from players.services.base import ServiceError
from ratings.engine.messages import Message


class Role(models.TextChoices):
    """What an account may do; committee members are volunteers too."""

    # Player accounts, linked to their record, are of this role too.
    READER = "reader", _("Player (no volunteer role)")
    VOLUNTEER = "volunteer", _("Volunteer")
    COMMITTEE = "committee", _("Committee")


ROLE_GROUPS = {
    Role.READER: (),
    Role.VOLUNTEER: (VOLUNTEERS,),
    Role.COMMITTEE: (VOLUNTEERS, COMMITTEE),
}


def account_role(account) -> Role:
    names = set(account.groups.values_list("name", flat=True))
    if COMMITTEE in names:
        return Role.COMMITTEE
    if VOLUNTEERS in names:
        return Role.VOLUNTEER
    return Role.READER


def account_snapshot(account) -> dict[str, Any]:
    return {
        "username": account.username,
        "role": str(account_role(account)),
        "is_active": account.is_active,
        "is_staff": account.is_staff,
        "is_superuser": account.is_superuser,
    }


def account_change_refusal(user, account) -> str | None:
    """Why ``user`` may not change ``account``, or None. Staff accounts are changed by
    staff only (a superuser's by a superuser), and the system account that imports act
    as is nobody's to change."""
    if is_reserved_username(account.username):
        return gettext("'%(username)s' is the site's own account; it has no login") % {
            "username": SYSTEM_USERNAME
        }
    if account.is_superuser and not user.is_superuser:
        return gettext("%(username)s is a superuser: only a superuser may change this account") % {
            "username": account.username
        }
    if account.is_staff and not (user.is_staff or user.is_superuser):
        return gettext("%(username)s is a staff account: only staff may change this account") % {
            "username": account.username
        }
    return None


def _check_may_change(user, account) -> None:
    refusal = account_change_refusal(user, account)
    if refusal:
        raise ServiceError(refusal)
    check_account_scope(user, account)


def _set_role(account, role: Role) -> None:
    ours = Group.objects.filter(name__in=(VOLUNTEERS, COMMITTEE))
    account.groups.remove(*ours)
    account.groups.add(*Group.objects.filter(name__in=ROLE_GROUPS[Role(role)]))
    account._clubrating_groups = None  # the permission cache of this user object
    account._clubrating_club_roles = None


def username_refusal(username: str) -> str | None:
    """Why a new account may not be called ``username``, or None. Two usernames that
    differ only in case or in full-width letters are the same login (the log-in form
    NFKC-normalises what is typed), so they are the same name here too."""
    if is_reserved_username(username):
        return gettext("'%(username)s' is reserved for the site's own account") % {
            "username": username
        }
    wanted = canonical_username(username)
    # A club has a few hundred accounts; the database's case-insensitive match knows
    # neither NFKC nor, on SQLite, non-ASCII case.
    for existing in get_user_model().objects.values_list("username", flat=True).iterator():
        if canonical_username(existing) == wanted:
            return gettext("'%(username)s' is taken (usernames ignore case here)") % {
                "username": username
            }
    return None


def account_create(
    *, user, username: str, password: str | None, role: Role, player: Player | None = None
):
    """A new login for a volunteer or committee member (or a player); with ``player``,
    linked to that player record in the same transaction. With no ``password`` it has
    none usable until its owner chooses one (an invitation, :func:`account_invite`)."""
    accounts = get_user_model().objects
    refusal = username_refusal(username)
    if refusal:
        raise ServiceError(refusal, [(None, "username", refusal)])
    username = get_user_model().normalize_username(username)
    if Role(role) != Role.READER:
        check_federation_scope(user, gettext("a role for every club"))
    if player is not None:
        check_player_scope(
            user,
            COMMITTEE,
            player,
            # The name, not the username: the refusal capitalises its first letter.
            gettext("%(name)s's record") % {"name": player.full_name},
        )
        _check_player_unlinked(player)
    try:
        with transaction.atomic():
            account = accounts.create_user(username=username, password=password)
            _set_role(account, role)
            with override(None):  # the audit trail is written in English
                summary = Message(
                    sentences.ACCOUNT_CREATED, account=username, role=str(Role(role).label)
                )
            audit(
                user,
                "account_create",
                account,
                after=account_snapshot(account),
                summary=summary,
            )
            if player is not None:
                link(user, account, player)
    except IntegrityError:  # created by someone else meanwhile
        message = gettext("'%(username)s' is taken") % {"username": username}
        raise ServiceError(message, [(None, "username", message)]) from None
    return account


def _check_player_unlinked(player: Player, account=None) -> None:
    holder_id = Player.objects.filter(pk=player.pk).values_list("account_id", flat=True).first()
    if holder_id is not None and (account is None or holder_id != account.pk):
        holder = get_user_model().objects.get(pk=holder_id)
        message = gettext("%(player)s already has an account (%(account)s); unlink it first") % {
            "player": player.username,
            "account": holder.username,
        }
        raise ServiceError(message, [(None, "player", message)])


def link(user, account, player: Player | None) -> None:
    before = Player.objects.filter(account=account).first()
    Player.objects.filter(account=account).update(account=None)
    if player is not None:
        Player.objects.filter(pk=player.pk).update(account=account)
        player.account = account
    account._clubrating_player = player  # the cache of selectors.reports.linked_player
    audit(
        user,
        "account_player",
        account,
        before={"player": before.username if before else None},
        after={"player": player.username if player else None},
        summary=(
            f"{account.username} -> {player.username}"
            if player
            else Message(sentences.ACCOUNT_UNLINKED, account=account.username)
        ),
    )


def account_link_player(*, user, account, player: Player | None):
    """Link ``account`` to ``player`` (None: unlink): the player's own login, for their
    page and their reports. One account per record, one record per account."""
    _check_may_change(user, account)
    if player is not None:
        check_player_scope(
            user,
            COMMITTEE,
            player,
            # The name, not the username: the refusal capitalises its first letter.
            gettext("%(name)s's record") % {"name": player.full_name},
        )
        _check_player_unlinked(player, account)
    with transaction.atomic():
        try:
            link(user, account, player)
        except IntegrityError as error:  # linked by someone else meanwhile
            if player is None:  # an unlink breaks no uniqueness: not that race
                raise
            message = gettext("%(player)s was linked to another account meanwhile") % {
                "player": player.username
            }
            raise ServiceError(message, [(None, "player", message)]) from error
    return account


def _own_committee_role() -> str:
    return gettext("you cannot remove your own committee role: ask another committee member")


def account_set_roles(*, user, account, role: Role):
    """Give an account the role ``role``. A committee member cannot drop their own
    committee role, so the club cannot lock itself out of the committee pages. These
    roles are held for every club: the federation's committee gives them."""
    check_federation_scope(user, gettext("a role for every club"))
    _check_may_change(user, account)
    if (
        account.pk == user.pk
        and not user.is_superuser
        and account_role(account) == Role.COMMITTEE
        and role != Role.COMMITTEE
    ):
        message = _own_committee_role()
        raise ServiceError(message, [(None, "role", message)])
    with transaction.atomic():
        before = account_snapshot(account)
        _set_role(account, role)
        after = account_snapshot(account)
        audit(
            user,
            "account_roles",
            account,
            before=before,
            after=after,
            summary=Message(
                sentences.ROLE_CHANGED,
                account=account.username,
                before=before["role"],
                after=after["role"],
            ),
        )
    return account


def account_invite(*, user, username: str, email: str, role: Role, player: Player | None = None):
    """A new account with no password, and the mail that invites its owner at ``email``
    to choose one (the address is theirs once they follow the link)."""
    with transaction.atomic():
        account = account_create(
            user=user, username=username, password=None, role=role, player=player
        )
        invitation_send(user=user, account=account, email=email)
    return account


def invitation_send(*, user, account, email: str):
    """Mail ``email`` a signed link, valid ``INVITATION_DAYS`` days and once, to choose
    the password of ``account``: the invitation of a new account, or a forgotten
    password of one that has no confirmed address yet. Following it also lifts any
    log-in lockout of the account."""
    _check_may_change(user, account)
    email = email.strip()
    token = tokens.invitation_token(account, email)
    with transaction.atomic():
        audit(
            user,
            "account_invitation",
            account,
            after={"email": email},
            summary=Message(sentences.INVITATION_SENT, account=account.username, email=email),
        )
        mail_create(
            key=f"invitation:{account.pk}:{token[-32:]}",
            kind=MailKind.ACCOUNT,
            user=account,
            to=email,
            template="invitation",
            subject=_("Your account on the Go club ratings"),
            # a new account has no language yet: the inviting person's, not the site's
            language=get_language(),
            context={
                "account": account,
                "inviter": user.get_full_name() or user.username,
                "role": account_role(account).label,
                "invite_url": absolute(reverse("invitation_accept", args=[token])),
                "days": settings.INVITATION_DAYS,
            },
        )
    return account


def invitation_accept(*, account, email: str, password: str):
    """The owner followed their invitation: ``password`` is theirs, ``email`` (which the
    link reached) their confirmed address, and any log-in lockout is lifted."""
    with transaction.atomic():
        account.set_password(password)
        account.save(update_fields=["password"])
        email_set(account=account, email=email)
        reset_login_lockout(username=canonical_username(account.username))
        audit(
            account,
            "account_invitation_accept",
            account,
            summary=Message(sentences.PASSWORD_CHOSEN, account=str(account)),
        )
    return account


def password_changed(*, account):
    """``account`` chose a new password (changed it, or through a reset link): any
    log-in lockout is lifted, and its address is told, in case it was not them."""
    with transaction.atomic():
        reset_login_lockout(username=canonical_username(account.username))
        audit(
            account,
            "account_password",
            account,
            summary=Message(sentences.PASSWORD_CHANGED, account=str(account)),
        )
        if account.email:
            account_notice(
                account=account,
                to=account.email,
                event="password",
                subject=_("The password of your account on %(site)s changed"),
            )
    return account


def _club_roles_snapshot(account) -> list[str]:
    rows = ClubRole.objects.filter(user=account).values_list("group__name", "club__name")
    return sorted(f"{group} of {club}" for group, club in rows)


def _check_may_change_club_roles(user, account) -> None:
    """A club role is the account's to change as its other roles are: never the site's
    own account, a superuser's by a superuser only and a staff account's by staff only
    (:func:`account_change_refusal`); the club is checked by the caller."""
    refusal = account_change_refusal(user, account)
    if refusal:
        raise ServiceError(refusal)


def club_role_grant(*, user, account, club: Club, role: str) -> ClubRole:
    """Give ``account`` the role ``role`` (``volunteers`` or ``committee``) for
    ``club``: by the club's committee or the federation's."""
    if role not in (VOLUNTEERS, COMMITTEE):
        raise ServiceError(
            gettext("'%(role)s' is not a role") % {"role": role},
            [(None, "role", pgettext("problem", "not a role"))],
        )
    check_club(user, COMMITTEE, club.pk, gettext("the roles of %(club)s") % {"club": club.name})
    _check_may_change_club_roles(user, account)
    with transaction.atomic():
        before = _club_roles_snapshot(account)
        grant, created = ClubRole.objects.get_or_create(
            user=account, club=club, group=Group.objects.get(name=role)
        )
        if created:
            audit(
                user,
                "club_role_grant",
                grant,
                before={"roles": before},
                after={"roles": _club_roles_snapshot(account)},
                summary=Message(
                    sentences.CLUB_ROLE_GRANTED, account=account.username, role=role, club=club.name
                ),
            )
    account._clubrating_club_roles = None
    return grant


def club_role_revoke(*, user, account, club: Club, role: str) -> None:
    """Take the role ``role`` for ``club`` from ``account``. A club committee member
    cannot drop their own committee role (as with the roles for every club)."""
    check_club(user, COMMITTEE, club.pk, gettext("the roles of %(club)s") % {"club": club.name})
    _check_may_change_club_roles(user, account)
    if account.pk == user.pk and role == COMMITTEE and not is_federation_committee(user):
        message = _own_committee_role()
        raise ServiceError(message, [(None, "role", message)])
    with transaction.atomic():
        grants = ClubRole.objects.filter(user=account, club=club, group__name=role)
        grant = grants.first()
        if grant is None:
            return
        before = _club_roles_snapshot(account)
        grants.delete()
        audit(
            user,
            "club_role_revoke",
            grant,
            before={"roles": before},
            after={"roles": _club_roles_snapshot(account)},
            summary=Message(
                sentences.CLUB_ROLE_REVOKED, account=account.username, role=role, club=club.name
            ),
        )
    account._clubrating_club_roles = None
