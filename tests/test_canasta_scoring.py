"""Canasta scoring checked by an independent scorer, and invariants under random play.

The scorer below is written from RULES.md 4 "canasta" (Scoring, D-26, D-28) alone; it
imports nothing of the engine's scoring. It reads a finished round's ``to_dict()``
(table, red 3s, hands, sides) plus who went out and whether concealed, and gives each
side's breakdown (``melds``, ``canastas``, ``red_threes``, ``going_out``, ``hands``).
Who went out and whether it was concealed are worked out here as well, from the
states seen during play, and compared with the engine's ``infos``.

Random games (seeded; 2, 3 and 4 players; random legal moves from the action mask,
biased towards melding so that canastas and going out happen) check at every
decision: card conservation (hands + stock + pile + table + red 3s + pending is the
108-card pack), no red 3 in a hand, at most one meld per rank per side, every meld of
one rank with at least 2 naturals and at most 3 wild cards (black 3s: 3 or 4, no wild
card), ``frozen`` equal to "the pile holds a wild card or a red 3", the mask equal to
the legal actions; now and then a ``to_dict()``/restore round trip giving the same
state and mask.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import numpy as np
import pytest

import rummy_env
from rummy_env.moves import LayOff, Meld, TakePile
from tests.helpers import pack, places

# ------------------------------------------------------- the rule book's numbers

CANASTA_NATURAL, CANASTA_MIXED = 500, 300
RED_THREE, ALL_FOUR_RED_THREES = 100, 800
OUT, OUT_CONCEALED = 100, 200
BREAKDOWN_KEYS = ("melds", "canastas", "red_threes", "going_out", "hands")
END_REASONS = {"went_out", "stock_exhausted", "turn_limit"}


def is_wild(card: str) -> bool:
    return card == "JK" or card[0] == "2"


def is_red_three(card: str) -> bool:
    return card in ("3H", "3D")


def points(card: str) -> int:
    """Joker 50; 2 and A 20; K Q J T 9 8: 10; 7 6 5 4 and black 3s: 5."""
    if card == "JK":
        return 50
    if card[0] in "2A":
        return 20
    if card[0] in "KQJT98":
        return 10
    if card[0] in "7654" or card in ("3S", "3C"):
        return 5
    raise AssertionError(f"{card} has no value in a meld or a hand")


def sides_of(n: int, partnerships: bool) -> list[int]:
    return [p % 2 for p in range(n)] if partnerships and n == 4 else list(range(n))


def score_round(
    d: dict[str, Any], winner: int | None, concealed: bool, sides: list[int]
) -> list[dict[str, int]]:
    """Each side's breakdown of a finished round (RULES.md, Scoring): the values of
    its melds; 500 per natural canasta (7+ cards, no wild card), 300 per mixed; 100 per
    red 3, 800 for four, negative for a side with no meld; 100 for going out, 200
    concealed; minus the values left in its players' hands."""
    out = []
    for side in range(max(sides) + 1):
        melds = [m["cards"] for m in d["table"] if m["side"] == side]
        canastas = sum(
            (CANASTA_MIXED if any(is_wild(c) for c in m) else CANASTA_NATURAL)
            for m in melds
            if len(m) >= 7
        )
        reds = len(d["red_threes"][side])
        red = ALL_FOUR_RED_THREES if reds == 4 else RED_THREE * reds
        if not melds:
            red = -red
        going_out = 0
        if winner is not None and sides[winner] == side:
            going_out = OUT_CONCEALED if concealed else OUT
        hands = -sum(points(c) for p, h in enumerate(d["hands"]) if sides[p] == side for c in h)
        out.append(
            {
                "melds": sum(points(c) for m in melds for c in m),
                "canastas": canastas,
                "red_threes": red,
                "going_out": going_out,
                "hands": hands,
            }
        )
    return out


def went_out_concealed(start: dict[str, Any], end: dict[str, Any], winner: int) -> bool:
    """D-26 from the state at the start of the winner's last turn and at the round's end:
    he had not melded or laid off in an earlier turn, no meld that existed at the start
    of the turn changed, and one of the melds he started is a canasta."""
    if start["played"][winner]:
        return False
    before = start["table"]
    after = end["table"]
    for old, new in zip(before, after):
        if Counter(old["cards"]) != Counter(new["cards"]):
            return False
    return any(len(m["cards"]) >= 7 for m in after[len(before) :])


