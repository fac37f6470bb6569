"""OpenGotha's placement criteria and its h-file placing, checked against OpenGotha
itself (issue 26, items 1, 2 and 8).

``data/opengotha_standings.json`` holds, for each real OpenGotha file of the shared
data, what OpenGotha 3.51.02 (compiled from its source, run outside the repository)
made of it: ``places``, each player's place in its standings after the last round (by
the player's position in the file; every player, those paired in no round too, whom
its standings and h-file leave out), and ``h9``, the lines of its h-file export (the
player's position in the file and the place printed, "" for an ex aequo). No names.
Before this work the site placed 1,804 of those 1,975 players as OpenGotha does (EGC
2011: 602 of 760, its SOS-1 and SOS-2 dropped; the 2020 under-12 championship: 23 of
36, its DC dropped), and its h-files numbered every line (203 ex aequo lines over 7
files) and listed 46 players who never played.
"""

import json
from pathlib import Path

import pytest

from ratings.engine.formats import one_day_warning
from ratings.engine.formats.egd import read_egd, told_apart, write_egd
from ratings.engine.formats.opengotha import bye_token, read_opengotha
from ratings.engine.formats.standings import (
    GothaRound,
    GothaRules,
    gotha_criteria,
    gotha_placed,
    score_text,
)
from tests.engine.test_egd_format import ARCHIVE, BROKEN_ARCHIVE_FILES, SHARED_DATA

REFERENCE = json.loads((Path(__file__).parent / "data" / "opengotha_standings.json").read_text())
FILES = {
    name: SHARED_DATA / folder / name
    for name in REFERENCE
    for folder in ("egc2013-opengotha", "opengotha-2020-online")
    if (SHARED_DATA / folder / name).is_file()
}
needs_files = pytest.mark.skipif(
    len(FILES) != len(REFERENCE),
    reason=f"the OpenGotha files of {SHARED_DATA} are not all there (set CLUBRATING_SHARED_DATA)",
)


def effective(places):
    """Printed places with a blank (ex aequo) read as the place above."""
    above = None
    for printed in places:
        above = printed or above
        yield above


@needs_files
@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_every_player_of_every_real_opengotha_file_is_placed_where_opengotha_places_them(name):
    # The reference places every player, those paired in no round too (OpenGotha's
    # order of them all); its standings leave those out by default (displayNPPlayers
    # off) and its h-file always, the places below them closing up: a paired player's
    # place is one more than the paired players placed strictly ahead of them.
    tournament = read_opengotha(FILES[name].read_bytes())
    players = sorted(tournament.players, key=lambda p: p.number)
    reference = REFERENCE[name]["places"]
    paired = [
        any(token.startswith("0+") or token[:1] in "123456789" for token in player.results)
        for player in players
    ]
    paired_places = [place for place, is_paired in zip(reference, paired, strict=True) if is_paired]
    expected = [
        str(1 + sum(other < place for other in paired_places)) if is_paired else ""
        for place, is_paired in zip(reference, paired, strict=True)
    ]

    assert [player.place for player in players] == expected
    assert paired.count(False) == UNPAIRED.get(name, 0)


# The players of each file paired in no round (OpenGotha's own h-file leaves them out).
UNPAIRED = {
    "20201108230425_CA2020Rd6finalv1.xml": 3,
    "20201207114039_VAOtherfinished.xml": 1,
    "egc2011.xml": 42,
}


@needs_files
def test_the_criteria_the_import_used_to_drop_are_kept_and_named():
    egc2011 = read_opengotha(FILES["egc2011.xml"].read_bytes()).tournament
    under12 = read_opengotha(FILES["20201122182801_CNJ-2020-U12.xml"].read_bytes()).tournament
    rated = read_opengotha(FILES["20201207114039_VAOtherfinished.xml"].read_bytes()).tournament
    assert egc2011.score_names == ("MMS", "SOSM", "SOSM-1", "SOSM-2")
    assert under12.score_names == ("NBW", "DC", "SOSW")
    assert rated.score_names == ("MMS", "SOSM", "SOSOSM", "RATING")


