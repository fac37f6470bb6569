"""Where the recompute keeps its checkpoints: dense near the end of the history, where
entries land, and sparse further back, so that a back-dated entry replays about its
tail and a long history keeps few states."""

import json
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ratings.engine.records import GameRecord
from ratings.models import Checkpoint
from ratings.recompute import checkpoints
from ratings.selectors import ReplayKey

pytestmark = pytest.mark.django_db


def stored_at(positions) -> None:
    Checkpoint.objects.bulk_create(
        Checkpoint(
            algorithm="sagc",
            date=date(2024, 1, 1),
            round=0,
            seq=position,
            position=position,
            state="{}",
        )
        for position in positions
    )


def kept() -> list[int]:
    return sorted(Checkpoint.objects.filter(algorithm="sagc").values_list("position", flat=True))


def test_thinning_keeps_the_checkpoints_near_the_end_and_few_further_back():
    end = 2000
    stored_at(range(0, end, 2))  # what one entry after another leaves behind

    checkpoints.thin("sagc", end)

    positions = kept()
    assert len(positions) < 100
    assert positions[-10:] == list(range(end - 20, end, 2))
    # A back-dated entry at any position replays from the checkpoint before it: at
    # most about a ninth of its distance from the end more than its own tail.
    for position in range(positions[0], end):
        before = max(checkpoint for checkpoint in positions if checkpoint <= position)
        assert position - before <= (end - position) / 9 + 3


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(positions=st.sets(st.integers(min_value=1, max_value=2999), max_size=120))
def test_thinning_never_sends_an_entry_back_further_than_a_ninth_of_its_tail(positions):
    Checkpoint.objects.all().delete()
    end = 3000
    stored_at(sorted(positions))

    checkpoints.thin("sagc", end)

    before_thinning = [0, *sorted(positions)]
    after_thinning = [0, *kept()]
    for position in range(end):
        was = max(checkpoint for checkpoint in before_thinning if checkpoint <= position)
        now = max(checkpoint for checkpoint in after_thinning if checkpoint <= position)
        assert position - now <= max(position - was, (end - position) / 9), position


def test_thinning_leaves_other_algorithms_alone():
    Checkpoint.objects.create(
        algorithm="anchor", date=date(2024, 1, 1), round=0, seq=1, position=1, state="{}"
    )
    stored_at(range(0, 1000, 2))

    checkpoints.thin("sagc", 1000)

    assert Checkpoint.objects.filter(algorithm="anchor").count() == 1


def replay_checkpoints(
    units: int, every: int, players: int, history: int | None = None
) -> list[int]:
    """Where a full replay of ``units`` units stores its checkpoints (``history``: the
    records of the whole history, as the recompute passes it)."""
    positions, since = [], 0
    for done in range(units):
        if done and checkpoints.due(since, units - done, every, players, history):
            positions.append(done)
            since = 0
        since += 1
    return positions


def test_a_full_replay_of_a_million_games_stores_a_few_dozen_states():
    positions = replay_checkpoints(1_000_000, every=5000, players=10_000)

    assert 10 <= len(positions) <= 40
    # near the end: every 20,000 units (a checkpoint of 10,000 players is dear)
    assert positions[-1] >= 1_000_000 - 20_000
    assert positions[-1] - positions[-2] == 20_000


def test_a_small_club_keeps_the_setting_as_its_spacing_near_the_end():
    positions = replay_checkpoints(20_000, every=1000, players=300)

    assert positions[-1] - positions[-2] == 1000


def test_near_the_end_of_a_short_history_the_checkpoints_are_a_fortieth_of_it_apart():
    # A site of real tournaments: 17,000 games among 3,400 players. The setting's 2,000
    # games (2,720 with that many players) would be a sixth of the history; an entry a
    # week back would replay that much.
    positions = replay_checkpoints(17_000, every=2000, players=3400, history=17_000)

    assert 17_000 - positions[-1] <= 17_000 // 40
    assert positions[-1] - positions[-2] == 17_000 // 40


def test_a_long_history_keeps_the_settings_spacing_near_the_end():
    positions = replay_checkpoints(1_000_000, every=5000, players=10_000, history=1_000_000)

    assert positions[-1] - positions[-2] == 20_000


@settings(max_examples=300, deadline=None)
@given(
    since=st.integers(min_value=0, max_value=50_000),
    remaining=st.integers(min_value=0, max_value=200_000),
    every=st.integers(min_value=1, max_value=10_000),
    players=st.integers(min_value=0, max_value=20_000),
    at_least=st.integers(min_value=0, max_value=2_000_000),
    more=st.integers(min_value=0, max_value=2_000_000),
)
def test_a_checkpoint_due_with_a_history_is_due_with_any_bound_below_it_and_no_players(
    since, remaining, every, players, at_least, more
):
    """What a replay resumed from a checkpoint relies on to count the history only where
    its bound allows a checkpoint (``checkpoints.HistorySize``)."""
    history = at_least + more
    if checkpoints.due(since, remaining, every, players, history):
        assert checkpoints.due(since, remaining, every, 0, at_least)
    if checkpoints.before_the_last_stretch(remaining, every, players, history):
        assert checkpoints.before_the_last_stretch(remaining, every, 0, at_least)


