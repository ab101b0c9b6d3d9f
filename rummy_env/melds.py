"""Meld validity, the meld catalogue, meld values and the best-arrangement/deadwood search
(gin's showdown). The opening search (:mod:`rummy_env._melds_opening`) and Indian rummy's
show (:mod:`rummy_env._melds_show`) build on these; their names are importable from here.

Pure functions and tables (some memoised: the same answers for the same
arguments); the engine and the agents both use them.

Run positions. A run of suit ``s`` covers consecutive *positions* ``lo..hi``:
position ``p`` in ``0..12`` is rank ``p`` (0 = ace low .. 12 = king) and
position ``13`` is the ace played high (only when ``ace="low_or_high"``). A run
never holds both position 0 and 13 (no K-A-2 and no A..K..A), so it spans at
most 13 positions.

The meld catalogue (a fixed id table per :class:`Catalogue`), in this order:

* sets: for rank 0..12, for each *suit code* of naturals and wild count allowed
  by the wild limits (D-3) with 3 cards or more, at most ``max_set`` (0: no limit), in
  increasing (code, wilds) order. A suit code holds a count per suit, four bits each
  (S H D C from the lowest; :func:`suit_code`): with distinct suits (the default)
  the counts are 0 or 1, so the order is that of the suit masks, and without wild
  cards the shapes are the four 3-suit sets and the 4-suit set. With
  ``distinct=False`` (contract rummy, D-16) a suit may repeat up to ``decks`` times,
  and without ``max_set`` a set meld holds any number of cards (``7S 7H 7D 7C 7S``);
* runs: for suit 0..3, for each segment ``(lo, hi)`` in increasing ``lo`` then
  ``hi`` (length 3..13). A run action names the cards it represents; wild cards
  fill the positions whose natural card the hand lacks (naturals from hand first).
"""

from __future__ import annotations

from functools import cache
from itertools import combinations, product

from rummy_env.cards import JOKER, NUM_RANKS, make_card

ACE_HIGH_POS = 13


def run_face(suit: int, pos: int) -> int:
    """Face id of the card standing at run position ``pos`` of ``suit``."""
    return suit * NUM_RANKS + (pos % NUM_RANKS)


def popcount(x: int) -> int:
    return x.bit_count()


#: a set's suit code holds the count of each suit in four bits (suit ``s`` at bit ``4 * s``)
SUIT_SHIFT = 4
#: suit mask -> suit code with a count of one per suit in the mask
SPREAD = tuple(sum((m >> s & 1) << (SUIT_SHIFT * s) for s in range(4)) for m in range(16))


def suit_code(suits) -> int:
    """The suit code of natural cards of the suits ``suits`` (repeats counted)."""
    return sum(1 << (SUIT_SHIFT * s) for s in suits)


def code_counts(code: int) -> tuple[int, int, int, int]:
    """The count of each suit in a suit code."""
    return (code & 15, code >> 4 & 15, code >> 8 & 15, code >> 12 & 15)


def code_size(code: int) -> int:
    """How many natural cards a suit code holds."""
    c = (code & 0x0F0F) + (code >> 4 & 0x0F0F)  # two bytes: suits 0+1 and 2+3
    return (c & 0xFF) + (c >> 8)


def code_faces(code: int, rank: int) -> list[int]:
    """The natural faces of rank ``rank`` a suit code stands for, suit by suit."""
    return [rank + s * NUM_RANKS for s, c in enumerate(code_counts(code)) for _ in range(c)]


def code_within(code: int, held: int) -> bool:
    """Whether every suit count of ``code`` is at most that of ``held``."""
    return all(a <= b for a, b in zip(code_counts(code), code_counts(held)))