@needs_files
@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_the_h_file_export_places_and_leaves_out_players_as_opengotha_s_own(name):
    tournament = read_opengotha(FILES[name].read_bytes())
    text = write_egd(tournament, bye=bye_token(tournament.tournament))
    lines = [line for line in text.splitlines() if line and not line.startswith(";")]
    back = read_egd(text)
    number = {(p.surname, p.given_name): p.number for p in tournament.players}
    written = [number[p.surname, p.given_name] for p in back.players]
    printed = [line[:4].strip() for line in lines]
    expected = REFERENCE[name]["h9"]
    # the same players (those of a game), each at OpenGotha's place, and as many ex aequo
    assert sorted(written) == sorted(n for n, _ in expected)
    assert dict(zip(written, effective(printed), strict=True)) == dict(
        zip([n for n, _ in expected], effective([p for _, p in expected]), strict=True)
    )
    assert printed.count("") == [p for _, p in expected].count("")


@needs_files
def test_a_bye_worth_nothing_is_written_0_minus_as_opengotha_writes_it():
    under12 = read_opengotha(FILES["20201122182801_CNJ-2020-U12.xml"].read_bytes())
    assert bye_token(under12.tournament) == "0-"  # genNBW2ValueBye="0"
    assert any("0+" in player.results for player in under12.players)  # the site keeps it a bye
    text = write_egd(under12, bye=bye_token(under12.tournament))
    assert not any(" 0+" in line for line in text.splitlines() if not line.startswith(";"))


@needs_files
def test_egc_2011_s_single_date_for_ten_rounds_is_said_and_egc_2013_s_days_are_not():
    egc2011 = read_opengotha(FILES["egc2011.xml"].read_bytes())
    assert one_day_warning(egc2011).startswith(
        "The file gives one date, 2011-07-24, for 10 rounds: all 2,690 games are dated that day"
    )
    assert one_day_warning(read_opengotha(FILES["egc2013.xml"].read_bytes())) == ""


# Made-up rounds: a, b and c beat each other round a cycle, all beat d.
def game(opponent, won, given=0):
    return GothaRound("game", opponent, 2 if won else 0, given)


CYCLE = {
    "a": [game("b", True), game("c", False), game("d", True)],
    "b": [game("a", False), game("d", True), game("c", True)],
    "c": [game("d", True), game("a", True), game("b", False)],
    "d": [game("c", False), game("b", False), game("a", False)],
}


def placed(rounds, criteria, start=None, **more):
    table = gotha_placed(rounds, criteria, start or {}, GothaRules(), **more)
    return [(p.player, p.place, tuple(map(score_text, p.scores))) for p in table]


def test_direct_confrontation_places_the_players_tied_before_it_by_who_beat_whom():
    # e and f tied on a point: f beat e, so f is above though the file lists e first
    rounds = {
        "e": [game("f", False), game("x", True)],
        "f": [game("e", True), game("y", False)],
        "x": [game("y", False), game("e", False)],
        "y": [game("x", True), game("f", True)],
    }
    assert [(p, place) for p, place, _ in placed(rounds, ["NBW"])] == [
        ("y", 1),
        ("e", 2),
        ("f", 2),
        ("x", 4),
    ]
    assert [(p, place) for p, place, _ in placed(rounds, ["NBW", "DC"])] == [
        ("y", 1),
        ("f", 2),
        ("e", 3),
        ("x", 4),
    ]


def test_players_who_beat_each_other_round_a_cycle_share_their_direct_confrontation():
    # a, b, c on 2 points each beat one another: DC cannot part them, SDC counts one win each
    assert placed(CYCLE, ["NBW", "DC", "SDC"])[:3] == [
        ("a", 1, ("2", "0", "1")),
        ("b", 1, ("2", "0", "1")),
        ("c", 1, ("2", "0", "1")),
    ]


def test_the_criteria_after_dc_order_the_players_the_games_leave_open():
    # by the cycle no one is above; SOS then parts them inside DC: the rating breaks it
    ratings = {"a": 2100, "b": 2000, "c": 2200, "d": 1000}
    assert [p for p, _, _ in placed(CYCLE, ["NBW", "DC", "Rating"], ratings=ratings)] == [
        "c",
        "a",
        "b",
        "d",
    ]


def test_sos_minus_one_and_two_leave_out_the_lowest_opponents_scores():
    # x met y (2 points), z (1) and w (0): SOS 3, SOS-1 3, SOS-2 2
    rounds = {
        "x": [game("y", False), game("z", True), game("w", True)],
        "y": [game("x", True), game("w", True), GothaRound("free")],
        "z": [game("w", True), game("x", False), GothaRound("free")],
        "w": [game("z", False), game("y", False), game("x", False)],
    }
    scores = {p: s for p, _, s in placed(rounds, ["NBW", "SOSW", "SOSW-1", "SOSW-2"])}
    assert scores["x"] == ("2", "3", "3", "2")
    # McMahon: a round without a game counts as the player's own start (here 10)
    start = {"x": 10, "y": 10, "z": 10, "w": 10}
    scores = {p: s for p, _, s in placed(rounds, ["MMS", "SOSM-1", "SOSM-2"], start)}
    assert scores["y"] == ("12", "22", "12")  # rounds: x 12, w 10, none 10


