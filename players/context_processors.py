"""Template variables every page needs: the user's roles (for navigation and buttons)."""

from .permissions import is_committee, is_volunteer


def roles(request):
    user = request.user
    return {"is_volunteer": is_volunteer(user), "is_committee": is_committee(user)}