# ------------------------------------------------------------------- invariants


def the_pack() -> Counter:
    return pack(rummy_env.make_rules("canasta", 4))


def check_state(d: dict[str, Any], sides: list[int], pack: Counter) -> None:
    assert places(d) == pack, "cards lost or made"
    for p, h in enumerate(d["hands"]):
        assert not any(is_red_three(c) for c in h), f"a red 3 in P{p}'s hand"
    assert d["sides"] == sides
    assert d["frozen"] is any(is_wild(c) or is_red_three(c) for c in d["discard"])
    for r in d["red_threes"]:
        assert all(is_red_three(c) for c in r)
    seen = set()
    for m in d["table"]:
        assert m["side"] == sides[m["owner"]]
        cards = m["cards"]
        wild = [c for c in cards if is_wild(c)]
        natural = [c for c in cards if not is_wild(c)]
        ranks = {c[0] for c in natural}
        assert len(ranks) == 1, f"a meld of several ranks: {cards}"
        (rank,) = ranks
        if rank == "3":
            assert not wild and 3 <= len(cards) <= 4, f"black 3s: {cards}"
            assert not any(is_red_three(c) for c in cards)
        assert len(cards) >= 3 and len(natural) >= 2 and len(wild) <= 3, f"bad meld {cards}"
        assert (m["side"], rank) not in seen, f"two melds of {rank} for side {m['side']}"
        seen.add((m["side"], rank))


# ----------------------------------------------------------------- random play

GAMES = {2: 30, 3: 30, 4: 30}
BIASES = (0.0, 0.5, 0.9)  # by seed: plain random play, and two leanings to melding
MAX_STEPS = 20_000
RESTORE_EVERY = 41


def choose(env, legal: list[int], kinds: dict[int, type], rng: random.Random, bias: float) -> int:
    """A random legal action; with probability ``bias`` a meld, lay-off or pile take
    when there is one (so that melds grow into canastas and players go out)."""
    for x in legal:
        if x not in kinds:
            kinds[x] = type(env.decode(x))
    active = [x for x in legal if kinds[x] in (Meld, LayOff, TakePile)]
    if active and rng.random() < bias:
        return rng.choice(active)
    return rng.choice(legal)


