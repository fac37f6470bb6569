"""What OpenGotha's own reader needs of the files ``write_opengotha`` writes.

Learned by running OpenGotha 3.51.02's reader (``ExternalDocument.importTournamentFromXMLFile``,
what its "Open" does) on our exports, headless, outside the repository (docs/formats.md,
"Checked with OpenGotha's reader", says how). Its code is not here: these tests pin, in
our own words, what it accepts and what it silently drops or crashes on, so that CI
keeps our files inside it:

- a ``Player`` needs a name and a first name (else its constructor throws and the whole
  import fails), a country of 2 letters or none, a club of at most 4 characters (a longer
  one is cut); its key is name and first name without spaces, in capitals, and a second
  player with a key already read is refused;
- ranks are read as ``7D``/``15K``/``3P`` (30K to 9D), ``rating`` and ``smmsCorrection``
  as whole numbers (``Integer.parseInt``: a decimal throws), ``participating`` one
  ``0``/``1`` a round;
- a ``Game``'s players are keys of players read before it (an unknown key: the game is
  silently left out); rounds and tables count from 1 and a round's table numbers are
  distinct (the reader keys games by round and table: a second game at one table
  replaces the first); a round 0 is read as round -1 and its scoring then fails; the
  result is one of eleven names (any other: silently "not played yet");
- one ``ByePlayer`` a round (it keeps one bye player per round: a second replaces the
  first);
- ``GeneralParameterSet``, ``HandicapParameterSet``, ``PlacementParameterSet`` and
  ``PairingParameterSet`` are dereferenced without a check; placement criteria are read
  by OpenGotha's long names (``SOSW``, ``SOSM``...: an unknown one is silently no
  criterion), numbered 1 to 6.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import date
from fractions import Fraction

import pytest

from ratings.engine.formats import FilePlayer, TournamentFile, TournamentInfo
from ratings.engine.formats.egd import read_egd
from ratings.engine.formats.opengotha import read_opengotha, write_opengotha
from ratings.engine.ranks import parse_rank
from ratings.engine.records import GameRecord, Status, Winner
from tests.engine.test_egd_format import ARCHIVE, BROKEN_ARCHIVE_FILES
from tests.engine.test_egd_format import SPRING_CUP as EGD_SPRING_CUP
from tests.engine.test_opengotha_format import EGC, ONLINE_2020, SPRING_CUP

# OpenGotha's names of results and placement criteria (Game, PlacementParameterSet).
RESULTS = {
    "RESULT_UNKNOWN",
    *(
        f"RESULT_{outcome}{forfeit}"
        for outcome in ("WHITEWINS", "BLACKWINS", "EQUAL", "BOTHLOSE", "BOTHWIN")
        for forfeit in ("", "_BYDEF")
    ),
}
CRITERIA = {
    "NULL", "CAT", "NBW", "CPS", "MMS", "STS", "Rank", "Rating", "CUSSW", "CUSSM", "SOSW",
    "SOSW-1", "SOSW-2", "SODOSW", "SOSM", "SOSM-1", "SOSM-2", "SODOSM", "SOSTS", "SOSOSW",
    "SOSOSM", "EXT", "EXR", "DC", "SDC",
}  # fmt: skip
RANK = re.compile(r"^([1-9]|[12][0-9]|30)[kK]$|^[1-9][dDpP]$")
INTEGER = re.compile(r"^-?\d+$")
MAX_ROUNDS = 20


def opengotha_key(name: str, first_name: str) -> str:
    return (name + first_name).replace(" ", "").upper()


def reader_findings(text: str) -> list[str]:
    """What OpenGotha's reader would refuse, drop, replace or fail on in ``text``."""
    root = ET.fromstring(text.encode())
    found: list[str] = []
    if root.tag != "Tournament" or int(root.get("dataVersion", "200")) < 201:
        found.append("not a Tournament of data version 201 (older ones key players by ASCII)")
    keys: set[str] = set()
    for player in root.iter("Player"):
        a = player.attrib
        key = opengotha_key(a.get("name", ""), a.get("firstName", ""))
        if not a.get("name") or not a.get("firstName"):
            found.append(f"{key}: a name and a first name are required")
        if len(a.get("country", "")) not in (0, 2):
            found.append(f"{key}: country {a['country']!r} is not 2 letters")
        if len(a.get("club", "")) > 4:
            found.append(f"{key}: club {a['club']!r} is cut to 4 characters")
        if not RANK.match(a.get("rank", "30K")) or not RANK.match(a.get("grade") or "30K"):
            found.append(f"{key}: rank {a.get('rank')!r} / grade {a.get('grade')!r}")
        for name in ("rating", "smmsCorrection"):
            if name in a and not INTEGER.match(a[name]):
                found.append(f"{key}: {name} {a[name]!r} is not a whole number")
        if "rating" in a and INTEGER.match(a["rating"]) and not -900 <= int(a["rating"]) <= 2949:
            found.append(f"{key}: rating {a['rating']} is clamped to -900..2949")
        if not re.fullmatch(r"[01]*", a.get("participating", "")):
            found.append(f"{key}: participating {a['participating']!r}")
        if key in keys:
            found.append(f"{key}: a second player of this key is refused")
        keys.add(key)
    tables: Counter[tuple[str, str]] = Counter()
    busy: Counter[tuple[str, str]] = Counter()
    for game in root.iter("Game"):
        a = game.attrib
        where = f"game round {a.get('roundNumber')} table {a.get('tableNumber')}"
        for side in ("whitePlayer", "blackPlayer"):
            if a.get(side) not in keys:
                found.append(f"{where}: {side} {a.get(side)!r} is no player's key (dropped)")
            busy[a.get(side, ""), a.get("roundNumber", "")] += 1
        if not (INTEGER.match(a.get("roundNumber", "")) and 1 <= int(a["roundNumber"]) <= 20):
            found.append(f"{where}: rounds count from 1 to {MAX_ROUNDS}")
        if not (INTEGER.match(a.get("tableNumber", "")) and int(a["tableNumber"]) >= 1):
            found.append(f"{where}: tables count from 1")
        if not (INTEGER.match(a.get("handicap", "")) and 0 <= int(a["handicap"]) <= 9):
            found.append(f"{where}: handicap {a.get('handicap')!r}")
        if a.get("result") not in RESULTS:
            found.append(f"{where}: result {a.get('result')!r} is read as not played")
        tables[a.get("roundNumber", ""), a.get("tableNumber", "")] += 1
    found += [
        f"round {r} table {t}: {n} games (one replaces the other)"
        for (r, t), n in tables.items()
        if n > 1
    ]
    byes: Counter[str] = Counter()
    for bye in root.iter("ByePlayer"):
        if bye.get("player") not in keys:
            found.append(f"bye of round {bye.get('roundNumber')}: no player {bye.get('player')!r}")
        byes[bye.get("roundNumber", "")] += 1
        busy[bye.get("player", ""), bye.get("roundNumber", "")] += 1
    found += [f"round {r}: {n} bye players (one is kept)" for r, n in byes.items() if n > 1]
    found += [f"{key} plays {n} times in round {r}" for (key, r), n in busy.items() if n > 1]
    for name in (
        "GeneralParameterSet",
        "HandicapParameterSet",
        "PlacementParameterSet",
        "PairingParameterSet",
    ):
        if root.find(f".//{name}") is None:
            found.append(f"no {name} (the reader dereferences it)")
    general = root.find(".//GeneralParameterSet")
    if general is not None:
        for name in ("beginDate", "endDate"):
            if not re.fullmatch(r"\d{4}-\d\d-\d\d", general.get(name, "")):
                found.append(f"GeneralParameterSet {name} {general.get(name)!r}")
        if general.get("numberOfCategories", "1") != "1":
            found.append("categories need Category elements")
        if not INTEGER.match(general.get("numberOfRounds", "")):
            found.append("GeneralParameterSet numberOfRounds")
    for criterion in root.iter("PlacementCriterion"):
        if criterion.get("name") not in CRITERIA or not 1 <= int(criterion.get("number", 0)) <= 6:
            found.append(f"placement criterion {criterion.attrib} is not OpenGotha's")
    return found


