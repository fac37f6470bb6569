"""Who a management command acts as: a named user, or the site's ``system`` account."""

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from players.services.base import system_user


def command_user(username: str | None):
    """The user ``--user USERNAME`` names, else ``system``; an unknown name is refused."""
    if not username:
        return system_user()
    try:
        return get_user_model().objects.get(username=username)
    except get_user_model().DoesNotExist:
        raise CommandError(f"no user '{username}'") from None
