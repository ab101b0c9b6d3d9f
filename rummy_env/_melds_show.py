"""Indian rummy's show and count (RULES.md 4 indian, D-14): the arrangement a show asks
for (:func:`show_arrangement`) and the discards that leave a declaration
(:func:`show_discards`), both importable from :mod:`rummy_env.melds`.

One branch and bound search (:class:`_ShowSearch`) per rules, wild rank, values and goal,
its memo kept between calls: a hand's sub-hands recur from call to call.
"""

from __future__ import annotations

from itertools import combinations, compress, product

from rummy_env.cards import JOKER, NUM_FACES, NUM_RANKS
from rummy_env.melds import (
    _MEMO_SIZE,
    _QUEENS,
    _RUN_STARTS,
    _SUIT_BITS,
    ACE_HIGH_POS,
    Catalogue,
    _held,
    run3_bits,
    run_face,
)


def show_arrangement(
    cat: Catalogue,
    counts: list[int] | tuple[int, ...],
    wild_faces: tuple[int, ...],
    values: list[int] | None = None,
    limit: int | None = None,
    runs: int = 2,
    pure: bool = True,
) -> tuple[int, list[tuple[int, ...]]] | None:
    """The arrangement of a hand that Indian rummy's show asks for (RULES.md 4 indian,
    D-14): disjoint melds holding at least two runs, one of them pure, that leave the
    least value outside them. ``None`` when no such arrangement exists (or none leaves at
    most ``limit``).

    Args:
        cat: the meld rules (sets of 3-4 different suits, runs, the wild limits).
        counts: the hand, a count per face (53 entries: two decks hold two of a face).
        wild_faces: the faces of the round's wild rank. Each copy is a natural card or a
            wild card as the arrangement needs (D-13: natural only at its own place); left
            out, it costs what a joker does.
        values: what each face costs outside a meld (a wild card left out costs
            ``values[JOKER]``); ``None``: every card costs 1, so a cost of 0 means every
            card is in a meld (a declaration).
        limit: search only for arrangements leaving at most this much (``0``: a
            declaration); ``None``: no limit.
        runs, pure: the arrangement's least number of runs and whether one must be pure
            (the show's are 2 and True; ``0, False``: any melds, for an agent's estimate).

    Returns:
        ``(cost, melds)``: the value left outside the melds and the melds (faces; runs in
        position order, sets naturals first; a card standing as a wild card is ``JOKER``).
    """
    if pure and not run3_bits(_held(counts)[0], cat.ace_high):
        return None  # no pure run: three neighbouring naturals of a suit
    nat = list(counts)
    jokers = nat[JOKER]
    nat[JOKER] = 0
    return _show_search(cat, tuple(wild_faces), values, runs, pure).run(nat, jokers, limit)


def show_discards(
    cat: Catalogue, counts: list[int] | tuple[int, ...], wild_faces: tuple[int, ...]
) -> set[int]:
    """The faces of a hand whose discard leaves a declaration (Indian rummy, D-14: every
    other card in melds, at least two runs, one of them pure), in one search: the same as
    asking :func:`show_arrangement` ``(..., None, 0)`` of the hand without each face."""
    nat = list(counts)
    jokers = nat[JOKER]
    nat[JOKER] = 0
    search = _show_search(cat, tuple(wild_faces), None, 2, True)
    if search.bound:
        lb = search._stranded(bytes(nat), jokers, False, 1)[0]
        if lb > 1:  # two naturals no meld can hold, or no pure run
            return set()
        out = search.naturals_out(nat, jokers)
        if lb:  # a natural no meld can hold: the discard, not a wild card
            return out
        asked = (*wild_faces, JOKER)  # a wild card as the discard: asked one by one
    else:  # a meld may hold one natural (wilds_at_most_naturals off): every face alone
        out, asked = set(), range(NUM_FACES)
    out.update(
        f for f in asked if counts[f] and f not in out and search.shows_without(nat, jokers, f)
    )
    return out