class Catalogue:
    """The meld id table and fast look-ups for one combination of meld rules."""

    def __init__(
        self,
        ace_high: bool,
        wilds: bool,
        at_most_naturals: bool,
        max_wilds: int,
        min_run: int = 3,
        distinct: bool = True,
        max_set: int = 4,
        decks: int = 1,
    ):
        self.ace_high = ace_high
        self.min_run = min_run
        # sets: suits distinct or repeated (up to ``decks`` times); at most ``max_set``
        # cards (0: no limit)
        self.distinct = distinct
        self.max_set = max_set
        self.set_cap = max_set or 1 << 30
        self.suit_repeats = 1 if distinct else decks
        self.wilds = wilds
        self.max_pos = ACE_HIGH_POS if ace_high else NUM_RANKS - 1
        min_nat = 2 if at_most_naturals else 1
        self.min_naturals = min_nat
        self.at_most_naturals = at_most_naturals
        self.max_wilds = max_wilds

        def wild_ok(nat: int, w: int) -> bool:
            if w and not wilds:
                return False
            if nat < min_nat:
                return False
            if at_most_naturals and w > nat:
                return False
            return not (max_wilds and w > max_wilds)

        self.wild_ok = wild_ok
        # --- sets: per rank the same list of (suit code of the naturals, wilds); at most
        # max_set cards, or with no limit every natural of the rank (suits repeated up to
        # ``decks`` times) and up to 3 wild cards
        self.set_shapes: list[tuple[int, int]] = []
        rep = self.suit_repeats
        most = max_set or 4 * rep + 3
        codes = sorted(
            suit_code(s for s in range(4) for _ in range(counts[s]))
            for counts in product(range(min(rep, most) + 1), repeat=4)
            if sum(counts) <= most
        )
        for code in codes:
            nat = code_size(code)
            for w in range(0, 4):  # 3 wild cards only where the rules let one natural carry them
                if 3 <= nat + w <= most and wild_ok(nat, w):
                    self.set_shapes.append((code, w))
        #: cards of each set shape, wild cards included
        self.set_sizes = [code_size(code) + w for code, w in self.set_shapes]
        self.n_sets = NUM_RANKS * len(self.set_shapes)
        # --- runs: per suit the same list of segments
        self.segments: list[tuple[int, int]] = []
        for lo in range(self.max_pos + 1):
            for hi in range(lo + min_run - 1, self.max_pos + 1):
                if hi - lo <= 12:
                    self.segments.append((lo, hi))
        self.seg_masks = [((1 << (hi + 1)) - 1) ^ ((1 << lo) - 1) for lo, hi in self.segments]
        self.seg_len = [hi - lo + 1 for lo, hi in self.segments]
        self.seg_id = {seg: k for k, seg in enumerate(self.segments)}
        self.n_runs = 4 * len(self.segments)
        self.size = self.n_sets + self.n_runs
        self._set_cache: dict[int, list[tuple[int, int]]] = {}
        self._run_cache: dict[int, list[tuple[int, int]]] = {}
        #: for a suit's ranks held (a bit each, the ace at bit 0): the ranks that lie in a
        #: natural run of ``min_run`` or more of them (an ace at either end)
        self.run_cover = [self._cover(pm) for pm in range(1 << NUM_RANKS)]

    def _cover(self, pm: int) -> int:
        if self.ace_high and pm & 1:
            pm |= 1 << ACE_HIGH_POS
        starts = pm
        for j in range(1, self.min_run):  # places i..i+min_run-1 all held
            starts &= pm >> j
        cover = 0
        for j in range(self.min_run):
            cover |= starts << j
        return (cover | cover >> ACE_HIGH_POS) & (1 << NUM_RANKS) - 1

    # ------------------------------------------------------------- ids <-> defs
    def set_id(self, rank: int, code: int, w: int) -> int:
        return rank * len(self.set_shapes) + self.set_shapes.index((code, w))

    def run_id(self, suit: int, lo: int, hi: int) -> int:
        return self.n_sets + suit * len(self.segments) + self.segments.index((lo, hi))

    def describe(self, meld_id: int) -> tuple:
        """``("set", rank, suit_code, wilds)`` or ``("run", suit, lo, hi)``."""
        if meld_id < self.n_sets:
            rank, k = divmod(meld_id, len(self.set_shapes))
            code, w = self.set_shapes[k]
            return ("set", rank, code, w)
        suit, k = divmod(meld_id - self.n_sets, len(self.segments))
        lo, hi = self.segments[k]
        return ("run", suit, lo, hi)

    # ------------------------------------------------------------------ look-ups
    def sets_for(self, held: int, w: int) -> list[tuple[int, int]]:
        """Set shapes (index into ``set_shapes``, wilds used) formable from the natural
        cards of one rank held (suit code ``held``) and ``w`` wild cards."""
        key = held | (w << 16)
        r = self._set_cache.get(key)
        if r is None:
            r = [
                (k, sw)
                for k, (code, sw) in enumerate(self.set_shapes)
                if sw <= w and code_within(code, held)
            ]
            self._set_cache[key] = r
        return r

    def held_code(self, hand, rank: int) -> int:
        """The suit code of the natural cards of ``rank`` in the count vector ``hand``
        (counts above what a set can repeat are cut there)."""
        rep = self.suit_repeats
        return (
            min(hand[rank], rep)
            | min(hand[rank + NUM_RANKS], rep) << 4
            | min(hand[rank + 2 * NUM_RANKS], rep) << 8
            | min(hand[rank + 3 * NUM_RANKS], rep) << 12
        )

    def runs_for(self, pos_mask: int, w: int) -> list[tuple[int, int]]:
        """Segments (index into ``segments``, wilds used) formable from the
        natural positions ``pos_mask`` of one suit and ``w`` wild cards."""
        key = pos_mask | (w << 14)
        r = self._run_cache.get(key)
        if r is None:
            r = []
            wild_ok = self.wild_ok
            short = self.min_run - 1
            seg_id = self.seg_id
            max_pos = self.max_pos
            for lo in range(max_pos + 1):
                nat = need = 0
                for hi in range(lo, min(lo + 12, max_pos) + 1):
                    if pos_mask >> hi & 1:
                        nat += 1
                    else:
                        need += 1
                        if need > w:
                            break  # longer segments lack more
                    if hi - lo >= short and nat and (need == 0 or wild_ok(nat, need)):
                        r.append((seg_id[lo, hi], need))
            self._run_cache[key] = r
        return r