def test_a_history_size_is_counted_once_and_only_when_asked_for():
    counted = []
    size = checkpoints.HistorySize(100, lambda: counted.append(1) or 250)

    assert size.at_least == 100 and counted == []
    assert size.count() == size.count() == 250
    assert counted == [1]


class _Player:
    def __init__(self, data):
        self.data = data

    def to_data(self):
        return self.data


class _State:
    def __init__(self, players):
        self.players = {name: _Player(data) for name, data in players.items()}


def test_a_stored_state_is_split_into_its_players_as_any_json_writer_spaced_it():
    # A state stored before the column was text came back from jsonb spaced its own
    # way; a name may need escaping.
    text = '{ "a\\"b" :{"value": [1, {"x": "}"}]},"c": {"value": 2} ,\n"d":{} }'

    stored = checkpoints._split(text, {'a"b', "d"})

    assert stored.data == {'a"b': {"value": [1, {"x": "}"}]}, "d": {}}
    assert [text[start:end] for start, end in stored.pieces.values()] == [
        '"a\\"b" :{"value": [1, {"x": "}"}]}',
        '"c": {"value": 2}',
        '"d":{}',
    ]
    assert checkpoints._split(" {} ", set()).pieces == {}
    for broken in ('{"a": 1', '{"a": 1,}', '{"a": 1 "b": 2}', '["a"]'):
        with pytest.raises(ValueError):
            checkpoints._split(broken, set())


def test_a_state_laid_out_one_player_a_line_is_split_at_its_lines_as_walking_splits_it(
    monkeypatch,
):
    """A state :class:`StateJson` wrote is split at its newlines, decoding only the
    players wanted; the pieces and data are those a walk of the text gives, and a wanted
    player's malformed value is refused."""
    state = _State({"ann": {"v": [1, "}\n{"]}, "ben": {"v": 2}, "cat": {}})
    text = checkpoints.StateJson(state).text()
    walked = checkpoints._walk(text, {"ben", "cat"})
    decoded: list[str] = []
    real = checkpoints._decoded_value

    def decoding(line, start, at):
        decoded.append(line)
        return real(line, start, at)

    monkeypatch.setattr(checkpoints, "_decoded_value", decoding)
    split = checkpoints._split(text, {"ben", "cat"})

    assert text.count("\n") == 4  # one player a line
    assert (split.pieces, split.data) == (walked.pieces, walked.data)
    assert split.data == {"ben": {"v": 2}, "cat": {}}
    assert len(decoded) == 2  # ann's value not decoded
    with pytest.raises(ValueError):
        checkpoints._split('{\n"ann": {"v": 1},\n"ben": {"v": 2 3}\n}', {"ben"})
    for broken in ('{\n"ann": {},\n"ben": {},\n}', '{\n"ann": {}\n"ben": {}\n}'):
        with pytest.raises(ValueError):
            checkpoints._split(broken, set())


def test_a_laid_out_states_next_checkpoint_is_the_one_copied_piece_by_piece():
    stored = checkpoints.StateJson(
        _State({name: {"v": n} for n, name in enumerate(["ann", "ben", "cat", "dan"])})
    ).text()
    split = checkpoints._split(stored, {"ben", "dan"})
    walked = checkpoints._walk(stored, {"ben", "dan"})
    texts = []
    for resumed in (split, walked):
        state = _State({"ben": {"v": 20}, "dan": {"v": 30}, "eve": {"v": 4}})
        state_json = checkpoints.StateJson(state, resumed)
        state_json.touch([GameRecord(date(2024, 1, 1), "dan", "eve")])
        state_json.touch([GameRecord(date(2024, 1, 2), "ben", "eve")])
        texts.append(state_json.text())

    assert split.laid_out and not walked.laid_out
    assert texts[0] == texts[1]
    assert json.loads(texts[0]) == {
        "ann": {"v": 0},
        "ben": {"v": 20},
        "cat": {"v": 2},
        "dan": {"v": 30},
        "eve": {"v": 4},
    }
    assert checkpoints._split(texts[0], set()).laid_out