def unrated_games(text: str) -> Counter[tuple]:
    """The file's games that are not rated (forfeits, no result), with their colours."""
    return Counter(
        (g.get("roundNumber"), g.get("whitePlayer"), g.get("blackPlayer"), g.get("result"))
        for g in ET.fromstring(text.encode()).iter("Game")
        if g.get("result") not in ("RESULT_WHITEWINS", "RESULT_BLACKWINS", "RESULT_EQUAL")
    )


def test_the_checker_finds_what_opengothas_reader_would_refuse_or_drop():
    text = write_opengotha(read_opengotha(SPRING_CUP))
    assert reader_findings(text) == []
    broken = (
        text.replace('roundNumber="1" tableNumber="2"', 'roundNumber="1" tableNumber="1"')
        .replace('name="Smith"', 'name=""', 1)
        .replace('<PlacementCriterion name="SOSM"', '<PlacementCriterion name="SOS"')
    )
    findings = reader_findings(broken)
    assert any("table 1: 2 games" in f for f in findings)
    assert any("a name and a first name are required" in f for f in findings)
    assert any("is no player's key" in f for f in findings)
    assert any("placement criterion" in f for f in findings)


def site_tournament() -> TournamentFile:
    """A tournament as the site exports one it holds without a file: no rounds as
    written, a game without a round number, handicap games, a jigo, players sitting
    rounds out (two in one round)."""
    info = TournamentInfo(
        code="site-cup", name="Site Cup", tournament_class="B",
        start=date(2024, 5, 4), end=date(2024, 5, 5), komi=Fraction(13, 2), rounds=3,
    )  # fmt: skip
    players = [
        FilePlayer(n, surname, given, parse_rank(rank), username=username, country="ZA")
        for n, (surname, given, rank, username) in enumerate(
            [
                ("du Plessis", "Sofia", "2k", "sofia"),
                ("Mokoena", "Thabo", "3k", "thabo"),
                ("Ngcobo", "Zoë", "8k", "zoe"),
                ("Nakamura", "Aiko", "1d", "aiko"),
                ("Lee", "", "5k", "lee"),
            ],
            start=1,
        )
    ]

    def game(round_number, white, black, winner, handicap=0):
        return GameRecord(
            date=date(2024, 5, 4), white=white, black=black, winner=winner, handicap=handicap,
            komi=Fraction(1, 2) if handicap else Fraction(13, 2), status=Status.TOURNAMENT,
            tournament="site-cup", tournament_class="B", round=round_number,
        )  # fmt: skip

    records = [
        game(1, "sofia", "thabo", Winner.WHITE),
        game(1, "aiko", "zoe", Winner.BLACK, handicap=6),
        game(2, "sofia", "aiko", Winner.JIGO),
        game(2, "thabo", "lee", Winner.BLACK, handicap=2),
        game(3, "lee", "sofia", Winner.BLACK),
        game(0, "zoe", "lee", Winner.WHITE),  # no round number: the first round both are free
    ]
    return TournamentFile(info, players, records)