#: the shared catalogue for these meld rules (built once per process; the arguments of
#: :class:`Catalogue`)
catalogue = cache(Catalogue)


def catalogue_for(rules) -> Catalogue:
    """The catalogue of a :class:`~rummy_env.rules.RuleSet`."""
    distinct = rules.set_suits_distinct
    return catalogue(
        rules.ace_high,
        rules.wilds,
        rules.wilds_at_most_naturals,
        rules.max_wilds_per_meld,
        rules.min_run,
        distinct,
        rules.max_set,
        1 if distinct else rules.decks,
    )


# ---------------------------------------------------------------- validity
def classify(cards: list[int], cat: Catalogue, kind: str | None = None) -> tuple | None:
    """Classify cards (face ids, runs in rank order with ``JK`` where a wild card
    stands) as a meld: ``("set", rank, suit_code, wilds)``,
    ``("run", suit, lo, hi)``, or ``None`` if they are not a valid meld. ``kind``
    ("set" or "run") settles cards that could be either (``5H JK JK`` when one
    natural may carry two wild cards)."""
    naturals = [c for c in cards if c != JOKER]
    w = len(cards) - len(naturals)
    if not cat.wild_ok(len(naturals), w) or len(cards) < 3:
        return None
    ranks = {c % NUM_RANKS for c in naturals}
    if len(ranks) == 1 and len(cards) <= cat.set_cap and kind != "run":
        suits = [c // NUM_RANKS for c in naturals]
        code = suit_code(suits)
        if max(code_counts(code)) <= cat.suit_repeats:
            return ("set", naturals[0] % NUM_RANKS, code, w)
    suits = {c // NUM_RANKS for c in naturals}
    if len(suits) != 1 or kind == "set" or len(cards) < cat.min_run:
        return None
    suit = suits.pop()
    # find lo so that card i stands at position lo + i
    first = next(i for i, c in enumerate(cards) if c != JOKER)
    r0 = cards[first] % NUM_RANKS
    for base in (r0, ACE_HIGH_POS) if r0 == 0 else (r0,):  # an ace may stand low or high
        lo = base - first
        hi = lo + len(cards) - 1
        if lo < 0 or hi > cat.max_pos or hi - lo > 12:
            continue
        if all(c == JOKER or (lo + i) % NUM_RANKS == c % NUM_RANKS for i, c in enumerate(cards)):
            return ("run", suit, lo, hi)
    return None


def classify_wild(
    cards: list[int], cat: Catalogue, wild_rank: int = -1, kind: str | None = None
) -> tuple[tuple | None, tuple[int, ...]]:
    """:func:`classify` where the cards of ``wild_rank`` (-1: none) are wild except at their
    own place (D-13: in a set of their rank, or in their suit's run at their rank), and
    the indexes of the cards standing as wild cards (jokers included). The reading with
    the fewest wild cards wins; ``(None, ())`` if there is none."""
    jokers = tuple(i for i, c in enumerate(cards) if c == JOKER)
    if wild_rank < 0:
        return classify(cards, cat, kind), jokers
    cand = [i for i, c in enumerate(cards) if c != JOKER and c % NUM_RANKS == wild_rank]
    for n in range(len(cand) + 1):
        for wild in combinations(cand, n):
            test = [JOKER if i in wild else c for i, c in enumerate(cards)]
            desc = classify(test, cat, kind)
            if desc is None:
                continue
            if desc[0] == "set":
                own = desc[1] == wild_rank  # every card of a set of 2s is at its own place
                if own and wild:
                    continue
            else:
                _, su, lo, _ = desc
                if any(run_face(su, lo + i) == cards[i] for i in wild):
                    continue  # a 2 at its own place is natural
            return desc, tuple(sorted(jokers + wild))
    return None, ()


def is_set(cards: list[int], cat: Catalogue) -> bool:
    """Whether the cards form a valid set under the catalogue's rules."""
    return classify(cards, cat, "set") is not None


def is_run(cards: list[int], cat: Catalogue) -> bool:
    """Whether the cards (in rank order, JK where wild) form a valid run (``5H JK JK`` is
    both a run and a set where one natural may carry two wild cards)."""
    return classify(cards, cat, "run") is not None


# ------------------------------------------------------ deadwood search
def natural_melds(counts: list[int], ace_high: bool = False) -> list[tuple[int, ...]]:
    """Every set and run (naturals only) that can be formed from ``counts``.

    Sets of 3 and 4 (each 3-subset of a 4-set too); runs of every length.
    """
    out: list[tuple[int, ...]] = []
    for r in range(NUM_RANKS):
        suits = [s for s in range(4) if counts[make_card(r, s)]]
        if len(suits) >= 3:
            faces = [make_card(r, s) for s in suits]
            if len(faces) == 4:
                out.append(tuple(faces))
                for skip in range(4):
                    out.append(tuple(f for i, f in enumerate(faces) if i != skip))
            else:
                out.append(tuple(faces))
    max_pos = ACE_HIGH_POS if ace_high else NUM_RANKS - 1
    for s in range(4):
        have = [bool(counts[run_face(s, p)]) for p in range(max_pos + 1)]
        for lo in range(max_pos + 1):
            hi = lo
            while hi <= max_pos and have[hi] and hi - lo <= 12:
                if hi - lo >= 2:
                    out.append(tuple(run_face(s, p) for p in range(lo, hi + 1)))
                hi += 1
    return out


def best_arrangement(
    counts: list[int],
    values: list[int],
    ace_high: bool = False,
    extra: list[tuple[int, ...]] | tuple = (),
) -> tuple[int, list[tuple[int, ...]]]:
    """Minimum deadwood of a hand (naturals only; wild cards count as deadwood).

    Args:
        counts: cards in hand, a count per face (53 entries).
        values: value of each face (53 entries).
        ace_high: whether Q-K-A runs are allowed.
        extra: further card groups that may be taken out of the hand like melds
            (gin: lay-offs onto the knocker's melds, see :func:`layoff_groups`).

    Returns:
        ``(deadwood, groups)``: the least total value of cards left over and one
        list of disjoint melds (and extra groups) achieving it.
    """
    melds = natural_melds(counts, ace_high)
    melds += [g for g in extra if all(counts[f] for f in g)]
    total = sum(c * v for c, v in zip(counts, values))
    if not melds:
        return total, []
    gains = [sum(values[f] for f in m) for m in melds]
    best: list = [0, []]

    def visit(chosen: list[int], avail: list[int]) -> None:
        gained = sum(gains[i] for i in chosen)
        if gained > best[0]:
            best[0] = gained
            best[1] = list(chosen)

    _each_arrangement(counts, melds, visit)
    return total - best[0], [melds[i] for i in best[1]]


def _each_arrangement(counts: list[int], melds: list[tuple[int, ...]], visit) -> None:
    """Call ``visit(chosen, avail)`` for every multiset of disjoint ``melds`` that ``counts``
    can hold (``chosen``: meld indices, non-decreasing: a meld appears twice when the hand
    holds two copies of its cards, two decks; ``avail``: the cards left), the empty set
    first. The one search behind every arrangement question below."""
    avail = list(counts)
    chosen: list[int] = []

    def search(start: int) -> None:
        visit(chosen, avail)
        for i in range(start, len(melds)):
            m = melds[i]
            if all(avail[f] for f in m):
                for f in m:
                    avail[f] -= 1
                chosen.append(i)
                search(i)  # i again: with two decks a hand may hold a meld twice
                chosen.pop()
                for f in m:
                    avail[f] += 1

    search(0)


def deadwood(counts: list[int], values: list[int], ace_high: bool = False) -> int:
    """Minimum deadwood value of a hand (see :func:`best_arrangement`)."""
    return best_arrangement(counts, values, ace_high)[0]


def arrangements(counts: list[int], ace_high: bool = False) -> list[list[tuple[int, ...]]]:
    """Every list of disjoint melds (naturals) that can be laid from ``counts``,
    the empty one included."""
    melds = natural_melds(counts, ace_high)
    out: list[list[tuple[int, ...]]] = []
    _each_arrangement(counts, melds, lambda chosen, avail: out.append([melds[i] for i in chosen]))
    return out


def deadwood_after_discard(
    counts: list[int], values: list[int], ace_high: bool = False
) -> dict[int, int]:
    """Least deadwood left after discarding each card of ``counts`` (gin knock check).

    One pass over every arrangement of the whole hand: an arrangement of the hand
    minus card ``c`` is an arrangement of the whole hand that leaves ``c`` unmelded.
    """
    melds = natural_melds(counts, ace_high)
    faces = [f for f, c in enumerate(counts) if c]
    total = sum(counts[f] * values[f] for f in faces)
    best = {f: total - values[f] for f in faces}
    if not melds:
        return best
    gains = [sum(values[f] for f in m) for m in melds]

    def visit(chosen: list[int], avail: list[int]) -> None:
        dw = total - sum(gains[i] for i in chosen)
        for f in faces:
            if avail[f]:
                v = dw - values[f]
                if v < best[f]:
                    best[f] = v

    _each_arrangement(counts, melds, visit)
    return best


def layoff_groups(melds: list[tuple[int, ...]], ace_high: bool = False) -> list[tuple[int, ...]]:
    """Card groups another player may lay off onto ``melds`` (gin, after a knock):
    the missing suit of a 3-card set, and for a run every chain of consecutive
    cards extending it at its low or at its high end."""
    max_pos = ACE_HIGH_POS if ace_high else NUM_RANKS - 1
    out: list[tuple[int, ...]] = []
    for m in melds:
        ranks = {f % NUM_RANKS for f in m}
        if len(ranks) == 1:
            if len(m) == 3:
                suits = {f // NUM_RANKS for f in m}
                out += [(make_card(next(iter(ranks)), s),) for s in range(4) if s not in suits]
            continue
        suit = m[0] // NUM_RANKS
        poss = sorted(f % NUM_RANKS for f in m)
        lo, hi = poss[0], poss[-1]
        if ace_high and 0 in poss and NUM_RANKS - 1 in poss:  # Q-K-A
            lo, hi = min(p for p in poss if p != 0), ACE_HIGH_POS
        chain: list[int] = []
        for p in range(lo - 1, -1, -1):
            if hi - p > 12:
                break
            chain.append(run_face(suit, p))
            out.append(tuple(chain))
        chain = []
        for p in range(hi + 1, max_pos + 1):
            if p - lo > 12:
                break
            chain.append(run_face(suit, p))
            out.append(tuple(chain))
    return out


def gin_showdown(
    knocker: list[int],
    defender: list[int],
    values: list[int],
    limit: int,
    gin_bonus: int,
    undercut_bonus: int,
    big_gin_bonus: int = 0,
    ace_high: bool = False,
) -> dict:
    """Score a knock (RULES.md gin, D-11: both sides arranged optimally).

    The knocker's melds are arranged to minimise his deadwood (RULES.md gin);
    among arrangements with that least deadwood, the one best for him once the
    defender has answered with his own best melds and lay-offs (none after
    gin). ``knocker`` holds 10 cards (11 for big gin).

    Returns:
        dict with ``points`` (positive: the knocker scores, negative: the
        defender scores, i.e. an undercut), ``kind`` ("knock", "gin",
        "big_gin", "undercut"), both deadwoods, the knocker's melds and the
        defender's melds and lay-offs.
    """
    best = None
    nk = sum(knocker)
    total = sum(c * v for c, v in zip(knocker, values))
    arrs = [
        (total - sum(values[f] for m in arr for f in m), arr)
        for arr in arrangements(knocker, ace_high)
    ]
    least = min(kd for kd, _ in arrs)
    for kd, arr in arrs:
        used = sum(len(m) for m in arr)
        if kd > limit or kd != least:
            continue
        if kd == 0:
            dd, dgroups = best_arrangement(defender, values, ace_high)
            if used == nk and nk == 11 and big_gin_bonus:
                res = (big_gin_bonus + dd, "big_gin")
            else:
                res = (gin_bonus + dd, "gin")
        else:
            dd, dgroups = best_arrangement(defender, values, ace_high, layoff_groups(arr, ace_high))
            res = (dd - kd, "knock") if kd < dd else (-(kd - dd + undercut_bonus), "undercut")
        if best is None or res[0] > best["points"]:
            best = {
                "points": res[0],
                "kind": res[1],
                "knocker_deadwood": kd,
                "defender_deadwood": dd,
                "knocker_melds": arr,
                "defender_groups": dgroups,
            }
    if best is None:
        raise ValueError(f"no arrangement of the knocker's hand has deadwood <= {limit}")
    return best


# ------------------------------------------------------------ meld values
def rank_value(rank: int, ace_value: int) -> int:
    """Value of a card of ``rank`` in a meld (ace: ``ace_value``, faces 10)."""
    return ace_value if rank == 0 else min(rank + 1, 10)


def pos_value(pos: int, ace_value: int) -> int:
    """Value of the card at run position ``pos`` (a low ace is 1, a high ace ``ace_value``)."""
    if pos == 0:
        return 1
    if pos == ACE_HIGH_POS:
        return ace_value
    return min(pos + 1, 10)


def set_value(rank: int, naturals: int, wilds: int, ace_value: int, joker_value: int) -> int:
    v = rank_value(rank, ace_value)
    return naturals * v + wilds * (joker_value or v)


def run_value(lo: int, hi: int, wild: int, ace_value: int, joker_value: int) -> int:
    """Value of a run at positions lo..hi whose wild positions are the bits of ``wild``."""
    pv = _pos_values(ace_value)
    total = sum(pv[lo : hi + 1])
    if joker_value:  # a wild card worth its own value, not that of the card it stands for
        wild &= (2 << hi) - (1 << lo)
        while wild:
            low = wild & -wild
            p = low.bit_length() - 1
            total += joker_value - pv[p]
            wild ^= low
    return total


@cache
def _pos_values(ace_value: int) -> list[int]:
    return [pos_value(p, ace_value) for p in range(ACE_HIGH_POS + 1)]


@cache
def _face_values(ace_value: int) -> list[int]:
    """Most a natural face can be worth in a meld (an ace: ``ace_value``)."""
    return [ace_value if f % NUM_RANKS == 0 else min(f % NUM_RANKS + 1, 10) for f in range(JOKER)]


# ------------------------------------------------------- hands as face bits
_SUIT_BITS = (1 << NUM_RANKS) - 1  # a bit per rank: one suit of a hand held as face bits
# bits of the faces a run of three may start at within its suit (ace .. jack), and of the queens
_RUN_STARTS = sum(((1 << (NUM_RANKS - 2)) - 1) << (su * NUM_RANKS) for su in range(4))
_QUEENS = sum(1 << (su * NUM_RANKS + NUM_RANKS - 2) for su in range(4))


def three_suit_ranks(s0: int, s1: int, s2: int, s3: int) -> int:
    """The ranks (a bit each) held in three suits or more, from the rank masks of the
    four suits: without wild cards, the ranks that make a set."""
    return s0 & s1 & (s2 | s3) | s2 & s3 & (s0 | s1)


def run3_bits(faces: int, ace_high: bool) -> int:
    """Non-zero when ``faces`` (bit ``f`` for natural face ``f``) hold three neighbouring
    ranks of one suit (Q-K-A too when ``ace_high``): without wild cards, a run."""
    return (
        faces & faces >> 1 & (faces >> 2 & _RUN_STARTS | (faces << 11 & _QUEENS if ace_high else 0))
    )


def _held(counts) -> tuple[int, int]:
    """The natural faces of ``counts`` held at least once and twice, a bit per face."""
    digits = bytes(counts[JOKER - 1 :: -1])  # face 0 last: the lowest binary digit
    try:
        return int(digits.translate(_ONCE), 2), int(digits.translate(_TWICE), 2)
    except ValueError:
        raise ValueError(f"counts {list(counts)}: at most two of a face (two decks)") from None


# binary digits of a count: held at least once, held twice
_ONCE = bytes.maketrans(b"\x00\x01\x02", b"011")
_TWICE = bytes.maketrans(b"\x00\x01\x02", b"001")


#: the most entries a search memo holds before it is emptied
_MEMO_SIZE = 1 << 17


# the searches that build on the above (imported last: they import from this module)
from rummy_env._melds_opening import hand_melds, opening_possible  # noqa: E402, F401
from rummy_env._melds_show import _ShowSearch, show_arrangement, show_discards  # noqa: E402, F401
