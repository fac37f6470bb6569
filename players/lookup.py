"""The one player lookup of every page (record sheet, adjust, merge, calculator, the
rating list's search): a player is found by username, full name in either order,
family name or an identifier (EGD PIN), whatever the accents and case; a typo is
answered with the closest names ("did you mean").

``PlayerIndex`` holds every player's normalised keys, loaded with one query of a few
columns and kept by the process until a player may have changed (``player_index``);
``PlayerIndex.find`` says which player a text names, or which players it could name.
At 10,000 players, on the shared 2-core machine under load: the index 0.7-1.2 s to
build, a typo's suggestions, a reversed name and a PIN 10-40 ms together
(tests/players/test_lookup.py pins it under 0.5 s). Pages that resolve a few names at
once (a sheet) first try the usernames with one query and build the index only for
what that did not find (``Directory`` in ``players.entry.forms``).
"""

from __future__ import annotations

import difflib
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from django import forms
from django.db.models import Count, Max, QuerySet
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from .models import AuditEntry, Player

# Names a player is found by, compared word by word (any order, accents and case
# ignored). A new name field of Player is added here, in one line.
NAME_FIELDS: tuple[str, ...] = ("full_name",)
# Identifiers found only whole (an EGD PIN, a national id): one line each, too.
IDENTIFIER_FIELDS: tuple[str, ...] = ("egd_pin",)
SUGGESTIONS = 5  # the "did you mean" names offered at most
# How alike a key and the text must be to be suggested (difflib's ratio, 0..1).
SUGGESTION_CUTOFF = 0.6

MATCHES_SHOWN = 8  # the players an ambiguous text lists at most
# A suggestion is measured (difflib) only against the keys sharing the most trigrams
# with the text: this many, so that a typo costs milliseconds among 10,000 players.
CANDIDATES = 60

_SEPARATORS = str.maketrans({",": " ", ";": " ", ".": " ", "_": " ", "-": " ", "'": ""})


def normalise(text: str) -> str:
    """``text`` without accents, in lower case, with its words separated by one space:
    "Élsa  BOTHA" and "elsa botha" are the same."""
    text = text or ""
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(char for char in decomposed if not unicodedata.combining(char))
    return " ".join(text.casefold().split())


def _words(text: str) -> list[str]:
    """The words of a normalised text, punctuation read as spaces."""
    return text.translate(_SEPARATORS).split()


def _name_words(text: str) -> tuple[str, ...]:
    """The words of a name in a fixed order, so that "Botha, Elsa" is "Elsa Botha"."""
    return tuple(sorted(_words(normalise(text))))


def _trigrams(key: str) -> set[str]:
    padded = f"  {key} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


@dataclass
class Lookup:
    """What a typed text names: one ``player``; or several ``matches`` (ambiguous); or
    nobody, with the closest ``suggestions``."""

    text: str
    player: Player | None = None
    matches: list[Player] = field(default_factory=list)
    suggestions: list[Player] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return self.player is not None

    def message(self, if_new: str = "") -> str:
        """Why the text names nobody, for the field it was typed in; ``if_new`` is what
        to do if it is a new player (the sheet: "add them first")."""
        values = {"text": self.text, "if_new": if_new}
        if len(self.matches) == 1:  # a first name alone, which never picks a player
            return _(
                "'%(text)s' is only part of a name: %(players)s? Type the username or the full name"
            ) % {**values, "players": describe(self.matches)}
        if self.matches:
            return ngettext(
                "'%(text)s' fits %(count)s player: %(players)s; type the username",
                "'%(text)s' fits %(count)s players: %(players)s; type the username",
                len(self.matches),
            ) % {
                **values,
                "count": number_format(len(self.matches), force_grouping=True),
                "players": describe(self.matches),
            }
        if self.suggestions:
            values["players"] = describe(
                self.suggestions, " {} ".format(pgettext("one player or another", "or"))
            )
            if if_new:
                return (
                    _("no player '%(text)s' — did you mean %(players)s? If not, %(if_new)s")
                    % values
                )
            return _("no player '%(text)s' — did you mean %(players)s?") % values
        if if_new:
            return _("no player '%(text)s' — %(if_new)s") % values
        return _("no player '%(text)s'") % values


def describe(players: Iterable[Player], last: str = ", ") -> str:
    """Players as a volunteer tells them apart: username, then the name in brackets."""
    names = [
        f"{player.username} ({player.full_name})"
        if player.full_name and player.full_name != player.username
        else player.username
        for player in players
    ]
    if len(names) > 1 and last != ", ":
        return ", ".join(names[:-1]) + last + names[-1]
    return ", ".join(names)


