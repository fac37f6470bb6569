"""Fill a fresh database with a small demo club, through the same services the site uses."""

import json
import os
import random
import secrets
from datetime import date, timedelta
from decimal import Decimal

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from clubrating.devserver import DEMO_ACCOUNTS_FILE
from players.models import Club, ClubRole, Game, Player, Tournament
from players.services.adjustments import adjustment_apply
from players.services.games import GameInput, record_sheet_submit
from players.services.players import player_create
from ratings.engine.ranks import Rank

FIRST_NAMES = (
    "Thandi",
    "Pieter",
    "Lerato",
    "Johan",
    "Naledi",
    "Sipho",
    "Anneke",
    "Themba",
    "Zanele",
    "Ruan",
    "Mpho",
    "Elsa",
    "Kagiso",
    "Marike",
    "Tumelo",
    "Chen",
    "Yuki",
    "Amara",
    "Luca",
    "Sofia",
    "Arjun",
    "Ingrid",
    "Kofi",
    "Mei",
    "Dawid",
    "Nomsa",
    "Pablo",
    "Hana",
    "Sizwe",
    "Lena",
    "Tomas",
    "Aiko",
)
LAST_NAMES = (
    "Nkosi",
    "Botha",
    "Mokoena",
    "van Wyk",
    "Dlamini",
    "Naidoo",
    "Pretorius",
    "Khumalo",
    "Smit",
    "Mthembu",
    "du Plessis",
    "Zulu",
    "Steyn",
    "Ndlovu",
    "Venter",
    "Li",
    "Tanaka",
    "Osei",
    "Rossi",
    "Garcia",
    "Patel",
    "Berg",
    "Mensah",
    "Wang",
)

DEMO_SEED = 20240601


