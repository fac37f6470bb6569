"""The club's rating list in the formats OpenGotha reads for its player database, read
back by OpenGotha's own rules (its RatingList reader: columns by position, ISO-8859-15),
transcribed here so that CI needs no Java."""

from __future__ import annotations

from datetime import date

from ratings.engine.formats.ratinglists import (
    ENCODING,
    ListedPlayer,
    write_aga_list,
    write_egf_list,
    write_ffg_list,
)
from ratings.engine.ranks import parse_rank

DAY = date(2026, 11, 27)
PLAYERS = [
    ListedPlayer("du Plessis", "Sofia", parse_rank("2k"), 1893.4, "12000001", "", "ZA", "StGo"),
    ListedPlayer("Müller", "Jörg", parse_rank("3d"), None, "", "", "DE", "Berl"),
    ListedPlayer("Nakamura", "Aiko", parse_rank("15k"), 612.0, "", "30001", "US", ""),
    ListedPlayer("Fan", "Hui", parse_rank("2p"), 2771.0, "12633346", "", "FR", "33Bo"),
    ListedPlayer("Zhou", "", parse_rank("1d"), None, "", "", "", ""),
]


def opengotha_rank(rating: int) -> str:
    """OpenGotha's Player.rankFromRating, as a grade."""
    rank = max(-30, min(8, (rating + 950) // 100 - 30))
    return f"{rank + 1}D" if rank >= 0 else f"{-rank}K"


def java_int(text: str) -> int:
    return int(text.strip())


def read_egf(text: str) -> tuple[str, list[tuple]]:
    """OpenGotha's RatingList, TYPE_EGF."""
    day, players = "", []
    for line in text.encode(ENCODING).decode(ENCODING).splitlines():
        if not line:
            continue
        if "(" in line:
            part = line[line.index("(") :].split(" ")
            if len(part) >= 3 and part[2][:2] == "20":
                day = line[line.index("(") :][1:12]
        if len(line) < 10 or not line[1:9].isdigit():
            continue
        names = line[11:48]
        name, _, first = names.partition(" ")
        players.append(
            (
                line[1:9],
                name.strip(),
                first.strip(),
                line[49:52].strip(),
                line[53:57].strip(),
                line[60:63].strip(),
                java_int(line[71:75]),
            )
        )
    return day, players


def read_ffg(text: str) -> list[tuple]:
    """OpenGotha's RatingList, TYPE_FFG: rating + 2050 is the GoR it ranks by."""
    players = []
    for line in text.encode(ENCODING).decode(ENCODING).splitlines():
        if len(line) < 60 or not line[:1].isalpha():
            continue
        names = line[0:38]
        position = names.index(" ")
        players.append(
            (
                names[:position].strip(),
                names[position + 1 :].strip(),
                opengotha_rank(java_int(line[38:43]) + 2050),
                line[54:58].strip(),
                line[59:61].strip(),
            )
        )
    return players


def read_aga(text: str) -> list[tuple]:
    """OpenGotha's RatingList, TYPE_AGA: raw rating = AGA rating x 100."""
    players = []
    for line in text.encode(ENCODING).decode(ENCODING).splitlines():
        if len(line) < 10:
            continue
        fields = line.split("\t")
        name, _, first = fields[0].partition(",")
        raw = round(float(fields[3]) * 100)
        gor = raw + 1950 if raw >= 100 else raw + 2150 if raw <= -100 else 2050
        country = "" if fields[2] == "Forgn" else "US"
        players.append((name.strip(), first.strip(), fields[1], country, opengotha_rank(gor)))
    return players


def test_the_egf_list_gives_pin_name_country_club_grade_and_gor():
    day, players = read_egf(write_egf_list(PLAYERS, DAY))
    assert day == "27 Nov 2026"
    # players without an EGD PIN are left out: OpenGotha skips a line without one
    assert players == [
        ("12000001", "du_Plessis", "Sofia", "ZA", "StGo", "2k", 1893),
        ("12633346", "Fan", "Hui", "FR", "33Bo", "2p", 2771),
    ]


def test_the_ffg_list_ranks_every_player_at_their_club_rank():
    assert read_ffg(write_ffg_list(PLAYERS, DAY)) == [
        ("DU_PLESSIS", "Sofia", "2K", "StGo", "ZA"),
        ("MÜLLER", "Jörg", "3D", "Berl", "DE"),
        ("NAKAMURA", "Aiko", "15K", "", "US"),
        ("FAN", "Hui", "7D", "33Bo", "FR"),  # a pro's GoR (2730) is 7d to OpenGotha
        ("ZHOU", "x", "1D", "", ""),
    ]


def test_the_aga_list_ranks_every_player_at_their_club_rank():
    assert read_aga(write_aga_list(PLAYERS)) == [
        ("du Plessis", "Sofia", "", "", "2K"),
        ("Müller", "Jörg", "", "", "3D"),
        ("Nakamura", "Aiko", "30001", "US", "15K"),
        ("Fan", "Hui", "", "", "9D"),
        ("Zhou", "x", "", "", "1D"),
    ]
