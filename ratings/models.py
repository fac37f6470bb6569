"""Rating history rows, current ratings, checkpoints and the recompute state per algorithm.

Everything here is derived: ``ratings.recompute.run.recompute`` rewrites it from the games
and adjustments with the pure engine, so it can always be rebuilt from scratch.
"""

from __future__ import annotations

from datetime import date

from django.db import models

from players.fields import RankField
from players.models import Adjustment, Game, Player


class RatingHistory(models.Model):
    """One player's line of the record sheet for one game or adjustment, per algorithm.

    ``position`` is the row's place in the algorithm's replay; a recompute deletes the
    rows from a checkpoint's position on and writes them again.

    Only the recompute writes these rows, from ids it has just read in the same
    transaction, and a million games make two million of them: the foreign keys are
    not checked by the database (the checks took a third of the time to write the
    rows) and have no index of their own except ``game`` (the game page looks its rows
    up): a player's rows are found through ``history_player_log``, and opponents and
    adjustments are never looked up alone (games, adjustments and players are voided
    or erased, never deleted).
    """

    algorithm = models.CharField(max_length=20)
    position = models.BigIntegerField()
    player = models.ForeignKey(
        Player,
        on_delete=models.CASCADE,
        related_name="history",
        db_constraint=False,
        db_index=False,
    )
    opponent = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", db_constraint=False, db_index=False
    )
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    adjustment = models.ForeignKey(
        Adjustment,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    date = models.DateField()
    colour = models.CharField(max_length=1, blank=True)
    opponent_rank = RankField()
    rank_before = RankField()
    rank_after = RankField()
    value_before = models.FloatField()
    change = models.FloatField()
    value_after = models.FloatField()
    factors = models.JSONField(default=dict)
    skipped = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["algorithm", "position"], name="history_position"),
        ]
        indexes = [
            # The log page and its chart (player and algorithm given, newest first); a
            # player's rows under every algorithm (the data export, cascades).
            models.Index(fields=["player", "algorithm", "-position"], name="history_player_log"),
            # A page of players as of a day (the API; the list while no month end is
            # stored, see MonthEnd): each player's last row on or before it is one step
            # down this index (players.selectors.ratings_as_of); the log index would
            # read every row after the day first.
            models.Index(
                fields=["player", "algorithm", "date", "position"], name="history_player_date"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.algorithm} {self.position} {self.player_id}"


class CurrentRating(models.Model):
    """A player's rank and value after the last replayed game, per algorithm."""

    algorithm = models.CharField(max_length=20)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ratings")
    rank = RankField()
    value = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    factors = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["algorithm", "player"], name="current_rating_once"),
        ]
        indexes = [
            models.Index(fields=["algorithm", "-rank", "-value"], name="current_rating_list"),
        ]

    def __str__(self) -> str:
        return f"{self.algorithm} {self.player_id} {self.rank} {self.value}"


class Checkpoint(models.Model):
    """The engine's state just before the unit at ``(date, round, seq)`` in replay order,
    after ``position`` history rows; a recompute resumes from the nearest earlier one."""

    algorithm = models.CharField(max_length=20)
    date = models.DateField()
    round = models.PositiveIntegerField()
    seq = models.BigIntegerField()
    position = models.BigIntegerField()
    # The engine's state as JSON text, laid out one player a line
    # (``ratings.recompute.checkpoints``), read back as text and split at its lines so
    # that only the players a replay changes are decoded. A jsonb column laid it out
    # again as it stores it: on PostgreSQL a back-dated entry's replay read a
    # checkpoint of 2,217 players in 12 ms and walked it in 15, against 2 and 4 as text.
    state = models.TextField()
    # A checkpoint a back-dated entry's replay stores after the last record holds only
    # the players whose state is not that of ``base``, a checkpoint before it holding
    # every player (``ratings.recompute.checkpoints``): it writes the few hundred
    # players it replayed, not thousands. None: it holds every player. Not a constraint:
    # the replay deletes a base only with the checkpoints after it, and the thinning
    # keeps it; and a delete of checkpoints needs no look for the ones that name them.
    base = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        db_index=False,
        related_name="+",
    )

    class Meta:
        indexes = [models.Index(fields=["algorithm", "date"], name="checkpoint_lookup")]

    def __str__(self) -> str:
        return f"{self.algorithm} before {self.date}/{self.round}/{self.seq}"


