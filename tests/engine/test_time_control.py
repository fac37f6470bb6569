"""The EGF class and the time control of an OpenGotha file: read, derived as OpenGotha
(and the EGF's rules) derive them, and written back, so that OpenGotha finds the same
class and adjusted time in the export."""

from __future__ import annotations

import pytest

from ratings.engine.formats.egd import read_egd, write_egd
from ratings.engine.formats.opengotha import read_opengotha, write_opengotha
from ratings.engine.formats.timecontrol import TimeControl
from tests.engine.test_egd_format import SHARED_DATA

ONLINE = SHARED_DATA / "opengotha-2020-online"
EGC = SHARED_DATA / "egc2013-opengotha"
# (file, class, adjusted time in minutes as OpenGotha's h-file writes it, CM)
REAL = [
    (SHARED_DATA / "aga-tdlist" / "NOVA_Pumpkin_Oct14.xml", "B", "60", "Canadian byo-yomi"),
    (ONLINE / "20201108230425_CA2020Rd6finalv1.xml", "C", "54", "Canadian byo-yomi"),
    (ONLINE / "20201010144608_congreso2020.xml", "D", "67", "Standard byo-yomi"),
    (ONLINE / "20201125132751_tournoiequipeLGO2020.xml", "D", "82", "Standard byo-yomi"),
    (ONLINE / "20201102150033_SEYGO20205.xml", "A", "82", "Standard byo-yomi"),
    (ONLINE / "20201108233442_FinalFinal19x19.xml", "A", "82", "Standard byo-yomi"),
    (ONLINE / "20201122182801_CNJ-2020-U12.xml", "A", "82", "Standard byo-yomi"),
    (ONLINE / "20201124142011_SEYGO20206.xml", "A", "82", "Standard byo-yomi"),
    (ONLINE / "20201205214624_coqb19.xml", "A", "82", "Standard byo-yomi"),
    (ONLINE / "20201207114039_VAOtherfinished.xml", "A", "82", "Standard byo-yomi"),
    (EGC / "egc2011.xml", "A", "135", "Standard byo-yomi"),
    (EGC / "egc2013.xml", "A", "195", "Standard byo-yomi"),
]


@pytest.mark.parametrize(
    ("attributes", "tournament_class", "adjusted"),
    [
        # the EGF's limits, at the edges (basic and adjusted time, in minutes)
        (
            {"basicTime": "60", "complementaryTimeSystem": "STDBYOYOMI", "stdByoYomiTime": "20"},
            "A",
            75,
        ),
        (
            {"basicTime": "60", "complementaryTimeSystem": "STDBYOYOMI", "stdByoYomiTime": "19"},
            "B",
            74,
        ),
        ({"basicTime": "40", "complementaryTimeSystem": "SUDDENDEATH"}, "C", 40),
        ({"basicTime": "45", "complementaryTimeSystem": "FISCHER", "fischerTime": "15"}, "A", 75),
        ({"basicTime": "30", "complementaryTimeSystem": "FISCHER", "fischerTime": "10"}, "B", 50),
        ({"basicTime": "20", "complementaryTimeSystem": "FISCHER", "fischerTime": "5"}, "C", 30),
        ({"basicTime": "90", "complementaryTimeSystem": "FISCHER", "bInternet": "true"}, "D", 110),
        # below C (OpenGotha's X): rated as D, said so
        ({"basicTime": "20", "complementaryTimeSystem": "SUDDENDEATH"}, "D", 20),
        # OpenGotha's defaults: 60 minutes, Canadian byo-yomi of 15 moves in 5 minutes
        ({}, "A", 80),
    ],
)
def test_the_class_and_adjusted_time_are_derived_as_opengotha_derives_them(
    attributes, tournament_class, adjusted
):  # fmt: skip
    control = TimeControl.from_attributes(attributes)
    assert control.egf_class()[0] == tournament_class
    assert control.adjusted_minutes == adjusted


def test_the_reason_says_the_times_and_the_rule():
    control = TimeControl.from_attributes(
        {"basicTime": "45", "complementaryTimeSystem": "CANBYOYOMI", "canByoYomiTime": "300",
         "nbMovesCanTime": "20"}
    )  # fmt: skip
    assert control.egf_class() == (
        "B",
        "class B: basic time 45 min, 20 moves in 5 min (Canadian byo-yomi): adjusted time "
        "60 min (class B needs a basic time of 40 min and an adjusted time of 50 min)",
    )
    short = TimeControl.from_attributes(
        {"basicTime": "20", "complementaryTimeSystem": "SUDDENDEATH"}
    )
    assert "OpenGotha's class X" in short.egf_class()[1]


def needs(path):
    return pytest.mark.skipif(not path.is_file(), reason=f"{path} not found")


@pytest.mark.parametrize(
    ("path", "tournament_class", "adjusted", "comment"),
    [pytest.param(*row, marks=needs(row[0]), id=row[0].name) for row in REAL],
)
def test_every_real_opengotha_file_has_its_class_and_time_read_and_written_back(
    path, tournament_class, adjusted, comment
):
    # before: class A for every file, no TM or CM in its h-file, OpenGotha's default
    # time system and no bInternet in its OpenGotha export
    original = read_opengotha(path.read_bytes(), path.name)
    info = original.tournament
    assert (info.tournament_class, info.time, info.comment) == (tournament_class, adjusted, comment)
    assert {record.tournament_class for record in original.records} == {tournament_class}

    again = read_opengotha(write_opengotha(original), "export.xml").tournament
    assert again.time_control == info.time_control
    assert (again.tournament_class, again.time) == (tournament_class, adjusted)

    h_file = read_egd(write_egd(original), "export.h9").tournament
    assert (h_file.tournament_class, h_file.time, h_file.comment) == (
        tournament_class,
        adjusted,
        comment,
    )


def test_a_class_chosen_at_import_says_what_the_file_gives():
    text = (
        '<Tournament><Players/><TournamentParameterSet><GeneralParameterSet beginDate="2024-01-01"'
        ' endDate="2024-01-01" name="T" basicTime="45" bInternet="true"'
        ' complementaryTimeSystem="STDBYOYOMI" stdByoYomiTime="30"/></TournamentParameterSet>'
        "</Tournament>"
    )
    file = read_opengotha(text).renamed(tournament_class="B")
    assert file.tournament.tournament_class == "B"
    assert file.tournament.class_reason.startswith("class B, as chosen (the file gives class D: ")
