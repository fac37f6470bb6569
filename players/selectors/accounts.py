"""Reading accounts: the system user's name, reserved usernames."""

from __future__ import annotations

from clubrating.usernames import canonical_username

SYSTEM_USERNAME = "system"


def is_reserved_username(username: str) -> bool:
    """Whether ``username`` is, in any spelling, the site's own account."""
    return canonical_username(username) == SYSTEM_USERNAME
