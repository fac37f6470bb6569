"""Personas with confirmed addresses for the mail tests."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from players.services.accounts import Role, account_create
from tests import factories


def yesterday():
    """The evening the digest tests play on (the digests look a week back from now)."""
    return timezone.localdate() - timedelta(days=1)


def later():
    """When the sweep looks for digests: after the quiet time that follows an entry."""
    return timezone.now() + timedelta(hours=1)


@pytest.fixture
def ann():
    return factories.player("ann", "5k", full_name="Ann Abe")


@pytest.fixture
def ben():
    return factories.player("ben", "8k", full_name="Ben Bo")


@pytest.fixture
def cat():
    return factories.player("cat", "6k", full_name="Cat Cho")


@pytest.fixture
def pat(connie, ann):
    """Ann's own account, with a confirmed address."""
    account = account_create(
        user=connie, username="pat", password="correct horse battery", role=Role.READER, player=ann
    )
    account.email = "ann@example.org"
    account.save(update_fields=["email"])
    return account
