"""Meld validity, the meld catalogue, and the best-arrangement/deadwood search.

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

from functools import cache, lru_cache
from itertools import combinations, compress, product

from rummy_env.cards import JOKER, NUM_FACES, NUM_RANKS, make_card

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


# ------------------------------------------------------------ opening search
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


def hand_melds(
    cat: Catalogue, counts: tuple[int, ...] | list[int], ace_value: int, joker_value: int
):
    """Every meld formable from ``counts`` as ``(naturals, wilds, value, pure)`` with the
    catalogue's wild rules (naturals first, wild cards fill what is missing)."""
    held = sum(1 << f for f in compress(range(JOKER), counts))
    pieces = _hand_pieces(_meld_pieces(cat, ace_value, joker_value), held, counts[JOKER])
    return [
        (tuple([b + x for x in xs]), wu, value, pure)
        for _, _, _, _, shapes, b in pieces
        for xs, wu, value, pure in shapes
    ]


class _MeldPieces:
    """The melds of one rank (sets) or one suit (runs) of a hand, by what the hand holds
    of it: built once per (rank, suits held, wilds) and (suit, positions held, wilds).

    A piece is ``(moves, faces, wild, pure, shapes, b)``: ``moves`` its melds as
    ``(face bits, wilds, value, pure)``, ``faces`` a bit per face in some meld, ``wild``
    whether a meld takes a wild card, ``pure`` whether one is a pure run; ``shapes``
    the melds as :func:`hand_melds` gives them, less ``b`` on every face."""

    def __init__(self, cat: Catalogue, ace_value: int, joker_value: int, plain_rank: int = -1):
        self.cat, self.ace_value, self.joker_value = cat, ace_value, joker_value
        self.plain_rank = plain_rank  # sets of this rank take no wild card (-1: none)
        # no meld takes more wild cards than this (a run spans at most 13 positions)
        self.wild_cap = cat.max_wilds or NUM_RANKS
        self.sets: dict[int, tuple] = {}
        self.runs: dict[int, tuple] = {}
        self._run_shapes: dict[int, tuple] = {}
        # (faces held, melds without wild cards) of the hand an opening search began with last
        self.last_natural: tuple = (0, ())

    def rank(self, key: int, r: int, rm: int, w: int) -> tuple:
        """The sets of rank ``r`` from the suits ``rm`` and ``w`` wild cards."""
        cat, jv = self.cat, self.joker_value
        v = self.ace_value if r == 0 else min(r + 1, 10)
        shapes = []
        # sets of distinct suits (D-2)
        for k, wu in cat.sets_for(SPREAD[rm], 0 if r == self.plain_rank else w):
            nat = tuple(code_faces(cat.set_shapes[k][0], r))
            shapes.append((nat, wu, len(nat) * v + wu * (jv or v), False))
        moves, faces, wild, pure = _moves_of(shapes)
        piece = self.sets[key] = (moves, faces, wild, pure, tuple(shapes), 0)
        return piece

    def suit(self, key: int, su: int, pm: int, w: int) -> tuple:
        """The runs of suit ``su`` from the positions ``pm`` and ``w`` wild cards."""
        moves, faces, wild, pure, shapes = self._run_shapes.get(pm | w << 14) or self._runs_of(
            pm, w
        )
        b = su * NUM_RANKS
        piece = self.runs[key] = (
            tuple([(bits << b, wu, value, p) for bits, wu, value, p in moves]),
            faces << b,
            wild,
            pure,
            shapes,
            b,
        )
        return piece

    def _runs_of(self, pm: int, w: int) -> tuple:
        """A suit's runs with ranks in place of faces (the same for every suit)."""
        jv = self.joker_value
        pv = _pos_values(self.ace_value)
        segs = self.cat.segments
        shapes = []
        for k, wu in self.cat.runs_for(pm, w):
            lo, hi = segs[k]
            ranks = []
            value = 0
            for p in range(lo, hi + 1):
                if pm >> p & 1:
                    ranks.append(p % NUM_RANKS)
                    value += pv[p]
                else:
                    value += jv or pv[p]
            shapes.append((tuple(ranks), wu, value, wu == 0))
        out = self._run_shapes[pm | w << 14] = (*_moves_of(shapes), tuple(shapes))
        return out


