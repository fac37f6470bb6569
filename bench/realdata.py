"""``python -m bench.realdata``: real game records imported and recomputed, for timing.

The files are read where they are, in ``../shared/data`` beside the project (or the
folder named by ``CLUBRATING_DATA``): they hold real names and no licence to
redistribute them, so nothing of them goes into the repository. Each source is
converted to the game record CSV of SPEC section 2 in ``bench/out`` (ignored by
git), imported with ``manage.py import_games`` into a fresh PostgreSQL database
(``bench.database``), and recomputed in full. A source that is absent is skipped
with a message saying so.

- **Tygem 9d index** (961,670 games 2005-2016): timing only. The index has no ranks
  and every player is a Tygem 9d account, so every row declares ``9d`` for both
  players (their entry rank, SPEC section 2); no handicap, komi 6.5 (the server's
  default); status ``internet``; the winner is the first letter of the result; the
  account id is the username (the one with a space has an underscore instead).
  Games of one day are ordered by their time, then their game id.
- **KGS high-dan subset** (36,692 game headers): ranks and handicaps as recorded;
  status ``internet``; main time in whole minutes when it is at least a minute,
  else left empty. Left out: games without a result (unfinished or void), with a
  komi outside -50..50 or not a multiple of 0.5, and a player's games before the
  first one that gives their rank (the entry rank must be on their first row).
- **EGC 2013** (``egc2013_games.csv``, 2,259 games): one tournament, class A, with
  its rounds; players by EGD PIN (by name for the few without one). Games won by
  default were not played and are left out. The file gives the tournament's dates,
  not each round's: every game is dated on its first day, and the rounds keep them
  in order.

A full run rewrites the section ``bench:realdata`` of docs/performance.md; ``--only``
runs one source and only prints.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path

from bench.__main__ import DOC, OUT, ROOT, BenchError, write_section
from bench.database import DEFAULT_POSTGRES, fresh_postgres, machine, markdown, run_step
from ratings.engine.ranks import RankError, parse_rank
from ratings.engine.records import COLUMNS

DATA = Path(os.environ.get("CLUBRATING_DATA", ROOT.parent / "shared" / "data"))


@dataclass
class Converted:
    """A source turned into SPEC section 2 rows."""

    rows: list[dict[str, str]]
    read: int  # source rows read
    notes: list[str]  # what was left out, and why


def _write_csv(path: Path, rows: Sequence[dict[str, str]]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(row)


# --- Tygem -------------------------------------------------------------------------

TYGEM = DATA / "tygem-9d-index" / "tygem_9d_games_2005-2016.tsv.gz"


def _tygem_username(account: str) -> str:
    """The account id, its spaces (one account has one) as underscores: a username
    has none (no other account is spelt that way)."""
    return re.sub(r"\s", "_", account)


def tygem() -> Converted:
    games = []
    unknown_results = 0
    with gzip.open(TYGEM, "rt", encoding="utf-8", newline="") as source:
        reader = csv.DictReader(source, delimiter="\t", quoting=csv.QUOTE_NONE)
        read = 0
        for row in reader:
            read += 1
            winner = row["result"][:1]
            if winner not in ("W", "B"):
                unknown_results += 1
                continue
            played = row["datetime"].lstrip("C")  # "C2010.01.01 00:00"
            white, black = _tygem_username(row["white_id"]), _tygem_username(row["black_id"])
            games.append((played, int(row["game_id"]), white, black, winner))
    games.sort()
    rows = [
        {
            "date": played[:10].replace(".", "-"),
            "white": white,
            "black": black,
            "white_rank": "9d",
            "black_rank": "9d",
            "handicap": "0",
            "komi": "6.5",
            "winner": winner,
            "status": "internet",
        }
        for played, _game_id, white, black, winner in games
    ]
    notes = [f"{unknown_results} without a winner left out"] if unknown_results else []
    return Converted(rows, read, notes)


# --- KGS ---------------------------------------------------------------------------

KGS = DATA / "kgs-highdan-subset" / "kgs_highdan_games_headers.csv.gz"
_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")


def _kgs_rank(text: str) -> str:
    text = text.strip().rstrip("?")
    if not text:
        return ""
    try:
        parse_rank(text)
    except RankError:
        return ""
    return text


def kgs() -> Converted:
    kept: list[tuple[date, int, dict[str, str]]] = []
    skipped = {
        "without a result": 0,
        "with a komi out of range": 0,
        "without a date": 0,
        "played before the player's rank is known": 0,
    }
    with gzip.open(KGS, "rt", encoding="utf-8", newline="") as source:
        read = 0
        for number, row in enumerate(csv.DictReader(source)):
            read += 1
            winner = row["RE"][:2]
            if winner not in ("W+", "B+"):
                skipped["without a result"] += 1
                continue
            found = _DATE.search(row["DT"])
            try:
                komi = Decimal(row["KM"] or "0")
                played = date(*(int(part) for part in found.groups())) if found else None
            except (InvalidOperation, ValueError):
                skipped["with a komi out of range" if found else "without a date"] += 1
                continue
            if played is None:
                skipped["without a date"] += 1
                continue
            if komi * 2 != int(komi * 2) or not -50 <= komi <= 50:
                skipped["with a komi out of range"] += 1
                continue
            seconds = int(row["TM"]) if row["TM"].isdigit() else 0
            kept.append(
                (
                    played,
                    number,
                    {
                        "date": played.isoformat(),
                        "white": row["PW"],
                        "black": row["PB"],
                        "white_rank": _kgs_rank(row["WR"]),
                        "black_rank": _kgs_rank(row["BR"]),
                        "handicap": str(int(row["HA"] or 0)),
                        "komi": str(komi.normalize()),
                        "winner": winner[0],
                        "status": "internet",
                        "board_size": row["SZ"] or "19",
                        "time_minutes": str(seconds // 60) if seconds >= 60 else "",
                    },
                )
            )
    kept.sort(key=lambda item: (item[0], item[1]))
    rows, ranked = [], set()
    for _played, _number, row in kept:
        unknown = [
            side
            for side in ("white", "black")
            if row[side] not in ranked and not row[side + "_rank"]
        ]
        if unknown:
            skipped["played before the player's rank is known"] += 1
            continue
        ranked.update((row["white"], row["black"]))
        rows.append(row)
    notes = [f"{count:,} {reason} left out" for reason, count in skipped.items() if count]
    return Converted(rows, read, notes)


# --- EGC 2013 ----------------------------------------------------------------------

EGC = DATA / "egc2013-opengotha" / "egc2013_games.csv"


def _egc_username(pin: str, name: str) -> str:
    """The EGD PIN, or for a player without one their name as a slug."""
    return pin or re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def egc2013() -> Converted:
    rows = []
    by_default = 0
    with open(EGC, encoding="utf-8", newline="") as source:
        read = 0
        for row in csv.DictReader(source):
            read += 1
            if row["by_default"] == "1":
                by_default += 1
                continue
            rows.append(
                {
                    "date": row["date_start"],
                    "white": _egc_username(row["white_pin"], row["white_name"]),
                    "black": _egc_username(row["black_pin"], row["black_name"]),
                    "white_rank": row["white_rank"].lower(),
                    "black_rank": row["black_rank"].lower(),
                    "handicap": row["handicap"],
                    "komi": row["komi"],
                    "winner": row["winner"],
                    "status": "tournament",
                    "tournament": row["tournament"],
                    "tournament_class": "A",
                    "round": row["round"],
                }
            )
    rows.sort(key=lambda row: int(row["round"]))
    notes = [f"{by_default} won by default left out"] if by_default else []
    return Converted(rows, read, notes)


@dataclass(frozen=True)
class Source:
    name: str
    title: str
    path: Path
    convert: Callable[[], Converted]
    algorithms: tuple[str, ...]
    small: bool  # quick enough for --quick


SOURCES = (
    Source("tygem", "Tygem 9d index", TYGEM, tygem, ("sagc",), small=False),
    Source("kgs", "KGS high-dan subset", KGS, kgs, ("sagc", "egf-2021"), small=True),
    Source("egc2013", "EGC 2013 main tournament", EGC, egc2013, ("sagc", "egf-legacy"), small=True),
)


@dataclass
class Measured:
    source: Source
    converted: Converted
    convert_seconds: float
    imported: dict
    full: dict[str, dict]


def measure(source: Source, url: str) -> Measured:
    started = time.perf_counter()
    converted = source.convert()
    path = OUT / f"real-{source.name}.csv"
    OUT.mkdir(exist_ok=True)
    _write_csv(path, converted.rows)
    convert_seconds = time.perf_counter() - started
    print(
        f"{source.title}: {len(converted.rows):,} games written to {path.relative_to(ROOT)} "
        f"in {convert_seconds:.1f} s",
        flush=True,
    )
    database = fresh_postgres(url)
    run_step("migrate", {}, database.url, source.algorithms)
    imported = run_step("import", {"path": str(path)}, database.url, source.algorithms)
    print(f"{source.title}: imported in {imported['seconds']:.1f} s", flush=True)
    full = {}
    for algorithm in source.algorithms:
        full[algorithm] = run_step(
            "recompute", {"algorithm": algorithm}, database.url, source.algorithms
        )
        print(f"{source.title}: full {algorithm} in {full[algorithm]['seconds']:.1f} s", flush=True)
    return Measured(source, converted, convert_seconds, imported, full)


def report(measured: Sequence[Measured], missing: Sequence[Source], header: str) -> list[str]:
    rows = []
    for item in measured:
        imported = item.imported
        source = [
            item.source.title,
            f"{item.converted.read:,}",
            f"{imported['games']:,}",
            f"{imported['players']:,}",
            f"{item.convert_seconds:.1f} s",
            f"{imported['seconds']:.1f} s",
            f"{imported['games'] / imported['seconds']:,.0f}",
        ]
        for algorithm, full in item.full.items():
            rows.append(
                [
                    *source,
                    f"`{algorithm}`",
                    f"{full['seconds']:.1f} s",
                    f"{full['rows']:,}",
                    f"{full['peak_kib'] / 1024:,.0f} MiB",
                ]
            )
            source = [""] * len(source)  # said once per source
    columns = ["source", ">read", ">games imported", ">players", ">convert to CSV"]
    columns += [">import_games", ">games/s", "algorithm", ">full recompute", ">history rows"]
    columns += [">peak memory"]
    notes = [
        f"- {item.source.title}: {'; '.join(item.converted.notes)}."
        for item in measured
        if item.converted.notes
    ]
    notes += [f"- {source.title}: skipped, {source.path} is not there." for source in missing]
    lines = [header, "", *markdown(columns, rows)]
    return [*lines, "", *notes] if notes else lines


def main(argv: Sequence[str] | None = None, invoked_as: str | None = None) -> int:
    """``invoked_as``: the command to name in the doc (``make bench`` calls this)."""
    parser = argparse.ArgumentParser(prog="python -m bench.realdata", description=__doc__)
    parser.add_argument("--only", choices=[source.name for source in SOURCES], action="append")
    parser.add_argument(
        "--quick", action="store_true", help="the two small sources only (not Tygem); print only"
    )
    parser.add_argument("--no-write", action="store_true", help="do not update the doc")
    args = parser.parse_args(argv)
    names = args.only or [source.name for source in SOURCES if not args.quick or source.small]
    chosen = [source for source in SOURCES if source.name in names]
    present = [source for source in chosen if source.path.exists()]
    missing = [source for source in chosen if not source.path.exists()]
    for source in missing:
        print(f"{source.title}: skipped, {source.path} is not there", flush=True)
    url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_POSTGRES)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    measured = []
    for source in present:
        try:
            measured.append(measure(source, url))
        except BenchError as error:
            print(f"{source.title}: FAILED\n{error}", file=sys.stderr)
            return 1
    options = list(sys.argv[1:] if argv is None else argv)
    command = invoked_as or " ".join(["python -m bench.realdata", *options])
    today = datetime.now().astimezone().date().isoformat()
    header = (
        f"Measured {today} on {machine(load)}, with `{command}` "
        f"({(time.perf_counter() - started) / 60:.0f} min in all). PostgreSQL."
    )
    body = "\n".join(report(measured, missing, header))
    print()
    print(body)
    if not (args.only or args.quick or args.no_write):
        write_section(DOC, "realdata", body)
        print(f"\n{DOC.relative_to(ROOT)}: section bench:realdata updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
