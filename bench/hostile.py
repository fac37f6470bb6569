"""``python -m bench.hostile``: requests built to be slow or hungry (issue 25, item 16),
each timed through the test Client on a fresh SQLite database of its own, with the
process's peak resident memory after it.

- the resync preview of one player listed on 1,000, 3,000 and 10,000 lines (a gzip of
  a few hundred bytes; it was quadratic: 6.5 s, 17.1 s, then the worker killed at
  941 MiB);
- a record sheet posted with a forged ``form-TOTAL_FORMS`` of 1,000 (1,200 rows
  rendered in 17 to 27 s);
- a one-line h-file of 4.5 MB, and 15 MB of commas, to the tournament import and to
  the resync (7 s and 7.9 s to refuse).

A run rewrites its section of docs/performance.md (``bench:hostile``) unless
``--no-write`` or ``--quick``. ``make bench`` runs it in a process of its own (it
makes its own database).
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
SECTION = "hostile"


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: Sequence[str] | None = None, invoked_as: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.hostile", description=__doc__)
    parser.add_argument("--no-write", action="store_true", help="do not update the doc")
    parser.add_argument("--quick", action="store_true", help="the same requests, no doc update")
    parser.add_argument("--invoked-as", help="the command named in the doc (make bench's)")
    args = parser.parse_args(argv)
    invoked_as = invoked_as or args.invoked_as
    folder = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    os.environ["DATABASE_URL"] = f"sqlite:///{folder / 'db.sqlite3'}"
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clubrating.settings")
    os.environ.setdefault("LOG_LEVEL", "ERROR")

    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.test import Client

    from players.models import Player
    from players.services.accounts import Role, account_create
    from players.services.base import system_user
    from ratings.engine.ranks import parse_rank

    settings.ALLOWED_HOSTS = ["testserver"]
    settings.DEBUG = False
    call_command("migrate", verbosity=0)
    connie = account_create(
        user=system_user(), username="bench-connie", password="x" * 20, role=Role.COMMITTEE
    )
    Player.objects.create(
        username="thandi",
        full_name="Thandi Nkosi",
        entry_rank=parse_rank("5k"),
        national_rank=parse_rank("5k"),
    )
    client = Client()
    client.force_login(get_user_model().objects.get(pk=connie.pk))

    def resync_upload(name: str, data: bytes) -> Callable[[], int]:
        def post() -> int:
            upload = SimpleUploadedFile(name, data)
            body = {"list_file": upload, "effective_date": "2024-06-01", "note": ""}
            return client.post("/committee/resync/", body).status_code

        return post

    def tournament_upload(name: str, data: bytes) -> Callable[[], int]:
        def post() -> int:
            body = {"file": SimpleUploadedFile(name, data), "file_format": "", "code": ""}
            return client.post("/tournaments/import/", body).status_code

        return post

    def forged_sheet(total: int) -> Callable[[], int]:
        def post() -> int:
            body = {
                "form-TOTAL_FORMS": str(total),
                "form-INITIAL_FORMS": "0",
                "form-MIN_NUM_FORMS": "0",
                "form-MAX_NUM_FORMS": "200",
                "sheet-received_on": "2024-06-01",
            }
            return client.post("/sheets/new/", body).status_code

        return post

    cases: list[tuple[str, str, Callable[[], int]]] = []
    for lines in (1_000, 3_000, 10_000):
        data = gzip.compress(b"thandi,4k\n" * lines)
        label = f"resync preview: one player on {lines:,} lines"
        cases.append((label, f"{len(data)} B gzip", resync_upload("list.csv.gz", data)))
    cases.append(("sheet: forged form-TOTAL_FORMS", "1,000", forged_sheet(1_000)))
    one_line = b"x" * 4_500_000
    commas = b"," * 15_000_000
    cases.append(
        ("tournament import: one-line h-file", "4.5 MB", tournament_upload("t.h9", one_line))
    )
    cases.append(("tournament import: commas", "15 MB", tournament_upload("t.h9", commas)))
    cases.append(("resync: one-line list", "4.5 MB", resync_upload("list.csv", one_line)))
    cases.append(("resync: commas", "15 MB", resync_upload("list.csv", commas)))

    client.get("/committee/resync/")  # templates compiled
    rows = []
    for label, size, request in cases:
        started = time.perf_counter()
        status = request()
        seconds = time.perf_counter() - started
        rows.append((label, size, status, seconds, _peak_mib()))
        print(f"{label:>45} {size:>12}: {status} in {seconds:6.2f} s, peak {_peak_mib():,.0f} MiB")

    command = invoked_as or " ".join(["python -m bench.hostile", *(argv or [])])
    body = "\n".join(
        [
            f"Measured {datetime.now(UTC):%Y-%m-%d} on {platform.machine()}, Python "
            f"{platform.python_version()}, load {os.getloadavg()[0]:.1f} (`{command}`): each "
            "request once through the test Client, SQLite, signed in as a committee member; "
            "the peak is the process's resident memory so far (it only grows).",
            "",
            "| request | size | answer | time | peak RSS |",
            "|---|---|---|---|---|",
            *(
                f"| {label} | {size} | {status} | {seconds:.2f} s | {peak:,.0f} MiB |"
                for label, size, status, seconds, peak in rows
            ),
        ]
    )
    if not (args.no_write or args.quick):
        from bench.__main__ import write_section

        write_section(DOC, SECTION, body)
        print(f"{DOC.relative_to(ROOT)}: section bench:{SECTION} updated")
    failed = [label for label, _size, status, *_ in rows if status >= 500]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
