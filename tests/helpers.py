"""Helpers shared by the test modules: crafted deals played through the AEC API,
card bookkeeping, and random masked play with the invariant checks of docs/design.md.

Import them as ``from tests.helpers import ...`` (``tests`` is a package, so this
works under ``python -m pytest`` and ``pytest`` alike, for the whole suite or one file).
"""

from __future__ import annotations

import copy
import importlib
import os
import random
import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import strategies as st

import rummy_env
from rummy_env import engine
from rummy_env.cards import card_str, deck_faces

SEEDS = st.integers(0, 2**31 - 1)

# ------------------------------------------------------------ card bookkeeping


def pack(rules: rummy_env.RuleSet) -> Counter:
    """Every card of the pack ``rules`` deal with, copies counted."""
    return Counter(card_str(f) for f in deck_faces(rules.decks, rules.jokers))


def places(d: dict[str, Any]) -> Counter:
    """Every card of a to_dict() state, wherever it lies."""
    c = Counter()
    for h in d["hands"]:
        c.update(h)
    c.update(d["stock"])
    c.update(d["discard"])
    for m in d["table"]:
        c.update(m["cards"])
    c.update(d.get("played_tiles", ()))  # (Rummikub: tiles played this turn)
    c.update(d.get("pending", ()))  # (Canasta: the pile taken, waiting for an opening)
    for reds in d.get("red_threes", ()):  # (Canasta: red 3s laid out, per side)
        c.update(reds)
    return c


# ------------------------------------------------------------- crafted deals


def rest_of_pack(env: rummy_env.raw_env, *used: Iterable[str]) -> list[str]:
    """The cards of the env's pack not in ``used``, in card-id order (copies repeated).

    Fails (AssertionError, a bug in the test) when ``used`` over-uses a card.
    """
    left = pack(env.unwrapped.rules)
    for group in used:
        for c in group:
            left[c] -= 1
            assert left[c] >= 0, f"test deal uses {c} more often than the pack holds it"
    return [card_str(f) for f in range(53) for _ in range(left[card_str(f)])]


def deal(
    env: rummy_env.raw_env,
    hands: Sequence[Sequence[str]],
    discard: Sequence[str] = (),
    stock_top: Sequence[str] = (),
    dealer: int | None = None,
    seed: int = 0,
) -> None:
    """Reset ``env`` to a crafted deal: hands + discard + stock are exactly the pack.

    ``stock_top`` lists the first cards of the stock (top first); the rest of
    the pack follows in card-id order (AS 2S .. KS AH .. KC, then jokers), so
    the whole stock is known. ``dealer`` defaults to the last seat, so P0 starts.
    """
    n = env.unwrapped.rules.num_players
    stock = list(stock_top) + rest_of_pack(env, *hands, discard, stock_top)
    env.reset(
        seed=seed,
        options={
            "hands": [list(h) for h in hands],
            "discard": list(discard),
            "stock": stock,
            "dealer": n - 1 if dealer is None else dealer,
        },
    )


def legal_strs(env: rummy_env.raw_env) -> list[str]:
    return [str(m) for m in env.unwrapped.legal_moves()]


def random_decisions(env: rummy_env.raw_env, seeds: Iterable[int], rng: random.Random):
    """Play the games ``seeds`` with random legal moves, yielding each decision's
    observation dict before its move."""
    for seed in seeds:
        env.reset(seed=seed)
        for _name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            yield obs
            legal = rummy_env.legal_moves(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))


def play(env: rummy_env.raw_env, *moves) -> None:
    """Step each move, first checking that the legal moves list it."""
    for move in moves:
        a = env.unwrapped.encode(move)
        assert a in env.unwrapped.legal_actions(), f"{move} not legal; legal: {legal_strs(env)}"
        env.step(a)


def snapshot(env: rummy_env.raw_env) -> dict:
    return env.unwrapped.state.to_dict()


def restored(env: rummy_env.raw_env, other: rummy_env.raw_env) -> rummy_env.raw_env:
    """``other`` (a fresh env of the same rules) reset to ``env``'s saved state: the same
    state and the same agent to act."""
    other.reset(options={"state": snapshot(env)})
    assert snapshot(other) == snapshot(env)
    assert other.agent_selection == env.agent_selection
    return other


def play_both(envs, *moves) -> None:
    """Play each move on every env; their states and agents to act stay identical."""
    for move in moves:
        for e in envs:
            play(e, move)
        first = snapshot(envs[0])
        for e in envs[1:]:
            assert snapshot(e) == first, move
            assert e.agent_selection == envs[0].agent_selection


