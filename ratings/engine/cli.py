"""The command line: ``python -m ratings rate ...`` (SPEC section 3).

Results go to stdout as CSV; every problem with the input goes to stderr and the
exit status is 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import typing
from collections.abc import Sequence
from pathlib import Path

from .algorithms import get_algorithm, registry
from .base import ParamsError, no_cycle_collection, parse_params, replay_sides
from .formats import FORMATS, FilePlayer, read_tournament_file, with_declared_ratings
from .formats.games import read_games, read_players
from .formats.history import write_history, write_standings
from .records import GameFile, GameFileError, replay_order, resolve_entries

EXIT_BAD_INPUT = 2

DESCRIPTION = """\
Rate Go games with one of the club rating algorithms.

GAMES.csv has a header row and the columns of the game record (SPEC section 2):
date, white, black, white_rank, black_rank, handicap, komi, winner, status,
board_size, tournament, tournament_class, round, time_minutes, value, algorithm,
comment. Games are replayed in (date, round, row) order.

With --format egd or --format opengotha, GAMES.csv is a tournament file instead: an
EGD tournament result file (h-file, h9 or older) or an OpenGotha XML file. Its
rated games are its rounds' games (status tournament), its players are named by the
usernames the site would suggest ("Fan Hui" is hui-fan) and start from the ranks
the file gives them (the EGF algorithms from the GoR it declares, OpenGotha's
rating, as the EGD does and the site after importing the file); forfeits and games
without a result are not rated.
"""

EPILOG = """\
outputs:
  history    per player per game: player, opponent, opponent_rank, colour,
             handicap, komi, winner, status, change, new_value, new_rank, date,
             comment (White's row, then Black's), in replay order
  standings  player, rank, value, games; by rank and value descending

examples:
  python -m ratings rate --algorithm sagc games.csv
  python -m ratings rate --algorithm egf-2021 --output standings games.csv
  python -m ratings rate --algorithm anchor --params a=12 --params fixed_anchor=1d games.csv
  python -m ratings rate --algorithm egf-2021 --format egd tournament.h9
  python -m ratings rate --algorithm sagc --format opengotha tournament.xml
  python -m ratings algorithms        (every algorithm and its parameters)

Bad input (a bad row, an unknown parameter, an unreadable file) is reported on
stderr with its line and column, and the exit status is 2.
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> typing.NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m ratings",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    rate = commands.add_parser(
        "rate",
        help="rate a file of games",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rate.add_argument(
        "--algorithm", required=True, metavar="NAME", help=f"one of: {', '.join(registry())}"
    )
    rate.add_argument(
        "--players",
        metavar="FILE",
        type=Path,
        help="CSV player,rank,rating of starting values (rating optional, algorithm scale)",
    )
    rate.add_argument(
        "--params",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a parameter of the algorithm (repeatable)",
    )
    rate.add_argument(
        "--output", choices=("history", "standings"), default="history", help="default: history"
    )
    rate.add_argument(
        "--format",
        choices=("csv", *FORMATS),
        default="csv",
        help="what GAMES.csv is: csv (the game record, default), egd (an EGD h-file) "
        "or opengotha (an OpenGotha XML file)",
    )
    rate.add_argument("games", metavar="GAMES.csv", type=Path)
    commands.add_parser("algorithms", help="list the algorithms and their parameters")
    return parser


def _fail(message: str) -> int:
    print(message, file=sys.stderr)
    return EXIT_BAD_INPUT


def _list_algorithms() -> int:
    for name, cls in registry().items():
        print(f"{name}: {cls.title}")
        hints = typing.get_type_hints(cls.params_type)
        for item in dataclasses.fields(cls.params_type):
            if item.default_factory is not dataclasses.MISSING:
                default = item.default_factory()
            else:
                default = item.default
            type_name = getattr(hints[item.name], "__name__", str(hints[item.name]))
            print(f"    {item.name} ({type_name}) = {default}")
    return 0


def _read_games(path: Path, file_format: str) -> tuple[GameFile, list[FilePlayer]]:
    """The games, and the players of a tournament file (none for a CSV file)."""
    if file_format == "csv":
        return read_games(path.read_bytes(), str(path)), []
    tournament = read_tournament_file(path.read_bytes(), file_format, str(path))
    return tournament.as_game_file(), tournament.players


def rate(args: argparse.Namespace) -> int:
    try:
        cls = registry()[args.algorithm]
    except KeyError:
        return _fail(f"unknown algorithm '{args.algorithm}' (known: {', '.join(registry())})")
    if args.output == "history" and not cls.has_history:
        return _fail(f"{cls.name} gives standings only: use --output standings")
    try:
        algorithm = get_algorithm(cls.name, parse_params(cls.params_type, args.params))
    except ParamsError as error:
        return _fail(str(error))

    try:
        given = None
        if args.players:
            given = read_players(args.players.read_bytes(), str(args.players))
        games, file_players = _read_games(args.games, args.format)
        ordered = replay_order(games.records)  # once: entries and the replay both need it
        entries = resolve_entries(ordered, given, str(args.games), presorted=True)
        entries = with_declared_ratings(entries, file_players)
    except OSError as error:
        return _fail(f"{error.filename}: {error.strerror or error}")
    except GameFileError as error:
        return _fail(str(error))
    for warning in games.warnings:
        print(f"{args.games}: warning: {warning}", file=sys.stderr)
    problems = [
        f"{args.players}: player '{name}': {problem}"
        for name, entry in (given or {}).items()
        if (problem := algorithm.entry_problem(entry))
    ]
    if problems:
        return _fail("\n".join(problems))

    state = algorithm.new_state(entries)
    if given:
        for name in given:  # listed players appear in the standings even without games
            state.player(name)
    # Games as their sides where the algorithm gives them: no row objects to make.
    rows = replay_sides(algorithm, ordered, state, presorted=True)
    if args.output == "history":
        write_history(sys.stdout, rows, algorithm)
    else:
        for _ in rows:
            pass
        write_standings(sys.stdout, algorithm.standings(state), algorithm)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "algorithms":
        return _list_algorithms()
    try:
        with no_cycle_collection():
            return rate(args)
    except BrokenPipeError:  # e.g. piped into head
        return 0
