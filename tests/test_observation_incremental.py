"""Observations kept and updated between moves (``observation.LiveObservation``, which the
AEC env and the batched env use) equal the ones built from scratch (``observation.encode``)
at every decision of random games, for every preset, player count and match play: for the
seat to act as turns pass, for other seats asked out of turn, and for a vector that follows
one seat only (left behind for several moves)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import rummy_env
from rummy_env import engine, observation
from rummy_env.observation import LiveObservation, ObsLayout, encode
from tests.helpers import compiled_module

#: the Python update, and the compiled one where it was built (rummy_env/_obs_c.c)
UPDATES = [False] + ([True] if observation._compiled is not None else [])
both_updates = pytest.mark.parametrize(
    "compiled", UPDATES, ids=["python", "compiled"][: len(UPDATES)]
)

CONFIGS = [
    ("basic", 2, {}),
    ("basic", 4, {"match": True, "jokers": 2}),
    ("deuces", 3, {}),
    ("rummy500", 2, {}),
    ("rummy500", 5, {"match": True}),
    ("persian", 4, {}),
    ("rummy51", 3, {}),
    ("gin", 2, {}),
    ("gin", 2, {"match": True}),
    ("indian", 2, {}),
    ("indian", 4, {"match": True}),
    ("contract", 3, {}),
    ("rummikub", 2, {}),
    ("rummikub", 4, {}),
]


def _compare(preset: str, n: int, overrides: dict, games: int, seed: int, compiled: bool) -> int:
    rules = rummy_env.make_rules(preset, n, **overrides)
    layout = ObsLayout(rules)
    # the seat to act, and now and then another seat
    live = LiveObservation(layout, compiled=compiled)
    mine = LiveObservation(layout, compiled=compiled)  # seat 0 only
    rng = random.Random(seed)
    checked = 0
    for g in range(games):
        s = engine.new_game(rules, seed * 1000 + g)
        decisions = 0
        while s.phase != engine.Phase.GAME_OVER and decisions < 400:
            # the seat to act every decision; another seat now and then (vectors left
            # behind for several moves must catch up with all of them)
            seats = [(live, engine.acting_seat(s))]
            if rng.random() < 0.3:
                seats.append((live, rng.randrange(n)))
            if rng.random() < 0.2:
                seats.append((mine, 0))
            for vec, p in seats:
                got = vec.update(s, p)
                want = encode(s, p, layout)
                if not np.array_equal(got, want):
                    diff = np.flatnonzero(got != want)
                    names = sorted(
                        {
                            k
                            for k, sl in layout.slices.items()
                            for i in diff
                            if sl.start <= i < sl.stop
                        }
                    )
                    pytest.fail(
                        f"{preset} {n}p {overrides} game {g} decision {decisions} seat {p}: "
                        f"incremental observation differs in {names}"
                    )
                checked += 1
            acts = engine.legal_actions(s)
            engine.apply_action(s, acts[rng.randrange(len(acts))])
            decisions += 1
    return checked


@both_updates
@pytest.mark.parametrize("preset,n,overrides", CONFIGS, ids=lambda x: str(x))
def test_incremental_observation_equals_scratch(preset, n, overrides, compiled):
    games = 3 if preset == "rummikub" else 20
    assert _compare(preset, n, overrides, games, n + len(preset), compiled) >= 20


@both_updates
def test_a_new_game_object_is_shown_anew(compiled):
    """A vector handed a new state (a reset, a restore) shows that game, not a mix."""
    rules = rummy_env.make_rules("basic", 3)
    layout = ObsLayout(rules)
    live = LiveObservation(layout, compiled=compiled)
    for seed in range(3):
        s = engine.new_game(rules, seed)
        for p in range(3):
            assert np.array_equal(live.update(s, p), encode(s, p, layout))


@pytest.mark.skipif(observation._compiled is None, reason="rummy_env/_obs_c was not built")
def test_compiled_update_refuses_a_corrupt_state_and_recovers():
    """A state holding what no game holds (a face past the joker, a count no pack has) is
    refused with a ValueError naming it, nothing is written outside the vector, and the
    next update of a sound state shows it exactly."""
    rules = rummy_env.make_rules("basic", 2)
    layout = ObsLayout(rules)
    live = LiveObservation(layout, compiled=True)
    s = engine.new_game(rules, 5)
    live.update(s, 0)
    engine.apply_action(s, engine.legal_actions(s)[0])
    s.discard.append(99)
    with pytest.raises(ValueError, match="discard pile holds face 99"):
        live.update(s, engine.acting_seat(s))
    s.discard.pop()
    s.hands[0][3] = 300
    with pytest.raises(ValueError, match="count of 300 cards"):
        live.update(s, 0)
    s.hands[0][3] = 1
    for p in (0, 1):
        assert np.array_equal(live.update(s, p), encode(s, p, layout))
    # a new game object holding such a face: refused too, and shown anew once sound
    t = s.copy()
    t.discard.insert(0, -7)
    with pytest.raises(ValueError, match="discard pile holds face -7"):
        live.update(t, 0)
    t.discard.pop(0)
    assert np.array_equal(live.update(t, 1), encode(t, 1, layout))


@pytest.mark.skipif(observation._compiled is None, reason="rummy_env/_obs_c was not built")
def test_compiled_update_refuses_a_corrupt_table_meld_and_recovers():
    """A table meld holding what no meld holds (a fifth suit, a face past the joker) is
    refused with a ValueError naming it, and once the meld is sound again the vector shows
    the state exactly."""
    import copy

    rules = rummy_env.make_rules("rummy500", 2)
    layout = ObsLayout(rules)
    live = LiveObservation(layout, compiled=True)
    s, rng = engine.new_game(rules, 3), random.Random(3)
    while not any(m.is_run for m in s.table) or not any(not m.is_run for m in s.table):
        acts = engine.legal_actions(s)
        engine.apply_action(s, acts[rng.randrange(len(acts))])
    live.update(s, 0)
    i = next(i for i, m in enumerate(s.table) if m.is_run)
    j = next(j for j, m in enumerate(s.table) if not m.is_run)
    run, meld_set = s.table[i], s.table[j]
    bad = copy.copy(run)
    bad.key = 7
    s.table[i] = bad
    with pytest.raises(ValueError, match="run of suit 7"):
        live.update(s, 0)
    s.table[i] = run
    bad = copy.copy(meld_set)
    bad.cards = (60, *meld_set.cards[1:])
    s.table[j] = bad
    with pytest.raises(ValueError, match="card 60 is not allowed"):
        live.update(s, 1)
    s.table[j] = meld_set
    for p in (1, 0):
        assert np.array_equal(live.update(s, p), encode(s, p, layout))


def test_the_compiled_update_is_built_and_serves_the_shared_layout():
    """Where a C compiler is, ``pip install`` builds rummy_env/_obs_c and every vector of the
    shared layout uses it; a game with its own observation (Canasta) keeps the Python one."""
    built = compiled_module("_obs_c", "update")
    assert built.API == observation._C_API, "a stale build: pip install -e . rebuilds it"
    for preset, n in [("gin", 2), ("basic", 4), ("indian", 3), ("rummikub", 2)]:
        assert LiveObservation(ObsLayout(rummy_env.make_rules(preset, n))).compiled, preset
    canasta = ObsLayout(rummy_env.make_rules("canasta", 4))
    assert not LiveObservation(canasta).compiled
    with pytest.raises(ValueError, match="shared layout"):
        LiveObservation(canasta, compiled=True)
    assert rummy_env.vector_env("gin", 2)._live[0].compiled