class RatingSnapshot(models.Model):
    """Month-end standings of a holistic algorithm (GCR), for the chart."""

    algorithm = models.CharField(max_length=20)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="snapshots")
    date = models.DateField()
    rank = RankField()
    value = models.FloatField()
    games = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["algorithm", "player", "date"], name="snapshot_once_per_date"
            ),
        ]
        # A recompute from a dirty date finds the last month end it keeps and deletes
        # the snapshots from that date on: without it, each read every player's rows
        # (25 to 60 ms on 125,000 rows of a site of real tournaments, issue 27).
        indexes = [models.Index(fields=["algorithm", "date"], name="snapshot_by_date")]

    def __str__(self) -> str:
        return f"{self.algorithm} {self.player_id} {self.date} {self.value}"


class HolisticTable(models.Model):
    """The table of a holistic algorithm (GCR's pairwise results) counted from the valid
    games dated on or before a month end, in the algorithm's own compact form
    (``Holistic.table_data``, players by id): a recompute from a later dirty date starts
    from it rather than counting those games again (``ratings.recompute.holistic``).
    Good while no game dated on or before ``date`` changes: every recompute deletes the
    tables from its dirty date on, and keeps a few (the last month end before the last
    month's, and the quarter ends of the year before it). A table may hold only the
    games after another kept table, ``{"after": its day, "games": ...}``: read back,
    it is added to that one (``ratings.recompute.holistic``)."""

    algorithm = models.CharField(max_length=20)
    date = models.DateField()  # the month's last day
    table = models.JSONField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["algorithm", "date"], name="holistic_table_once"),
        ]

    def __str__(self) -> str:
        return f"{self.algorithm} table to {self.date}"


class MonthEnd(models.Model):
    """Where an algorithm's history rows stand at the end of a month: the bounds of the
    rows a list as of a later day in that month or the next ones adds to the month-end
    standings (``MonthEndStanding``). Kept by the recompute with the history rows
    (``ratings.recompute.month_ends``), for the month ends from the first row's to the
    last one before the last row's date after which at least as many rows as players
    came since the one stored before (``month_ends.due``): the standings stored follow
    the games, not the players times the months."""

    algorithm = models.CharField(max_length=20)
    date = models.DateField()  # the month's last day
    # The lowest position of a row dated after ``date``: every row below it is dated on
    # or before it (EGF and the French ladder rate a tournament as one unit at its
    # first game's place, so a row dated later can sit before one dated earlier).
    first_later = models.BigIntegerField()
    # The highest position of a row dated on or before ``date``.
    last_on_or_before = models.BigIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["algorithm", "date"], name="month_end_once"),
        ]

    def __str__(self) -> str:
        return f"{self.algorithm} {self.date}"


class MonthEndStanding(models.Model):
    """A player's history row of the highest position dated on or before a month end
    (``MonthEnd``): its position, rank, value and date, so that the list as of a day
    reads the standings of the month end before it and the rows after them, not each
    player's row of the day. Only the recompute writes these rows (no foreign key
    check, as ``RatingHistory``)."""

    algorithm = models.CharField(max_length=20)
    month_end = models.DateField()
    player = models.ForeignKey(
        Player,
        on_delete=models.CASCADE,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    position = models.BigIntegerField()
    rank = RankField()
    value = models.FloatField()
    date = models.DateField()  # the row's

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["algorithm", "month_end", "player"], name="month_end_standing_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.algorithm} {self.month_end} {self.player_id} {self.value}"


class HistoryRewrite(models.Model):
    """A recompute of ``algorithm`` that rewrote its history rows from ``from_day`` on
    (``FULL``: from the start). Rows dated before ``from_day`` kept their values: the
    replay reads the same records up to there, and a tournament game dirties an
    algorithm that rates tournaments as blocks from the tournament's first day.

    A page built from history rows up to a day (a tournament's crosstable) is current
    while the latest rewrite reaching that day, the one of the highest ``from_day`` on
    or before it, is the one it was built after: a new rewrite gets a new id (never
    reused: a sequence, SQLite's AUTOINCREMENT) and replaces the rewrites from its day
    or later, which it covers, so the ``from_day`` of the rows left rise with their ids
    and one step down the unique index finds it (``crosstable_fingerprint``). Written
    in the recompute's transaction, with its rows (``ratings.recompute.run``)."""

    FULL = date.min

    algorithm = models.CharField(max_length=20)
    from_day = models.DateField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["algorithm", "from_day"], name="history_rewrite_once"),
        ]

    def __str__(self) -> str:
        return f"{self.algorithm} from {self.from_day}"