def hand(env: rummy_env.raw_env, seat: int) -> list[str]:
    return snapshot(env)["hands"][seat]


def table(env: rummy_env.raw_env) -> list[tuple[int, list[str]]]:
    return [(m["owner"], m["cards"]) for m in snapshot(env)["table"]]


def assert_illegal(env: rummy_env.raw_env, move, *, via: str = "mask") -> None:
    """``move`` is not a legal action, nor marked in the action mask of the player
    to act (``via="mask"``) or listed among the legal moves (``via="moves"``);
    stepping it raises and leaves the state unchanged."""
    a = env.unwrapped.encode(move)
    assert a not in env.unwrapped.legal_actions()
    if via == "mask":
        assert not env.observe(env.agent_selection)["action_mask"][a]
    elif via == "moves":
        assert str(move) not in legal_strs(env)
    else:
        raise ValueError(f"via must be 'mask' or 'moves', not {via!r}")
    before = snapshot(env)
    with pytest.raises(rummy_env.IllegalActionError):
        env.step(a)
    assert snapshot(env) == before


def meld_moves(env: rummy_env.raw_env) -> list[str]:
    return [s for s in legal_strs(env) if s.startswith("meld")]


def discard_moves(env: rummy_env.raw_env) -> set[str]:
    return {s for s in legal_strs(env) if s.startswith("discard")}


def assert_round_over(env, *, winner, reason, round_scores, totals=None, rummy=None, rewards=None):
    """The round ended as computed by hand (``totals`` default to ``round_scores``,
    as after the first round); ``rummy`` and the ``rewards`` of the seats named are
    checked when given."""
    info = env.infos["player_0"]
    assert info["winner"] == winner
    assert info["reason"] == reason
    assert info["round_scores"] == round_scores
    assert info["totals"] == (round_scores if totals is None else totals)
    if rummy is not None:
        assert info["rummy"] is rummy
    if rewards is not None:
        assert {a: env.rewards[a] for a in rewards} == rewards


def assert_match_end(env, *, over: bool, winner: int, **next_round) -> None:
    """After the last round of a two-player crafted deal (dealt by seat 1): if
    ``over``, every agent is terminated and ``winner`` won the match; else no one
    has won yet and the next round is dealt (round 1, dealer seat 0, seat 1 to play),
    its state holding the ``next_round`` fields given."""
    assert all(env.terminations.values()) is over
    if over:
        assert env.infos["player_0"]["match_winner"] == winner
    else:
        assert "match_winner" not in env.infos["player_0"]
        d = snapshot(env)
        assert d["round"] == 1 and d["dealer"] == 0 and d["current_player"] == 1
        for key, value in next_round.items():
            assert d[key] == value, key


# ------------------------------------------------ invariants under random play


def permute_hidden(d: dict[str, Any], viewer: int, rng: random.Random) -> dict[str, Any]:
    """``d`` with every card ``viewer`` cannot see shuffled among the places that hold
    such cards: the other players' hands (their cards known to all, in ``known``,
    stay put) and the stock (Indian rummy's cut card, face up at its bottom, stays; so does
    the hand of a player mid-way through his opening, which must complete it, and the rack
    of a Rummikub player who has played tiles this turn, which a commit must hold). Sizes stay
    the same; ``d`` is not changed."""
    d = copy.deepcopy(d)
    # the player to act, mid-way through his opening (melds down, not opened), holds cards
    # that can complete it (the engine lays a first meld only then; a saved state whose
    # hand cannot is refused): his hand is tied to the table, so it stays
    cur = d["current_player"]
    opened = d["opened"]  # (per seat; Canasta's per side, a side's lowest seat its number)
    mid_opening = (
        type(cur) is int
        and d["phase"] == "play"
        and not opened[cur % len(opened)]
        and any(m["owner"] == cur for m in d["table"])
    ) or bool(d.get("played_tiles") or d.get("pending"))  # (Rummikub, Canasta: tied cards)
    pool = list(d["stock"])
    # Indian rummy: the cut card lies face up at the bottom of the stock until drawn
    seen = [pool.pop()] if d.get("cut") and d["rebuilds"] == 0 and pool else []
    if d["rules"].get("scoring") == "canasta":  # a red 3 is never held: those stay in the stock
        seen += [c for c in pool if c in ("3H", "3D")]
        pool = [c for c in pool if c not in ("3H", "3D")]
    kept: dict[int, list[str]] = {}
    hidden: dict[int, int] = {}
    for q, h in enumerate(d["hands"]):
        if q == viewer or (q == cur and mid_opening):
            continue
        known = Counter(d["known"][q])
        kept[q], rest = [], []
        for c in h:
            if known[c]:
                known[c] -= 1
                kept[q].append(c)
            else:
                rest.append(c)
        hidden[q] = len(rest)
        pool += rest
    rng.shuffle(pool)
    for q, keep in kept.items():
        d["hands"][q] = keep + pool[: hidden[q]]
        del pool[: hidden[q]]
    d["stock"] = pool + seen
    return d