def _show_search(
    cat: Catalogue, wild: tuple[int, ...], values: list[int] | None, runs: int, pure: bool
) -> _ShowSearch:
    key = (cat, wild, None if values is None else tuple(values), runs, pure)
    search = _SEARCHES.get(key)
    if search is None:
        if len(_SEARCHES) > 64:
            _SEARCHES.clear()
        vals = [1] * 53 if values is None else list(values)
        search = _SEARCHES[key] = _ShowSearch(cat, vals, runs, pure, wild)
    elif len(search.memo) + len(search.outs) > _MEMO_SIZE:
        search.memo.clear()
        search.outs.clear()
    return search


_NONE: frozenset[int] = frozenset()

# the stranded bound's bit masks (a bit per natural face): each face's bit, the naturals,
# a rank in all four suits (times a suit's ranks), the aces, and per distance k the faces
# with a neighbour k places up (_DOWN) or down (_UP) in their suit, and the k highest
_FACE_BITS = [1 << f for f in range(JOKER)] + [0]
_NATURALS = (1 << JOKER) - 1
_REPEAT = sum(1 << NUM_RANKS * su for su in range(4))
_ACES = _REPEAT
_DOWN = [
    sum(((1 << max(0, NUM_RANKS - k)) - 1) << NUM_RANKS * su for su in range(4)) for k in range(64)
]
_UP = [
    sum(((1 << NUM_RANKS) - (1 << min(k, NUM_RANKS))) << NUM_RANKS * su for su in range(4))
    for k in range(64)
]
_HIGH = [
    sum(((1 << (w + 1)) - 1) << (NUM_RANKS - 1 - w + NUM_RANKS * su) for su in range(4))
    for w in range(NUM_RANKS)
]


def _served(held: int, needy: int, ace_high: bool, w: int) -> int:
    """The most needy naturals (``needy``, a bit per face, among the naturals ``held``)
    that ``w`` wild cards can bring into melds: the sum of the ``w`` largest *windows*.

    A window is what one wild card can join: a set's (the needy suits of a rank, at
    most 2), or a gap's in a suit (the needy cards in the blocks of held neighbours on
    both sides of a position not held; a block holding a needy card is at most 2 long,
    as 3 neighbours are a run of naturals). A meld with ``v`` wild cards holds needy
    cards of at most ``v`` windows: a set one; a run, for each wild card, the window of
    the gap it fills, or, where it stands in for a held card, of a gap beside that
    card's block."""
    a, b, c, d = needy & _SUIT_BITS, needy >> 13 & _SUIT_BITS, needy >> 26 & _SUIT_BITS, needy >> 39
    pairs = a & (b | c | d) | b & (c | d) | c & d
    sizes = [0, (a | b | c | d).bit_count() - pairs.bit_count(), pairs.bit_count(), 0, 0]
    gaps = _NATURALS & ~held
    l1 = needy << 1 & _UP[1]  # at a gap g: the needy card at g - 1, at g - 2 (g - 1 held),
    l2 = needy << 2 & _UP[2] & held << 1  # at g + 1 and at g + 2 (g + 1 held)
    r1 = needy >> 1 & _DOWN[1]
    r2 = needy >> 2 & _DOWN[2] & held >> 1
    ge1 = ((l1 | l2 | r1 | r2) & gaps).bit_count()
    ge2 = (((l1 | l2) & (r1 | r2) | l1 & l2 | r1 & r2) & gaps).bit_count()
    ge3 = ((l1 & l2 & (r1 | r2) | r1 & r2 & (l1 | l2)) & gaps).bit_count()
    ge4 = (l1 & l2 & r1 & r2 & gaps).bit_count()
    sizes[1] += ge1 - ge2
    sizes[2] += ge2 - ge3
    sizes[3] += ge3 - ge4
    sizes[4] += ge4
    if ace_high and held & _ACES:  # the ace above the king: the gaps at Q and K again
        bit = lambda m, q: m >> q & 1  # noqa: E731
        for su in range(4):
            h, n = held >> 13 * su & _SUIT_BITS, needy >> 13 * su & _SUIT_BITS
            if not h & 1:
                continue
            if not bit(h, 12):  # the gap at K: [J] Q _ A
                sizes[bit(n, 11) + (bit(n, 10) & bit(h, 11)) + (n & 1)] += 1
            if not bit(h, 11):  # the gap at Q: [T] J _ K [A]
                sizes[
                    bit(n, 10) + (bit(n, 9) & bit(h, 10)) + bit(n, 12) + (n & 1 & bit(h, 12))
                ] += 1
    served = 0
    for size in (4, 3, 2, 1):
        take = min(w, sizes[size])
        served += take * size
        w -= take
        if not w:
            break
    return served


