"""A real Celery worker, through Redis, recomputes after an import on PostgreSQL."""

import io
import time

import pytest
from django.core.management import call_command

from ratings.models import RatingHistory, RecomputeState
from tests import factories

from ..reliability.helpers import mismatches


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_worker_recomputes_every_algorithm_after_an_import(celery_worker_live, tmp_path):
    factories.user("system")
    (tmp_path / "games.csv").write_text(
        "date,white,black,white_rank,black_rank,handicap,winner,tournament,round\n"
        "2024-01-03,ann,ben,2d,3k,0,W,,0\n"
        "2024-01-05,cat,dan,8k,15k,7,B,,0\n"
        "2024-01-06,ann,cat,,,5,W,spring,1\n"
        "2024-01-06,ben,dan,,,9,B,spring,1\n"
    )
    call_command("import_games", str(tmp_path / "games.csv"), stdout=io.StringIO())
    deadline = time.monotonic() + 60
    while RecomputeState.objects.exclude(dirty_from=None).exists():
        assert time.monotonic() < deadline, "the worker did not recompute"
        time.sleep(0.2)
    assert RatingHistory.objects.filter(algorithm="sagc").count() == 8
    for algorithm in ("sagc", "egf-2021", "french", "anchor"):
        assert mismatches(algorithm) == 0, algorithm