def check_no_leak(env: rummy_env.raw_env, other: rummy_env.raw_env, rng: random.Random) -> None:
    """Every player's observation and mask are unchanged when the cards he cannot
    see are permuted (docs/design.md invariant 6)."""
    d = env.state.to_dict()
    for viewer in env.agents:
        v = env.agent_name_mapping[viewer]
        want = env.observe(viewer)
        other.reset(options={"state": permute_hidden(d, v, rng)})
        got = other.observe(viewer)
        assert np.array_equal(got["action_mask"], want["action_mask"]), f"{viewer}'s mask leaks"
        assert np.array_equal(got["observation"], want["observation"]), f"{viewer}'s view leaks"


def engine_accepted(
    state: engine.GameState,
    mask: np.ndarray,
    full: Counter,
    *,
    clear_cache: bool = True,
    strict: bool = True,
) -> set[int]:
    """Every action id ``apply_action`` accepts, tried on copies of ``state``.

    With ``clear_cache`` each copy's legal-move cache is cleared, so that
    ``apply_action`` works legality out afresh. The ids the mask rejects are all
    tried on one copy, which must come out unchanged (``strict``: always; else only
    when none of them was accepted); each id the mask marks is tried on a fresh
    copy, whose successor must hold every card of the pack and be terminal or
    offer a legal move (invariants 1 and 2 one step ahead of the random path).
    """
    before = state.to_dict()
    accepted: set[int] = set()

    def fresh() -> engine.GameState:
        probe = state.copy()
        if clear_cache:
            probe._legal = None
        return probe

    probe = fresh()
    for a in np.flatnonzero(mask == 0).tolist():
        try:
            engine.apply_action(probe, a)
        except engine.IllegalActionError:
            continue
        accepted.add(a)
        probe = fresh()
    if strict or not accepted:
        assert probe.to_dict() == before, "a refused action changed the state"
    for a in np.flatnonzero(mask).tolist():
        probe = fresh()
        try:
            engine.apply_action(probe, a)
        except engine.IllegalActionError:
            continue
        accepted.add(a)
        assert places(probe.to_dict()) == full, f"action {a} lost or made cards"
        assert engine.is_terminal(probe) or engine.legal_actions(probe), f"action {a}: dead end"
    assert state.to_dict() == before, "trying actions on copies changed the original"
    return accepted


MAX_STEPS = 20_000


def digs_by_definition(state: engine.GameState) -> tuple[set[int], set[int]]:
    """For a draw decision where a card taken from the discard pile must be used at once
    (``discard_pickup_must_meld``): the draw ids of those depths the mask marks, and
    those after whose draw, made on a copy, some meld or lay-off is legal (D-5: the
    definition the mask's quick tests stand for). Two empty sets elsewhere."""
    from rummy_env.engine import legal

    rules = state.rules
    mode = rules.discard_pickup_must_meld
    if state.phase != engine.Phase.DRAW or mode == "never" or state.upcard_stage == 2:
        return set(), set()
    if not state.discard:
        return set(), set()
    if state.game.codec is not None:  # (a game whose turn is its own)
        return set(), set()
    depths = range(len(state.discard)) if rules.discard_pickup == "any" else range(1)
    must = [d for d in depths if mode == "always" or d > 0]
    marked = {1 + d for d in must} & set(engine.legal_actions(state))
    usable = set()
    for d in must:
        probe = state.copy()
        legal._draw_discard(probe, probe.current, d)
        probe._legal = None
        if legal._legal_play_moves(probe):
            usable.add(1 + d)
    return marked, usable


def shortcut_and_full(state: engine.GameState) -> tuple[list[int], list[int]] | None:
    """The shared play phase's moves two ways: where its quick test (``discard_only``)
    finds that discarding is all the player to act may do, its discards, else every move
    listed in full; and every move listed in full. None in another phase. Where the full
    list is empty the player's obligations would lapse (``_lapsed_play``), which only a
    restored state may need, never a game in play."""
    from rummy_env.engine import legal

    if state.phases[state.phase].legal is not legal._legal_play:
        return None
    full = legal._legal_play_moves(state)
    faces = legal.discard_only(state)
    return ([state.layout.DISCARD + f for f in faces] if faces else full), full