def test_the_next_checkpoint_of_a_resumed_state_copies_the_untouched_players_as_stored():
    stored = checkpoints._split('{"ann": {"v": 1}, "ben": {"v": 2}, "cat": {"v": 3}}', {"ben"})
    state = _State({"ben": {"v": 20}, "dan": {"v": 4}})
    state_json = checkpoints.StateJson(state, stored)

    state_json.touch([GameRecord(date(2024, 1, 1), "ben", "dan")])

    assert state_json.players() == 4
    assert json.loads(state_json.text()) == {
        "ann": {"v": 1},
        "ben": {"v": 20},
        "cat": {"v": 3},
        "dan": {"v": 4},
    }
    state.players["ann"] = _Player({"v": 10})
    state_json.touch([GameRecord(date(2024, 1, 2), "ann", "dan")])
    assert json.loads(state_json.text())["ann"] == {"v": 10}


def test_thinning_keeps_the_base_of_a_checkpoint_it_keeps():
    stored_at(range(0, 2000, 2))
    base = Checkpoint.objects.get(algorithm="sagc", position=1000)
    Checkpoint.objects.filter(algorithm="sagc", position=1998).update(base=base)

    checkpoints.thin("sagc", 2000)

    positions = kept()
    assert 1000 in positions and 1998 in positions
    assert 1002 not in positions  # as far from the end, no base


def test_a_replay_resumes_from_the_last_checkpoint_keyed_at_or_before_its_place():
    keys = [
        (date(2024, 1, 1), 0, 5),
        (date(2024, 1, 2), 0, 0),
        (date(2024, 1, 2), 1, 3),
        (date(2024, 1, 2), 1, 7),
        (date(2024, 1, 2), 2, 1),
        (date(2024, 1, 3), 0, 2),
    ]
    Checkpoint.objects.bulk_create(
        Checkpoint(algorithm=name, date=day, round=r, seq=seq, position=i, state=f'{{"x": {i}}}')
        for name in ("sagc", "egf-2021")
        for i, (day, r, seq) in enumerate(keys)
    )
    found = {
        place: checkpoints.nearest("sagc", ReplayKey(*place))
        for place in [
            (date(2023, 12, 31), 9, 9),
            (date(2024, 1, 1), 0, 4),
            (date(2024, 1, 1), 0, 5),
            (date(2024, 1, 2), 1, 6),
            (date(2024, 1, 2), 1, 7),
            (date(2024, 1, 2), 2, 0),
            (date(2024, 1, 2), 9, 0),
            (date(2024, 2, 1), 0, 0),
        ]
    }

    assert {place: c and (c.algorithm, c.position, c.date) for place, c in found.items()} == {
        (date(2023, 12, 31), 9, 9): None,
        (date(2024, 1, 1), 0, 4): None,
        (date(2024, 1, 1), 0, 5): ("sagc", 0, date(2024, 1, 1)),
        (date(2024, 1, 2), 1, 6): ("sagc", 2, date(2024, 1, 2)),
        (date(2024, 1, 2), 1, 7): ("sagc", 3, date(2024, 1, 2)),
        (date(2024, 1, 2), 2, 0): ("sagc", 3, date(2024, 1, 2)),
        (date(2024, 1, 2), 9, 0): ("sagc", 4, date(2024, 1, 2)),
        (date(2024, 2, 1), 0, 0): ("sagc", 5, date(2024, 1, 3)),
    }
    # without its state, read (as text) only for the checkpoint resumed from
    assert "state" in found[(date(2024, 2, 1), 0, 0)].get_deferred_fields()


def test_a_replay_drops_the_checkpoints_keyed_at_or_after_the_one_it_resumed_from_but_it():
    """``delete_after`` is written as SQL, "at or after a place" spelled out: it drops
    what ``ReplayKey.at_or_after`` picks of the algorithm's checkpoints, the one resumed
    from kept, and leaves those before it (the same day's earlier rounds and entries
    included) and other algorithms' alone."""
    keys = [
        (date(2024, 1, 1), 3, 9),
        (date(2024, 1, 2), 0, 8),
        (date(2024, 1, 2), 1, 2),
        (date(2024, 1, 2), 1, 5),  # resumed from
        (date(2024, 1, 2), 1, 5),  # another at its key (stored after it)
        (date(2024, 1, 2), 1, 6),
        (date(2024, 1, 2), 2, 1),
        (date(2024, 1, 3), 0, 0),
    ]
    Checkpoint.objects.bulk_create(
        Checkpoint(algorithm=name, date=day, round=r, seq=seq, position=i, state="{}")
        for name in ("sagc", "egf-2021")
        for i, (day, r, seq) in enumerate(keys)
    )
    resumed = Checkpoint.objects.get(algorithm="sagc", position=3)
    picked = Checkpoint.objects.filter(algorithm="sagc").filter(
        ReplayKey(resumed.date, resumed.round, resumed.seq).at_or_after()
    )
    left = set(Checkpoint.objects.exclude(pk__in=picked.exclude(pk=resumed.pk)).values_list("pk"))

    checkpoints.delete_after(resumed)

    assert set(Checkpoint.objects.values_list("pk")) == left
    assert kept() == [0, 1, 2, 3]
    assert Checkpoint.objects.filter(algorithm="egf-2021").count() == len(keys)
