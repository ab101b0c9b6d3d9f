"""agents.meld_features: the meld features networks read, against a direct computation
with rummy_env.melds on observations of random games (one deck and two)."""

from __future__ import annotations

import numpy as np
import pytest

import rummy_env
from agents.base import read_observation, table_fits
from agents.meld_features import SCALE, SIZE, F, MeldFeatures, TableFits
from agents.neural import Compress
from rummy_env.engine import card_values
from rummy_env.melds import best_arrangement
from rummy_env.observation import ObsLayout
from rummy_env.vector_env import random_actions
from tests.helpers import random_decisions


def _direct(o: np.ndarray, mf: MeldFeatures, values: list[int], ace_high: bool) -> np.ndarray:
    """The features of one observation, each from its own meld search."""
    x = np.zeros(SIZE, np.float32)
    counts = [int(c) for c in o[mf.hand]]
    if not any(counts):
        return x

    def dw(h):
        return best_arrangement(h, values, ace_high)[0]

    after = {}
    for f, c in enumerate(counts):
        if c:
            h = list(counts)
            h[f] -= 1
            after[f] = dw(h)
            x[f] = after[f] / SCALE
    d, groups = best_arrangement(counts, values, ace_high)
    for g in groups:
        for f in g:
            x[F + f] = 1.0
    x[2 * F] = d / SCALE
    x[2 * F + 1] = min(after.values()) / SCALE
    take = min(after.values())
    row = o[mf.top]
    t = int(row.argmax())
    if row[t] > 0:
        h = list(counts)
        h[t] += 1
        others = [f for f, c in enumerate(h) if c and (f != t or h[t] > 1)]
        take = min(dw([c - (g == f) for g, c in enumerate(h)]) for f in others)
        x[2 * F + 3] = float(any(t in g for g in best_arrangement(h, values, ace_high)[1]))
    x[2 * F + 2] = take / SCALE
    return x


def _check_flags(o, x, mf, values, rules) -> None:
    """The meld flags are held faces; with one deck they name an arrangement as good as
    the best (another one of equal deadwood may be named); the top discard is flagged whenever every best
    arrangement of the hand with it uses it."""
    counts = [int(c) for c in o[mf.hand]]
    if not any(counts):
        return
    flagged = [int(x[F + f]) for f in range(F)]
    assert all(c or not g for c, g in zip(counts, flagged)), "a flag on a face not held"
    if rules.decks == 1:  # one copy a face: the flags are melds, and what they take out
        assert best_arrangement(flagged, values, rules.ace_high)[0] == 0, "flags not melds"
        total = sum(c * v for c, v in zip(counts, values))
        best = best_arrangement(counts, values, rules.ace_high)[0]
        assert total - sum(values[f] for f in range(F) if flagged[f]) == best
    row = o[mf.top]
    t = int(row.argmax())
    if row[t] > 0:
        with_t = list(counts)
        with_t[t] += 1
        dw_t = best_arrangement(with_t, values, rules.ace_high)[0]
        if best_arrangement(counts, values, rules.ace_high)[0] + values[t] > dw_t:
            assert x[2 * F + 3] == 1.0, "the top discard is in every best arrangement"


@pytest.mark.parametrize("preset", ["gin", "basic", "rummy500", "rummy51"])
def test_features_match_a_direct_meld_search(preset):
    rules = rummy_env.make_rules(preset, num_players=2)
    mf = MeldFeatures(rules)
    values = list(card_values(rules))
    venv = rummy_env.vector_env(preset, 16, 2, seed=5)
    obs, mask, _ = venv.reset(seed=5)
    rng = np.random.default_rng(5)
    checked = 0
    for step in range(120):
        if step % 6 == 0:
            got = mf(obs)
            for i in range(len(obs)):
                want = _direct(obs[i], mf, values, rules.ace_high)
                # the meld flags may name another arrangement of equal deadwood
                np.testing.assert_allclose(got[i, :F], want[:F], err_msg=f"after, step {step}")
                np.testing.assert_allclose(got[i, 2 * F : 2 * F + 3], want[2 * F : 2 * F + 3])
                _check_flags(obs[i], got[i], mf, values, rules)
                checked += 1
        obs, mask, *_ = venv.step(random_actions(mask, rng))
    assert checked > 300


def test_an_unknown_feature_kind_is_refused():
    rules = rummy_env.make_rules("gin", num_players=2)
    with pytest.raises(
        ValueError, match="features='hand': allowed are '', 'melds', 'melds\\+table'"
    ):
        Compress(rules, 3, "hand")
    assert Compress(rules, 3, "melds").size == Compress(rules, 3).size + SIZE
    # the table's fits per face and the top discard's
    assert Compress(rules, 3, "melds+table").size == Compress(rules, 3).size + SIZE + F + 1


