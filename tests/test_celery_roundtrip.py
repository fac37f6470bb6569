"""A task goes through the real broker to a real worker, which reads the test database."""

import pytest
from celery import shared_task
from celery.result import EagerResult
from django.contrib.auth import get_user_model


@shared_task
def count_users() -> int:
    return get_user_model().objects.count()


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_it_runs_a_task_in_a_worker_that_sees_the_test_database(
    celery_worker_live, django_user_model
):
    django_user_model.objects.create_user("alice")
    django_user_model.objects.create_user("bob")

    result = count_users.delay()

    assert not isinstance(result, EagerResult)
    assert result.get(timeout=60) == 2  # the worker's turn comes late on a loaded machine


@pytest.mark.django_db
def test_tasks_run_in_process_without_celery_worker_live(django_user_model):
    # Even in the services leg, where a broker is configured: no worker would consume it.
    django_user_model.objects.create_user("alice")

    result = count_users.delay()

    assert isinstance(result, EagerResult)
    assert result.get() == 1
