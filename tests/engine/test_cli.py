"""``python -m ratings``: the command line of SPEC section 3 (ratings/engine/cli.py)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from bench.generate import Settings, generate
from ratings.engine.cli import main

ROOT = Path(__file__).resolve().parents[2]
HISTORY_COLUMNS = (
    "player,opponent,opponent_rank,colour,handicap,komi,winner,status,change,new_value,"
    "new_rank,date,comment"
)

# Worked by hand: 10k LF 369.95, 14k 591.67, 15k 663.64, 9k 327.81.
CLUB_NIGHTS = """\
date,white,black,white_rank,black_rank,handicap,komi,winner,status,board_size,value,comment
2024-01-10,ann,bob,10k,10k,,,W,,,,
2024-01-10,carl,dave,14k,15k,,,W,,,,"club night, table 2"
2024-01-11,ann,ann,9k,,,,,adjustment,,-100,committee
2024-01-12,bob,ann,,,,,W,,9,,
2024-01-12,ann,bob,,,0,0.5,B,tournament,,,
"""
CLUB_HISTORY = f"""\
{HISTORY_COLUMNS}
ann,bob,10k,W,0,6.5,W,normal,370,370,10k,2024-01-10,
bob,ann,10k,B,0,6.5,W,normal,-433,-433,10k,2024-01-10,
carl,dave,15k,W,0,6.5,W,normal,320,320,14k,2024-01-10,"club night, table 2"
dave,carl,14k,B,0,6.5,W,normal,-538,-538,15k,2024-01-10,"club night, table 2"
ann,ann,10k,,0,,,adjustment,-470,-100,9k,2024-01-11,committee
bob,ann,9k,W,0,6.5,W,normal,0,-433,10k,2024-01-12,"not rated: SAGC rates 19x19 games only, not 9x9"
ann,bob,10k,B,0,6.5,W,normal,0,-100,9k,2024-01-12,"not rated: SAGC rates 19x19 games only, not 9x9"
ann,bob,10k,W,0,0.5,B,tournament,-332,-432,9k,2024-01-12,
bob,ann,9k,B,0,0.5,B,tournament,799,366,10k,2024-01-12,
"""


@pytest.fixture
def club_file(tmp_path: Path) -> Path:
    path = tmp_path / "games.csv"
    path.write_text(CLUB_NIGHTS, encoding="utf-8")
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_the_history_has_the_record_sheet_columns_white_then_black_in_replay_order(
    club_file, capsys
):
    # ann's last game: a 9k at -100 (demotion zone) loses to a 10k at differential -1
    # in a tournament, having met bob once among her last games (the adjustment and the
    # unrated 9x9 game take no place): 327.81 * 1.5 * 0.9 * -0.75 = -331.9.
    status, out, err = run(capsys, "rate", "--algorithm", "sagc", str(club_file))
    assert (status, err) == (0, "")
    assert out == CLUB_HISTORY


def test_history_is_the_default_output(club_file, capsys):
    _, out, _ = run(capsys, "rate", "--algorithm", "sagc", "--output", "history", str(club_file))
    assert run(capsys, "rate", "--algorithm", "sagc", str(club_file))[1] == out


def test_the_standings_sort_by_rank_and_index_descending(club_file, capsys):
    status, out, _ = run(capsys, "rate", "--algorithm", "sagc", "--output", "standings",
                         str(club_file))  # fmt: skip
    assert status == 0
    assert out == (
        "player,rank,value,games\nann,9k,-432,2\nbob,10k,366,2\ncarl,14k,320,1\ndave,15k,-538,1\n"
    )


def test_standings_of_equal_rank_and_index_go_by_username(tmp_path, capsys):
    games = tmp_path / "games.csv"
    games.write_text(
        "date,white,black,white_rank,black_rank,winner,status\n"
        "2024-01-01,zoe,yan,5k,5k,W,free\n"
        "2024-01-01,abe,bea,5k,5k,W,free\n"
    )
    _, out, _ = run(capsys, "rate", "--algorithm", "sagc", "--output", "standings", str(games))
    assert [line.split(",")[0] for line in out.splitlines()[1:]] == ["abe", "bea", "yan", "zoe"]


def test_players_file_sets_starting_ranks_and_indexes_and_lists_players_without_games(
    club_file, tmp_path, capsys
):
    players = tmp_path / "players.csv"
    players.write_text("player,rank,rating\nann,3k,900\nemma,2d,\n")
    _, out, _ = run(capsys, "rate", "--algorithm", "sagc", "--players", str(players),
                    "--output", "standings", str(club_file))  # fmt: skip
    lines = out.splitlines()
    assert "emma,2d,0,0" in lines
    # ann starts as a 3k at 900 (not the file's 10k) and beats a 10k at differential
    # -7 in the first game (GRF 0): no change.
    _, history, _ = run(capsys, "rate", "--algorithm", "sagc", "--players", str(players),
                        str(club_file))  # fmt: skip
    assert history.splitlines()[1] == "ann,bob,10k,W,0,6.5,W,normal,0,900,3k,2024-01-10,"


def test_a_bad_file_exits_2_with_every_bad_line_on_stderr_and_nothing_on_stdout(tmp_path, capsys):
    games = tmp_path / "games.csv"
    games.write_text(
        "date,white,black,white_rank,black_rank,handicap,komi,winner\n"
        "2024-01-01,ann,bob,5k,5k,0,6.5,W\n"
        "2024-01-32,ann,bob,5k,5k,0,6.5,W\n"
        "2024-01-03,ann,bob,5k,5k,12,6.5,W\n"
        "2024-01-04,ann,bob,5k,5k,0,lots,W\n"
    )
    status, out, err = run(capsys, "rate", "--algorithm", "sagc", str(games))
    assert (status, out) == (2, "")
    assert err.splitlines() == [
        f"{games}: line 3, column date: '2024-01-32' is not a valid date",
        f"{games}: line 4, column handicap: 12 is not a handicap (0 to 9 stones)",
        f"{games}: line 5, column komi: 'lots' is not a number",
    ]


def test_a_missing_entry_rank_exits_2_naming_line_and_column(tmp_path, capsys):
    games = tmp_path / "games.csv"
    games.write_text("date,white,black,white_rank,black_rank,winner\n2024-01-01,ann,bob,5k,,W\n")
    status, out, err = run(capsys, "rate", "--algorithm", "sagc", str(games))
    assert (status, out) == (2, "")
    assert (
        err == f"{games}: line 2, column black_rank: first game of 'bob' needs their entry rank\n"
    )


def test_a_bad_row_spanning_lines_is_reported_at_its_first_line(tmp_path, capsys):
    games = tmp_path / "games.csv"
    games.write_text(
        "date,white,black,white_rank,black_rank,winner,comment\n"
        '2024-01-01,ann,bob,5k,5k,Q,"a comment\nover two lines"\n'
        "2024-01-02,ann,bob,,,Z,\n"
    )
    _, _, err = run(capsys, "rate", "--algorithm", "sagc", str(games))
    assert [line.split(", column")[0] for line in err.splitlines()] == [
        f"{games}: line 2",
        f"{games}: line 4",
    ]


def test_an_unknown_algorithm_exits_2(club_file, capsys):
    status, out, err = run(capsys, "rate", "--algorithm", "elo", str(club_file))
    assert (status, out) == (2, "")
    assert err.startswith("unknown algorithm 'elo' (known: ")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ("opponent_memory=ten", "--params opponent_memory=ten: expected a value of type int"),
        ("memory=10", "--params memory: unknown parameter (known: index_limit, opponent_memory)"),
        ("index_limit", "--params index_limit: expected KEY=VALUE"),
        ("index_limit=0", "--params: index_limit must be between 1 and 100000"),
    ],
)
def test_bad_params_exit_2(club_file, capsys, params, message):
    status, out, err = run(capsys, "rate", "--algorithm", "sagc", "--params", params,
                           str(club_file))  # fmt: skip
    assert (status, out, err) == (2, "", message + "\n")


def test_params_override_the_defaults(tmp_path, capsys):
    games = tmp_path / "games.csv"
    games.write_text(
        "date,white,black,white_rank,black_rank,winner,status\n"
        "2024-01-01,ann,bob,10k,10k,W,free\n"
        "2024-01-01,ann,carl,,10k,W,free\n"
        "2024-01-01,ann,bob,,,W,normal\n"
    )
    # ann met bob among her last ten games (0.9: 332.96), but not in her last one.
    _, out, _ = run(capsys, "rate", "--algorithm", "sagc", str(games))
    assert out.splitlines()[5].split(",")[8] == "333"
    _, out, _ = run(capsys, "rate", "--algorithm", "sagc", "--params", "opponent_memory=1",
                    str(games))  # fmt: skip
    assert out.splitlines()[5].split(",")[8] == "370"


def test_a_starting_index_out_of_range_exits_2(club_file, tmp_path, capsys):
    players = tmp_path / "players.csv"
    players.write_text("ann,3k,1500\n")
    status, out, err = run(capsys, "rate", "--algorithm", "sagc", "--players", str(players),
                           str(club_file))  # fmt: skip
    assert (status, out) == (2, "")
    assert err == (
        f"{players}: player 'ann': an SAGC index is a whole number in -999..999, not 1500\n"
    )


def test_a_missing_file_exits_2(tmp_path, capsys):
    status, out, err = run(capsys, "rate", "--algorithm", "sagc", str(tmp_path / "none.csv"))
    assert (status, out) == (2, "")
    assert err == f"{tmp_path / 'none.csv'}: No such file or directory\n"


def test_history_of_a_standings_only_algorithm_exits_2_saying_so(club_file, capsys):
    status, out, err = run(capsys, "rate", "--algorithm", "gcr", str(club_file))
    assert (status, out) == (2, "")
    assert err == "gcr gives standings only: use --output standings\n"


def test_an_unknown_column_is_warned_about_on_stderr(tmp_path, capsys):
    games = tmp_path / "games.csv"
    games.write_text("date,white,black,white_rank,black_rank,winner,venue\n"
                     "2024-01-01,ann,bob,5k,5k,W,hall\n")  # fmt: skip
    status, out, err = run(capsys, "rate", "--algorithm", "sagc", str(games))
    assert status == 0
    assert len(out.splitlines()) == 3
    assert err == f"{games}: warning: ignoring unknown column 'venue'\n"


def test_a_usage_error_exits_2(capsys):
    with pytest.raises(SystemExit) as raised:
        main(["rate", "--algorithm", "sagc", "--output", "table", "games.csv"])
    assert raised.value.code == 2
    assert "invalid choice: 'table'" in capsys.readouterr().err


def test_help_exits_0_and_documents_the_command_and_both_outputs(capsys):
    with pytest.raises(SystemExit) as raised:
        main(["--help"])
    assert raised.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for words in (
        "rate",
        "history per player per game: player, opponent, opponent_rank, colour, handicap, komi, "
        "winner, status, change, new_value, new_rank, date, comment",
        "standings player, rank, value, games",
        "exit status is 2",
    ):
        assert words in text


def test_rate_help_lists_every_option(capsys):
    with pytest.raises(SystemExit) as raised:
        main(["rate", "--help"])
    assert raised.value.code == 0
    text = capsys.readouterr().out
    for option in ("--algorithm NAME", "--players FILE", "--params KEY=VALUE", "--output"):
        assert option in text
    assert "sagc" in text


def test_the_algorithms_command_lists_sagc_and_its_parameters(capsys):
    assert main(["algorithms"]) == 0
    out = capsys.readouterr().out
    assert "sagc: SAGC index\n    index_limit (int) = 999\n    opponent_memory (int) = 10\n" in out


def test_replaying_the_same_file_twice_gives_identical_output(tmp_path, capsys):
    games = tmp_path / "games.csv"
    buffer = io.StringIO()
    generate(buffer, Settings(games=1500, players=40, years=2, seed=7))
    games.write_text(buffer.getvalue(), encoding="utf-8")
    first = run(capsys, "rate", "--algorithm", "sagc", str(games))
    second = run(capsys, "rate", "--algorithm", "sagc", str(games))
    assert first == second
    assert first[0] == 0 and len(first[1].splitlines()) > 3000


def test_python_m_ratings_help_runs_as_a_program():
    result = subprocess.run(
        [sys.executable, "-m", "ratings", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout.startswith("usage: python -m ratings")


def test_importing_the_engine_imports_no_django_module():
    code = (
        "import sys\n"
        "import ratings.engine.cli, ratings.engine.algorithms, ratings.engine.formats.history\n"
        "from ratings.engine.algorithms import registry\n"
        "registry()\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'django'))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout == "[]\n"