# one search (and its memo) per rules, wild rank, values and goal: a hand's sub-hands recur
# from call to call (the memo holds least costs and lower bounds, true whatever the limit)
_SEARCHES: dict[tuple, _ShowSearch] = {}


class _ShowSearch:
    """Branch and bound over the first card left (the wild-rank cards first, then by face;
    but a natural the card bound marks, one no meld holds or a needy one, before all):
    out of every meld (a wild-rank card: wild from then on), or in one of
    the sets and runs holding it (with or without wild cards). Memoised on what is left:
    the least cost, or a lower bound on it where the search found nothing within budget."""

    _INF = 1 << 30

    def __init__(
        self, cat: Catalogue, values: list[int], runs: int, pure: bool, wild: tuple[int, ...]
    ):
        self.need_runs, self.need_pure = runs, pure
        # the wild-rank faces first: each copy is settled (in a meld at its own place, or a
        # wild card from then on) before any meld that may want it as a wild card is made
        self.wild = frozenset(wild)
        self.wild_faces = tuple(sorted(self.wild))
        self.order = [*self.wild_faces, *(g for g in range(JOKER) if g not in self.wild)]
        self.cat = cat
        self.values = values
        self.limit = self._INF
        # the stranded-card bound (:meth:`_stranded`) counts cards, so it serves where
        # every card costs 1 (a declaration) and a natural melds only beside another one
        lone = any(cat.wild_ok(1, w) for w in (2, 3))
        self.bound = cat.distinct and not lone and all(v == 1 for v in values)
        self.natural_bits = _NATURALS & ~sum(1 << g for g in wild)
        # (hand, wild cards, runs, pure) -> (least cost, melds), or (lower bound, None)
        self.memo: dict[tuple, tuple[int, list | None]] = {}
        # the same keys -> the naturals one of which may be left out (:meth:`_outs`)
        self.outs: dict[tuple, frozenset[int]] = {}

    def run(self, hand: list[int], jokers: int, limit: int | None) -> tuple[int, list] | None:
        self.limit = self._INF if limit is None else limit
        cost, melds = self._best(hand, jokers, 0, False, 0)
        return None if cost >= self._INF else (cost, melds)

    def shows_without(self, hand: list[int], jokers: int, f: int) -> bool:
        """Whether the naturals ``hand`` and ``jokers`` without one card ``f`` (a face
        held, or ``JOKER``) arrange at no cost."""
        rest = list(hand)
        if f == JOKER:
            return self.run(rest, jokers - 1, 0) is not None
        rest[f] -= 1
        return self.run(rest, jokers, 0) is not None

    def naturals_out(self, hand: list[int], jokers: int) -> set[int]:
        """The natural faces ``x`` (not of the wild rank) such that the hand without ``x``
        arranges at no cost (every card costs 1 here: :attr:`bound`)."""
        assert self.bound, "the one-out search counts cards"
        return set(self._outs(hand, jokers, 0, False))

    def _outs(self, hand: list[int], j: int, runs: int, pure: bool) -> frozenset[int]:
        """:meth:`naturals_out` of what is left: the branches of :meth:`_best` for its first
        card, each followed through, and that card itself left out when the rest arranges."""
        f = next((g for g in self.order if hand[g]), -1)
        if f < 0:
            return _NONE
        key = (bytes(hand), j, runs, pure)
        got = self.outs.get(key)
        if got is not None:
            return got
        lb, picks = self._stranded(key[0], j, pure, 1)
        if lb > 1:
            self.outs[key] = _NONE
            return _NONE
        out: set[int] = set()
        if lb:  # the card left out is one no meld holds, or a needy one: ask each alone
            while picks:
                low = picks & -picks
                picks ^= low
                x = low.bit_length() - 1
                hand[x] -= 1
                if self._arranges(hand, j, runs, pure):
                    out.add(x)
                hand[x] += 1
            got = self.outs[key] = frozenset(out)
            return got
        if picks:
            f = (picks & -picks).bit_length() - 1
        hand[f] -= 1
        for _meld, j2, runs2, pure2 in self._branches(f, hand, j, runs, pure):
            out |= self._outs(hand, j2, runs2, pure2)
        if f in self.wild:  # a wild card from now on (the wild cards as the discard: asked apart)
            out |= self._outs(hand, j + 1, runs, pure)
        elif f not in out and self._arranges(hand, j, runs, pure):  # f left out
            out.add(f)
        hand[f] += 1
        got = self.outs[key] = frozenset(out)
        return got

    def _arranges(self, hand: list[int], j: int, runs: int, pure: bool) -> bool:
        """Whether what is left arranges at no cost (every card in a meld)."""
        self.limit = 0
        return self._best(hand, j, runs, pure, 0)[0] == 0

    def _best(self, hand: list[int], j: int, runs: int, pure: bool, spent: int) -> tuple[int, list]:
        """Least cost of what is left (``_INF`` when the two-runs rule cannot be met or the
        cost would pass the limit given ``spent`` already)."""
        INF = self._INF
        f = next((g for g in self.order if hand[g]), -1)
        if f < 0:
            if runs < self.need_runs or (self.need_pure and not pure):
                return INF, []
            cost = j * self.values[JOKER]
            if spent + cost > self.limit:
                return INF, []
            self.limit = spent + cost - 1  # from now on only a cheaper arrangement counts
            return cost, []
        key = (bytes(hand), j, runs, pure)
        budget = self.limit - spent
        got = self.memo.get(key)
        if got is not None:
            if got[1] is not None:  # the least cost
                return got if got[0] <= budget else (INF, [])  # type: ignore[return-value]
            if got[0] > budget:  # a lower bound past the budget
                return INF, []
        if self.bound:
            lb, picks = self._stranded(key[0], j, pure, budget)
            if lb > budget:
                self.memo[key] = (lb, None)
                return INF, []
            if picks:  # fail first: a card no meld holds, or needy (before the wild-rank cards)
                f = (picks & -picks).bit_length() - 1
        best: tuple[int, list] = (INF, [])
        hand[f] -= 1
        for meld, j2, runs2, pure2 in self._branches(f, hand, j, runs, pure):
            c, ms = self._best(hand, j2, runs2, pure2, spent)
            if c < best[0]:
                best = (c, [meld, *ms])
        if f in self.wild:  # a wild card from now on (left out, it costs what a joker does)
            c, ms = self._best(hand, j + 1, runs, pure, spent)
            if c < best[0]:
                best = (c, ms)
        else:  # out of every meld
            v = self.values[f]
            if spent + v <= self.limit:
                c, ms = self._best(hand, j, runs, pure, spent + v)
                if c + v < best[0]:
                    best = (c + v, ms)
        hand[f] += 1
        # found: the least cost (cheaper branches are never cut). Not found: nothing within
        # the budget (no leaf was reached below, so the limit did not move meanwhile)
        self.memo[key] = best if best[0] < INF else (budget + 1, None)
        return best

    def _stranded(self, hand: bytes, j: int, pure: bool, cap: int = _INF) -> tuple[int, int]:
        """A lower bound on the cost of what is left where every card costs 1, and the
        cards to branch on first (a bit per face; 0: none stands out).

        The bound (:meth:`_bound`) takes each wild-rank card left as a wild card and as a
        natural at once. Where that is at most ``cap`` (the search goes on), it is
        tightened: each way of splitting the wild-rank cards into wild cards and naturals
        at their own place (where they count among the naturals) is bounded apart, and the
        least of these is a bound too. The cards to branch on are the first bound's."""
        held = sum(compress(_FACE_BITS, hand))
        wilds = [(g, hand[g]) for g in self.wild_faces if hand[g]]
        m = sum([c for _, c in wilds])
        lb, picks = self._bound(held, j + m, self.natural_bits, pure)
        if m and lb <= cap:
            split = self._split_bound(held, j, wilds, pure, cap)
            if split > cap:
                return split, picks
        return lb, picks

    def _split_bound(
        self, held: int, j: int, wilds: list[tuple[int, int]], pure: bool, cap: int
    ) -> int:
        """The least :meth:`_bound` over the splits of the wild-rank cards ``wilds`` (face,
        copies) into wild cards and naturals; stops at the first at most ``cap``."""
        least = self._INF
        for used in product(*[range(c, -1, -1) for _, c in wilds]):  # the most wild first
            gone = k = 0
            for (g, c), u in zip(wilds, used):
                k += u
                if u == c:
                    gone |= 1 << g
            v = self._bound(held & ~gone, j + k, _NATURALS, pure)[0]
            if v <= cap:
                return v
            least = min(least, v)
        return least

    def _bound(self, held: int, w: int, naturals: int, pure: bool) -> tuple[int, int]:
        """The bound of :meth:`_stranded` for the faces ``held`` (a bit each) and ``w`` wild
        cards, counting the naturals among ``naturals``.

        The natural faces held that no meld of what is left can hold, given the ``w`` wild
        cards; ``_INF`` when a pure run is still wanted and no three neighbouring
        naturals are left. Without wild cards a set needs naturals of the rank in three
        suits and a run three neighbours; with ``w`` wild cards two naturals (D-3: of the
        rank, or of the suit within ``w + 1`` places). A natural in no meld of naturals
        alone (*needy*) needs a meld with a wild card, and the ``w`` wild cards serve at
        most :func:`_served` of them: the rest are out.
        The cards to branch on: those no meld holds, else the needy ones (with a bound of
        1, one of them is the card left out)."""
        a, b, c, d = held & _SUIT_BITS, held >> 13 & _SUIT_BITS, held >> 26 & _SUIT_BITS, held >> 39
        ace_high = self.cat.ace_high
        starts = (
            held & held >> 1 & (held >> 2 & _RUN_STARTS | (held << 11 & _QUEENS if ace_high else 0))
        )
        if self.need_pure and not pure and not starts:
            return self._INF, 0
        covered = starts | starts << 1 | (starts & _RUN_STARTS) << 2 | (starts & _QUEENS) >> 11
        needy = held & naturals & ~covered & ~((a & b & (c | d) | c & d & (a | b)) * _REPEAT)
        if not needy:
            return 0, 0
        count = needy.bit_count()
        lone = needy
        if w:
            ok = (a & (b | c | d) | b & (c | d) | c & d) * _REPEAT
            for k in range(1, w + 2):
                ok |= held >> k & _DOWN[k] | held << k & _UP[k]
            if ace_high and held & _ACES:  # an ace also sits above its suit's king
                aces = held & _ACES
                near = _HIGH[min(w, NUM_RANKS - 1)]
                high = held & near
                ok |= aces * _SUIT_BITS & near
                for k in range(max(0, NUM_RANKS - 1 - w), NUM_RANKS):
                    ok |= high >> k & aces
            lone = needy & ~ok
            if count > w:  # how many needy naturals one wild card serves at most
                return max(lone.bit_count(), count - _served(held, needy, ace_high, w)), (
                    lone or needy
                )
        return lone.bit_count(), lone or needy

    def _branches(self, f: int, hand: list[int], j: int, runs: int, pure: bool):
        """The melds holding the first card ``f`` (already out of ``hand``): at each
        ``(meld, wild cards left, runs, pure)`` yielded, ``hand`` holds what is left (its
        cards are put back after). A meld wanting more wild cards than ``j`` turns
        wild-rank cards not settled yet wild, every way (the jokers first: a card left
        unsettled can still turn wild later)."""
        wild = self.wild
        # the meld may take wild-rank cards not settled yet as its wild cards (a needy
        # natural is branched on before them; a wild-rank card at its own place too)
        pool = sum([hand[g] for g in wild])
        for meld, naturals, w, is_run in self._melds_with(f, hand, j + pool):
            for g in naturals:
                hand[g] -= 1
            pure2 = pure or (is_run and not w)
            runs2 = min(self.need_runs, runs + is_run)
            if w <= j:
                yield meld, j - w, runs2, pure2
            else:
                for borrowed in self._borrow(hand, w - j):
                    for g in borrowed:
                        hand[g] -= 1
                    yield meld, 0, runs2, pure2
                    for g in borrowed:
                        hand[g] += 1
            for g in naturals:
                hand[g] += 1

    def _borrow(self, hand: list[int], k: int):
        """Every multiset of ``k`` wild-rank cards still in ``hand``, as face tuples."""
        copies = [g for g in self.wild_faces for _ in range(hand[g])]
        seen = set()
        for combo in combinations(copies, k):
            if combo not in seen:
                seen.add(combo)
                yield combo

    def _melds_with(self, f: int, hand: list[int], j: int):
        """The melds holding natural ``f`` (already taken out of ``hand``) from the rest of
        the hand and up to ``j`` wild cards: ``(meld, other naturals, wilds, is_run)``."""
        cat = self.cat
        r, su = f % NUM_RANKS, f // NUM_RANKS
        # sets: other suits of rank r (one copy each), then wild cards up to four cards
        others = [s2 * NUM_RANKS + r for s2 in range(4) if s2 != su and hand[s2 * NUM_RANKS + r]]
        for k in range(len(others) + 1):
            for chosen in combinations(others, k):
                for w in range(j + 1):
                    size = 1 + k + w
                    if 3 <= size <= 4 and cat.wild_ok(1 + k, w):
                        yield (f, *chosen, *([JOKER] * w)), chosen, w, False
        # runs of suit su through f's place (an ace low, or high), grown down then up from
        # it while the wild cards last
        places = [r] + ([ACE_HIGH_POS] if r == 0 and cat.ace_high else [])
        min_len, max_pos = cat.min_run, cat.max_pos
        for p in places:
            have = [q != p and hand[run_face(su, q)] > 0 for q in range(max_pos + 1)]
            need_lo = 0
            for lo in range(p, max(-1, p - 13), -1):
                if lo < p:
                    if not have[lo]:
                        need_lo += 1
                        if need_lo > j:
                            break
                need = need_lo
                for hi in range(p, min(lo + 12, max_pos) + 1):
                    if hi > p and not have[hi]:
                        need += 1
                        if need > j:
                            break
                    if hi - lo + 1 >= min_len:
                        yield from self._runs(su, lo, hi, p, have, need, j)

    def _runs(self, su: int, lo: int, hi: int, p: int, have: list[bool], need: int, j: int):
        """The runs of ``su`` over ``lo..hi`` holding the natural at ``p``: the naturals the
        hand has there, wild cards in the other places (``need``) and, while wild cards
        last, in place of held naturals too (keeping those for another meld)."""
        cat = self.cat
        held = [q for q in range(lo, hi + 1) if have[q]]
        for extra in range(min(j - need, len(held)) + 1):
            for as_wild in combinations(held, extra) if extra else ((),):
                w = need + extra
                if not cat.wild_ok(1 + len(held) - extra, w):
                    continue
                meld = tuple(
                    run_face(su, q) if q == p or (have[q] and q not in as_wild) else JOKER
                    for q in range(lo, hi + 1)
                )
                naturals = tuple(
                    g for g, q in zip(meld, range(lo, hi + 1)) if g != JOKER and q != p
                )
                yield meld, naturals, w, True
