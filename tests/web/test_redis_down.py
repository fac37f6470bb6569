"""Issue 25 item 14: with Redis down every page that reads the cache still answers,
slower (built uncached), and the committee's recompute page says Redis cannot be
reached instead of failing."""

from datetime import date, timedelta

import pytest
from django.utils import timezone

from players.services.games import record_sheet_submit
from ratings.models import RecomputeState
from ratings.recompute.run import recompute_pending
from tests import factories

pytestmark = pytest.mark.django_db

# Nothing listens on port 1: every cache call fails at once with a connection error.
REDIS_DOWN = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }
}


@pytest.fixture
def cup(vera):
    ann, ben = factories.player("ann", "2k"), factories.player("ben", "3k")
    cup = factories.tournament("spring-cup", "Spring Cup")
    game = factories.game(ann, ben, "W", date(2024, 4, 6), tournament=cup, round=1)
    record_sheet_submit(user=vera, games=[game])
    recompute_pending()
    return cup


@pytest.fixture
def redis_down(settings):
    settings.CACHES = REDIS_DOWN


def test_a_tournament_page_is_built_uncached_when_redis_is_down(client, cup, redis_down):
    response = client.get("/tournaments/spring-cup/")

    assert response.status_code == 200
    assert "Spring Cup" in response.content.decode()


def test_a_tournament_in_the_api_is_built_uncached_when_redis_is_down(client, cup, redis_down):
    response = client.get("/api/v1/tournaments/spring-cup/")

    assert response.status_code == 200
    assert response.json()["code"] == "spring-cup"


def test_the_recompute_page_says_redis_cannot_be_reached(client, cup, settings, redis_down):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    running = timezone.now() - timedelta(minutes=5)
    RecomputeState.objects.filter(algorithm="sagc").update(running_since=running)
    client.force_login(factories.committee_member())

    response = client.get("/committee/recompute/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "The broker and cache (Redis) cannot be reached" in html
    assert 'data-algorithm="sagc"' in html
