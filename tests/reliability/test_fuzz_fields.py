"""Every integer, decimal, float and file field of every form, fed extreme and broken
values one at a time (the rest of the form valid): never a server error, and nothing
stored when the form is refused. ``FIELDS_FUZZED`` names, for each form class, the
fields fuzzed here; a new numeric or file field in any form fails
``test_every_numeric_and_file_field_of_every_form_is_fuzzed`` until it is added.
"""

import importlib
import inspect
import io
from datetime import date

import pytest
from django import forms
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from players.entry.tournament_forms import pack
from players.models import Tournament
from players.services.games import record_sheet_submit
from ratings.engine.cli import main as ratings_cli
from ratings.engine.formats import read_tournament_file
from ratings.engine.records import GameFileError
from tests import factories
from tests.engine.test_egd_format import SPRING_CUP
from tests.engine.test_opengotha_format import SPRING_CUP as SPRING_CUP_XML
from tests.reliability.test_fuzz_forms import assert_no_server_error_and_all_or_nothing
from tests.web.entry.test_sheet_entry import ROW_DEFAULTS, sheet_post

pytestmark = pytest.mark.django_db

FORM_MODULES = [
    "players.entry.forms",
    "players.committee.forms",
    "players.entry.tournament_forms",
    "players.public.forms",
    "players.account.forms",
    "players.public.calculator_forms",
]
NUMERIC_AND_FILE = (forms.IntegerField, forms.DecimalField, forms.FloatField, forms.FileField)

# form class -> its numeric and file fields fuzzed below
FIELDS_FUZZED = {
    "players.entry.forms.GameFieldsForm": {"handicap", "komi", "round", "time_minutes"},
    "players.entry.forms.SheetGameForm": {"handicap", "komi", "round", "time_minutes"},
    "players.entry.forms.GameCorrectionForm": {
        "handicap",
        "komi",
        "round",
        "time_minutes",
        "version",
    },
    "players.entry.forms.GameVoidForm": {"version"},
    "players.committee.forms.AdjustmentForm": {"value"},
    "players.committee.forms.ResyncForm": {"list_file"},
    "players.entry.tournament_forms.TournamentUploadForm": {"file"},
    "players.public.forms.RatingListFilterForm": {"active_months"},
    "players.public.forms.GameSearchForm": {"handicap"},
    "players.public.calculator_forms.CalculatorForm": {"white_value", "black_value", "komi"},
}

NUMBERS = [
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "1" * 400,
    "1e30",
    "-1e30",
    "1e308",
    "1e309",
    "1e-30",
    "0.000000001",
    "6.55",
    "-0",
    "Infinity",
    "-inf",
    "NaN",
    "sNaN",
    "0x10",
    "١٢",
    "½",
    " 7 ",
    "7\x00",
    "",
]

KLINGON_XML = SPRING_CUP_XML.replace('encoding="UTF-8"', 'encoding="x-klingon"', 1)
NUL_NAME_H9 = SPRING_CUP.replace("Smith John", "Smith J\x00hn")
FILES = [
    b"",
    b"\x00" * 64,
    bytes(range(256)),
    b"\xff\xfe" + "thandi, 4k\n".encode("utf-16-le"),
    b"a" * 100_000,
    KLINGON_XML.encode("utf-8"),
    b'<?xml version="1.0" encoding="utf-7"?><Tournament/>',
    NUL_NAME_H9.encode("utf-8"),
    SPRING_CUP.encode("utf-8"),
]


def test_every_numeric_and_file_field_of_every_form_is_fuzzed():
    found = {}
    for module_name in FORM_MODULES:
        module = importlib.import_module(module_name)
        for name, form_class in inspect.getmembers(module, inspect.isclass):
            if form_class.__module__ != module_name or not issubclass(form_class, forms.BaseForm):
                continue
            fields = {
                field_name
                for field_name, field in form_class.base_fields.items()
                if isinstance(field, NUMERIC_AND_FILE)
            }
            if fields:
                found[f"{module_name}.{name}"] = fields
    assert found == FIELDS_FUZZED


@pytest.fixture
def world(client):
    connie = factories.committee_member("connie")
    client.force_login(connie)
    ann, ben = factories.player("ann", "3k"), factories.player("ben", "6k")
    stored = record_sheet_submit(
        user=connie, games=[factories.game(ann, ben, "W", date(2024, 3, 1))]
    ).games[0]
    return client, stored


def game_row(**changes) -> dict:
    return {**ROW_DEFAULTS, "date": "2024-03-02", "white": "ann", "black": "ben", "winner": "W"} | (
        changes
    )


@pytest.mark.parametrize("number", NUMBERS)
@pytest.mark.parametrize("field", ["handicap", "komi", "round", "time_minutes"])
def test_the_sheet_form_takes_any_number(world, field, number):
    client, _ = world
    data = sheet_post(game_row(**{field: number}))
    assert_no_server_error_and_all_or_nothing(client, reverse("sheet_new"), data)


@pytest.mark.parametrize("number", NUMBERS)
@pytest.mark.parametrize("field", ["handicap", "komi", "round", "time_minutes", "version"])
def test_the_game_correction_form_takes_any_number(world, field, number):
    client, game = world
    data = game_row(version=str(game.version)) | {field: number}
    assert_no_server_error_and_all_or_nothing(client, reverse("game_edit", args=[game.pk]), data)