BRUTE_EVERY = 3  # try every action id on copies of every 3rd state ...
MAX_BRUTE = 30  # ... at most this many states per game
LEAK_EVERY = 5  # the no-leak check on every 5th state


def random_masked_game(
    env: rummy_env.raw_env,
    other: rummy_env.raw_env,
    seed: int,
    check_rules: Callable[[rummy_env.raw_env, list[int]], None],
    *,
    deep: bool = True,
    step: Callable[[int], None] | None = None,
) -> int:
    """Random masked play of the episode ``env`` has been reset to, checking at every
    step: the game is not over, a legal move exists, the mask is the legal list, the
    agent to act is the current player, the cards are conserved and ``check_rules``
    holds; with ``deep``, on sampled states, no observation depends on hidden cards
    (``other``, an env of the same rules, is reset to the permuted states) and the
    mask equals what apply_action accepts and marks the digs :func:`digs_by_definition`
    finds usable. ``step(a)`` plays each chosen action
    (default ``env.step``), so a caller may check around it. Returns the number of
    actions chosen; fails if the episode does not end within MAX_STEPS."""
    full = pack(env.rules)
    rng_leak = random.Random(~seed)
    rng = random.Random(seed)
    brute = steps = 0
    for agent in env.agent_iter(MAX_STEPS):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        s = env.state
        assert not engine.is_terminal(s)
        legal = env.legal_actions()
        assert legal, f"seed {seed}: dead end at step {s.step_count}: {s.to_dict()}"
        mask = obs["action_mask"]
        assert np.flatnonzero(mask).tolist() == legal
        assert agent == f"player_{engine.acting_seat(s)}"
        assert places(s.to_dict()) == full
        check_rules(env, legal)
        if deep and steps % LEAK_EVERY == 0:
            check_no_leak(env, other, rng_leak)
        if deep and steps % BRUTE_EVERY == 0 and brute < MAX_BRUTE:
            brute += 1
            got = engine_accepted(s, mask, full)
            assert got == set(legal), (
                f"seed {seed}, step {s.step_count}: accepted but masked "
                f"{[str(env.decode(a)) for a in sorted(got - set(legal))]}, marked but refused "
                f"{[str(env.decode(a)) for a in sorted(set(legal) - got)]}"
            )
            play = shortcut_and_full(s)
            if play is not None:
                quick, listed = play
                assert quick == listed, (
                    f"seed {seed}, step {s.step_count}: quick test {quick}, "
                    f"every move {listed}: {s.to_dict()}"
                )
                assert listed, f"seed {seed}, step {s.step_count}: no play move: {s.to_dict()}"
            marked, usable = digs_by_definition(s)
            assert marked == usable, (
                f"seed {seed}, step {s.step_count}: digs marked {sorted(marked)}, "
                f"usable {sorted(usable)}: {s.to_dict()}"
            )
        a = legal[rng.randrange(len(legal))]
        (env.step if step is None else step)(a)
        steps += 1
    assert engine.is_terminal(env.state), f"seed {seed}: no end after {MAX_STEPS} steps"
    return steps


# api_test warns about any dict observation (as for PettingZoo's own classic envs)
_EXPECTED_API_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
)


def api_test_warnings(env, num_cycles: int) -> list[str]:
    """Run PettingZoo's ``api_test`` on ``env``; the warnings it raised beyond the two
    every dict-observation env gets (an empty list when the env passes cleanly)."""
    import warnings

    from pettingzoo.test import api_test

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=num_cycles)
    return [
        str(w.message)
        for w in caught
        if "pettingzoo" in w.filename and not str(w.message).startswith(_EXPECTED_API_WARNINGS)
    ]


def compiled_module(name: str, what: str) -> ModuleType:
    """The compiled module ``rummy_env.<name>`` (pyproject.toml's ext-modules, built by
    ``pip install -e .``); the test is skipped where ``RUMMY_PURE_PYTHON`` asks for the
    Python ``what`` or no C compiler could build it."""
    if os.environ.get("RUMMY_PURE_PYTHON"):
        pytest.skip(f"RUMMY_PURE_PYTHON asks for the Python {what}")
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip(f"no C compiler: the install falls back to the Python {what}")
    return importlib.import_module(f"rummy_env.{name}")
