"""Bad input everywhere: the CSV reader, the command line and the importer never fail
with a crash, always name the line (and column), and store nothing on rejection."""

import io
from datetime import date, timedelta

import pytest
from django.core.management import CommandError, call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from players.models import Adjustment, Game, Player
from ratings.engine.cli import main
from ratings.engine.formats.games import read_games
from ratings.engine.records import COLUMNS, GameFileError
from tests import factories

CELL_VALUES = {
    "date": [
        "2024-01-05",
        "2024-13-01",
        "05/01/2024",
        "",
        "2024-1-5",
        "=1+1",
        "\uff12\uff10\uff12\uff14",
    ],
    "white": ["ann", "ben", "", "a b", "=cmd()", "x" * 200, "ann"],
    "black": ["ben", "cat", "", "ann", "@SUM(A1)", "-2"],
    "white_rank": ["3k", "2d", "", "0k", "51k", "10d", "abc", "9p", " 5 kyu "],
    "black_rank": ["12k", "", "1p", "50k", "31k"],
    "handicap": ["0", "2", "9", "10", "-1", "1.5", "", "two"],
    "komi": ["6.5", "0.5", "-5.5", "7.25", "51", "", "nan", "1e400"],
    "winner": ["W", "b", "D", "white", "x", "", "jigo"],
    "status": ["normal", "free", "Tournament", "internet", "adjustment", "blitz", ""],
    "board_size": ["19", "13", "9", "15", ""],
    "tournament": ["", "spring", "=HYPERLINK()"],
    "tournament_class": ["A", "b", "E", ""],
    "round": ["0", "1", "-3", "x", ""],
    "time_minutes": ["", "90", "45", "10", "0", "-5", "soon"],
    "value": ["", "100", "-50.5", "abc"],
    "algorithm": ["", "sagc", "anchor", "elo"],
    "comment": ["", "ok", "+cmd", 'naïve, "quoted"', "\u202eevil"],
}

row_strategy = st.fixed_dictionaries(
    {column: st.sampled_from(CELL_VALUES[column]) for column in COLUMNS}
)
file_strategy = st.tuples(
    st.lists(st.sampled_from(COLUMNS), min_size=0, max_size=len(COLUMNS), unique=True),
    st.lists(row_strategy, min_size=0, max_size=12),
)


def as_csv(columns, rows) -> str:
    import csv

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([row[column] for column in columns])
    return out.getvalue()


@settings(max_examples=300, deadline=None)
@given(file_strategy)
def test_the_reader_either_reads_or_names_every_bad_line(data):
    text = as_csv(*data)
    try:
        read_games(text)
    except GameFileError as error:
        assert error.errors
        for problem in error.errors:
            assert problem.line >= 1
            assert problem.message
            assert problem.column == "" or problem.column in COLUMNS


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_the_reader_survives_any_bytes(data):
    try:
        read_games(data)
    except GameFileError as error:
        assert str(error)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(file_strategy, st.sampled_from(["sagc", "egf-2021", "french", "gcr", "anchor"]))
def test_the_command_line_exits_0_or_2_and_never_crashes(tmp_path_factory, capsys, data, algorithm):
    path = tmp_path_factory.mktemp("fuzz") / "games.csv"
    path.write_text(as_csv(*data))
    output = "standings" if algorithm == "gcr" else "history"
    status = main(["rate", "--algorithm", algorithm, "--output", output, str(path)])
    captured = capsys.readouterr()
    assert status in (0, 2)
    if status == 2:
        assert captured.err.strip()
        assert "Traceback" not in captured.err


def test_a_file_in_the_wrong_encoding_is_refused_clearly():
    with pytest.raises(GameFileError, match="not UTF-8"):
        read_games("date,white,black,winner\n2024-01-01,José,Ana,W\n".encode("latin-1"))


@pytest.mark.django_db
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(file_strategy)
def test_the_importer_stores_all_or_nothing(tmp_path_factory, data):
    factories.user("system")
    path = tmp_path_factory.mktemp("fuzz") / "games.csv"
    path.write_text(as_csv(*data))
    games_before, players_before = Game.objects.count(), Player.objects.count()
    try:
        call_command("import_games", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    except CommandError as error:
        assert str(error)
        assert Game.objects.count() == games_before
        assert Player.objects.count() == players_before
    finally:
        Game.objects.all().delete()
        Adjustment.objects.all().delete()
        Player.objects.all().delete()


@pytest.mark.django_db
def test_a_huge_file_with_one_bad_row_at_the_end_names_it_and_stores_nothing(tmp_path):
    factories.user("system")
    start = date(2020, 1, 1)
    lines = ["date,white,black,white_rank,black_rank,winner"]
    lines += [
        f"{start + timedelta(days=n % 1500)},p{n % 300},p{(n + 1) % 300},10k,11k,{'WB'[n % 2]}"
        for n in range(20_000)
    ]
    lines.append("2024-01-01,p1,p1,,,W")
    path = tmp_path / "huge.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(CommandError) as error:
        call_command("import_games", str(path), "--allow-duplicates", stdout=io.StringIO())
    assert "line 20002" in str(error.value)
    assert "cannot play themselves" in str(error.value)
    assert not Game.objects.exists()
    assert not Player.objects.exists()


@pytest.mark.django_db
def test_a_game_in_the_future_is_refused_by_the_importer(tmp_path):
    factories.user("system")
    tomorrow = date.today() + timedelta(days=2)
    path = tmp_path / "future.csv"
    path.write_text(f"date,white,black,white_rank,black_rank,winner\n{tomorrow},a,b,3k,4k,W\n")
    with pytest.raises(CommandError, match="in the future"):
        call_command("import_games", str(path), stdout=io.StringIO())
    assert not Game.objects.exists()


@pytest.mark.django_db
def test_a_game_dated_year_one_is_refused_by_the_importer_at_its_line(tmp_path):
    factories.user("system")
    path = tmp_path / "year-one.csv"
    path.write_text("date,white,black,white_rank,black_rank,winner\n0001-01-01,a,b,3k,4k,W\n")
    with pytest.raises(CommandError) as error:
        call_command("import_games", str(path), stdout=io.StringIO())
    assert "line 2" in str(error.value)
    assert "0001-01-01 is before 1900-01-01, the earliest date a game can have" in str(error.value)
    assert not Game.objects.exists()
