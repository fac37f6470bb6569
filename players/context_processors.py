"""Template variables every page needs: the user's roles (for navigation and buttons),
and, read lazily (one query, only when the navigation asks), their linked player record
and the count of open reports."""

from django.utils.functional import SimpleLazyObject

from players.selectors.reports import navigation_facts

from .roles import is_committee, is_volunteer


def roles(request):
    user = request.user
    volunteer = is_volunteer(user)
    return {
        "is_volunteer": volunteer,
        "is_committee": is_committee(user),
        "navigation": SimpleLazyObject(lambda: navigation_facts(user, volunteer=volunteer)),
    }
