"""Meld features of a batch of observations, for networks (``features="melds"``).

A network on the observation's card one-hots has to find on its own which cards of a
hand form melds and what each discard leaves. These features give it that, computed
from the observation alone (the own hand and the top of the discard pile), so they show
nothing the observation does not. Per observation (deadwood: the value of the cards left
over by the best arrangement of natural sets and runs, :mod:`rummy_env.melds`; wild
cards count as deadwood):

===============  =====================================================================
slice            value
===============  =====================================================================
``after``        per face ``f`` held: the deadwood of the hand without one ``f`` / 50
                 (faces not held: 0)
``in_meld``      per face: 1 when a copy of it is in the hand's best arrangement
``deadwood``     the deadwood of the hand / 50
``least_after``  the least ``after`` over the faces held / 50
``take``         the least deadwood after taking the top discard and discarding
                 another card / 50 (no discard pile, or an empty one: the least
                 ``after``)
``top_melds``    1 when the top discard is in a meld of the best arrangement of the
                 hand with it
===============  =====================================================================

With ``features="melds+table"`` (:class:`TableFits`) two more, from the table's melds:

===============  =====================================================================
``fits``         per natural face: 1 when a card of it could be laid off on a meld of
                 the table now (a set's missing suit, a run's next rank either end)
``top_fits``     1 when the top discard fits so
===============  =====================================================================

One search per hand gives every ``after`` at once: every arrangement of disjoint
melds is visited once, each with its gain (the value it takes out of the deadwood)
and the faces it leaves free; the deadwood without ``f`` is the hand's value less
``f``'s less the greatest gain among the arrangements that leave a copy of ``f`` free.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from rummy_env.cards import NUM_FACES
from rummy_env.engine import card_values
from rummy_env.melds import _each_arrangement, natural_melds
from rummy_env.observation import ObsLayout
from rummy_env.rules import RuleSet

F = NUM_FACES
SCALARS = ("deadwood", "least_after", "take", "top_melds")
SIZE = 2 * F + len(SCALARS)
SCALE = 50.0
#: one-deck hands a MeldFeatures remembers (:meth:`MeldFeatures._after_bits`)
MEMO = 1 << 15
#: the natural faces, a bit each
NATURALS = (1 << 52) - 1
#: the names a model records (``features`` in its metadata)
KINDS = ("", "melds", "melds+table")


class MeldFeatures:
    """``obs (B, size) -> float32 (B, SIZE)`` (module docs), for one rule set."""

    size = SIZE

    def __init__(self, rules: RuleSet):
        L = ObsLayout(rules)
        self.hand = L.slices["hand"]
        d = L.slices.get("discard")
        self.top = slice(d.start, d.start + F) if d is not None and L.D else None
        self.values = list(card_values(rules))
        self.ace_high = rules.ace_high
        self.one_deck = rules.decks == 1
        #: a meld's faces -> its faces as bits and its value
        self._bits: dict[tuple[int, ...], tuple[int, int]] = {}
        #: hands seen lately -> their :meth:`after` (one deck: bits and value, else the
        #: counts): a hand comes back at the next decisions of a turn and at the next
        #: turn's draw (emptied at MEMO entries)
        self._memo: dict[Any, tuple[int, dict[int, int], int]] = {}

    # -------------------------------------------------- hands of one deck, as bits
    def _melds_faces(self, hand: int) -> list[tuple[int, ...]]:
        """Every natural meld within the faces ``hand`` holds (a bit each), in the order of
        :func:`rummy_env.melds.natural_melds`: sets by rank, then runs by suit."""
        p = [hand >> 13 * s & 0x1FFF for s in range(4)]
        out: list[tuple[int, ...]] = []
        three = p[0] & p[1] & (p[2] | p[3]) | (p[0] | p[1]) & p[2] & p[3]
        while three:
            r = (three & -three).bit_length() - 1
            three &= three - 1
            out += _rank_sets(r, tuple(s for s in range(4) if p[s] >> r & 1))
        for s in range(4):
            if p[s]:
                out += _suit_runs(s, p[s], self.ace_high)
        return out

    def _melds_bits(self, hand: int) -> list[tuple[int, int]]:
        """Every natural meld within ``hand`` (faces as bits) as ``(bits, value)``."""
        out = []
        for m in self._melds_faces(hand):
            got = self._bits.get(m)
            if got is None:
                got = self._bits[m] = (sum(1 << f for f in m), sum(self.values[f] for f in m))
            out.append(got)
        return out

    def _after_bits(self, hand: int, total: int) -> tuple[int, dict[int, int], int]:
        """:meth:`after` of a one-deck hand given as bits and its value (remembered)."""
        key = hand | total << 64  # (two jokers show as one bit: the value tells them apart)
        got = self._memo.get(key)
        return got if got is not None else self._remember(key, self._search_bits(hand, total))

    def _after_counts(self, counts: list[int]) -> tuple[int, dict[int, int], int]:
        """:meth:`after` of any hand (remembered)."""
        key = tuple(counts)
        got = self._memo.get(key)
        return got if got is not None else self._remember(key, self.after(counts))

    def _remember(self, key: Any, got: tuple[int, dict[int, int], int]):
        """Keep ``got`` as the hand ``key``'s :meth:`after` (emptied at MEMO entries)."""
        if len(self._memo) >= MEMO:
            self._memo.clear()
        self._memo[key] = got
        return got

    def _search_bits(self, hand: int, total: int) -> tuple[int, dict[int, int], int]:
        melds = self._melds_bits(hand)
        arr = [(0, 0)]  # (gain, faces used)

        def search(start: int, used: int, gain: int) -> None:
            for j in range(start, len(melds)):
                m, g = melds[j]
                if not m & used:
                    arr.append((gain + g, used | m))
                    search(j + 1, used | m, gain + g)

        search(0, 0, 0)
        arr.sort(reverse=True)
        vals = self.values
        out = {}
        h = hand
        while h:
            bit = h & -h
            h ^= bit
            f = bit.bit_length() - 1
            for gain, used in arr:
                if not used & bit:
                    out[f] = total - vals[f] - gain
                    break
        return total - arr[0][0], out, arr[0][1]

    # ------------------------------------------------------------ any hand
    def arrangements(self, counts: list[int]) -> tuple[int, list[tuple[int, int]]]:
        """The hand's value and, per arrangement, ``(gain, free)``: the value its melds
        take out and the faces it leaves a copy of, as bits."""
        vals = self.values
        total = sum(c * v for c, v in zip(counts, vals))
        held = 0
        for f, c in enumerate(counts):
            if c:
                held |= 1 << f
        melds = self._melds_faces(held & NATURALS)  # (natural_melds reads no more)
        if not melds:
            return total, [(0, held)]
        gains = [sum(vals[f] for f in m) for m in melds]
        out: list[tuple[int, int]] = []

        def visit(chosen: list[int], avail: list[int]) -> None:
            free = held
            for i in chosen:
                for f in melds[i]:
                    if not avail[f]:
                        free &= ~(1 << f)
            out.append((sum(gains[i] for i in chosen), free))

        _each_arrangement(counts, melds, visit)
        return total, out

    def after(self, counts: list[int]) -> tuple[int, dict[int, int], int]:
        """``(deadwood, {face held: deadwood without one of it}, faces of the best
        arrangement's melds as bits)`` of any hand (one deck: :meth:`_after_bits`)."""
        total, arr = self.arrangements(counts)
        best_gain, best_free = max(arr, key=lambda a: a[0])
        vals = self.values
        out = {}
        for f, c in enumerate(counts):
            if c:
                bit = 1 << f
                g = max(gain for gain, free in arr if free & bit)
                out[f] = total - vals[f] - g
        covered = 0
        for f, c in enumerate(counts):
            if c and not best_free >> f & 1:
                covered |= 1 << f
        return total - best_gain, out, covered

    def _one(self, x: np.ndarray, after3: tuple, top: int, after_top, top_twice: bool) -> None:
        """The features of one hand into ``x`` (zeroed): ``after3`` is its :meth:`after`,
        ``after_top`` that of the hand with the top discard ``top`` (None: no top), which
        it then holds twice when ``top_twice``."""
        dw, after, covered = after3
        for f, d in after.items():
            x[f] = d / SCALE
        c = covered
        while c:
            bit = c & -c
            c ^= bit
            x[F + bit.bit_length() - 1] = 1.0
        least = min(after.values())
        x[2 * F] = dw / SCALE
        x[2 * F + 1] = least / SCALE
        take = least
        if after_top is not None:
            _, after_t, covered_t = after_top
            rest = [d for f, d in after_t.items() if f != top or top_twice]
            if rest:
                take = min(rest)
            x[2 * F + 3] = float(covered_t >> top & 1)
        x[2 * F + 2] = take / SCALE

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        B = len(obs)
        out = np.zeros((B, SIZE), np.float32)
        H = obs[:, self.hand]
        totals = (H @ np.asarray(self.values, np.float32)).round().astype(int).tolist()
        if self.top is not None:
            T = obs[:, self.top]
            tops = T.argmax(1)
            has_top = T[np.arange(B), tops] > 0
            tops = tops.tolist()
        else:
            tops, has_top = [0] * B, np.zeros(B, bool)
        has_top = has_top.tolist()
        if self.one_deck:
            packed = np.packbits(H[:, :52] > 0, axis=1, bitorder="little")
            joker = (H[:, 52] > 0).tolist()
            for i in range(B):
                hand = int.from_bytes(packed[i].tobytes(), "little") | (joker[i] << 52)
                if not hand:
                    continue
                a = self._after_bits(hand, totals[i])
                t = tops[i]
                at = None
                if has_top[i]:
                    at = self._after_bits(hand | 1 << t, totals[i] + self.values[t])
                self._one(out[i], a, t, at, False)
            return out
        for i in range(B):
            counts = [int(c) for c in H[i]]
            if not any(counts):
                continue
            a = self._after_counts(counts)
            t = tops[i]
            at = None
            if has_top[i]:
                counts[t] += 1
                at = self._after_counts(counts)
            self._one(out[i], a, t, at, counts[t] > 1)
        return out


