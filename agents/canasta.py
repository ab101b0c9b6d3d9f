"""Canasta agents: the greedy baseline `greedy` plays through, and `canasta-expert`.

Both read only their observation (the Canasta slices of :mod:`rummy_env.observation`)
and the mask; moves are decoded once per action id with
:class:`rummy_env.moves.ActionCodec`.

**Greedy** (:class:`CanastaGreedyPolicy`, what :class:`agents.greedy.GreedyAgent` plays
under ``scoring="canasta"``): takes the pile whenever it may, else draws; melds the
largest legal meld (most cards) again and again, then lays off everything legal;
discards a card of the rank it holds fewest of, highest value first, a wild card only
when nothing else is left; ``EndRound`` only when nothing else is legal.

**Expert** (:class:`CanastaExpertAgent`, `canasta-expert`):

* **Pile.** Takes it when it may and the pile is worth it: its cards, whether the take
  makes or nears a canasta, and what the form costs (a wild card spent on a small pile
  is not). Forms that spend no wild card come first.
* **Building.** Melds naturals (3 or more of a rank), keeps pairs in hand to take a
  frozen pile, lays off every natural on its side's melds, and lays off a wild card
  only where it completes or nears a canasta (melds of 5-6 cards), never on a natural
  canasta; wild cards go into melds freely only in the end game (stock nearly out, an
  opponent about to go out), to cut the hand's penalty.
* **Going out.** Goes out when it may unless its side is behind in the round (side
  scores estimated from the table, the red 3s and the hands) with stock left, then it
  keeps a card back.
* **Discards.** Scores each card: what it is worth to keep (wild cards, pairs, ranks its
  side has melded) plus the danger of handing the next opponent the pile (a rank the
  next opponent's side has melded, or holds known cards of, an unfrozen pile, how many
  copies are unseen), weighted by what the pile is worth. Black 3s block the next
  player and go first; ranks already in the pile are safer. With a big unfrozen pile
  and no safe card it freezes the pile with a wild card (a 2 before a joker).

Melds on the table are listed in the order laid; the observation gives them per side
and rank, so the agent follows the table's order from one observation to the next (and
from the natural lay-offs the mask offers) to know which rank a lay-off index names.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent, split_obs
from rummy_env.env import legal_moves
from rummy_env.moves import ActionCodec, Discard, DrawStock, EndRound, LayOff, Meld, TakePile
from rummy_env.observation import _layout
from rummy_env.rules import RuleSet

JOKER = 52
NUM_FACES = 53
BLACK = 11  # rank class of black 3s
WILD_KINDS = (11, 12)  # lay-off kinds: a joker, a 2

DRAW, TAKE, MELD, LAYOFF, DISCARD, END = range(6)


def rank_class(f: int) -> int:
    """Rank class of a face: A 4..K -> 0..10, a black 3 -> 11, a wild card or red 3 -> -1."""
    if f == JOKER:
        return -1
    r = f % 13
    if r == 1:
        return -1
    if r == 2:
        return BLACK if f in (2, 41) else -1
    return 0 if r == 0 else r - 2


def is_wild(f: int) -> bool:
    return f == JOKER or f % 13 == 1


#: value of a card in melds and hands
VALUE = [0] * NUM_FACES
for _f in range(52):
    _r = _f % 13
    VALUE[_f] = 20 if _r in (0, 1) else 10 if _r >= 7 else 5
VALUE[JOKER] = 50
VALUE[15] = VALUE[28] = 0  # red 3s: bonuses only
#: value of a natural of each rank class
NAT_VALUE = (20, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 5)
CLASS_OF = [rank_class(f) for f in range(NUM_FACES)]


def _decode_move(move: Any) -> tuple:
    """A move as a small tuple: (DRAW,), (TAKE, rc, n, j, t), (MELD, rc, n, j, t),
    (LAYOFF, meld, kind), (DISCARD, face), (END,)."""
    if isinstance(move, DrawStock):
        return (DRAW,)
    if isinstance(move, EndRound):
        return (END,)
    if isinstance(move, Discard):
        return (DISCARD, _face(move.card))
    if isinstance(move, LayOff):
        f = _face(move.card)
        kind = 11 if f == JOKER else 12 if is_wild(f) else CLASS_OF[f]
        return (LAYOFF, move.meld, kind)
    if isinstance(move, (TakePile, Meld)):
        faces = [_face(c) for c in move.cards]
        nat = [f for f in faces if not is_wild(f)]
        j = faces.count(JOKER)
        t = len(faces) - len(nat) - j
        rc = CLASS_OF[nat[0]] if nat else -1
        return (TAKE if isinstance(move, TakePile) else MELD, rc, len(nat), j, t)
    return (END,)


def _face(card: Any) -> int:
    from rummy_env.cards import parse_card

    return parse_card(card)


class _Moves:
    """Action id -> decoded tuple, cached per rule set."""

    _tables: dict[RuleSet, _Moves] = {}

    def __init__(self, rules: RuleSet):
        self.codec = ActionCodec(rules)
        self.cache: dict[int, tuple] = {}

    @classmethod
    def of(cls, rules: RuleSet) -> _Moves:
        t = cls._tables.get(rules)
        if t is None:
            t = cls._tables[rules] = cls(rules)
        return t

    def __getitem__(self, a: int) -> tuple:
        m = self.cache.get(a)
        if m is None:
            m = self.cache[a] = _decode_move(self.codec.decode(int(a)))
        return m


class _Obs:
    """The parts of a Canasta observation the agents read (seats and sides as offsets)."""

    __slots__ = (
        "hand",
        "nat",
        "jokers",
        "deuces",
        "size",
        "melds",
        "red",
        "opened",
        "hand_sizes",
        "stock",
        "pile_size",
        "top",
        "frozen",
        "phase",
        "known",
        "pile",
        "opening_count",
        "minimum",
    )

    def __init__(self, o: np.ndarray, sl: dict[str, slice], P: int, S: int, pile: bool):
        hand = o[sl["hand"]].astype(np.int64)
        self.hand = hand
        nat = [0] * 12
        for f in np.flatnonzero(hand):
            rc = CLASS_OF[f]
            if rc >= 0:
                nat[rc] += int(hand[f])
        self.nat = nat
        self.jokers = int(hand[JOKER])
        self.deuces = int(hand[1] + hand[14] + hand[27] + hand[40])
        self.size = int(hand.sum())
        self.melds = o[sl["melds"]].reshape(S, 12, 3).astype(np.int64)
        self.red = o[sl["red_threes"]].astype(np.int64)
        self.opened = o[sl["opened"]] > 0.5
        self.minimum = o[sl["minimum"]]
        self.hand_sizes = o[sl["hand_sizes"]].astype(np.int64)
        self.stock = int(o[sl["stock_size"]][0])
        self.pile_size = int(o[sl["pile_size"]][0])
        top = np.flatnonzero(o[sl["pile_top"]])
        self.top = int(top[0]) if len(top) else -1
        self.frozen = bool(o[sl["frozen"]][0] > 0.5)
        self.opening_count = float(o[sl["opening_count"]][0])
        self.phase = int(np.argmax(o[sl["phase"]]))
        self.known = o[sl["known"]].reshape(P - 1, NUM_FACES) if P > 1 else None
        if pile and self.pile_size:
            d = sl["discard"]
            rows = o[d.start : d.start + self.pile_size * NUM_FACES].reshape(-1, NUM_FACES)
            self.pile = np.argmax(rows, axis=1)
        else:
            self.pile = np.zeros(0, dtype=np.int64)


class _Base:
    """What both policies share: the layout, the move table and the observation reader."""

    def __init__(self, rules: RuleSet, seat: int = 0):
        self.rules = rules
        self.seat = seat
        L = _layout(rules)
        self.sl = L.slices
        self.P = rules.num_players
        self.S = 2 if rules.partnerships else self.P
        self.table = _Moves.of(rules)

    def grouped(self, legal: np.ndarray) -> dict[int, list[tuple[int, tuple]]]:
        out: dict[int, list[tuple[int, tuple]]] = {}
        table = self.table
        for a in legal:
            a = int(a)
            m = table[a]
            out.setdefault(m[0], []).append((a, m))
        return out


# ====================================================================== greedy
class CanastaGreedyPolicy(_Base):
    """The greedy baseline (module docstring); ``act`` as an agent's."""

    def act(self, observation: Any, action_mask: Any = None) -> int:
        observation, action_mask = split_obs(observation, action_mask)
        legal = legal_moves(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        g = self.grouped(legal)
        if TAKE in g:  # no wild card spent when it can be helped
            return min(g[TAKE], key=lambda x: (x[1][3] + x[1][4], x[1][3], x[0]))[0]
        if DRAW in g:
            return g[DRAW][0][0]
        if MELD in g:
            return max(g[MELD], key=lambda x: (x[1][2] + x[1][3] + x[1][4], x[1][2], -x[0]))[0]
        if LAYOFF in g:
            return min(g[LAYOFF], key=lambda x: (x[1][2] in WILD_KINDS, x[0]))[0]
        if DISCARD in g:
            hand = np.asarray(observation[self.sl["hand"]])
            nat = [0] * 12
            for f in np.flatnonzero(hand):
                if CLASS_OF[f] >= 0:
                    nat[CLASS_OF[f]] += int(hand[f])

            def key(x: tuple[int, tuple]) -> tuple:
                f = x[1][1]
                wild = is_wild(f)
                copies = 0 if wild else nat[CLASS_OF[f]]
                return (wild, copies, -VALUE[f], -f)

            return min(g[DISCARD], key=key)[0]
        return int(legal[0])


# ====================================================================== expert
class CanastaExpertAgent(Agent):
    """Rule-based Canasta (see the module docstring).

    Args:
        rules: a Canasta rule set.
        seat: the seat it plays.
        hold_margin: points its side must be behind (estimated round scores) to keep a card
            back rather than go out.
        freeze_pile: pile size from which it freezes an unfrozen pile with a wild card
            rather than risk handing it over.
        danger_weight: weight of the danger of handing the next opponent the pile.
        take_bias: added to the value of taking the pile (it takes when the value is
            above 0; a small pile is worth less than the stock's cards).
        wild_restraint: wild cards only into melds that make or near a canasta (else
            anywhere, as the greedy player).
    """

    name = "canasta-expert"

    def __init__(
        self,
        rules: RuleSet,
        seat: int = 0,
        hold_margin: float = 300.0,
        freeze_pile: int = 5,
        danger_weight: float = 5.0,
        take_bias: float = -20.0,
        wild_restraint: bool = True,
    ):
        super().__init__(rules, seat)
        if rules.scoring != "canasta":
            raise ValueError(f"canasta-expert plays Canasta only (rules {rules.name!r})")
        self.base = _Base(rules, seat)
        self.hold_margin = hold_margin
        self.freeze_pile = freeze_pile
        self.danger_weight = danger_weight
        self.take_bias = take_bias
        self.wild_restraint = wild_restraint
        self.P = self.base.P
        self.S = self.base.S
        self.to_go_out = rules.canastas_to_go_out
        self.cap = rules.max_wilds_per_meld
        self._pack = [8] * 12
        self._pack[BLACK] = 4
        self._clear_table()

    @classmethod
    def options(cls) -> tuple[str, ...]:
        return ("hold_margin", "freeze_pile", "danger_weight", "take_bias", "wild_restraint")

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._clear_table()

    # ------------------------------------------------------------ the table's order
    def _clear_table(self) -> None:
        self.slots: list[set[tuple[int, int]]] = []
        self.seen: set[tuple[int, int]] = set()
        self.last_stock = 10**9

    def _track(self, v: _Obs) -> None:
        present = {(int(s), int(r)) for s, r in zip(*np.nonzero(v.melds.sum(axis=2)))}
        if v.stock > self.last_stock or not present >= self.seen:
            self._clear_table()
        self.last_stock = v.stock
        new = present - self.seen
        if new:
            for _ in new:
                self.slots.append(set(new))
            self.seen |= new
            self._settle()

    def _settle(self) -> None:
        changed = True
        while changed:
            changed = False
            for i, c in enumerate(self.slots):
                if len(c) == 1:
                    (x,) = c
                    for j, d in enumerate(self.slots):
                        if j != i and x in d and len(d) > 1:
                            d.discard(x)
                            changed = True

    def _learn(self, g: dict[int, list[tuple[int, tuple]]]) -> None:
        """What the legal lay-offs tell about the table's order."""
        changed = False
        for _, m in g.get(LAYOFF, ()):
            i, kind = m[1], m[2]
            if i >= len(self.slots):
                continue
            c = self.slots[i]
            if kind < 11:
                if c != {(0, kind)}:
                    self.slots[i] = {(0, kind)}
                    changed = True
            elif len(c) > 1:
                mine = {x for x in c if x[0] == 0}
                if mine and mine != c:
                    self.slots[i] = mine
                    changed = True
        if changed:
            self._settle()

    def meld_rank(self, i: int) -> int:
        """Rank class of own side's meld at table index ``i`` (-1 when not known)."""
        if i < len(self.slots):
            c = self.slots[i]
            if len(c) == 1:
                (s, r) = next(iter(c))
                return r if s == 0 else -1
        return -1

    # ------------------------------------------------------------ estimates
    def side_score(self, v: _Obs, s: int) -> float:
        m = v.melds[s]
        total = 0.0
        any_meld = False
        for rc in range(12):
            n, j, t = m[rc]
            if n + j + t == 0:
                continue
            any_meld = True
            total += n * NAT_VALUE[rc] + 50 * j + 20 * t
            if n + j + t >= 7:
                total += 500 if j + t == 0 else 300
        red = int(v.red[s])
        rb = 800 if red == 4 else 100 * red
        total += rb if any_meld else -rb
        return total

    def hand_penalty(self, v: _Obs, off: int) -> float:
        if off == 0:
            return float(sum(VALUE[f] * int(v.hand[f]) for f in np.flatnonzero(v.hand)))
        return 9.0 * float(v.hand_sizes[off])

    def side_of(self, off: int) -> int:
        return off % 2 if self.rules.partnerships else off

    def round_estimate(self, v: _Obs) -> tuple[float, float]:
        """(own side, best other side) estimated round scores, hands deducted."""
        est = [self.side_score(v, s) for s in range(self.S)]
        for off in range(self.P):
            est[self.side_of(off)] -= self.hand_penalty(v, off)
        return est[0], max(est[1:])

    def canastas(self, v: _Obs, s: int = 0) -> int:
        return int(sum(1 for rc in range(12) if v.melds[s, rc].sum() >= 7))

    def end_game(self, v: _Obs) -> bool:
        """Time to empty the hand: the stock nearly out or an opponent about to go out."""
        if v.stock <= 2 * self.P:
            return True
        for off in range(1, self.P):
            s = self.side_of(off)
            if s != 0 and v.hand_sizes[off] <= 2 and self.canastas(v, s) >= self.to_go_out:
                return True
        return False

    # ------------------------------------------------------------ act
    def act(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> int:
        observation, action_mask = split_obs(observation, action_mask)
        legal = legal_moves(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        o = np.asarray(observation)
        v = _Obs(o, self.base.sl, self.P, self.S, pile=True)
        self._track(v)
        g = self.base.grouped(legal)
        self._learn(g)
        if DRAW in g or TAKE in g or (END in g and v.phase == 0):
            return self.draw(v, g)
        return self.play(v, g, legal)

    # ------------------------------------------------------------ draw
    def draw(self, v: _Obs, g: dict[int, list[tuple[int, tuple]]]) -> int:
        best, best_score = None, 0.0
        for a, m in g.get(TAKE, ()):
            score = self.take_value(v, m)
            if best is None or score > best_score:
                best, best_score = a, score
        if best is not None and (best_score > 0 or DRAW not in g):
            return best
        if DRAW in g:
            return g[DRAW][0][0]
        return g[END][0][0] if END in g else g[TAKE][0][0]

    def take_value(self, v: _Obs, m: tuple) -> float:
        _, rc, n, j, t = m
        rc = CLASS_OF[v.top] if rc < 0 else rc
        pile_cards = [int(f) for f in v.pile[1:]]
        gain = 0.0
        for f in pile_cards:
            if is_wild(f):
                gain += 25
            elif f in (15, 28):
                gain += 100
            else:
                c = CLASS_OF[f]
                if c == BLACK:
                    gain += 0
                elif v.melds[0, c].sum() or v.nat[c] >= 1:
                    gain += 10
                else:
                    gain += 4
        size = int(v.melds[0, rc].sum()) + 1 + n + j + t
        if size >= 7:
            gain += 150
        elif size >= 5:
            gain += 40
        cost = 30 * j + 15 * t + 3 * n
        return gain + self.take_bias - cost

    # ------------------------------------------------------------ play
    def play(self, v: _Obs, g: dict[int, list[tuple[int, tuple]]], legal: np.ndarray) -> int:
        opening = not v.opened[0]
        endgame = self.end_game(v)
        hold = False
        if not opening and v.stock > 0:
            mine, theirs = self.round_estimate(v)
            hold = mine + self.hold_margin < theirs and not endgame

        def left_after(m: tuple) -> int:
            if m[0] == MELD:
                return v.size - (m[2] + m[3] + m[4])
            if m[0] == LAYOFF:
                return v.size - 1
            return v.size

        def allowed(m: tuple) -> bool:
            return not hold or left_after(m) >= 2

        # melds
        melds = [(a, m) for a, m in g.get(MELD, ()) if allowed(m)]
        if melds:
            choice = self.pick_meld(v, melds, opening, endgame)
            if choice is not None:
                return choice
        lays = [(a, m) for a, m in g.get(LAYOFF, ()) if allowed(m)]
        if lays:
            choice = self.pick_layoff(v, lays, opening, endgame)
            if choice is not None:
                return choice
        discards = g.get(DISCARD, [])
        if hold and discards and v.size == 1:
            discards = []  # (going out: only if nothing else is left)
        if discards:
            return self.pick_discard(v, discards)
        if END in g:
            return g[END][0][0]
        # forced: anything legal, melds and lay-offs first
        for k in (MELD, LAYOFF, DISCARD):
            if k in g:
                if k == MELD:
                    return max(g[k], key=lambda x: (x[1][2], -(x[1][3] + x[1][4])))[0]
                return g[k][0][0]
        return int(legal[0])

    def pick_meld(
        self, v: _Obs, melds: list[tuple[int, tuple]], opening: bool, endgame: bool
    ) -> int | None:
        def key(x: tuple[int, tuple]) -> tuple:
            _, rc, n, j, t = x[1]
            # most naturals, fewest wild cards (jokers kept longest), biggest
            return (n, -(j + t), -j, n + j + t, NAT_VALUE[rc] if rc >= 0 else 0)

        if opening:
            return max(melds, key=key)[0]
        best = None
        for a, m in melds:
            _, rc, n, j, t = m
            if rc == BLACK:
                ok = True  # (only offered to go out)
            elif j + t == 0:
                ok = n >= 3
            else:
                ok = endgame or n + j + t >= 7 or not self.wild_restraint
            if ok and (best is None or key((a, m)) > key(best)):
                best = (a, m)
        return None if best is None else best[0]

    def pick_layoff(
        self, v: _Obs, lays: list[tuple[int, tuple]], opening: bool, endgame: bool
    ) -> int | None:
        naturals = [(a, m) for a, m in lays if m[2] < 11]
        if naturals:
            # onto the meld nearest a canasta first
            return max(naturals, key=lambda x: (int(v.melds[0, x[1][2]].sum()), -x[0]))[0]
        best, best_score = None, 0.0
        if not self.wild_restraint:
            return lays[0][0]
        for a, m in lays:
            rc = self.meld_rank(m[1])
            joker = m[2] == 11
            if rc < 0:
                score = 1.0 if endgame or opening else -1.0
            else:
                n, j, t = (int(x) for x in v.melds[0, rc])
                size, wild = n + j + t, j + t
                if size >= 7 and wild == 0:
                    score = -5.0 if not endgame else 0.5  # a natural canasta stays natural
                elif size == 6 or (size == 5 and v.jokers + v.deuces >= 2):
                    score = 10.0 + size
                elif size >= 7:
                    score = 3.0 if endgame else -1.0
                else:
                    score = 2.0 + size if endgame or opening else -1.0
                if not self.canastas(v) and size >= 4:
                    score += 1.0
            score -= 0.5 if joker else 0.0  # a 2 before a joker
            if score > 0 and (best is None or score > best_score):
                best, best_score = a, score
        return best

    # ------------------------------------------------------------ discard
    def pick_discard(self, v: _Obs, discards: list[tuple[int, tuple]]) -> int:
        P = self.P
        nxt_side = self.side_of(1) if P > 1 else 0
        opp_open = bool(v.opened[nxt_side])
        frozen_for_next = v.frozen or not opp_open
        pile_value = 20.0 + 10.0 * v.pile_size
        # unseen copies per rank class: the pack less what this seat sees
        seen = list(v.nat)
        for s in range(self.S):
            for rc in range(12):
                seen[rc] += int(v.melds[s, rc, 0])
        in_pile = [0] * 12
        for f in v.pile:
            c = CLASS_OF[int(f)]
            if c >= 0:
                in_pile[c] += 1
                seen[c] += 1
        known_next = v.known[0] if v.known is not None else None
        known_ranks = [0] * 12
        if known_next is not None:
            for f in np.flatnonzero(known_next):
                c = CLASS_OF[int(f)]
                if c >= 0:
                    known_ranks[c] += int(known_next[f])
        next_size = int(v.hand_sizes[1]) if P > 1 else 0
        unseen_total = max(1, v.stock + int(v.hand_sizes[1:].sum()))
        next_melds = v.melds[nxt_side]

        def danger(f: int) -> float:
            if is_wild(f):
                return 0.0
            c = CLASS_OF[f]
            if c == BLACK or c < 0:
                return 0.0
            unseen = max(0, self._pack[c] - seen[c])
            p_one = min(1.0, unseen * next_size / unseen_total)
            known = known_ranks[c]
            if not frozen_for_next:
                if next_melds[c].sum() > 0:
                    return 1.0
                if known >= 1:
                    return 0.9
                return min(1.0, 0.6 * p_one)
            # frozen: two naturals needed
            if known >= 2:
                return 1.0
            if known == 1:
                return 0.7 * p_one
            return 0.5 * p_one * p_one

        def keep(f: int) -> float:
            if f == JOKER:
                return 120.0
            if is_wild(f):
                return 80.0
            c = CLASS_OF[f]
            if c == BLACK:
                return -5.0
            have = v.nat[c]
            own = int(v.melds[0, c].sum())
            k = 0.0
            if own:
                k += 25.0 + own  # (a lay-off the mask did not allow now)
            if have >= 2:
                k += 18.0 + 4.0 * have
            k -= 0.3 * VALUE[f]  # high cards cost more when caught
            if in_pile[c]:
                k -= 2.0
            return k

        best, best_cost = None, 0.0
        wild_options = []
        for a, m in discards:
            f = m[1]
            if is_wild(f):
                wild_options.append((a, f))
            d = danger(f)
            if in_pile[CLASS_OF[f]] if CLASS_OF[f] >= 0 else False:
                d *= 0.8
            cost = keep(f) + self.danger_weight * d * pile_value
            if best is None or cost < best_cost:
                best, best_cost = a, cost
        # freeze a big pile rather than risk it
        if (
            wild_options
            and not frozen_for_next
            and v.pile_size >= self.freeze_pile
            and best_cost > 0.6 * pile_value
        ):
            return min(wild_options, key=lambda x: (x[1] == JOKER, x[0]))[0]
        return best
