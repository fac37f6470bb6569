"""Reads for the algorithm lab's page: the last report of each maintained algorithm
and whether its ratings wait for a recompute (two queries)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from ratings.engine.base import Algorithm
from ratings.lab.charts import CalibrationChart, calibration_chart
from ratings.models import LabReport, RecomputeState


@dataclass(frozen=True, slots=True)
class LabEntry:
    """One algorithm on the lab's page."""

    info: Algorithm
    report: LabReport | None
    pending_from: date | None  # the ratings are dirty from this date
    outdated: bool  # recomputed since the report: a new one is on its way
    note: str

    @property
    def metrics(self) -> dict:
        return self.report.metrics if self.report is not None else {}

    @property
    def chart(self) -> CalibrationChart | None:
        return calibration_chart(self.metrics.get("calibration", []))


def lab_entries(algorithms: list[Algorithm]) -> list[LabEntry]:
    names = [info.name for info in algorithms]
    reports = {report.algorithm: report for report in LabReport.objects.filter(algorithm__in=names)}
    states = {
        state.algorithm: state for state in RecomputeState.objects.filter(algorithm__in=names)
    }
    entries = []
    for info in algorithms:
        report, state = reports.get(info.name), states.get(info.name)
        finished = state.last_finished if state is not None else None
        entries.append(
            LabEntry(
                info=info,
                report=report,
                pending_from=state.dirty_from if state is not None else None,
                outdated=(
                    report is not None and finished is not None and finished > report.computed_at
                ),
                note=info.prediction_note,
            )
        )
    return entries


@dataclass(frozen=True, slots=True)
class LabPage:
    """The lab's page: every maintained algorithm's entry, the one shown in detail, and
    those whose ratings wait for a recompute."""

    entries: list[LabEntry]
    entry: LabEntry
    pending: list[LabEntry]


def lab_page(algorithms: list[Algorithm], selected: Algorithm) -> LabPage:
    entries = lab_entries(algorithms)
    return LabPage(
        entries=entries,
        entry=next(item for item in entries if item.info.name == selected.name),
        pending=[item for item in entries if item.pending_from is not None],
    )