def lookup_players() -> QuerySet[Player]:
    """The players a lookup may name: every record not erased (a merged record too, so
    that its old username still says where it went)."""
    return Player.objects.filter(erased_at__isnull=True)


class PlayerIndex:
    """Every player's lookup keys, from one query; the players themselves are loaded
    (one more query) only for the ones a lookup returns."""

    def __init__(self, players: QuerySet[Player] | None = None) -> None:
        self._queryset = lookup_players() if players is None else players
        columns = ("pk", "username", "active", *NAME_FIELDS, *IDENTIFIER_FIELDS)
        # pk -> what orders a list of players: active ones first, then by username
        self._order: dict[int, tuple[bool, str]] = {}
        self._username: dict[str, int] = {}
        self._names: dict[tuple[str, ...], list[int]] = defaultdict(list)
        self._family: dict[str, list[int]] = defaultdict(list)
        self._words: dict[str, list[int]] = defaultdict(list)
        self._identifiers: dict[str, list[int]] = defaultdict(list)
        # The texts a suggestion is measured against (usernames, names), each with its
        # players, and the keys each trigram occurs in.
        self._keys: dict[str, set[int]] = defaultdict(set)
        names_end = 3 + len(NAME_FIELDS)
        for row in self._queryset.order_by().values_list(*columns):
            pk, username, active = row[:3]
            self._order[pk] = (not active, username)
            key = normalise(username)
            self._username.setdefault(key, pk)
            self._keys[key].add(pk)
            for name in row[3:names_end]:
                words = _words(normalise(name))
                if not words:
                    continue
                self._names[tuple(sorted(words))].append(pk)
                self._keys[" ".join(words)].add(pk)
                self._family[words[-1]].append(pk)
                for word in set(words):
                    self._words[word].append(pk)
            for identifier in row[names_end:]:
                if identifier and identifier.strip():
                    self._identifiers[normalise(identifier)].append(pk)

    @cached_property
    def _trigram_keys(self) -> dict[str, list[str]]:
        """trigram -> the keys holding it (built when the first typo needs it)."""
        postings: dict[str, list[str]] = defaultdict(list)
        for key in self._keys:
            for trigram in _trigrams(key):
                postings[trigram].append(key)
        return postings

    def __len__(self) -> int:
        return len(self._order)

    def _players(self, ids: Iterable[int], limit: int | None = None) -> list[Player]:
        """The players of ``ids`` (the first ``limit``), active ones first, then by
        username."""
        wanted = sorted(set(ids) & self._order.keys(), key=self._order.__getitem__)[:limit]
        loaded = self._queryset.select_related("club", "merged_into").in_bulk(wanted)
        return [loaded[pk] for pk in wanted if pk in loaded]

    def _one_or_many(self, text: str, ids: list[int]) -> Lookup:
        # Loaded afresh: a player erased since the index was built is not returned.
        players = self._players(ids, MATCHES_SHOWN)
        if len(players) == 1:
            return Lookup(text, player=players[0])
        return Lookup(text, matches=players)

    def find(self, text: str) -> Lookup:
        """The player ``text`` names: a username, an identifier, a full name (words in
        any order) or a family name that only one player has. Several players sharing
        the name are ``matches``; nobody gives ``suggestions``."""
        text = (text or "").strip()
        key = normalise(text)
        if not key or "\x00" in key:
            return Lookup(text)
        if key in self._username:
            return self._one_or_many(text, [self._username[key]])
        for ids in (self._identifiers.get(key), self._names.get(_name_words(text))):
            if ids:
                return self._one_or_many(text, ids)
        words = _name_words(text)
        if len(words) == 1:
            family = self._family.get(words[0])
            if family:
                return self._one_or_many(text, family)
            first = self._words.get(words[0])
            if first:  # a first name alone never picks a player, however few share it
                return Lookup(text, matches=self._players(first, MATCHES_SHOWN))
        return Lookup(text, suggestions=self.suggest(text))

    def suggest(self, text: str, limit: int = SUGGESTIONS) -> list[Player]:
        """The players whose username or name is closest to ``text`` (difflib's ratio on
        the normalised texts)."""
        key = " ".join(_words(normalise(text)))
        if not key:
            return []
        shared: Counter[str] = Counter()
        for trigram in _trigrams(key):
            shared.update(self._trigram_keys.get(trigram, ()))
        candidates = [candidate for candidate, _ in shared.most_common(CANDIDATES)]
        close = difflib.get_close_matches(key, candidates, n=limit, cutoff=SUGGESTION_CUTOFF)
        ids = [pk for match in close for pk in sorted(self._keys[match])]
        players = {player.pk: player for player in self._players(ids)}
        return [players[pk] for pk in dict.fromkeys(ids) if pk in players][:limit]

    def search_ids(self, text: str) -> list[int]:
        """The players any of whose keys contains ``text`` (normalised), or whose
        identifier is ``text``: the rating list's search."""
        key = normalise(text)
        if not key or "\x00" in key:
            return []
        spaced = " ".join(_words(key))
        ids = set(self._identifiers.get(key, ()))
        ids.update(self._names.get(_name_words(text), ()))
        for indexed, players in self._keys.items():
            if key in indexed or (spaced and spaced in indexed):
                ids.update(players)
        return sorted(ids)

    def search(self, text: str, limit: int) -> list[Player]:
        """The players :meth:`search_ids` finds (active first), or, when it finds
        nobody, the closest names."""
        ids = self.search_ids(text)
        return self._players(ids, limit) if ids else self.suggest(text, limit)

    def similar_names(self, full_name: str, limit: int = SUGGESTIONS) -> list[Player]:
        """Players a new record called ``full_name`` could duplicate: the same name in
        any order, or a close one."""
        same = self._names.get(_name_words(full_name), [])
        close = [player.pk for player in self.suggest(full_name, limit)]
        return self._players([*same, *close], limit)


