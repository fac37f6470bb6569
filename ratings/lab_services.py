"""The algorithm lab's reports: computed after each recompute, stored in LabReport.

A report is the engine's ``lab.evaluate`` over the games an algorithm rated, each
predicted from both players' states just before it. For the algorithms with a
history that state is in the stored rows (``value_before``, ``rank_before``): one
query over the algorithm's history, no replay. GCR has no history and is replayed
month by month from the games (``lab.gcr_predictions``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from fractions import Fraction

from django.db.models import IntegerField, QuerySet
from django.db.models.functions import Cast
from django.utils import timezone

from players.fields import code_to_rank
from ratings.engine import gcr as gcr_engine
from ratings.engine import lab
from ratings.engine.base import get_algorithm
from ratings.engine.ranks import Rank
from ratings.engine.records import Colour, Status, Winner

from .models import LabReport, RatingHistory
from .selectors import player_entries, replay_records

logger = logging.getLogger(__name__)

_CHUNK = 5000

_HISTORY_COLUMNS = (
    "game_id",
    "colour",
    "player_id",
    "value_before",
    "rank_code",
    "skipped",
    "game__handicap",
    "game__komi",
    "game__board_size",
    "game__status",
    "game__winner",
    "game__tournament_id",
)


def history_games(algorithm: str, *, blocks: bool) -> Iterator[lab.LabGame]:
    """The games ``algorithm`` rated, as the lab sees them (see ``keyed_history_games``)."""
    return (game for _game_id, game in keyed_history_games(algorithm, blocks=blocks))


def keyed_history_games(
    algorithm: str, *, blocks: bool, games: QuerySet | None = None
) -> Iterator[tuple[int, lab.LabGame]]:
    """The games ``algorithm`` rated (not skipped, not free), each with both players'
    value and rank just before it, from one query over its stored history.

    With ``blocks`` (EGF, the French ladder: a tournament is rated as one block) a
    tournament game uses each player's value at the tournament's start, the value on
    their first row of it: EGF rates every game of the block from there, and the
    French ladder's later rows hold starting levels corrected after the block's
    results were seen. Each comes with its game's id; with ``games`` (a queryset of
    games) only those games' rows are read (a block then starts at the first of them).
    """
    rows = RatingHistory.objects.filter(
        algorithm=algorithm, game__isnull=False, game__voided_at__isnull=True
    )
    if games is not None:
        rows = rows.filter(game__in=games.values("pk"))
    rows = (
        rows.annotate(rank_code=Cast("rank_before", IntegerField()))
        .order_by("position")
        .values_list(*_HISTORY_COLUMNS)
    )
    # the few distinct ranks, komis, statuses and results, converted once each
    ranks: dict[int, Rank] = {}
    komis: dict[object, Fraction] = {}
    statuses = {status.value: status for status in Status}
    winners = {winner.value: winner for winner in Winner}
    block_starts: dict[tuple[int, int], tuple[float, Rank]] = {}
    pending: dict[int, lab.Side] = {}  # White's side, until Black's row of the game
    for (
        game_id,
        colour,
        player_id,
        value_before,
        rank_code,
        skipped,
        handicap,
        komi,
        board_size,
        status,
        winner,
        tournament_id,
    ) in rows.iterator(chunk_size=_CHUNK):
        rank = ranks.get(rank_code)
        if rank is None:
            rank = ranks[rank_code] = code_to_rank(rank_code)
        if blocks and tournament_id is not None:
            value_before, rank = block_starts.setdefault(
                (tournament_id, player_id), (value_before, rank)
            )
        side = lab.Side(rank, value_before)
        if colour == Colour.WHITE.value:
            pending[game_id] = side
            continue
        white = pending.pop(game_id, None)
        if white is None or skipped or status == Status.FREE.value:
            continue
        fraction = komis.get(komi)
        if fraction is None:
            fraction = komis[komi] = Fraction(komi)
        yield (
            game_id,
            lab.LabGame(
                matchup=lab.Matchup(
                    white=white, black=side, handicap=handicap, komi=fraction, board_size=board_size
                ),
                winner=winners[winner],
                status=statuses[status],
            ),
        )


def _gcr_metrics(algorithm) -> tuple[dict, int]:
    records, _ids = replay_records(algorithm.name)
    games, state = lab.gcr_predictions(records, player_entries(), algorithm.params)
    metrics = lab.evaluate(lab.predictions(algorithm, games))
    accuracy = gcr_engine.accuracy(state)
    metrics["gcr_accuracy"] = (
        None
        if accuracy is None
        else {
            "mean": accuracy.mean,
            "first_pass": accuracy.first_pass,
            "reverse_pass": accuracy.reverse_pass,
            "pairs": accuracy.pairs,
        }
    )
    return metrics, metrics["games"]


def compute_lab_report(algorithm: str) -> LabReport:
    """Compute and store the lab's figures for one algorithm (replacing its last report)."""
    engine = get_algorithm(algorithm)
    if not engine.has_history:
        metrics, counted = _gcr_metrics(engine)
    else:
        games = history_games(algorithm, blocks=engine.rates_tournaments_as_blocks)
        metrics = lab.evaluate(lab.predictions(engine, games))
        counted = metrics["games"]
    report, _created = LabReport.objects.update_or_create(
        algorithm=algorithm,
        defaults={"computed_at": timezone.now(), "games_counted": counted, "metrics": metrics},
    )
    return report


def compute_lab_reports(algorithms: Sequence[str]) -> list[LabReport]:
    """The reports of ``algorithms``, skipping any the lab has no prediction for."""
    reports = []
    for name in algorithms:
        if lab.predictor(get_algorithm(name)) is None:
            logger.info("the lab has no prediction for %s; no report", name)
            continue
        reports.append(compute_lab_report(name))
    return reports


def queue_lab_reports(algorithms: Sequence[str]) -> None:
    """Ask a worker to recompute the lab's reports of ``algorithms`` (run after a
    recompute commits). The lab only reads: a broker that is down, or a report that
    fails while tasks run in-process, leaves the last report in place (the page
    shows its date) and never fails the recompute or the write that ran it."""
    from .tasks import compute_lab_reports as task

    try:
        task.delay(list(algorithms))
    except Exception:  # the broker's errors vary by transport; in-process, the report's own
        logger.exception("the lab reports of %s were not computed", ", ".join(algorithms))