def test_cuss_sums_the_score_after_each_round():
    # a: won, lost, won: 1 + 1 + 2
    assert {p: s for p, _, s in placed(CYCLE, ["NBW", "CUSSW"])}["a"] == ("2", "4")


def test_short_names_mean_the_main_score_s_variant():
    assert gotha_criteria(["MMS", "SOS", "SOS-1", "CUSS", "NULL"]) == (
        "MMS",
        "SOSM",
        "SOSM-1",
        "CUSSM",
    )
    assert gotha_criteria(["NBW", "sos", "SOS-2"]) == ("NBW", "SOSW", "SOSW-2")


def test_exploits_count_the_points_of_opponents_met_at_the_handicap_the_ranks_call_for():
    # m (2D = 1) gave k (1K = -1) the 2 stones the ranks call for: coefficient 1; k won
    rounds = {"k": [game("m", True, given=-2)], "m": [game("k", False, given=2)]}
    ranks = {"k": -1, "m": 1}
    scores = {p: s for p, _, s in placed(rounds, ["NBW", "EXT", "EXR"], ranks=ranks)}
    assert scores["m"] == ("0", "1", "0")  # k's point, tried and not achieved
    assert scores["k"] == ("1", "0", "0")  # m scored nothing
    # one stone fewer than the ranks call for is no exploit for m
    easier = {"k": [game("m", True, given=-1)], "m": [game("k", False, given=1)]}
    assert {p: s for p, _, s in placed(easier, ["NBW", "EXT"], ranks=ranks)}["m"] == ("0", "0")


# --- the h-file archive -------------------------------------------------------------------

ARCHIVE_FILES = (
    sorted(path for path in ARCHIVE.rglob("*.txt") if path.name not in BROKEN_ARCHIVE_FILES)
    if ARCHIVE.is_dir()
    else []
)


def heading_and_lines(text):
    """The score columns' heading words and each player line's place and score cells."""
    lines = text.splitlines()
    heading = next(line for line in lines if line.startswith("; Pl "))
    words = heading.split()
    scores = words[words.index("Club") + 1 : next(i for i, w in enumerate(words) if w == "R1")]
    players = [line for line in lines if line and not line.startswith(";")]
    return scores, players


@pytest.mark.skipif(not ARCHIVE_FILES, reason=f"go-tournaments-archive not found in {ARCHIVE}")
def test_every_archive_h_file_is_written_with_its_places_and_one_heading_per_score_column():
    for path in ARCHIVE_FILES:
        original = read_egd(path.read_bytes(), path.name)
        text = write_egd(original)
        heading, _ = heading_and_lines(text)
        count = max(len(player.scores) for player in original.players)
        # one heading word per column written, as the page names it ("-": Column N)
        assert heading == [
            "-" if name.startswith("Column ") else name
            for name in told_apart(
                list(original.tournament.score_names[:count])
                + [""] * (count - len(original.tournament.score_names))
            )
        ], path.name
        # each player at the file's place, an ex aequo's left blank as the file left it
        back = read_egd(text, "written")
        in_file = sorted(original.players, key=lambda p: p.number)
        assert dict(
            zip(
                (p.username for p in back.players),
                effective(p.place for p in back.players),
                strict=True,
            )
        ) == dict(
            zip((p.username for p in in_file), effective(p.place for p in in_file), strict=True)
        ), path.name
        assert [p.place for p in back.players].count("") == [p.place for p in in_file].count(""), (
            path.name
        )


@pytest.mark.skipif(not ARCHIVE_FILES, reason=f"go-tournaments-archive not found in {ARCHIVE}")
def test_wagc_2023_keeps_its_top10_column_and_wagc_1985_s_unnamed_ones_are_not_invented():
    wagc = ARCHIVE / "wagc" / "data"
    heading, _ = heading_and_lines(write_egd(read_egd((wagc / "wagc2023.txt").read_bytes())))
    assert heading == ["Wins", "SOS", "TOP10"]
    heading, _ = heading_and_lines(write_egd(read_egd((wagc / "wagc1985.txt").read_bytes())))
    assert heading == ["-", "-", "SOS"]  # the page's Column 1, Column 2 and SOS