def play_round(n: int, seed: int, kinds: dict[int, type], stats: Counter) -> None:
    env = rummy_env.raw_env("canasta", num_players=n)
    other = rummy_env.raw_env("canasta", num_players=n)
    env.reset(seed=seed)
    rules = env.rules
    sides = sides_of(n, rules.partnerships)
    pack = the_pack()
    rng = random.Random(seed)
    bias = BIASES[seed % len(BIASES)]
    turn_start: dict[str, Any] | None = None
    prev_actor = None
    for step in range(MAX_STEPS):
        if all(env.terminations.values()):
            break
        d = env.state.to_dict()
        agent = env.agent_selection
        seat = env.agent_name_mapping[agent]
        assert d["current_player"] == seat
        check_state(d, sides, pack)
        legal = env.legal_actions()
        assert legal, f"seed {seed}: no legal move"
        mask = env.observe(agent)["action_mask"]
        assert np.flatnonzero(mask).tolist() == sorted(legal)
        if d["phase"] == "draw" and (prev_actor != seat or turn_start is None):
            turn_start = copy.deepcopy(d)
            assert d["pending"] == []
        prev_actor = seat
        if step % RESTORE_EVERY == 7:
            other.reset(options={"state": d})
            assert other.state.to_dict() == d
            assert other.agent_selection == agent
            assert np.array_equal(other.observe(agent)["action_mask"], mask)
            for x in legal:
                assert env.encode(env.decode(x)) == x
            for a in env.possible_agents:
                if a != agent:
                    assert not env.observe(a)["action_mask"].any()
        a = choose(env, legal, kinds, rng, bias)
        stats[kinds[a].__name__] += 1
        env.step(a)
    else:
        raise AssertionError(f"seed {seed}: the round did not end in {MAX_STEPS} steps")

    # ---- the round is over: the engine's scores against the independent scorer
    d = env.state.to_dict()
    assert places(d) == pack
    assert d["pending"] == []
    info = env.infos["player_0"]
    assert info["reason"] in END_REASONS
    empty = [p for p, h in enumerate(d["hands"]) if not h]
    winner = empty[0] if empty and info["reason"] == "went_out" else None
    assert info["winner"] == winner
    assert (info["reason"] == "went_out") is (winner is not None)
    concealed = winner is not None and went_out_concealed(turn_start, d, winner)
    assert info["concealed"] is concealed
    want = score_round(d, winner, concealed, sides)
    side_scores = [sum(b.values()) for b in want]
    for p, agent in enumerate(env.possible_agents):
        got = env.infos[agent]
        assert all(set(b) == set(BREAKDOWN_KEYS) for b in got["breakdown"])
        assert [dict(b) for b in got["breakdown"]] == want, f"seed {seed}"
        assert list(got["side_scores"]) == side_scores
        assert list(got["round_scores"]) == [side_scores[s] for s in sides]
        assert env.rewards[agent] == side_scores[sides[p]]
    stats[info["reason"]] += 1
    stats["concealed"] += concealed
    stats["canastas"] += sum(len(m["cards"]) >= 7 for m in d["table"])
    stats["red threes"] += sum(len(r) for r in d["red_threes"])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_rounds_scored_as_the_rule_book_says(n):
    kinds: dict[int, type] = {}
    stats: Counter = Counter()
    for seed in range(GAMES[n]):
        play_round(n, 1000 * n + seed, kinds, stats)
    # the games are meaningful only if they reach what is scored
    assert stats["went_out"] > 0 and stats["stock_exhausted"] > 0, stats
    assert stats["canastas"] > 0 and stats["red threes"] > 0, stats
    assert stats["TakePile"] > 0 and stats["EndRound"] > 0 and stats["Discard"] > 0, stats
    assert stats["DrawStock"] > 0


# ----------------------------------------------------- the scorer on its own


def test_scorer_on_a_hand_worked_round():
    """The scorer itself, on the round of RULES.md's examples worked by hand: side 0
    went out concealed with a natural canasta of queens grown mixed by two wild cards
    (D-28) and three kings; side 1 melded nothing and holds one red 3."""
    d = {
        "table": [
            {
                "owner": 0,
                "side": 0,
                "cards": ["QS"] * 2 + ["QH"] * 2 + ["QD"] * 2 + ["QC", "JK", "2H"],
            },
            {"owner": 2, "side": 0, "cards": ["KS", "KH", "KD"]},
        ],
        "red_threes": [["3H", "3D"], ["3H"]],
        "hands": [[], ["AS", "3S"], ["4D", "JK"], ["9C"]],
    }
    got = score_round(d, 0, True, [0, 1, 0, 1])
    assert got == [
        {"melds": 70 + 70 + 30, "canastas": 300, "red_threes": 200, "going_out": 200, "hands": -55},
        {"melds": 0, "canastas": 0, "red_threes": -100, "going_out": 0, "hands": -35},
    ]
    d["red_threes"] = [["3H", "3H", "3D", "3D"], []]
    d["table"][0]["cards"] = d["table"][0]["cards"][:7]  # natural
    got = score_round(d, 0, False, [0, 1, 0, 1])
    assert got[0]["canastas"] == 500 and got[0]["red_threes"] == 800 and got[0]["going_out"] == 100
    assert got[0]["melds"] == 100


def test_concealed_worked_out_from_the_turn():
    start = {"played": [False, False], "table": [{"owner": 1, "side": 1, "cards": ["7S"] * 3}]}
    end = {
        "table": [
            {"owner": 1, "side": 1, "cards": ["7S"] * 3},
            {"owner": 0, "side": 0, "cards": ["KS"] * 7},
        ]
    }
    assert went_out_concealed(start, end, 0)
    assert not went_out_concealed({**start, "played": [True, False]}, end, 0)
    short = {"table": [end["table"][0], {"owner": 0, "side": 0, "cards": ["KS"] * 6}]}
    assert not went_out_concealed(start, short, 0)
    grown = {"table": [{"owner": 1, "side": 1, "cards": ["7S"] * 4}, end["table"][1]]}
    assert not went_out_concealed(start, grown, 0)