@cache
def _suit_runs(suit: int, pattern: int, ace_high: bool) -> tuple[tuple[int, ...], ...]:
    """The runs (face tuples) of one suit whose ranks held are the bits of ``pattern``:
    :func:`rummy_env.melds.natural_melds` of those cards alone, remembered."""
    counts = [0] * F
    for r in range(13):
        counts[suit * 13 + r] = pattern >> r & 1
    return tuple(natural_melds(counts, ace_high))


@cache
def _rank_sets(rank: int, suits: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The sets of one rank held in ``suits``: :func:`rummy_env.melds.natural_melds` of
    those cards alone, remembered."""
    counts = [0] * F
    for s in suits:
        counts[s * 13 + rank] = 1
    return tuple(natural_melds(counts))


class TableFits:
    """``obs (B, size) -> float32 (B, F)``: per natural face, 1 where a card of it could be
    laid off on one of the table's melds (``fits`` in the module docs; the expert agents'
    :func:`agents.base.table_fits`, for a batch, read from the table's slots of the
    shared layout): a set's missing suit (any suit where suits may repeat) while the set
    is under ``max_set``, and the rank next to either end of a run of fewer than 13."""

    def __init__(self, rules: RuleSet):
        L = ObsLayout(rules)
        if L.full is not None:
            raise ValueError(f"{rules.name}: TableFits reads the shared layout's table slots")
        self.t0, self.M, self.slot, self.P = L.TABLE, L.M, L.slot, L.P
        self.max_pos = 13 if rules.ace_high else 12
        self.cap = rules.max_set
        self.distinct = rules.set_suits_distinct
        #: the last table one player read (its slots' bytes) and its fits: the table
        #: changes only when a meld is laid or added to
        self._last: tuple[bytes, np.ndarray] | None = None

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        B, M = len(obs), self.M
        if B != 1 or not M:
            return self._fits(obs)
        key = obs[0, self.t0 : self.t0 + M * self.slot].tobytes()
        if self._last is None or self._last[0] != key:
            self._last = (key, self._fits(obs))
        return self._last[1].copy()

    def _fits(self, obs: np.ndarray) -> np.ndarray:
        B, M, P = len(obs), self.M, self.P
        out = np.zeros((B, F), np.float32)
        if not M:
            return out
        t = obs[:, self.t0 : self.t0 + M * self.slot].reshape(B, M, self.slot)
        used = t[:, :, :P].sum(-1) > 0
        run = used & (t[:, :, P + 1] > 0)
        sets = used & ~run
        codes = t[:, :, P + 2 : P + 2 + 52].reshape(B, M, 4, 13)
        b = np.broadcast_to(np.arange(B)[:, None], (B, M))
        if run.any():
            suit = (codes > 0).any(-1).argmax(-1)  # (B, M)
            row = codes[b, np.arange(M)[None, :], suit]  # (B, M, 13): codes by rank
            ace = row[..., 0]
            high = (ace == 3) | (ace == 4) | (ace >= 9)  # an ace played high (observation docs)
            cov = np.zeros((B, M, 14), bool)
            cov[..., 1:13] = row[..., 1:13] > 0
            cov[..., 0] = (ace > 0) & ~high
            cov[..., 13] = high
            lo = cov.argmax(-1)
            hi = 13 - cov[..., ::-1].argmax(-1)
            ok = run & (hi - lo < 12)
            for end, there in ((lo - 1, ok & (lo > 0)), (hi + 1, ok & (hi < self.max_pos))):
                out[b[there], (suit * 13 + end % 13)[there]] = 1.0
        if sets.any():
            nat = codes.sum(2)  # (B, M, 13): the naturals of each rank
            rank = nat.argmax(-1)
            size = t[:, :, P + 2 :].sum(-1)  # naturals and wild cards
            room = sets & (size < self.cap) if self.cap else sets
            held = codes[b, np.arange(M)[None, :], :, rank] > 0  # (B, M, 4) suits in it
            for su in range(4):
                there = room & ~held[..., su] if self.distinct else room
                out[b[there], (rank + 13 * su)[there]] = 1.0
        return out
