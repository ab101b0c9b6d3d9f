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
from rummy_env import engine
from rummy_env.observation import LiveObservation, ObsLayout, encode

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


def _compare(preset: str, n: int, overrides: dict, games: int, seed: int) -> int:
    rules = rummy_env.make_rules(preset, n, **overrides)
    layout = ObsLayout(rules)
    live = LiveObservation(layout)  # the seat to act, and now and then another seat
    mine = LiveObservation(layout)  # seat 0 only
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


@pytest.mark.parametrize("preset,n,overrides", CONFIGS, ids=lambda x: str(x))
def test_incremental_observation_equals_scratch(preset, n, overrides):
    games = 3 if preset == "rummikub" else 20
    assert _compare(preset, n, overrides, games, seed=n + len(preset)) >= 20


def test_a_new_game_object_is_shown_anew():
    """A vector handed a new state (a reset, a restore) shows that game, not a mix."""
    rules = rummy_env.make_rules("basic", 3)
    layout = ObsLayout(rules)
    live = LiveObservation(layout)
    for seed in range(3):
        s = engine.new_game(rules, seed)
        for p in range(3):
            assert np.array_equal(live.update(s, p), encode(s, p, layout))