class RecomputeState(models.Model):
    """What is pending for one algorithm.

    Every write moves ``dirty_from`` (with ``dirty_round`` and ``dirty_seq``) to the
    earliest place in the replay order it touches and bumps
    ``generation``; a recompute clears the mark only if the generation it started
    from is still current, so an entry made during a run is never missed.
    """

    algorithm = models.CharField(max_length=20, primary_key=True)
    dirty_from = models.DateField(null=True, blank=True)
    # With ``dirty_from``, the place in the replay order (date, round, entry number) the
    # replay starts at: a game entered tonight after tonight's other games replays only
    # itself. (date, 0, 0) is the start of the day (no record has entry number 0).
    dirty_round = models.PositiveIntegerField(default=0)
    dirty_seq = models.BigIntegerField(default=0)
    generation = models.BigIntegerField(default=0)
    # Set by the write that queues the algorithm's task, cleared when a worker takes it:
    # a burst of writes queues one task, not one per write.
    queued_at = models.DateTimeField(null=True, blank=True)
    running_since = models.DateTimeField(null=True, blank=True)
    # Who runs it ("host:pid", ratings.recompute.liveness.runner_name): its heartbeat tells a
    # running recompute from one whose process died.
    running_on = models.CharField(max_length=200, blank=True)
    # The earliest date a write touched since the running recompute (SQLite) began its
    # replay: moved by every write like ``dirty_from``, cleared by the runner before it
    # reads. When writes came in meanwhile, its rows before this date still stand.
    touched_from = models.DateField(null=True, blank=True)
    # The lab's reports are behind from this place in the replay order (date, round,
    # entry number: the earliest place a recompute rewrote from since they were last
    # brought up to date, as ``dirty_from`` with ``dirty_round`` and ``dirty_seq``);
    # None: current. A game entered after the last makes the lab count that game only.
    lab_dirty_from = models.DateField(null=True, blank=True)
    lab_dirty_round = models.PositiveIntegerField(default=0)
    lab_dirty_seq = models.BigIntegerField(default=0)
    # What a holistic algorithm adds to the lab for its whole rated table
    # (``Holistic.lab_figures``: GCR's accuracy), kept by its last recompute, which rated
    # that table: the lab reads it rather than counting and rating the table again.
    holistic_figures = models.JSONField(null=True, blank=True)
    # Set when the lab's debounced task is queued and moved by every mark while it
    # waits (it runs once the last mark is RATINGS_LAB_DELAY_SECONDS old); cleared when
    # it runs.
    lab_queued_at = models.DateTimeField(null=True, blank=True)
    last_started = models.DateTimeField(null=True, blank=True)
    last_finished = models.DateTimeField(null=True, blank=True)
    last_duration = models.FloatField(null=True, blank=True)
    last_from = models.DateField(null=True, blank=True)
    last_rows = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)

    def __str__(self) -> str:
        return (
            f"{self.algorithm}: dirty from {self.dirty_from}" if self.dirty_from else self.algorithm
        )

    @property
    def is_pending(self) -> bool:
        """A recompute is due (or running: it clears the date only when done)."""
        return self.dirty_from is not None


class LabReport(models.Model):
    """The algorithm lab's figures for one algorithm: how well it predicted the games it
    rated (``ratings.engine.lab.evaluate``), as of ``computed_at``. One row per
    algorithm, brought up to date after its recomputes (``ratings.lab.services``)."""

    algorithm = models.CharField(max_length=20, unique=True)
    computed_at = models.DateTimeField()
    games_counted = models.PositiveIntegerField(default=0)
    metrics = models.JSONField(default=dict)
    # The sums behind the metrics per run of games ("YYYY-MM/first place" of its first
    # game: ratings.lab.tallies), runs longer back in the history, so that the next
    # report recounts only the games from the first place rewritten (and the rest of
    # their run).
    tallies = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"{self.algorithm} lab of {self.computed_at:%Y-%m-%d %H:%M}"