def test_a_site_tournament_is_written_as_opengothas_reader_needs_it():
    tournament = site_tournament()
    text = write_opengotha(tournament)
    assert reader_findings(text) == []
    games = {
        (g.get("roundNumber"), g.get("whitePlayer"), g.get("blackPlayer"), g.get("handicap"))
        for g in ET.fromstring(text.encode()).iter("Game")
    }
    # The game without a round number goes where the h-file puts it: the first round
    # both are free (Zoë plays round 1, Lee rounds 2 and 3), not OpenGotha's round -1
    assert ("4", "NGCOBOZOË", "LEE_", "0") in games
    assert ("2", "MOKOENATHABO", "LEE_", "2") in games
    # placed as the site places it (points, SOS, SOSOS), in OpenGotha's names
    criteria = [c.get("name") for c in ET.fromstring(text.encode()).iter("PlacementCriterion")]
    assert criteria[:4] == ["NBW", "SOSW", "SOSOSW", "NULL"]
    # A round without a game is neither a bye nor an absence: OpenGotha's "not paired"
    assert "<ByePlayer " not in text
    assert set(re.findall(r'participating="([01]+)"', text)) == {"1" * MAX_ROUNDS}

    def games_by_name(file, default_round=0) -> list[tuple]:
        name = {p.username: p.full_name for p in file.players}
        return sorted(
            (r.round or default_round, name[r.white], name[r.black], r.handicap, r.winner)
            for r in file.records
        )

    assert games_by_name(read_opengotha(text)) == games_by_name(tournament, default_round=4)