@pytest.mark.parametrize("number", NUMBERS)
def test_the_void_form_takes_any_version(world, number):
    client, game = world
    data = {"reason": "entered twice", "version": number}
    assert_no_server_error_and_all_or_nothing(client, reverse("game_void", args=[game.pk]), data)


@pytest.mark.parametrize("number", NUMBERS)
def test_the_adjustment_form_takes_any_value(world, number):
    client, _ = world
    data = {
        "date": "2024-03-02",
        "new_rank": "2k",
        "algorithm": "sagc",
        "value": number,
        "reason": "committee",
        "comment": "",
    }
    url = reverse("committee_adjust", args=["ann"])
    assert_no_server_error_and_all_or_nothing(client, url, data)


@pytest.mark.parametrize("number", NUMBERS)
def test_the_rating_list_takes_any_active_months(world, number):
    client, _ = world
    assert client.get(reverse("home"), {"active_months": number}).status_code == 200


@pytest.mark.parametrize("number", NUMBERS)
def test_the_games_search_takes_any_handicap(world, number):
    client, _ = world
    for url in (reverse("game_search"), reverse("games_export_csv")):
        assert client.get(url, {"handicap": number}).status_code in (200, 400)


@pytest.mark.parametrize("number", NUMBERS)
@pytest.mark.parametrize("field", ["white_value", "black_value", "komi"])
def test_the_calculator_takes_any_number(world, field, number):
    client, _ = world
    params = {"white_rank": "3k", "black_rank": "5k", "value_scale": "sagc", field: number}
    assert client.get(reverse("calculator"), params).status_code == 200


@pytest.mark.parametrize("content", FILES, ids=range(len(FILES)))
def test_the_resync_upload_takes_any_file(world, content):
    client, _ = world
    data = {"list_file": SimpleUploadedFile("list.csv", content), "effective_date": "2024-03-02"}
    assert_no_server_error_and_all_or_nothing(client, reverse("committee_resync"), data)


@pytest.mark.parametrize("content", FILES, ids=range(len(FILES)))
@pytest.mark.parametrize("name", ["cup.h9", "cup.xml"])
def test_the_tournament_upload_takes_any_file(world, content, name):
    client, _ = world
    data = {"file": SimpleUploadedFile(name, content)}
    assert_no_server_error_and_all_or_nothing(client, reverse("tournament_import"), data)


@pytest.mark.parametrize("content", FILES, ids=range(len(FILES)))
@pytest.mark.parametrize("file_format", ["egd", "opengotha"])
def test_the_tournament_confirmation_takes_any_file_sent_back(world, content, file_format):
    client, _ = world
    data = {
        "content": pack(content),
        "filename": "cup",
        "file_format": file_format,
        "code": "cup",
        "tournament_class": "B",
        "shown": "0",
        "action": "import",
    }
    assert_no_server_error_and_all_or_nothing(client, reverse("tournament_import"), data)


# --- the files of the findings, by name -------------------------------------------------


def test_an_unknown_xml_encoding_is_a_clear_error():
    with pytest.raises(GameFileError) as raised:
        read_tournament_file(KLINGON_XML.encode(), "opengotha", "cup.xml")

    assert [(e.line, e.column) for e in raised.value.errors] == [(1, "encoding")]
    assert "unknown encoding: x-klingon" in raised.value.errors[0].message


def test_the_command_line_reports_an_unknown_xml_encoding_without_a_traceback(tmp_path, capsys):
    path = tmp_path / "cup.xml"
    path.write_text(KLINGON_XML)

    status = ratings_cli(["rate", "--algorithm", "sagc", "--format", "opengotha", str(path)])

    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert "unknown encoding: x-klingon" in err
    assert "Traceback" not in err


def test_a_nul_in_a_name_of_an_h_file_is_refused_at_its_line_in_the_preview(world):
    client, _ = world

    response = client.post(
        reverse("tournament_import"), {"file": SimpleUploadedFile("cup.h9", NUL_NAME_H9.encode())}
    )

    assert response.status_code == 200
    assert [(e.line, e.message) for e in response.context["file_errors"]] == [
        (11, "control character U+0000 at column 13: a tournament file holds text only")
    ]
    assert not Tournament.objects.exists()


def test_a_nul_in_a_name_of_an_h_file_sent_back_to_import_is_refused(world):
    client, _ = world
    data = {
        "content": pack(NUL_NAME_H9.encode()),
        "filename": "cup.h9",
        "file_format": "egd",
        "code": "cup",
        "tournament_class": "B",
        "action": "import",
    }

    response = client.post(reverse("tournament_import"), data, follow=True)

    assert response.status_code == 200
    assert "did not come back intact" in response.content.decode()
    assert not Tournament.objects.exists()


def test_import_tournament_refuses_a_nul_in_a_name_with_a_command_error(tmp_path):
    path = tmp_path / "cup.h9"
    path.write_bytes(NUL_NAME_H9.encode())

    with pytest.raises(CommandError, match="line 11: control character U\\+0000"):
        call_command("import_tournament", str(path), "--yes", stdout=io.StringIO())
    assert not Tournament.objects.exists()