def _moves_of(shapes: list[tuple]) -> tuple:
    """``(moves, faces, wild, pure)`` of melds given as ``(naturals, wilds, value, pure)``."""
    moves = tuple((sum(1 << f for f in nat), wu, value, pure) for nat, wu, value, pure in shapes)
    faces = 0
    for m in moves:
        faces |= m[0]
    return moves, faces, any(m[1] for m in moves), any(m[3] for m in moves)


@cache
def _meld_pieces(
    cat: Catalogue, ace_value: int, joker_value: int, plain_rank: int = -1
) -> _MeldPieces:
    return _MeldPieces(cat, ace_value, joker_value, plain_rank)


_SUIT_BITS = (1 << NUM_RANKS) - 1
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


def _hand_pieces(pc: _MeldPieces, held: int, w: int) -> list[tuple]:
    """The pieces of the hand holding the faces ``held`` (a bit per face) and ``w`` wild
    cards, in catalogue order: sets by rank, then runs by suit."""
    if w > pc.wild_cap:
        w = pc.wild_cap  # the same melds
    cat = pc.cat
    s0, s1, s2, s3 = held & _SUIT_BITS, held >> 13 & _SUIT_BITS, held >> 26 & _SUIT_BITS, held >> 39
    if not w:  # the ranks held in three suits or more: a set needs three naturals
        ranks = three_suit_ranks(s0, s1, s2, s3)
    elif cat.min_naturals >= 2:  # in two suits or more
        ranks = s0 & (s1 | s2 | s3) | s1 & (s2 | s3) | s2 & s3
    else:
        ranks = s0 | s1 | s2 | s3
    out = []
    if ranks:
        sets_get = pc.sets.get
        min_nat = cat.min_naturals
        while ranks:
            low = ranks & -ranks
            ranks ^= low
            r = low.bit_length() - 1
            rm = (s0 >> r & 1) | (s1 >> r & 1) << 1 | (s2 >> r & 1) << 2 | (s3 >> r & 1) << 3
            if rm.bit_count() >= min_nat:
                key = r | rm << 4 | w << 8
                out.append(sets_get(key) or pc.rank(key, r, rm, w))
    runs_get = pc.runs.get
    ace_high = cat.ace_high
    for su, pm in enumerate((s0, s1, s2, s3)):
        if pm:
            if ace_high and pm & 1:
                pm |= 1 << ACE_HIGH_POS
            if not w and not pm & pm >> 1 & pm >> 2:
                continue  # a run needs three neighbouring naturals
            key = su | pm << 2 | w << 16
            out.append(runs_get(key) or pc.suit(key, su, pm, w))
    return out


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


@cache
def _rank_values(ace_value: int) -> list[int]:
    """Total value (an ace: ``ace_value``) of the ranks in each 13-bit rank mask."""
    fv = _face_values(ace_value)[:NUM_RANKS]
    out = [0] * (1 << NUM_RANKS)
    for m in range(1, 1 << NUM_RANKS):
        low = m & -m
        out[m] = out[m ^ low] + fv[low.bit_length() - 1]
    return out


class _Opening:
    """What an opening search needs beside the hand: the meld pieces and the rules."""

    def __init__(
        self,
        cat: Catalogue,
        ace_value: int,
        joker_value: int,
        forb: int,
        allow_empty: bool,
        plain_rank: int = -1,
    ):
        self.pieces = _meld_pieces(cat, ace_value, joker_value, plain_rank)
        self.forb = forb
        self.allow_empty = allow_empty
        self.values = _rank_values(ace_value)
        self.joker_best = max(joker_value, ace_value, 10)  # the most a wild card is worth
        self.ace_high = cat.ace_high
        self.memo: dict[tuple, bool] = {}  # (once, twice, wilds, need, need_pure) -> found


#: the shared :class:`_Opening` of these arguments (its memo kept between searches)
_opening = cache(_Opening)


@lru_cache(maxsize=1 << 15)
def _moves(pc: _MeldPieces, held: int, w: int) -> tuple:
    """``(moves, faces, wild, pure)`` of a hand (see :class:`_MeldPieces`)."""
    moves: list = []
    faces = 0
    wild = pure = False
    for piece in _hand_pieces(pc, held, w):
        moves += piece[0]
        faces |= piece[1]
        wild = wild or piece[2]
        pure = pure or piece[3]
    return moves, faces, wild, pure