_cached_index: tuple[tuple, PlayerIndex] | None = None


def _players_version() -> tuple:
    """What changes whenever a lookup key may have: every write to a player is audited
    (the latest audit entry), and factories or imports add players (their number, the
    latest one). The time stamps tell apart databases that reuse ids after a rollback."""
    latest = AuditEntry.objects.order_by("-id").values_list("id", "at").first()
    players = Player.objects.aggregate(count=Count("pk"), last=Max("pk"), at=Max("created_at"))
    return (latest, players["count"], players["last"], players["at"])


def player_index() -> PlayerIndex:
    """The index of every player not erased, kept by this process until a player may
    have changed: building it takes most of a second at 10,000 players, checking that
    it is current two small queries."""
    global _cached_index
    version = _players_version()
    if _cached_index is None or _cached_index[0] != version:
        _cached_index = (version, PlayerIndex())
    return _cached_index[1]


class LazyIndex:
    """The player index, fetched the first time it is needed, then kept (one per
    request or per formset): most lookups are usernames, found without it."""

    @cached_property
    def index(self) -> PlayerIndex:
        return player_index()


def find_player(text: str, index: PlayerIndex | LazyIndex | None = None) -> Lookup:
    """What ``text`` names: the exact username with one query, else the index (a
    ``LazyIndex`` shared by the fields of one form, or a new one)."""
    text = (text or "").strip()
    if not text or "\x00" in text:
        return Lookup(text)
    exact = lookup_players().select_related("club", "merged_into").filter(username=text).first()
    if exact is not None:
        return Lookup(text, player=exact)
    if isinstance(index, LazyIndex):
        index = index.index
    return (index or player_index()).find(text)


def player_from_text(
    text: str, index: PlayerIndex | LazyIndex | None = None, *, first_name_will_do: bool = False
) -> Player:
    """The player ``text`` names, for a form field (see :func:`resolve`)."""
    return resolve(find_player(text, index), first_name_will_do=first_name_will_do)


def resolve(found: Lookup, if_new: str = "", *, first_name_will_do: bool = False) -> Player:
    """The player of a lookup; a ValidationError saying which players it could be
    otherwise (code "unknown" when it names nobody, so that a page can offer to add
    them; ``if_new`` as for ``Lookup.message``). A merged record is refused with the
    record it went to. ``first_name_will_do``: a word of one player's name only (a
    first name nobody else has) names them, for a page that only reads (the
    head-to-head), where a wrong pick costs a click; pages that write ask for more."""
    player = found.player
    if player is None and first_name_will_do and len(found.matches) == 1:
        player = found.matches[0]
    if player is None:
        raise forms.ValidationError(
            found.message(if_new), code="ambiguous" if found.matches else "unknown"
        )
    if player.merged_into is not None:
        raise forms.ValidationError(
            _("%(username)s was merged into %(into)s: use %(into)s")
            % {"username": player.username, "into": player.merged_into.username},
            code="merged",
        )
    return player