@pytest.mark.parametrize(
    "preset", ["basic", "rummy51", "rummy500", "persian", "deuces", "contract"]
)
def test_table_fits_are_the_faces_the_expert_sees_fit(preset):
    """TableFits, read from the table's slots of a batch, marks exactly the faces that
    agents.base.table_fits (the expert agents', from a decoded observation) finds fit a
    table meld: sets of distinct or repeating suits, runs with jokers, wild 2s, aces high;
    and Compress's top_fits is whether the top discard is among them."""
    venv = rummy_env.vector_env(preset, num_envs=16, num_players=2, seed=5)
    rules = venv.rules
    tf = TableFits(rules)
    comp = Compress(rules, 3, "melds+table")
    L = ObsLayout(rules)
    top = L.slices["discard"].start
    rng = np.random.default_rng(5)
    obs, mask, _ = venv.reset()
    checked = fitting = 0
    for _ in range(300):
        got = tf(obs)
        x = comp(obs)
        for i in range(len(obs)):
            v = read_observation(obs[i], rules)
            if not v.table:
                assert not got[i].any()
                continue
            want = sorted(table_fits(v, rules))
            assert np.flatnonzero(got[i]).tolist() == want, (i, v.table)
            t = obs[i, top : top + F]
            assert x[i, -1] == float(t.any() and t.argmax() in want)
            checked += 1
            fitting += bool(want)
        obs, mask, *_ = venv.step(random_actions(mask, rng))
    assert checked > 200 and fitting > 100


def test_face_context_counts_each_faces_neighbours():
    """A hand of the 5 of suit 0: its rank-mates see it as same rank, the 4 and 6 of its
    suit one rank away, the 3 and 7 two away; nothing else sees it."""
    from agents.neural import face_context

    rules = rummy_env.make_rules("gin", num_players=2)
    comp = Compress(rules, 3, "melds")
    x = np.zeros((1, comp.size), np.float32)
    five = 4  # suit 0, rank index 4 (the 5)
    x[0, comp.face_offsets[0] + five] = 1.0  # in hand
    ctx = face_context(x, comp.face_offsets)[0]  # (F, 9): block-major, then neighbour kind
    hand = ctx[:, 0:3]
    want = np.zeros((F, 3), np.float32)
    for s in (1, 2, 3):
        want[13 * s + 4, 0] = 1.0
    want[3, 1] = want[5, 1] = 1.0
    want[2, 2] = want[6, 2] = 1.0
    np.testing.assert_array_equal(hand, want)
    assert not ctx[:, 3:].any()  # the known cards and the pile are empty


def test_remembered_hands_are_told_apart_by_their_jokers():
    """A MeldFeatures remembers the hands it has seen; two jokers show as one bit of a
    one-deck hand, so a hand with one joker and the same hand with two must each get
    their own features (as a fresh instance computes them), in either order."""
    rules = rummy_env.make_rules("basic", num_players=2, jokers=2)
    L = ObsLayout(rules)
    obs = np.zeros((2, L.size), np.float32)
    hand = L.slices["hand"].start
    for i, jokers in enumerate((1, 2)):
        for f in (0, 1, 2, 20, 33, 47):  # A-2-3 of suit 0 and three odd cards
            obs[i, hand + f] = 1.0
        obs[i, hand + 52] = jokers
    want = [MeldFeatures(rules)(obs[i : i + 1])[0] for i in range(2)]
    assert not np.array_equal(want[0], want[1])
    for order in ((0, 1, 0), (1, 0, 1)):
        mf = MeldFeatures(rules)
        for i in order:
            np.testing.assert_array_equal(mf(obs[i : i + 1])[0], want[i])


@pytest.mark.parametrize("preset", ["rummy51", "basic"])
def test_features_read_one_decision_at_a_time_equal_a_fresh_reading(preset):
    """An agent reads one observation at a time and the features remember recent hands
    and the last table: through a game whose hands and table change, each reading equals
    that of features that remember nothing, and what a caller does to it stays its own."""
    import random

    rules = rummy_env.make_rules(preset, 2)
    melds, fits = MeldFeatures(rules), TableFits(rules)
    tables = set()
    for o in random_decisions(rummy_env.raw_env(preset, 2), range(3), random.Random(2)):
        x = o["observation"][None]
        got_m, got_f = melds(x), fits(x)
        np.testing.assert_array_equal(got_m, MeldFeatures(rules)(x))
        np.testing.assert_array_equal(got_f, TableFits(rules)(x))
        got_f[:] = 9.0
        np.testing.assert_array_equal(fits(x), TableFits(rules)(x))
        tables.add(fits(x).tobytes())
    assert len(tables) > 3  # the table changed within the games