def opening_possible(
    cat: Catalogue,
    counts: tuple[int, ...],
    need: int,
    need_pure: bool,
    forb: int,
    ace_value: int,
    joker_value: int,
    allow_empty: bool,
    plain_rank: int = -1,
) -> bool:
    """Whether disjoint melds from ``counts`` can add ``need`` points (and a pure run when
    ``need_pure``) while leaving a card that may be discarded (not face ``forb``), or
    nothing when ``allow_empty``. Exhaustive over the melds formable at each step, with
    a bound (the value of every card that is in some meld) and memoised: hands repeat
    within a turn. ``counts`` holds at most two of a natural face (two decks). Sets of
    ``plain_rank`` (-1: none) are made of naturals only (wild 2s: a 2 in a set of 2s is
    natural, so the wild cards the search counts cannot stand there)."""
    once, twice = _held(counts)
    o = _opening(cat, ace_value, joker_value, forb, allow_empty, plain_rank)
    memo = o.memo
    w = counts[JOKER]
    key = (once, twice, w, need, need_pure)
    found = memo.get(key)
    if found is None:
        if len(memo) > _MEMO_SIZE:
            memo.clear()
        # the engine asks about a hand, then about that hand less each meld: the natural
        # melds of the hand asked first serve (see _open_search) while it holds this one
        pc = o.pieces
        last = pc.last_natural
        if once & ~last[0]:
            last = pc.last_natural = (once, _moves(pc, once, 0)[0])
        found = memo[key] = _open_search(o, *key, last[1])
    return found


_MEMO_SIZE = 1 << 17


def _open_search(
    o: _Opening, once: int, twice: int, w: int, need: int, need_pure: bool, natural: list
) -> bool:
    """:func:`opening_possible` on a hand held as bits: ``once`` the natural faces held,
    ``twice`` those held twice, ``w`` the wild cards; ``natural`` the melds without wild
    cards of a hand that holds this one."""
    if need <= 0 and not need_pure:
        n = once.bit_count() + twice.bit_count() + w
        forb = o.forb
        nforb = 0 if forb < 0 else w if forb == JOKER else (once >> forb & 1) + (twice >> forb & 1)
        return n > nforb or (o.allow_empty and n == 0)
    # quick exits before listing the melds: no pure run of three, or no meld at all
    # (without wild cards a meld is a pure run or a set of three suits)
    pure = run3_bits(once, o.ace_high)
    if not pure and (
        need_pure
        or not w
        and not three_suit_ranks(
            once & _SUIT_BITS, once >> 13 & _SUIT_BITS, once >> 26 & _SUIT_BITS, once >> 39
        )
    ):
        return False
    if w:
        moves, faces, wild, pure = _moves(o.pieces, once, w)
    else:  # without wild cards, the melds of part of a hand are those of the hand it still holds
        moves = natural = [m for m in natural if m[0] & once == m[0]]
        faces = 0
        for m in moves:
            faces |= m[0]
        wild = False  # (and pure as found above: a pure run is three neighbouring naturals)
    if not moves or (need_pure and not pure):
        return False
    # bound: each card in some meld at its best value, jokers at the best they can be worth
    v = o.values
    a, b = once & faces, twice & faces
    bound = (
        v[a & _SUIT_BITS]
        + v[a >> 13 & _SUIT_BITS]
        + v[a >> 26 & _SUIT_BITS]
        + v[a >> 39]
        + v[b & _SUIT_BITS]
        + v[b >> 13 & _SUIT_BITS]
        + v[b >> 26 & _SUIT_BITS]
        + v[b >> 39]
    )
    if w and wild:
        bound += w * o.joker_best
    if bound < need:
        return False
    if need_pure and not o.allow_empty:
        # some pure run must be laid: lay it first. The other melds then take the same
        # cards, and stopping sooner leaves more in hand, so a card to discard if they did
        moves = [m for m in moves if m[3]]
    memo = o.memo
    for bits, wu, value, mpure in moves:
        keep = ~bits
        key = (
            once & keep | twice & bits,
            twice & keep,
            w - wu,
            need - value,
            need_pure and not mpure,
        )
        found = memo.get(key)
        if found is None:
            found = memo[key] = _open_search(o, *key, natural)
        if found:
            return True
    return False


# ------------------------------------------------- Indian rummy's show and count
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
