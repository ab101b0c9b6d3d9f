"""`rummikub-expert`: a rule-based agent for Rummikub.

It reads only its observation: own rack, the table's tiles (one pool, D-17), the tiles
played this turn, the rack sizes and the ``opened`` flags. A round is a race to go out,
and the loser pays his rack total (a joker 30). `greedy` plays a tile at a time, the
highest first, while any is playable, then commits: a commit that no tile can be added
to, but not always the largest one, and chosen without a thought for the opponent, who
moves next on the table it leaves.

* **Plan the whole turn.** At the turn's first decision the agent searches the commits
  its rack allows, depth first over the tiles in a fixed order (greedy's path first, so
  its commit is always among them), each step asking the engine's own mask question
  which tiles stay playable (:func:`rummy_env.variants.rummikub.tile_choices`, the exact-cover
  search; before opening with the 30 points of D-19), with a bound on what the tiles left can add, and at most ``node_cap``
  searches a turn. A commit scores ``tile_weight`` (100) a tile plus the rack value
  it lays down (a joker 30): the most tiles first, then the most points.
* **Weigh what the table gives away.** Once an opponent has opened (before, the table is
  no use to him: D-19), among the best commits found (the ``absorb_top`` best within
  ``absorb_slack`` of the best score: the same number of tiles, or one fewer) it takes
  the one that leaves the least for the opponent, who plays next: each unseen tile (the
  106 less its rack and the table) that could be laid on the table alone afterwards
  counts ``absorb`` (40) against the score (:meth:`RummikubExpertAgent.absorbency`). So
  of two commits of one size the one that closes the table is played (a group of three
  that only one tile joins rather than a run open at both ends), and a tile is kept back
  for a later turn when laying it would open the table to many more tiles.
* **The endgame.** Once an opponent (opened) holds ``end_h`` (2) tiles or fewer, every
  commit found, and drawing instead, is worth ``end_w`` (10) a tile plus the value laid,
  less the chance that he goes out on the table left times twice the rack value left (he
  wins it, we lose it): :meth:`RummikubExpertAgent.endgame`. The chance is inferred
  (:meth:`RummikubExpertAgent.out_chance`): `greedy` plays all it can, so his tiles are
  unseen tiles that the table he left could not take alone, but for one he has drawn
  since our last turn (his rack grew by one: any unseen tile); he goes out when each is
  one the new table takes alone, as often as such tiles are among those he may hold.
  So near the end it lays value rather than count, and keeps the table closed (or
  draws) when opening it would let him out while its rack is high.
* **The search (version 3).** In a 2-player round, once the opponent holds ``search_h``
  (5) tiles or fewer, the turn is decided by play-outs rather than by the weights above:
  its plan, the ``search_top`` (6) best other commits found and drawing are each played in
  ``simulations`` (16) deals of the hidden tiles, the same deals for every candidate, and
  then `greedy`'s own policy plays both seats to the round's end; the candidate with the
  best mean result (its reward less his) is played (:meth:`RummikubExpertAgent.search_turn`).
  A deal keeps all the observation shows, and it re-deals his rack to fit what his last
  turn said of it (:meth:`RummikubExpertAgent.sampler`): `greedy` lays every tile it can,
  so he holds no tile the table he left could take (before his initial meld, no 30 of
  his own; in the turn of it, no further meld of his own), but for one tile if he drew.
  That inference is most of the gain: the same search on plain determinizations was
  level with greedy, on the true rack (a bound no honest agent reaches) far ahead.
  Going out is never searched: the agent goes out whenever it can. ``search_h=0``
  turns the search off (the version 2 agent).
* **Opening.** The largest (then most valuable) initial meld of the rack alone.
* **Going out** whenever the whole rack can go; otherwise the plan's tiles are played
  one by one (any order is legal: the mask offers every tile some commit holding the
  tiles played can take) and committed; draw (or pass) when nothing is playable.

Measured against `greedy` while it was written (2 players, duplicate deals on seeds
100000 and up, each played in both seatings; mean score difference per round, 95%
interval): the largest commit alone -0.14 [-1.86, +1.57] (600 deals), the most valuable
+0.11 [-2.12, +2.35] (300); keeping back one tile -3.50 [-6.49, -0.51] or two -2.54
[-5.45, +0.37] while the opponent holds more than 5 (300 each), and playing the smallest
commit then -5.45 [-8.34, -2.56] (300): tempo matters less than laying tiles down. The
table's openness is what gains: weighed among commits of one size +0.80 [-0.97, +2.58]
(600), of one tile fewer too at 20 a tile +1.83 [-0.88, +4.55] (300) and +0.95 [-0.97,
+2.86] (600 more), at 40 +1.39 [-0.64, +3.41] (600), and at 40 only once the opponent
has opened (version 1) +1.88 [-0.15, +3.90] (600). On the held-out deals, seeds
0-1999 (``rummy-tournament --preset rummikub --players 2 --agents rummikub-expert,greedy
--deals 2000``), version 1 scored +0.14 [-1.00, +1.29], winning 0.517 [0.502, 0.532].

Version 2 (this agent) was measured on seeds 200000 and up, 1,000 deals a range, each
beside version 1 on the same deals (paired: the difference of the two agents' results
deal by deal). On 200000-200999 version 1 scored +0.66 [-0.92, +2.24]; the openness
counted on only the tiles the opponent may hold (as in the endgame) at 100 a tile he is
expected to gain +0.49 [-0.98, +1.97] (paired -0.16 [-1.73, +1.41]); a joker kept on
the rack unless laying it lets two more tiles go (the opponent on more than 4) +0.63
[-0.95, +2.21], changing 1 deal of 1,000; the endgame from 3 tiles +0.62 [-0.90, +2.15]
(paired -0.03 [-0.97, +0.91], 377 deals changed); the endgame from 2 tiles (this agent)
+0.98 [-0.58, +2.54] (paired +0.32 [-0.33, +0.97], 235 changed), and on 210000-210999
+1.49 [-0.06, +3.04] against version 1's +0.79 [-0.79, +2.38] (paired +0.70 [+0.10,
+1.29], 257 changed). On fresh held-out deals, seeds 500000-501999 (``rummy-tournament
--preset rummikub --players 2 --agents rummikub-expert,greedy --deals 2000 --first-deal
500000 --workers 1``, run once): +0.01 [-1.06, +1.07], winning 0.508 [0.493, 0.524] of
the games. The endgame gained on version 1 in development, but against `greedy` the
margin is still not shown: Rummikub's expert is level with greedy. About 0.2 s a
2-player game.

Version 3 (the search) was developed on seeds 230000-230039, 240000-240099 and
250000-250063, against `greedy`, each deal in both seatings; the mean of the agent's two
rewards a deal, 95% interval (the tournament's score difference is twice it). On
230000-230039 (40 deals), searching every turn with 16 deals and no confidence rule:
plain determinizations +0.11 [-3.48, +3.70]; the opponent's true rack with the pool
shuffled (cheating: a bound) +15.40 [+10.78, +20.02]; the inferred rack, 30 deals,
+5.48 [-0.16, +11.12]. Searching only once he holds 5 tiles or fewer cost 1.1-1.4 s a
game instead of 4-6 and kept most of it: the true rack +9.65 [+5.78, +13.52], the
inferred rack (this agent) +4.75 [+1.71, +7.79] on 240000-240099 (100 deals) and +2.94
[-0.23, +6.11] on 250000-250063 (64 deals, through ``rummy-tournament``). On fresh
held-out deals, seeds 600000-601999 (``rummy-tournament --preset rummikub --players 2
--agents rummikub-expert,greedy --deals 2000 --first-deal 600000``, run once): a score
difference of +6.23 [+4.99, +7.47] a round, winning 0.602 [0.586, 0.617] of the games.
About 1.2 s a 2-player game. The opponent is assumed to play as `greedy` does (lay all
it can); against one that keeps tiles back the inferred racks are wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from operator import add
from typing import Any

import numpy as np

from agents.base import (
    COMMIT,
    DRAW_STOCK,
    PASS,
    PLAY_TILE,
    Agent,
    View,
    _pack_counts,
    int_option,
    split_obs,
)
from rummy_env import cover, engine
from rummy_env.cards import NUM_FACES
from rummy_env.determinize import Determinizer
from rummy_env.moves import Layout
from rummy_env.rules import RuleSet
from rummy_env.variants.rummikub import tile_choices

_TOP = (10**9, 10**9)  # a key above every tile's


class RummikubExpertAgent(Agent):
    """Rule-based Rummikub (see the module docstring)."""

    name = "rummikub-expert"
    version = 3  # 2: the endgame (end_h, end_w; was absent); 3: the search (search_h)

    #: most cover searches spent on the commits of one turn
    node_cap = 400
    #: worth of a tile laid down, beside its value (large: the most tiles first)
    tile_weight = 100.0
    #: worth, against the score, of each unseen tile the table left could take alone
    absorb = 40.0
    #: commits scored this far below the best are weighed too (199: one tile fewer)
    absorb_slack = 199.0
    #: at most this many commits are weighed
    absorb_top = 10
    #: the endgame: an opponent (opened) holds this many tiles or fewer
    end_h = 2
    #: worth of a tile laid in the endgame, beside its value
    end_w = 10.0
    #: the search: two players, the opponent holds this many tiles or fewer (0: never)
    search_h = 5
    #: sampled deals each candidate is played out in
    simulations = 16
    #: at most this many commits found are searched beside the plan (and drawing)
    search_top = 6
    #: samples of the opponent's rack tried for one that his last turn fits
    redeal_tries = 30

    def __init__(
        self,
        rules: RuleSet,
        seat: int = 0,
        search_h: int | None = None,
        simulations: int | None = None,
        **kwargs: Any,
    ):
        if rules.scoring != "rummikub":
            raise ValueError(
                f"rummikub-expert plays Rummikub (scoring='rummikub'), not {rules.name!r}"
            )
        super().__init__(rules, seat, **kwargs)
        for name, value, least in (("search_h", search_h, 0), ("simulations", simulations, 1)):
            if value is not None:
                setattr(self, name, int_option(name, value, least))
        self.need = rules.open_points
        self.penalty = [self.values[f] for f in range(NUM_FACES)]
        self.pack = _pack_counts(rules.decks, rules.jokers)
        self._plan: list[int] | None = None
        self._prev_h: int | None = None  # the opponent's rack size at our last turn's start
        self._drew = False  # whether he drew since (then one of his tiles is any unseen one)
        self._seen = False  # whether he has had a turn since our last turn's start
        self._was_open = False  # whether he had opened at our last turn's start
        self._opened_now = False  # whether he opened (his initial meld) since
        self._obs: tuple[np.ndarray, np.ndarray] | None = None  # the turn's first observation
        self.L = Layout(rules)
        self.searched = 0  # turns searched (for reports)

    @classmethod
    def options(cls) -> tuple[str, ...]:
        return ("search_h", "simulations")

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan = None
        self._prev_h = None
        self._drew = False
        self._seen = False
        self._was_open = False
        self._opened_now = False
        self._obs = None

    # ------------------------------------------------------------ turn
    def act(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> int:
        observation, legal, kinds = self.choices(observation, action_mask)
        v = self.view(observation)
        start = not any(v.played_tiles)
        if start:  # the turn's first decision: did the opponent draw since our last turn?
            h = min(v.hand_sizes[1:])
            self._seen = self._prev_h is not None
            self._drew = self._seen and h == self._prev_h + 1
            self._prev_h = h
            was_open, self._was_open = self._was_open, bool(v.opened[1])
            self._opened_now = self._seen and self._was_open and not was_open
            self._obs = split_obs(observation, action_mask)
        if len(legal) == 1:
            return legal[0]
        tiles = kinds.get(PLAY_TILE, [])
        draw = kinds.get(DRAW_STOCK) or kinds.get(PASS)
        if not tiles:
            if kinds.get(COMMIT):
                return kinds[COMMIT][0]
            return (draw or legal)[0]
        playable = {self.moves[a][1]: a for a in tiles}
        plan = None if start else self._plan
        if plan is None or (plan and not any(f in playable for f in plan)):
            plan = self._plan = self.plan_turn(v, set(playable))
            if not plan and start and draw:  # the endgame's choice: draw rather than play
                return draw[0]
        for f in plan:
            if f in playable:
                plan.remove(f)
                return playable[f]
        # the plan is played out: commit (the mask offers Commit when the tiles may lie)
        if kinds.get(COMMIT):
            return kinds[COMMIT][0]
        return max(tiles, key=lambda a: (self.values[self.moves[a][1]], a))

    # ------------------------------------------------------------ planning
    def score(self, played: list[int]) -> float:
        """How good a commit is: ``tile_weight`` a tile plus the rack value laid down."""
        w, pen = self.tile_weight, self.penalty
        return sum((w + pen[f]) * c for f, c in enumerate(played) if c)

    def commits(
        self,
        mand: list[int],
        rack: list[int],
        played: list[int],
        playable: set[int],
        opened: bool,
        slack: float,
    ) -> tuple[list[int], list[tuple[float, tuple[int, ...]]]]:
        """The best commit found (its tiles, beyond those played) and every commit met
        (``(score, tiles)``) by a depth-first search over the rack's tiles in a fixed
        order (highest value first: greedy's commit is the first found), cutting a branch
        whose tiles left cannot reach ``slack`` below the best, after ``node_cap`` searches
        at most. The lists passed are used as scratch and restored."""
        key = lambda f: (self.penalty[f], f)  # noqa: E731
        w, pen = self.tile_weight, self.penalty
        best: list[Any] = [None, []]
        leaves: list[tuple[float, tuple[int, ...]]] = []
        nodes = [0]
        chosen: list[int] = []

        def dfs(ok: set[int], last: tuple[int, int], commit: bool) -> None:
            s = self.score(played)
            if commit:
                if best[0] is None or s > best[0]:
                    best[0], best[1] = s, list(chosen)
                leaves.append((s, tuple(chosen)))
            cands = sorted((f for f in ok if key(f) <= last), key=key, reverse=True)
            if not cands:
                return
            if best[0] is not None:
                if s + sum((w + pen[f]) * rack[f] for f in cands) <= best[0] - slack:
                    return
            for f in cands:
                if nodes[0] >= self.node_cap:
                    return
                nodes[0] += 1
                rack[f] -= 1
                mand[f] += 1
                played[f] += 1
                chosen.append(f)
                commit, ok2 = tile_choices(mand, rack, opened, self.need, True, f, ok)
                dfs(ok2, key(f), commit)
                chosen.pop()
                played[f] -= 1
                mand[f] -= 1
                rack[f] += 1

        commit0 = any(played) and tile_choices(mand, rack, opened, self.need, True)[0]
        dfs(set(playable), _TOP, commit0)
        return best[1], leaves

    def plan_turn(self, v: View, playable: set[int]) -> list[int]:
        """The tiles to play this turn (see the module docstring)."""
        opened = bool(v.opened[0]) if v.opened is not None else True
        rack = list(v.hand)
        played = list(v.played_tiles)
        mand = list(map(add, v.table_tiles, played)) if opened else list(played)
        # the table is the opponents' only once one of them has opened (D-19)
        slack = self.absorb_slack if opened and self.absorb and any(v.opened[1:]) else 0.0
        h = min(v.hand_sizes[1:])
        search = (
            self.search_h >= h
            and self.rules.num_players == 2
            and not any(played)
            and self._obs is not None
        )
        if slack and h <= self.end_h:
            full, leaves = self.commits(mand, rack, played, playable, opened, float("inf"))
            if len(full) >= sum(rack):
                return full
            plan = self.endgame(v, mand, leaves, h)
        else:
            full, leaves = self.commits(mand, rack, played, playable, opened, slack)
            if len(full) >= sum(rack):
                return full
            plan = full
            if slack and len(leaves) > 1:
                plan = self.least_absorbent(v, mand, leaves, max(s for s, _ in leaves) - slack)
            if search and slack != float("inf"):
                leaves = self.commits(mand, rack, played, playable, opened, float("inf"))[1]
        return self.search_turn(v, plan, leaves) if search else plan

    # ------------------------------------------------------------ the search
    def search_turn(
        self, v: View, plan: list[int], leaves: list[tuple[float, tuple[int, ...]]]
    ) -> list[int]:
        """The turn's choice among ``plan`` (first), the ``search_top`` best other commits
        of ``leaves`` and drawing (``[]``): the one of best mean result over ``simulations``
        deals consistent with what the agent has seen (:meth:`sampler`), each candidate
        played out to the round's end by `greedy`'s policy for both players
        (:meth:`playout`), the same deals for every candidate."""
        cands = [tuple(sorted(plan))]
        for _, tiles in sorted(leaves, reverse=True):
            if len(cands) > self.search_top:
                break
            k = tuple(sorted(tiles))
            if k not in cands:
                cands.append(k)
        if () not in cands:
            cands.append(())
        if len(cands) == 1:
            return plan
        self.searched += 1
        assert self._obs is not None
        det = Determinizer(self._obs[0], self.rules, self.seat, action_mask=self._obs[1])
        draw = self.sampler(det, v)
        totals = [0.0] * len(cands)
        for _ in range(self.simulations):
            s = draw()
            for j, c in enumerate(cands):
                totals[j] += self.playout(s.copy(), c)
        j = max(range(len(cands)), key=lambda j: (totals[j], -j))
        return plan if j == 0 else sorted(cands[j], key=lambda f: (-self.penalty[f], f))

    def sampler(self, det: Determinizer, v: View) -> Callable[[], engine.GameState]:
        """A draw of deals of the hidden tiles consistent with the observation and with
        `greedy`'s last turn (he plays every tile he can, and opens as soon as he can): his
        rack, less the tile he drew if he drew, is one no tile of which the table (as he
        left it) can take; before his opening, one with no initial meld; after the turn of
        his initial meld (D-19: his own melds only), one with no meld of its own: the
        engine's own mask question (:func:`rummy_env.variants.rummikub.tile_choices`) offers none of
        its tiles. Each deal tries ``redeal_tries`` racks (else keeps the try with the
        fewest such tiles). The rest of the hidden tiles are the pool, shuffled. What the
        turn fixes (his rack's size, the tiles he may hold) is worked out once here."""
        rng = self.rng
        o = 1 - self.seat
        k = det.need[o] - self._drew
        hidden = det.hidden
        opened = self._was_open and not self._opened_now  # (the table was his to use)
        down = list(v.table_tiles) if opened else [0] * NUM_FACES
        allowed = _untaken(list(down), hidden) if opened else hidden
        if not self._seen or not 0 < k <= len(allowed):
            return lambda: det.sample(rng)
        least = 0 if self._opened_now else self.need  # a meld's value that he would lay

        def draw() -> engine.GameState:
            best: tuple[int, list[int]] | None = None
            for _ in range(self.redeal_tries):
                rack = rng.sample(allowed, k)
                counts = [0] * NUM_FACES
                for f in rack:
                    counts[f] += 1
                misfits = len(tile_choices(down, counts, opened, least, False)[1])
                if best is None or misfits < best[0]:
                    best = (misfits, rack)
                if not misfits:
                    break
            assert best is not None
            rack = best[1]
            if self._drew:
                rest = list(hidden)
                for f in rack:
                    rest.remove(f)
                rack = rack + [rng.choice(rest)]
            return det.sample(rng, {o: rack})

        return draw

    def playout(self, s: engine.GameState, tiles: tuple[int, ...]) -> float:
        """Play ``tiles`` and commit (``()``: draw or pass), then `greedy`'s policy for
        every player to the round's end: this seat's reward less the opponent's."""
        L = self.L
        apply = engine.apply_legal_action
        if tiles:
            for f in tiles:
                apply(s, L.PLAY_TILE + f)
            ended = apply(s, L.COMMIT)
        else:
            ended = apply(s, engine.legal_actions(s)[0])
        while not ended:
            ended = apply(s, greedy_move(s, L))
        r = s.last_result["rewards"]
        return float(r[self.seat] - r[1 - self.seat])

    def unseen(self, v: View) -> list[int]:
        """The tiles not in sight: the pack less the rack, the table and the tiles played."""
        return [
            max(0, c - v.hand[f] - v.table_tiles[f] - v.played_tiles[f])
            for f, c in enumerate(self.pack)
        ]

    def endgame(
        self, v: View, mand: list[int], leaves: list[tuple[float, tuple[int, ...]]], h: int
    ) -> list[int]:
        """The commit (or ``[]``: draw, at the turn's start) of greatest worth once the
        opponent holds ``h`` tiles or fewer: ``end_w`` a tile plus the value laid, less the
        chance he goes out on the table left (:meth:`out_chance`) times twice the rack
        value left (he would win it, and we lose it). Drawing is worth one tile less and
        a tile's mean value (7) less."""
        unseen = self.unseen(v)
        # the tiles he may hold: those the table he left could not take alone
        held = {u for u, c in enumerate(unseen) if c} - _taken(list(v.table_tiles), unseen)
        pen = self.penalty
        rack = sum(pen[f] * c for f, c in enumerate(v.hand))
        best: tuple[float, list[int]] | None = None
        for k in dict.fromkeys(tuple(sorted(t)) for _, t in leaves):
            laid = sum(pen[f] for f in k)
            p = self.out_chance(_with(mand, k), unseen, held, h)
            worth = self.end_w * len(k) + laid - p * 2 * (rack - laid)
            if best is None or worth > best[0]:
                best = (worth, list(k))
        assert best is not None
        if not any(v.played_tiles):
            worth = -self.end_w - 7 - self.out_chance(list(mand), unseen, held, h) * 2 * (rack + 7)
            if worth > best[0]:
                return []
        return sorted(best[1], key=lambda f: (-pen[f], f))

    def out_chance(self, table: list[int], unseen: list[int], held: set[int], h: int) -> float:
        """The chance that the opponent, holding ``h`` tiles, goes out on ``table``: each of
        his tiles one of the unseen tiles in ``held`` (the table he left could not take it,
        and he plays what he can), but one he drew since our last turn (any unseen tile),
        and each taken alone by ``table`` as often as such tiles are."""
        taken = _taken(table, unseen)
        n_all = sum(unseen[u] for u in taken)
        n_held = sum(unseen[u] for u in taken & held)
        total = sum(unseen)
        held_total = sum(unseen[u] for u in held)
        p_held = n_held / held_total if held_total else 0.0
        if self._drew:
            return (n_all / total if total else 0.0) * p_held ** (h - 1)
        return p_held**h

    def absorbency(self, table: list[int], unseen: list[int]) -> int:
        """How many of the ``unseen`` tiles could be laid on ``table`` alone."""
        return sum(unseen[u] for u in _taken(table, unseen))

    def least_absorbent(
        self, v: View, mand: list[int], leaves: list[tuple[float, tuple[int, ...]]], floor: float
    ) -> list[int]:
        """Of the best ``absorb_top`` commits scored ``floor`` or more, the one with the best
        score less ``absorb`` times its table's :meth:`absorbency` (the opponent plays
        next on it)."""
        unseen = self.unseen(v)
        seen: set[tuple[int, ...]] = set()
        best = None
        for s, tiles in sorted(leaves, reverse=True):
            k = tuple(sorted(tiles))
            if s < floor or len(seen) >= self.absorb_top:
                break
            if k in seen:
                continue
            seen.add(k)
            cost = (self.absorb * self.absorbency(_with(mand, tiles), unseen) - s, tiles)
            if best is None or cost < best:
                best = cost
        return list(best[1])


def _with(table: list[int], tiles: Iterable[int]) -> list[int]:
    """A copy of the count vector ``table`` with ``tiles`` added."""
    out = list(table)
    for f in tiles:
        out[f] += 1
    return out


def greedy_move(s: engine.GameState, L: Layout) -> int:
    """`greedy`'s Rummikub move on an engine state (:meth:`agents.greedy.GreedyAgent.tile_move`
    on the observation): the highest playable tile (the highest id on ties), else commit,
    else draw or pass. The play-outs of this agent and of `search` use it."""
    acts = engine.legal_actions(s)
    values = s.values
    best = None
    for a in acts:
        if L.PLAY_TILE <= a < L.COMMIT:
            k = (values[a - L.PLAY_TILE], a)
            if best is None or k > best:
                best = k
    if best is not None:
        return best[1]
    return acts[-1] if acts[-1] == L.COMMIT else acts[0]


def _untaken(table: list[int], tiles: list[int]) -> list[int]:
    """The ``tiles`` (copies repeated) that ``table`` could not take alone."""
    have = set(tiles)
    taken = _taken(table, [1 if f in have else 0 for f in range(NUM_FACES)])
    return [f for f in tiles if f not in taken]


def _taken(table: list[int], unseen: list[int]) -> set[int]:
    """The faces of ``unseen`` that ``table`` could take alone, one tile laid on it (the
    exact-cover check; ``table`` is used as scratch and restored)."""
    out = set()
    for u, c in enumerate(unseen):
        if c:
            table[u] += 1
            if cover.can_cover(table):
                out.add(u)
            table[u] -= 1
    return out
