"""Form helpers both apps share: errors from the services shown at their fields."""

from __future__ import annotations

from django import forms

from players.services.base import ServiceError


def add_field_error(form: forms.Form, field_name: str | None, message: str) -> None:
    """An error at the field a service named, or for the whole form if it has no such field."""
    form.add_error(field_name if field_name in form.fields else None, message)


def add_service_errors(form: forms.Form, error: ServiceError) -> None:
    """Put a refused write's errors on the form. Services name a field as (field, message)
    or (where, field, message): the field and the message are always the last two."""
    for *_, field_name, message in error.errors:
        add_field_error(form, field_name, message)
    if not error.errors:
        form.add_error(None, error.message)
