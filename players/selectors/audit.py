"""Reading the audit trail: entries, filters, differences between snapshots."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db.models import QuerySet

from players.models import AuditEntry


def audit_entries(
    *,
    action: str = "",
    user=None,
    object_type: str = "",
    object_id: str = "",
    since: date | None = None,
    until: date | None = None,
    club=None,
    clubs: frozenset[int] | None = None,
) -> QuerySet[AuditEntry]:
    """The audit trail, newest first, narrowed by whichever filters are given; with
    ``clubs``, the entries of those clubs only (what a club's roles read)."""
    entries = AuditEntry.objects.select_related("user", "club").order_by("-at", "-id")
    if clubs is not None:
        entries = entries.filter(club__in=clubs)
    if club is not None:
        entries = entries.filter(club=club)
    if action:
        entries = entries.filter(action=action)
    if user is not None:
        entries = entries.filter(user=user)
    if object_type:
        entries = entries.filter(object_type=object_type)
    if object_id:
        entries = entries.filter(object_id=object_id.strip())
    if since:
        entries = entries.filter(at__date__gte=since)
    if until:
        entries = entries.filter(at__date__lte=until)
    return entries


def audit_actions() -> list[str]:
    return list(AuditEntry.objects.order_by("action").values_list("action", flat=True).distinct())


def audit_object_types() -> list[str]:
    return list(
        AuditEntry.objects.order_by("object_type").values_list("object_type", flat=True).distinct()
    )


@dataclass(frozen=True, slots=True)
class Change:
    key: str
    before: Any
    after: Any
    changed: bool


_ABSENT = object()


def audit_diff(before: Any, after: Any) -> list[Change]:
    """The keys of an audit entry's before and after side by side, each marked changed
    or not, in the order they are stored (the service's order; on PostgreSQL, jsonb's).
    A snapshot that is not a dict (or missing) is shown as one row."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        if before is None and isinstance(after, dict):
            before = {}
        elif after is None and isinstance(before, dict):
            after = {}
        else:
            return [Change("", before, after, before != after)]
    keys = list(before) + [key for key in after if key not in before]
    changes = []
    for key in keys:
        old, new = before.get(key, _ABSENT), after.get(key, _ABSENT)
        changes.append(
            Change(
                key,
                None if old is _ABSENT else old,
                None if new is _ABSENT else new,
                old != new,
            )
        )
    return changes