class Command(BaseCommand):
    help = (
        "Load a small demo club into a fresh database: 30 players in 2 clubs, 300 games over "
        "the last year, a tournament, a few adjustments, and the demo users `volunteer` and "
        "`committee` (their passwords are printed)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="do nothing when the database already has players (what `make run` uses)",
        )

    def handle(self, *args, if_empty, **options):
        if Player.objects.exists():
            if if_empty:
                self.stdout.write("The database already has players; the demo was not loaded.")
                return
            raise CommandError(
                "the database already has players: the demo only goes into a fresh database"
            )
        with transaction.atomic():
            clubs = self._clubs()
            passwords = self._users(clubs)
            self._club(clubs)
        self.stdout.write(self.style.SUCCESS("Demo club loaded."))
        for username, password in passwords.items():
            self.stdout.write(f"  log in as {username} / {password}")
        self._save_passwords(passwords)

    def _save_passwords(self, passwords: dict[str, str]) -> None:
        """Keep the passwords in the var folder, readable by this user only, for `make
        run` to print again once the site is ready (clubrating/devserver.py)."""
        settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
        path = settings.VAR_DIR / DEMO_ACCOUNTS_FILE
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            json.dump(passwords, file)

    @staticmethod
    def _clubs() -> list[Club]:
        start = timezone.localdate() - timedelta(days=365)
        return [
            Club.objects.create(name="Cape Town Go Club", founded=start - timedelta(days=3650)),
            Club.objects.create(name="Stellenbosch Go Club", founded=start - timedelta(days=5000)),
        ]

    def _users(self, clubs: list[Club]) -> dict[str, str]:
        """The federation's committee (``committee``: every club) and a volunteer and a
        committee member of each club (``capetown-volunteer``...)."""
        passwords = {}
        users = get_user_model()
        volunteers = Group.objects.get(name="volunteers")
        committee = Group.objects.get(name="committee")
        accounts: list[tuple[str, list[Group], Club | None]] = [
            ("committee", [volunteers, committee], None)
        ]
        for home in clubs:
            prefix = slugify(home.name.removesuffix(" Go Club")).replace("-", "")
            accounts += [
                (f"{prefix}-volunteer", [volunteers], home),
                (f"{prefix}-committee", [committee], home),
            ]
        for username, groups, club in accounts:
            password = secrets.token_urlsafe(9)
            # The federation's committee is staff: it creates clubs in the admin.
            user = users.objects.create_user(
                username=username, password=password, is_staff=club is None
            )
            if club is None:
                user.groups.set(groups)
            else:
                ClubRole.objects.bulk_create(
                    ClubRole(user=user, group=group, club=club) for group in groups
                )
            passwords[username] = password
        return passwords

    def _club(self, clubs: list[Club]) -> None:
        rng = random.Random(DEMO_SEED)
        volunteers = [
            get_user_model().objects.get(
                club_roles__club=club, club_roles__group__name="volunteers"
            )
            for club in clubs
        ]
        committee = get_user_model().objects.get(username="committee")
        today = timezone.localdate()
        start = today - timedelta(days=365)
        players = self._club_players(rng, committee, clubs)
        opening = start + timedelta(days=180)
        tournament = Tournament.objects.create(
            code="demo-open",
            name="Demo Club Open",
            start_date=opening,
            end_date=start + timedelta(days=181),
            egf_class=Tournament.EgfClass.B,
            club=clubs[0],
        )
        games = self._club_games(rng, players, start, opening, tournament)
        self._club_sheets(games, volunteers, clubs)
        for player in rng.sample(players, 3):
            adjustment_apply(
                user=committee,
                player=player,
                date=start + timedelta(days=270),
                new_rank=Rank(min(8, player.entry_rank.stones + 1)),
                reason="resync",
                comment="Resync with the national list",
            )

    @staticmethod
    def _club_players(rng: random.Random, committee, clubs: list[Club]) -> list[Player]:
        """Thirty players of the two clubs in turn, of ranks around 12k."""
        players = []
        names = rng.sample([(f, s) for f in FIRST_NAMES for s in LAST_NAMES], 30)
        for number, (first, last) in enumerate(names):
            stones = max(-30, min(5, round(rng.gauss(-12, 8))))
            username = f"{first.lower()}{last.split()[-1][:1].lower()}{number}"
            players.append(
                player_create(
                    user=committee,
                    username=username,
                    full_name=f"{first} {last}",
                    entry_rank=Rank(stones),
                    club=clubs[number % 2],
                )
            )
        return players

    def _club_games(
        self,
        rng: random.Random,
        players: list[Player],
        start: date,
        opening: date,
        tournament: Tournament,
    ) -> list[GameInput]:
        """A year of club games from ``start``, and the tournament's five rounds of
        eight players from ``opening``, in the order they were played."""
        games = []
        for _ in range(280):
            day = start + timedelta(days=rng.randrange(365))
            games.append(self._club_game(rng, players, day))
        for round_number in range(1, 6):
            day = opening + timedelta(days=(round_number - 1) // 3)
            entrants = rng.sample(players, 8)
            for white, black in zip(entrants[::2], entrants[1::2], strict=True):
                games.append(
                    self._club_game(
                        rng, players, day, white, black, tournament=tournament, round=round_number
                    )
                )
        games.sort(key=lambda game: game.date)
        return games

    @staticmethod
    def _club_sheets(games: list[GameInput], volunteers: list, clubs: list[Club]) -> None:
        """Sheets arrive in the order they were played, ten games a sheet, the two
        clubs' in turn, each entered by its club's volunteer (members of both play at
        each); a sheet holding a tournament's games is its club's (only a tournament's
        club's volunteers add games to it)."""
        for first_game in range(0, len(games), 10):
            sheet = games[first_game : first_game + 10]
            hosts = [
                game.tournament.club_id
                for game in sheet
                if game.tournament is not None and game.tournament.club_id is not None
            ]
            ids = [each.pk for each in clubs]
            club = ids.index(hosts[0]) if hosts else first_game // 10 % len(clubs)
            record_sheet_submit(
                user=volunteers[club],
                games=sheet,
                received_on=games[min(first_game + 9, len(games) - 1)].date,
                note="Demo sheet",
                allow_duplicates=True,
                club=clubs[club],
            )

    @staticmethod
    def _club_game(rng, players, day, white=None, black=None, **extra) -> GameInput:
        if white is None:
            white, black = rng.sample(players, 2)
        if white.entry_rank.stones < black.entry_rank.stones:
            white, black = black, white
        gap = white.entry_rank.stones - black.entry_rank.stones
        handicap = min(9, gap) if gap >= 2 else 0
        # The stronger player wins a little more often than the handicap allows for.
        white_wins = rng.random() < 0.5 + 0.03 * (gap - handicap)
        status = extra.pop("status", None) or (
            Game.Status.TOURNAMENT
            if extra.get("tournament")
            else rng.choices(
                [Game.Status.NORMAL, Game.Status.FREE, Game.Status.INTERNET], [0.85, 0.1, 0.05]
            )[0]
        )
        return GameInput(
            date=day,
            white=white,
            black=black,
            winner="W" if white_wins else "B",
            handicap=handicap,
            komi=Decimal("6.5") if handicap == 0 else Decimal("0.5"),
            status=status,
            **extra,
        )