def test_an_h_file_with_byes_and_forfeits_is_written_as_opengothas_reader_needs_it():
    text = write_opengotha(read_egd(EGD_SPRING_CUP))
    assert reader_findings(text) == []
    # the forfeit keeps the colours the h-file gave it (2+!w0 / 1-!b0: Smith White)
    assert unrated_games(text)[("5", "SMITHJOHN", "NDLOVUTHABO", "RESULT_WHITEWINS_BYDEF")] == 1


@pytest.mark.skipif(
    not (EGC / "egc2013.xml").is_file(),
    reason=f"EGC OpenGotha files not found in {EGC} (set CLUBRATING_SHARED_DATA)",
)
@pytest.mark.parametrize("name", ["egc2013.xml", "egc2011.xml"])
def test_the_egc_files_come_back_with_every_forfeit_as_opengotha_wrote_it(name):
    original = (EGC / name).read_bytes()
    text = write_opengotha(read_opengotha(original))
    assert reader_findings(text) == []
    # OpenGotha's forfeits are White's or Black's: written back with the same White
    assert unrated_games(text) == unrated_games(original.decode("utf-8", "replace"))


@pytest.mark.skipif(
    not ONLINE_2020.is_dir() or not ARCHIVE.is_dir(),
    reason=f"the real files are not in {ONLINE_2020.parent} (set CLUBRATING_SHARED_DATA)",
)
def test_every_real_file_written_as_opengotha_is_what_its_reader_needs():
    findings = {}
    for path in sorted(ONLINE_2020.glob("*.xml")):
        findings[path.name] = reader_findings(write_opengotha(read_opengotha(path.read_bytes())))
    for path in sorted(ARCHIVE.rglob("*.txt")):
        if path.name not in BROKEN_ARCHIVE_FILES:
            tournament = read_egd(path.read_bytes(), path.name)
            findings[path.name] = reader_findings(write_opengotha(tournament))
    assert {name: found for name, found in findings.items() if found} == {}
    assert len(findings) >= 100


@pytest.mark.skipif(
    not ARCHIVE.is_dir(),
    reason=f"go-tournaments-archive not found in {ARCHIVE} (set CLUBRATING_SHARED_DATA)",
)
def test_the_byes_beyond_one_a_round_are_said_on_top_of_the_file():
    (path,) = ARCHIVE.rglob("kpmc2021.txt")
    text = write_opengotha(read_egd(path.read_bytes(), path.name))
    assert reader_findings(text) == []
    assert len(re.findall(r'<ByePlayer [^>]*roundNumber="3"', text)) == 1
    comments = re.findall(r"<!-- Not carried by this file: round 3: the bye \(0\+\) of", text)
    assert len(comments) == 15
