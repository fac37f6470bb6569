"""Nothing a file says is lost by an earlier import: a player matched by name gains the
file's EGD PIN, a PIN that contradicts the one on file is shown and kept apart, and
every real file comes back out of the site as it was, whatever was imported before it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from players.models import Player
from players.services.base import system_user
from players.services.tournament_files import plan_tournament_import, tournament_import
from ratings.engine.formats.egd import read_egd
from ratings.engine.formats.opengotha import read_opengotha
from tests import factories
from tests.engine.test_egd_format import ARCHIVE, BROKEN_ARCHIVE_FILES, SHARED_DATA, games_of
from tests.players.test_tournament_round_trip import header_of, standings_of

pytestmark = pytest.mark.django_db

EGC = SHARED_DATA / "egc2013-opengotha"
OPENGOTHA_FILES = [
    EGC / "egc2011.xml",
    EGC / "egc2013.xml",
    *sorted((SHARED_DATA / "opengotha-2020-online").glob("*.xml")),
]
H_FILES = [
    EGC / "EGC2013.h9",
    *(
        path
        for path in sorted(ARCHIVE.rglob("*.txt"))
        if ARCHIVE.is_dir()
        if path.name not in BROKEN_ARCHIVE_FILES
    ),
]
EVERY_FILE = [path for path in [*OPENGOTHA_FILES, *H_FILES] if path.is_file()]

needs_the_real_files = pytest.mark.skipif(
    not (EGC / "egc2011.xml").is_file() or not ARCHIVE.is_dir(),
    reason=f"the real files are not in {SHARED_DATA} (set CLUBRATING_SHARED_DATA)",
)

WITH_PINS = """\
; CL[A]
; EV[Pin Cup]
; DT[2024-05-04,2024-05-04]
;
; Pl Name                          Rk Co Club   1
   1 Mokoena Thabo                 3k ZA StGo   2+/w0 |12000003
   2 Groot Aya_de                  1k NL DHaa   1-/b0 |12000002
"""


def _read(path: Path):
    data = path.read_bytes()
    return read_opengotha(data, path.name) if path.suffix == ".xml" else read_egd(data, path.name)


def _import(file, source: str) -> str:
    """Import ``file`` as a volunteer would: under another code when its code is taken
    (EGC 2013's h-file and XML are one tournament), a namesake the site cannot tell apart
    as a new player, its games even when they look like stored ones."""
    code, copy = file.tournament.code, 1
    plan = plan_tournament_import(file)
    while plan.tournament is not None:
        copy += 1
        code = f"{file.tournament.code[:45]}-{copy}"
        plan = plan_tournament_import(file.renamed(code=code))
    file = plan.file
    conflicts = {
        m.file_player.username: f"{m.file_player.username}-{m.file_player.number}"
        for m in plan.matches
        if m.conflict
    }
    if conflicts:
        plan = plan_tournament_import(file, new_usernames=conflicts)
    assert not plan.problems, (source, plan.problems)
    tournament_import(user=system_user(), plan=plan, allow_duplicates=True, source=source)
    return code


def _exported(code: str, file_format: str):
    out = io.StringIO()
    call_command("export_tournament", code, "--format", file_format, stdout=out)
    reader = read_opengotha if file_format == "opengotha" else read_egd
    return reader(out.getvalue(), "exported")


def _players_of(file) -> list[tuple]:
    return [
        (p.surname, p.given_name, p.rank, p.country, p.club, p.pin, p.national_id)
        for p in file.players
    ]


def test_a_player_matched_by_name_gains_the_files_egd_pin():
    thabo = factories.player("thabo-mokoena", "3k", full_name="Thabo Mokoena")
    plan = plan_tournament_import(read_egd(WITH_PINS, "pins.h9"))
    assert plan.matches[0].player == thabo
    assert plan.matches[0].notes == ("gains the file's EGD PIN 12000003",)
    tournament_import(user=system_user(), plan=plan, source="pins.h9")
    thabo.refresh_from_db()
    assert thabo.egd_pin == "12000003"
    assert "|12000003" in _export_text("Pin-Cup-2024")


def test_a_pin_that_contradicts_the_one_on_file_is_shown_and_never_overwritten():
    thabo = factories.player("thabo", "3k", full_name="T. M.", egd_pin="12999999")
    plan = plan_tournament_import(read_egd(WITH_PINS, "pins.h9"), {"thabo-mokoena": "thabo"})
    assert plan.matches[0].player == thabo
    assert plan.matches[0].notes == (
        "the file's EGD PIN 12000003 is not the one on file (12999999): 12999999 is "
        "kept; correct the player's record if the file is right",
    )
    tournament_import(user=system_user(), plan=plan, source="pins.h9")
    thabo.refresh_from_db()
    assert thabo.egd_pin == "12999999"


def test_a_pin_another_record_holds_is_not_given_to_the_matched_player():
    factories.player("old-thabo", "3k", full_name="Old Record", egd_pin="12000003", active=False)
    thabo = factories.player("thabo-mokoena", "3k", full_name="Thabo Mokoena")
    tournament_import(
        user=system_user(), plan=plan_tournament_import(read_egd(WITH_PINS, "p.h9")), source="p"
    )
    thabo.refresh_from_db()
    assert thabo.egd_pin == ""


def _export_text(code: str) -> str:
    out = io.StringIO()
    call_command("export_tournament", code, stdout=out)
    return out.getvalue()


@needs_the_real_files
def test_egc2013_after_egc2011_keeps_every_pin_of_its_file():
    # before: EGC 2013 matched 198 players of EGC 2011 (no PINs) by name and both its
    # exports lacked 195 of its 535 PINs
    egc2011 = _read(EGC / "egc2011.xml")
    egc2013 = _read(EGC / "egc2013.xml")
    _import(egc2011, "egc2011.xml")
    code = _import(egc2013, "egc2013.xml")
    pins = {p.pin for p in egc2013.players if p.pin}
    assert len(pins) == 535
    for file_format in ("egd", "opengotha"):
        exported = _exported(code, file_format)
        assert {p.pin for p in exported.players if p.pin} == pins
    assert Player.objects.filter(egd_pin__in=pins).count() == 535


def _every_file_comes_back_as_it_was(paths: list[Path]) -> None:
    codes = {path: _import(_read(path), path.name) for path in paths}
    different = []
    for path, code in codes.items():
        original = _read(path).renamed(code=code)
        file_format = "opengotha" if path.suffix == ".xml" else "egd"
        exported = _exported(code, file_format)
        if file_format == "egd":
            same = (
                header_of(exported)[1:] == header_of(original)[1:]
                and standings_of(exported) == standings_of(original)
                and games_of(exported) == games_of(original)
            )
        else:
            same = _players_of(exported) == _players_of(original) and games_of(
                exported
            ) == games_of(original)
        if not same:
            different.append(path.name)
    assert different == []


def _by_date() -> list[Path]:
    return sorted(EVERY_FILE, key=lambda path: (_read(path).tournament.start, path.name))


@needs_the_real_files
def test_every_real_file_comes_back_as_it_was_imported_oldest_first():
    _every_file_comes_back_as_it_was(_by_date())


@needs_the_real_files
def test_every_real_file_comes_back_as_it_was_imported_newest_first():
    _every_file_comes_back_as_it_was(_by_date()[::-1])
