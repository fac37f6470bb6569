"""The one comparison of usernames: what makes two spellings the same login."""

import unicodedata


def canonical_username(username: str) -> str:
    """``username`` as the site compares it: NFKC-normalised (as Django's login form
    normalises what is typed, so that full-width letters are the ASCII ones)
    and case-folded (usernames ignore case here)."""
    return unicodedata.normalize("NFKC", username).casefold()
