"""Rummikub table check: exact cover of a tile multiset by valid melds.

Tiles are card faces (:mod:`rummy_env.cards`): ``suit * 13 + rank`` for the
naturals (colour 0..3, number ``rank + 1`` in 1..13) and 52 for the joker. A
multiset is a count vector of 53 entries. Valid melds: a *group* is 3 or 4
tiles of one number in different colours; a *run* is 3 to 13 tiles of one
colour with consecutive numbers (1 low only, no 13-1 wrap); a joker stands for
any tile; every meld holds at least two naturals and no more jokers than
naturals (D-3). A meld is worth the numbers its tiles stand for.

API (``mandatory`` must all be used; any part of ``optional`` may be):

* :func:`can_cover` ``(mandatory, optional=None) -> bool``: some sub-multiset O
  of ``optional`` makes ``mandatory + O`` split exactly into valid melds;
* :func:`playable` ``(mandatory, optional) -> set``: the faces ``t`` of
  ``optional`` with ``can_cover(mandatory + {t}, optional - {t})``;
* :func:`split` ``(counts) -> list[list[int]] | None``: one split of exactly
  ``counts`` (runs in number order, 52 where a joker stands; groups by colour,
  jokers last);
* :func:`best_cover` ``(mandatory, optional=None) -> int | None`` and
  :func:`playable_values` ``(mandatory, optional) -> {t: value}``: the same
  questions with the greatest value of a split (initial meld: 30 or more);
* :func:`clear_caches`: empties the memo tables shared by all calls.

At most two jokers in all (mandatory plus optional; more raises ValueError), as
in the 106-tile game. Counts of naturals may be any size (the tests keep to two).

Two dynamic programmes over the numbers 1..13, in the manner of the published
Rummikub solvers (van Rijn, Takes and Vis, "The complexity of Rummikub
problems", 2015): at each number, choose which of its tiles go into groups of
that number, which extend the runs left open by the number before, and which
start runs; mandatory tiles must all be used, optional ones may be skipped; a
run not extended either closes (if valid) or is dead.

**Skeleton DP** (:func:`can_cover`, :func:`playable`, :func:`split`). With two
jokers at most, D-3 says only "every meld has two naturals or more" (jokers <=
2 <= naturals). So a split is a split of the *naturals* into fragments (a group
fragment: 2-4 naturals of one number in different colours; a run fragment: 2 or
more naturals of one colour, the numbers between them that are missing filled
by jokers, its *gaps*) plus a number of jokers t, ``mandatory jokers <= t <=
all jokers``, where each fragment takes between ``need`` and ``need + extra``
jokers: gaps are needed; two adjacent naturals need one joker at an end and take
one more; a longer run takes two more at its ends; a group of 2 needs one and
takes one more; a group of 3 takes one. Jokers in gaps are placed by the
programme, the others are only counted. The state after number k is, per
colour, the sorted multiset of open runs, each one of A (one natural), G (ends
in a gap: a natural must come next), B (two adjacent naturals) and V (valid),
and two counters: N, the jokers needed so far (at most all jokers), and X =
min(mandatory jokers, N + extras so far), the jokers that have a place; the
search succeeds when every run has closed with X >= mandatory jokers. A run of
12 or 13 numbers has no room for two more jokers at its ends, but it is counted
as if it had: it can be cut between two naturals into two runs that have, so
the count is still right (:func:`split` cuts it when it must). The states are
ordered A < G < B < V (a later one can do all an earlier one can), and of the
ways one colour goes through a number only those no other beats are kept.

The skeleton programme is searched depth-first, the most promising ways first
(fewest jokers needed, fewest runs still short), remembering the states after
each number that failed (with those they beat: no fewer jokers needed, no more
with a place) and, for states on a way found, the rest of that way. The rules
read the same with the numbers reversed (n -> 14 - n), so the search runs both
ways alternately, each with twice the states allowed the time before, until one
finishes (a bad first choice at the wrong end costs little that way).
:func:`playable` searches once per face not yet known: a way found for one face
shows every optional tile it uses playable too; the faces of one position share
what their searches learnt about the numbers beyond the one they change, and a
face near 13 is searched from 13 down. ``_can_cover_bfs`` and ``_playable_bfs``
do the same with one forward (and one backward) pass over every reachable
state, as the first design asked; on dense tables with jokers that is 10^3 to
10^5 states a number, so the tests use them as a reference only.

**Valued DP** (:func:`best_cover`, :func:`playable_values`). Every joker is
placed as the tile it stands for; open runs are D (jokers only), A, C (one
natural and jokers: needs a natural), B and V; the state is those per colour
plus the jokers used, with the best value so far (each tile adds its number at
the number it stands at). One forward pass keeps the best value of each state;
:func:`playable_values` adds a backward pass of best remaining values and, per
face, the best value through a way that uses it. Both first ask the skeleton
search, so a position with no split costs little; a table with jokers and
dozens of tiles costs seconds here (the initial meld, on a rack alone, is quick).

Memo tables: the options of one colour, group partitions and filtered option
lists are kept across calls (cleared past 300,000 entries each), and the last
4,096 answers of :func:`can_cover` and :func:`playable` by their arguments.

Speed (``python -m experiments.cover_speed --tables 50``; a 2-core machine with
another job running; random tables of random valid melds from one 106-tile pack
plus a random 14-tile rack; calls per second, memo tables kept from call to
call as in a process that plays many games; each call on a fresh table):

    table  tiles jokers  can_cover/s table only/s  playable/s slowest ms   split/s
        0    0.0   0.30        80512       126258        2016        0.8    120491
       10   10.7   0.86         6975        16270         827       10.2     11425
       20   20.3   1.44         6509        10266         929        4.2      7774
       30   30.5   1.82         4767         7202         587       21.4      5323
       40   40.5   1.90         4751         3857         560       14.6      3255
       50   50.2   2.00         3847         3484         593       13.7      2788
       60   60.9   1.98         4434         3341         682        7.2      2691
       70   70.5   2.00         5534         2629         680       12.3      2258
       80   80.6   2.00         6847         5824        1315        2.9      4097

Initial meld (a 14-tile rack, no table): best_cover 3141/s, playable_values
1484/s (slowest 3.6 ms).

With the memo tables cleared before every call (``--cold``) the 50-80 tile
rows drop to about 300 ``can_cover`` and 150-270 ``playable`` calls a second.
The slow ``playable`` calls are the faces that cannot be played on a dense
table: showing that takes the whole search (up to some tens of ms).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, product

from rummy_env.cards import JOKER, NUM_FACES, NUM_RANKS, NUM_SUITS

__all__ = [
    "best_cover",
    "can_cover",
    "playable",
    "playable_values",
    "split",
    "clear_caches",
]


# ------------------------------------------------------------------- constants

_EMPTY = ((), (), (), ())
_MAX_JOKERS = 2
_CACHE_LIMIT = 300_000  # entries per transition cache before it is cleared


def _store(table: dict, key, value):
    """``table[key] = value`` (the table emptied first when it has grown past
    ``_CACHE_LIMIT``); the value."""
    if len(table) > _CACHE_LIMIT:
        table.clear()
    table[key] = value
    return value


# ------------------------------------------------------------------ public API


def can_cover(mandatory: Sequence[int], optional: Sequence[int] | None = None) -> bool:
    """Whether ``mandatory`` plus some sub-multiset of ``optional`` splits
    exactly into valid melds (count vectors of length 53)."""
    mand = _as_list(mandatory)
    opt = _as_list(optional)
    key = ("c", tuple(mand), tuple(opt))
    hit = _RESULTS.get(key)
    if hit is not None:
        return hit
    levels, jm, jt = _levels(mand, opt)
    if not any(mand):
        return True
    return _remember(key, _Solver(levels, jm, jt, jm).solve(jm) is not None)


def playable(mandatory: Sequence[int], optional: Sequence[int]) -> set[int]:
    """The faces ``t`` of ``optional`` with ``can_cover(mandatory + {t},
    optional - {t})``.

    One search per face not yet shown playable: a way found for one face shows
    every optional tile it uses playable too."""
    mand = _as_list(mandatory)
    opt = _as_list(optional)
    key = ("p", tuple(mand), tuple(opt))
    hit = _RESULTS.get(key)
    if hit is not None:
        return set(hit)
    levels, jm, jt = _levels(mand, opt)
    out = _playable_search(levels, opt, jm, jt)
    _remember(key, frozenset(out))
    return out


def best_cover(mandatory: Sequence[int], optional: Sequence[int] | None = None) -> int | None:
    """The greatest total value of an exact split of ``mandatory`` plus some
    sub-multiset of ``optional`` into valid melds (each tile worth its number, a
    joker the number it stands for); None when no split exists."""
    mand = _as_list(mandatory)
    opt = _as_list(optional)
    levels, jm, jt = _levels(mand, opt)
    if any(mand) and not can_cover(mand, opt):
        return None
    lo, hi = _first_level(levels, jt), _last_level(levels, jt)
    states = {(_EMPTY, 0): 0}
    for k in range(lo, hi + 1):
        m, o = levels[k]
        rem = min(hi - k, 2)
        num = k + 1
        new: dict = {}
        get = new.get
        for (runs, ju), v in states.items():
            for r2, dj, n in _succ_best((runs, m, o, jt - ju, rem)):
                s2 = (r2, ju + dj)
                val = v + num * n
                if get(s2, -1) < val:
                    new[s2] = val
        if not new:
            return None
        states = new
    vals = [v for (_r, ju), v in states.items() if ju >= jm]
    return max(vals) if vals else None


def playable_values(mandatory: Sequence[int], optional: Sequence[int]) -> dict[int, int]:
    """``{t: best_cover(mandatory + {t}, optional - {t})}`` for every face ``t``
    of ``optional`` for which that is not None, from one forward and one backward
    pass over the numbers (only the faces :func:`playable` finds are valued)."""
    if not playable(mandatory, optional):
        return {}
    return _playable(mandatory, optional)


def split(counts: Sequence[int]) -> list[list[int]] | None:
    """One split of exactly ``counts`` into valid melds, or None. Runs list their
    faces in number order with 52 where a joker stands; groups list their
    naturals by colour, jokers last. Jokers not needed inside a meld go where
    they are worth the most (the split is not always one of greatest value:
    :func:`best_cover` gives that value)."""
    mand = _as_list(counts)
    levels, jm, jt = _levels(mand, [0] * NUM_FACES)
    if not any(mand):
        return []
    found = _Solver(levels, jm, jt, jm).solve(jm)
    if found is None:
        return None
    path, rev, lo = found
    hi = lo + len(path) - 1
    recipes = [(choice[0], choice[3], combo) for choice, combo in path]
    # replay (in the order searched): fragments of naturals, gaps as jokers
    runs_done: list[list] = []  # [state, lowest number, faces]
    groups_done: list[list] = []  # [faces, number]
    open_runs: list[list[list]] = [[] for _ in range(NUM_SUITS)]  # as runs_done
    for i, (_g, parts, combo) in enumerate(recipes):
        k = lo + i
        for colours in parts:
            groups_done.append([[c * NUM_RANKS + k for c in colours], k + 1])
        for c in range(NUM_SUITS):
            _states, _nr, _dn, _de, acts, sn = combo[c]
            face = c * NUM_RANKS + k
            nxt = []
            for run, act in zip(open_runs[c], acts):
                if act == 0:
                    run[0] = _SK_NAT[run[0]]
                    run[2].append(face)
                    nxt.append(run)
                elif act == 1:
                    run[0] = _SG
                    run[2].append(JOKER)
                    nxt.append(run)
                else:
                    runs_done.append(run)
            nxt.extend([_SA, k + 1, [face]] for _ in range(sn))
            nxt.sort(key=lambda r: r[0])
            if k == hi:
                runs_done.extend(nxt)
                nxt = []
            open_runs[c] = nxt
    if rev:  # back to numbers 1..13 upwards
        for run in runs_done:
            run[1] = NUM_RANKS + 2 - (run[1] + len(run[2]))
            run[2] = [f if f == JOKER else _mirror(f) for f in reversed(run[2])]
        for grp in groups_done:
            grp[0] = [_mirror(f) for f in grp[0]]
            grp[1] = NUM_RANKS + 1 - grp[1]
    # jokers: each pair of adjacent naturals and each group of two takes one,
    # then the rest go to the open slot worth the most
    left = jt - sum(f.count(JOKER) for _code, _lo, f in runs_done)
    slots = []  # runs: {"faces", "lo"}
    for _code, first, faces in runs_done:
        meld = {"faces": faces, "lo": first}
        slots.append(meld)
        if len(faces) == 2:
            _add_run_joker(meld)
            left -= 1
    gslots = []  # groups: {"faces", "number"}
    for faces, number in groups_done:
        g = {"faces": faces, "number": number}
        gslots.append(g)
        if len(faces) == 2:
            faces.append(JOKER)
            left -= 1
    while left > 0:
        best = None
        for meld in slots:
            v = _run_slot_value(meld)
            if v is not None and (best is None or v > best[0]):
                best = (v, meld)
        for g in gslots:
            nat = sum(1 for f in g["faces"] if f != JOKER)
            if len(g["faces"]) < 4 and g["faces"].count(JOKER) < nat:
                if best is None or g["number"] > best[0]:
                    best = (g["number"], g)
        if best is None:  # every meld full: cut a run of 12 or 13 in two
            cut = next((c for meld in slots if (c := _cut_run(meld)) is not None), None)
            if cut is None:  # cannot happen when the search said yes
                return None
            slots.remove(cut[2])
            slots.extend(cut[:2])
            continue
        if "lo" in best[1]:
            _add_run_joker(best[1])
        else:
            best[1]["faces"].append(JOKER)
        left -= 1
    return [m["faces"] for m in slots] + [g["faces"] for g in gslots]


def clear_caches() -> None:
    """Empty the memo tables (they are shared by all calls and grow with use)."""
    for d in (_TRANS, _SUCC_BEST, _EDGES, _COLOUR_OPTS, _GROUP_CHOICES, _PARTITION):
        d.clear()
    for d in (_SK_COLOUR, _SK_GROUPS, _SK_GCHOICES, _SK_TRANS, _SK_SUCC, _SK_EDGES):
        d.clear()
    for d in (_SK_FILTER, _SK_GSORTED, _RESULTS):
        d.clear()


_RESULTS: dict = {}  # (kind, mandatory, optional) -> answer, for repeated questions
_RESULTS_LIMIT = 4096


def _remember(key: tuple, value):
    if len(_RESULTS) >= _RESULTS_LIMIT:
        _RESULTS.clear()
    _RESULTS[key] = value
    return value


def _playable_search(levels: list[tuple], opt: list[int], jm: int, jt: int) -> set[int]:
    """The search behind :func:`playable`."""
    todo = {f for f in range(NUM_FACES) if opt[f]}
    if not todo:
        return set()
    out: set[int] = set()

    def mark(found) -> None:
        path, rev, lo = found
        for i, step in enumerate(path):
            u = _step_used(step)
            k = NUM_RANKS - 1 - (lo + i) if rev else lo + i
            m = levels[k][0]
            for c in range(NUM_SUITS):
                if u[c] > m[c]:
                    out.add(c * NUM_RANKS + k)

    if opt[JOKER]:
        found = _Solver(levels, jm, jt, jm + 1).solve(jm + 1)
        if found is not None:
            mark(found)
            out.add(JOKER)
        todo.discard(JOKER)
    if not todo:
        return out
    solver = _Solver(levels, jm, jt, jm)
    for t in sorted(todo, key=lambda f: -abs(f % NUM_RANKS - 6)):  # the ends first
        if t in out:
            continue
        k, c = t % NUM_RANKS, t // NUM_RANKS
        m, o = levels[k]
        m2 = list(m)
        o2 = list(o)
        m2[c] += 1
        o2[c] -= 1
        found = solver.solve(jm, k, (tuple(m2), tuple(o2)))
        if found is not None:
            mark(found)
            out.add(t)
    return out


def _run_slot_value(meld: dict) -> int | None:
    """The number a joker added to this run would stand for (top end first), or
    None if the run cannot take one more."""
    faces = meld["faces"]
    nat = sum(1 for f in faces if f != JOKER)
    if faces.count(JOKER) >= nat or len(faces) >= NUM_RANKS:
        return None
    top = meld["lo"] + len(faces)  # the number after the last
    if top <= NUM_RANKS:
        return top
    return meld["lo"] - 1


def _add_run_joker(meld: dict) -> None:
    top = meld["lo"] + len(meld["faces"])
    if top <= NUM_RANKS:
        meld["faces"].append(JOKER)
    else:
        meld["faces"].insert(0, JOKER)
        meld["lo"] -= 1


def _cut_run(meld: dict) -> tuple[dict, dict, dict] | None:
    """A run of 12 or 13 numbers cut between two naturals into two valid runs
    of 3 or more with two naturals or more each (both then have room for two
    jokers more): ``(low part, high part, meld)``, or None."""
    faces = meld["faces"]
    if len(faces) < 12:
        return None
    for i in range(3, len(faces) - 2):
        left, right = faces[:i], faces[i:]
        if left[-1] == JOKER or right[0] == JOKER:
            continue
        if sum(f != JOKER for f in left) >= 2 and sum(f != JOKER for f in right) >= 2:
            return {"faces": left, "lo": meld["lo"]}, {"faces": right, "lo": meld["lo"] + i}, meld
    return None


def _mirror(face: int) -> int:
    """The face of the same colour with the number 14 - n."""
    return (face // NUM_RANKS) * NUM_RANKS + NUM_RANKS - 1 - face % NUM_RANKS


# ----------------------------------------------------------------------- input


def _as_list(counts: Sequence[int] | None) -> list[int]:
    if counts is None:
        return [0] * NUM_FACES
    if hasattr(counts, "tolist"):
        counts = counts.tolist()
    out = [int(x) for x in counts]
    if len(out) != NUM_FACES:
        raise ValueError(f"a count vector has {NUM_FACES} entries, not {len(out)}")
    if min(out) < 0:
        raise ValueError("counts must be >= 0")
    return out


def _levels(mand: list[int], opt: list[int]) -> tuple[list[tuple], int, int]:
    """Per number ``(m, o)`` colour tuples, the mandatory and the total jokers."""
    jm, jo = mand[JOKER], opt[JOKER]
    if jm + jo > _MAX_JOKERS:
        raise ValueError(f"at most {_MAX_JOKERS} jokers in all (got {jm} + {jo})")
    levels = []
    for k in range(NUM_RANKS):
        m = (mand[k], mand[13 + k], mand[26 + k], mand[39 + k])
        o = (opt[k], opt[13 + k], opt[26 + k], opt[39 + k])
        levels.append((m, o))
    return levels, jm, jm + jo


def _natural_span(levels: list[tuple]) -> tuple[int, int]:
    """First and last number index holding a natural (mandatory or optional)."""
    ks = [k for k, (m, o) in enumerate(levels) if any(m) or any(o)]
    return (ks[0], ks[-1]) if ks else (0, -1)


def _first_level(levels: list[tuple], jt: int) -> int:
    """The first number (index) where a run or group may start: jokers may stand
    at most 2 numbers before the first natural."""
    for k, (m, o) in enumerate(levels):
        if any(m) or any(o):
            return max(0, k - jt)
    return NUM_RANKS


def _last_level(levels: list[tuple], jt: int) -> int:
    for k in range(NUM_RANKS - 1, -1, -1):
        m, o = levels[k]
        if any(m) or any(o):
            return min(NUM_RANKS - 1, k + jt)
    return -1


# ----------------------------------------------------- skeleton DP: one number
# Feasibility only: naturals and the jokers standing in gaps; the other jokers are
# counted, not placed (see the module docstring).

# Open run states, in the order of dominance (a later state can do all an earlier
# one can): A one natural; G ends in a gap (a joker), needs a natural next; B two
# adjacent naturals (may close, taking one joker at an end); V valid, may close.
_SA, _SG, _SB, _SV = 0, 1, 2, 3
_SK_NAT = (_SB, _SV, _SV, _SV)

# ``(jokers needed, extra jokers it could take)`` when a run closes: two adjacent
# naturals need one joker at an end and could take a second; a valid run could
# take two more (its ends have room; see the module docstring for runs of 12+).
_SK_CLOSE = (None, None, (1, 1), (0, 2))


def _sk_dominates(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Whether the sorted run multiset ``a`` dominates ``b`` (same size)."""
    return len(a) == len(b) and all(x >= y for x, y in zip(a, b))


_SK_COLOUR: dict = {}


def _sk_colour_opts(runs: tuple[int, ...], nmax: int, gmax: int, fin: bool) -> tuple:
    """One colour's ways through one number (skeleton DP).

    ``runs``: sorted run states; ``nmax`` naturals at most into runs; ``gmax``
    jokers at most (gaps and needs); ``fin``: the last number (every run closes
    after it). Options ``(runs2, nr, dn, de, acts, sn)``: naturals into runs,
    jokers needed (gaps, and pairs closed), extra jokers the closed runs could
    take (capped at 2), an action per run (0 natural, 1 gap, 2 close) and runs
    started. Of the options with the same ``nr`` those another one beats (runs
    as far along, no more jokers needed, at least as many takeable) are left out."""
    key = (runs, nmax, gmax, fin)
    res = _SK_COLOUR.get(key)
    if res is not None:
        return res
    distinct = sorted(set(runs))
    per_state = []
    for code in distinct:
        cnt = runs.count(code)
        closing = _SK_CLOSE[code]
        choices = []
        for a_n in range(cnt + 1):
            for a_g in range(cnt - a_n + 1):
                a_x = cnt - a_n - a_g
                if a_x and closing is None:
                    continue
                dn = a_g + (a_x * closing[0] if a_x else 0)
                de = a_x * closing[1] if a_x else 0
                choices.append((a_n, a_g, a_x, dn, de))
        per_state.append(choices)
    best: dict = {}  # nr -> {(runs2, dn): (de, acts, sn)}
    for combo in product(*per_state):
        nr = sum(c[0] for c in combo)
        dn = sum(c[3] for c in combo)
        de = sum(c[4] for c in combo)
        if nr > nmax or dn > gmax:
            continue
        kept: list[int] = []
        acts: list[int] = []
        for code, (a_n, a_g, a_x, _dn, _de) in zip(distinct, combo):
            kept.extend([_SK_NAT[code]] * a_n)
            kept.extend([_SG] * a_g)
            acts.extend([0] * a_n + [1] * a_g + [2] * a_x)
        for sn in range(nmax - nr + 1):
            states = sorted(kept + [_SA] * sn)
            dn2, de2 = dn, de
            if fin:
                ok = True
                for code in states:
                    c = _SK_CLOSE[code]
                    if c is None:
                        ok = False
                        break
                    dn2 += c[0]
                    de2 += c[1]
                if not ok or dn2 > gmax:
                    continue
                states = []
            de2 = min(de2, 2)
            bucket = best.setdefault(nr + sn, {})
            t = (tuple(states), dn2)
            old = bucket.get(t)
            if old is None or old[0] < de2:
                bucket[t] = (de2, tuple(acts), sn)
    out = []
    for nr, bucket in best.items():
        items = list(bucket.items())
        for (t, dn), (de, acts, sn) in items:
            dominated = any(
                (t2, dn2) != (t, dn) and dn2 <= dn and de2 >= de and _sk_dominates(t2, t)
                for (t2, dn2), (de2, _a, _s) in items
            )
            if not dominated:
                out.append((t, nr, dn, de, acts, sn))
    res = _SK_COLOUR[key] = tuple(out)
    return res


_SK_GROUPS: dict = {}


def _sk_group_opts(g: tuple[int, ...]) -> tuple:
    """Partitions of ``g[c]`` naturals of colour c (one number) into groups of
    2-4 distinct colours: ``(need, extra, groups)`` for each Pareto-best
    (fewer jokers needed, more jokers takeable) pair."""
    res = _SK_GROUPS.get(g)
    if res is not None:
        return res
    found: dict = {}

    def rec(rest: tuple[int, ...], parts: tuple, need: int, extra: int) -> None:
        if not any(rest):
            if (need, extra) not in found:
                found[(need, extra)] = parts
            return
        c0 = next(c for c in range(NUM_SUITS) if rest[c])
        others = [c for c in range(c0 + 1, NUM_SUITS) if rest[c]]
        for size in range(1, min(3, len(others)) + 1):
            for pick in combinations(others, size):
                r2 = list(rest)
                r2[c0] -= 1
                for c in pick:
                    r2[c] -= 1
                n = size + 1
                rec(tuple(r2), (*parts, (c0, *pick)), need + (n == 2), extra + (n < 4))

    rec(g, (), 0, 0)
    out = []
    for (need, extra), parts in found.items():
        if not any((n2, e2) != (need, extra) and n2 <= need and e2 >= extra for (n2, e2) in found):
            out.append((need, min(extra, 2), parts))
    res = _SK_GROUPS[g] = tuple(out)
    return res


_SK_GCHOICES: dict = {}


def _sk_group_choices(caps: tuple[int, ...], gmax: int) -> tuple:
    """``(g, need, extra, groups)`` for every ``g[c] <= caps[c]`` that splits into
    groups needing at most ``gmax`` jokers."""
    key = (caps, gmax)
    res = _SK_GCHOICES.get(key)
    if res is None:
        out = []
        for g in product(*(range(c + 1) for c in caps)):
            for need, extra, parts in _sk_group_opts(g):
                if need <= gmax:
                    out.append((g, need, extra, parts))
        res = _SK_GCHOICES[key] = tuple(out)
    return res


_SK_TRANS: dict = {}
_SK_SUCC: dict = {}
_SK_EDGES: dict = {}


def _sk_transitions(key: tuple) -> dict:
    """``{(runs2, dn, de, u): recipe}``: the ways through one number (skeleton DP)
    from ``runs`` with mandatory / optional naturals ``m`` / ``o`` per colour,
    ``gmax`` jokers left for needs and the last-number flag ``fin``."""
    res = _SK_TRANS.get(key)
    if res is not None:
        return res
    runs, m, o, gmax, fin = key
    caps = (m[0] + o[0], m[1] + o[1], m[2] + o[2], m[3] + o[3])
    opts = [_sk_colour_opts(runs[c], caps[c], gmax, fin) for c in range(NUM_SUITS)]
    out: dict = {}
    for g, gneed, gextra, parts in _sk_group_choices(caps, gmax):
        rest = gmax - gneed
        lists = []
        for c in range(NUM_SUITS):
            lo = m[c] - g[c]
            hi = caps[c] - g[c]
            lst = [op for op in opts[c] if lo <= op[1] <= hi and op[2] <= rest]
            if not lst:
                break
            lists.append(lst)
        else:
            for a, b, c_, d in product(*lists):
                dn = a[2] + b[2] + c_[2] + d[2]
                if dn > rest:
                    continue
                de = min(2, gextra + a[3] + b[3] + c_[3] + d[3])
                k2 = (
                    (a[0], b[0], c_[0], d[0]),
                    dn + gneed,
                    de,
                    (a[1] + g[0], b[1] + g[1], c_[1] + g[2], d[1] + g[3]),
                )
                if k2 not in out:
                    out[k2] = (g, parts, (a, b, c_, d))
    return _store(_SK_TRANS, key, out)


def _sk_succ(key: tuple) -> tuple:
    """``(runs2, dn, de)`` reachable through one number, the most ``de`` for each
    ``(runs2, dn)``."""
    res = _SK_SUCC.get(key)
    if res is None:
        best: dict = {}
        for r, dn, de, _u in _sk_transitions(key):
            if best.get((r, dn), -1) < de:
                best[(r, dn)] = de
        res = _store(_SK_SUCC, key, tuple((r, dn, de) for (r, dn), de in best.items()))
    return res


def _sk_edges(key: tuple) -> tuple:
    res = _SK_EDGES.get(key)
    return res if res is not None else _store(_SK_EDGES, key, tuple(_sk_transitions(key)))


# --------------------------------------------- skeleton DP: depth-first search

_SK_FILTER: dict = {}


def _sk_filtered(runs: tuple, cap: int, gmax: int, fin: bool, lo: int, hi: int) -> tuple:
    """One colour's options putting ``lo..hi`` naturals into runs, the most
    promising first (fewest jokers needed, fewest runs still short, most room
    for extra jokers, fewest open runs)."""
    key = (runs, cap, gmax, fin, lo, hi)
    res = _SK_FILTER.get(key)
    if res is None:
        opts = [op for op in _sk_colour_opts(runs, cap, gmax, fin) if lo <= op[1] <= hi]
        opts.sort(key=lambda op: (op[2], sum(1 for r in op[0] if r < _SB), -op[3], len(op[0])))
        res = _store(_SK_FILTER, key, tuple(opts))
    return res


_SK_GSORTED: dict = {}


def _sk_group_order(caps: tuple[int, ...], gmax: int) -> tuple:
    key = (caps, gmax)
    res = _SK_GSORTED.get(key)
    if res is None:
        res = tuple(sorted(_sk_group_choices(caps, gmax), key=lambda c: (c[1], sum(c[0]), -c[2])))
        _SK_GSORTED[key] = res
    return res


def _sk_iter(runs: tuple, m: tuple, o: tuple, gmax: int, fin: bool):
    """The ways through one number one at a time, the most promising first:
    ``(runs2, dn, de, (g, groups, colour options))`` (see :func:`_step_used`)."""
    caps = (m[0] + o[0], m[1] + o[1], m[2] + o[2], m[3] + o[3])
    per = ({}, {}, {}, {})  # per colour: naturals into groups -> filtered options
    for choice in _sk_group_order(caps, gmax):
        g, gneed, gextra, _parts = choice
        rest = gmax - gneed
        lists = []
        for c in range(NUM_SUITS):
            gc = g[c]
            lst = per[c].get(gc)
            if lst is None:
                lst = per[c][gc] = _sk_filtered(
                    runs[c], caps[c], gmax, fin, m[c] - gc, caps[c] - gc
                )
            if not lst:
                break
            lists.append(lst)
        else:
            l0, l1, l2, l3 = lists
            for a in l0:
                da = a[2]
                if da > rest:
                    continue
                for b in l1:
                    dab = da + b[2]
                    if dab > rest:
                        continue
                    for c_ in l2:
                        dabc = dab + c_[2]
                        if dabc > rest:
                            continue
                        for d in l3:
                            dn = dabc + d[2]
                            if dn > rest:
                                continue
                            de = gextra + a[3] + b[3] + c_[3] + d[3]
                            yield (
                                (a[0], b[0], c_[0], d[0]),
                                dn + gneed,
                                de if de < 2 else 2,
                                (choice, (a, b, c_, d)),
                            )


def _step_used(step: tuple) -> tuple[int, ...]:
    """Naturals used per colour by one step of a way."""
    (g, _need, _extra, _parts), combo = step
    return tuple(combo[c][1] + g[c] for c in range(NUM_SUITS))


class _Memo:
    """What earlier searches learnt about states after a number: the states
    that failed (with those they beat) and, for states on a way found, the rest
    of that way. Valid for a search only after the numbers it changed."""

    __slots__ = ("failed", "good")

    def __init__(self) -> None:
        self.failed: dict = {}  # (k, runs) -> [(n, x)]
        self.good: dict = {}  # (k, runs, n, x) -> rest of the path


class _OutOfBudget(Exception):
    pass


def _search(
    levels: list[tuple],
    lo: int,
    hi: int,
    jm: int,
    jt: int,
    cap: int,
    need_x: int,
    shared: _Memo | None = None,
    from_k: int = NUM_RANKS,
    budget: int | None = None,
    local: _Memo | None = None,
) -> list | None:
    """Depth-first search for one way through the numbers ``lo..hi`` that ends
    with at least ``need_x`` jokers placeable (``cap`` caps that count): the list
    of ``(u, g, groups, colour options)`` per number, or None. States that failed
    are remembered, with those they beat (no fewer jokers needed, no more
    placeable). ``shared`` is read and written for the states after numbers
    ``>= from_k`` (those the levels changed by the caller do not reach), a local
    memo (``local``) for the others. Raises _OutOfBudget after ``budget`` states."""
    if local is None:
        local = _Memo()
    left = [budget if budget is not None else -1]

    def go(k: int, runs: tuple, n: int, x: int) -> list | None:
        if left[0] == 0:
            raise _OutOfBudget
        left[0] -= 1
        m, o = levels[k]
        fin = k == hi
        mm = shared if shared is not None and k >= from_k else local
        failed = mm.failed
        good = mm.good
        for r2, dn, de, step in _sk_iter(runs, m, o, jt - n, fin):
            n2 = n + dn
            x2 = x + dn + de
            if x2 > cap:
                x2 = cap
            if fin:
                if x2 >= need_x:
                    return [step]
                continue
            fk = (k, r2)
            bad = failed.get(fk)
            if bad is not None and any(bn <= n2 and bx >= x2 for bn, bx in bad):
                continue
            gk = (k, r2, n2, x2)
            rest = good.get(gk)
            if rest is None:
                rest = go(k + 1, r2, n2, x2)
                if rest is not None:
                    good[gk] = rest
            if rest is not None:
                return [step, *rest]
            if bad is None:
                failed[fk] = [(n2, x2)]
            else:
                bad.append((n2, x2))
        return None

    if hi < lo:
        return [] if need_x <= 0 else None
    return go(lo, _EMPTY, 0, 0)


_START_BUDGET = 64


class _Solver:
    """Searches on one position in both number orders (the rules read the same
    with the numbers reversed, 13 down to 1): one order, then the other, each
    with twice the states allowed last time, until one finishes. The memos of
    each order are kept from run to run and shared by searches that change one
    number (``modify``)."""

    first = 0  # the order tried first without a changed number (the tests set 1)

    def __init__(self, levels: list[tuple], jm: int, jt: int, cap: int) -> None:
        self.jm, self.jt, self.cap = jm, jt, cap
        lo, hi = _natural_span(levels)
        self.views = [
            (levels, lo, hi),
            (levels[::-1], NUM_RANKS - 1 - hi, NUM_RANKS - 1 - lo),
        ]
        self.shared = [_Memo(), _Memo()]

    def solve(self, need_x: int, k_mod: int | None = None, mod: tuple | None = None):
        """``(path, reversed)`` of a way, or None. With ``k_mod``, number index
        ``k_mod`` holds ``mod`` = (m, o) instead."""
        order = (self.first, 1 - self.first)
        if k_mod is not None:
            order = (1, 0) if k_mod > 6 else (0, 1)  # reach the changed number early
            if self.first:
                order = order[::-1]
        locals_ = [_Memo(), _Memo()]
        budget = _START_BUDGET
        while True:
            for d in order:
                levels, lo, hi = self.views[d]
                from_k = NUM_RANKS
                if k_mod is not None:
                    kk = k_mod if d == 0 else NUM_RANKS - 1 - k_mod
                    levels = list(levels)
                    levels[kk] = mod
                    from_k = kk
                    shared = self.shared[d]
                else:
                    shared, from_k = self.shared[d], 0
                try:
                    path = _search(
                        levels,
                        lo,
                        hi,
                        self.jm,
                        self.jt,
                        self.cap,
                        need_x,
                        shared,
                        from_k,
                        budget,
                        locals_[d],
                    )
                except _OutOfBudget:
                    continue
                return None if path is None else (path, d == 1, lo)
            budget *= 2


# ------------------------- skeleton DP: breadth-first reference passes (tests)


def _can_cover_bfs(mandatory: Sequence[int], optional: Sequence[int] | None = None) -> bool:
    """:func:`can_cover` by a breadth-first pass over the numbers (every
    reachable state; the tests check the depth-first search against it)."""
    mand = _as_list(mandatory)
    opt = _as_list(optional)
    levels, jm, jt = _levels(mand, opt)
    if not any(mand):
        return True
    lo, hi = _natural_span(levels)
    states = {(_EMPTY, 0, 0)}
    for k in range(lo, hi + 1):
        m, o = levels[k]
        fin = k == hi
        new = set()
        add = new.add
        for runs, n, x in states:
            for r2, dn, de in _sk_succ((runs, m, o, jt - n, fin)):
                x2 = x + dn + de
                add((r2, n + dn, x2 if x2 < jm else jm))
        if not new:
            return False
        states = _prune(new) if len(new) > 8 else new
    return any(x >= jm for _r, _n, x in states)


def _prune(states: set) -> set:
    """Drop states another one with the same runs beats: no more jokers needed
    and at least as many placeable."""
    by_runs: dict = {}
    for r, n, x in states:
        by_runs.setdefault(r, []).append((n, x))
    if len(by_runs) == len(states):
        return states
    out = set()
    for r, nx in by_runs.items():
        if len(nx) == 1:
            out.add((r, *nx[0]))
            continue
        for n, x in nx:
            if not any((n2, x2) != (n, x) and n2 <= n and x2 >= x for n2, x2 in nx):
                out.add((r, n, x))
    return out


def _playable_bfs(mandatory: Sequence[int], optional: Sequence[int]) -> set[int]:
    """:func:`playable` from one forward and one backward pass over all the
    reachable states (the tests check the search against it)."""
    mand = _as_list(mandatory)
    opt = _as_list(optional)
    levels, jm, jt = _levels(mand, opt)
    if not any(opt):
        return set()
    cap = jm + (1 if opt[JOKER] else 0)
    lo, hi = _natural_span(levels)
    fwd = [{(_EMPTY, 0, 0)}]
    level_edges = []
    for k in range(lo, hi + 1):
        m, o = levels[k]
        fin = k == hi
        new = set()
        add = new.add
        edges = []
        push = edges.append
        for s in fwd[-1]:
            runs, n, x = s
            for r2, dn, de, u in _sk_edges((runs, m, o, jt - n, fin)):
                x2 = x + dn + de
                s2 = (r2, n + dn, x2 if x2 < cap else cap)
                add(s2)
                push((s, s2, u))
        if not new:
            return set()
        fwd.append(new)
        level_edges.append(edges)
    out: set[int] = set()
    if opt[JOKER] and any(x >= jm + 1 for _r, _n, x in fwd[-1]):
        out.add(JOKER)
    good = {s for s in fwd[-1] if s[2] >= jm}
    for i in range(len(level_edges) - 1, -1, -1):
        k = lo + i
        m, o = levels[k]
        wants = [(c, c * NUM_RANKS + k, m[c] + 1) for c in range(NUM_SUITS) if o[c]]
        back = set()
        for s, s2, u in level_edges[i]:
            if s2 in good:
                back.add(s)
                for c, t, need in wants:
                    if u[c] >= need:
                        out.add(t)
        good = back
    return out


# ----------------- valued DP (best_cover, playable_values): every joker placed

# An open run is summarised by what it still needs; the numbers are ordered so
# that a larger state dominates a smaller one (every continuation of the
# smaller one is also a continuation of the larger one, with the same tiles).
_D = 0  # started by joker(s), no natural yet: needs 2 more naturals
_A = 1  # one natural, no joker: needs 2 more tiles, one of them natural
_C = 2  # one natural and 1 or 2 jokers: needs 1 more natural
_B = 3  # two naturals, no joker: needs 1 more tile
_V = 4  # valid (>= 2 naturals, length >= 3, jokers <= naturals): may close
_EXT_NAT = (_C, _B, _V, _V, _V)  # the state after a natural extends the run
_EXT_JK = (_D, _C, _C, _V, _V)  # the state after a joker extends the run
_NEEDS = (2, 2, 1, 1, 0)  # tiles still needed before the run may close
_PARTITION: dict = {}
_GROUP_CHOICES: dict = {}


def _group_partition(g: tuple[int, ...], jg: int) -> tuple | None:
    """Groups (colours, jokers) that use exactly ``g[c]`` naturals of colour c and
    ``jg`` jokers, all of one number; None if there is no such partition."""
    key = (g, jg)
    hit = _PARTITION.get(key, 0)
    if hit != 0:
        return hit
    res = None
    if not any(g):
        res = () if jg == 0 else None
    else:
        c0 = next(c for c in range(NUM_SUITS) if g[c])
        others = [c for c in range(c0 + 1, NUM_SUITS) if g[c]]
        found = False
        for size in range(1, len(others) + 1):
            for pick in combinations(others, size):
                nat = 1 + len(pick)
                for j in range(0, min(jg, nat) + 1):
                    if not 3 <= nat + j <= 4:
                        continue
                    g2 = list(g)
                    g2[c0] -= 1
                    for c in pick:
                        g2[c] -= 1
                    rest = _group_partition(tuple(g2), jg - j)
                    if rest is not None:
                        res = (((c0, *pick), j), *rest)
                        found = True
                        break
                if found:
                    break
            if found:
                break
    _PARTITION[key] = res
    return res


def _group_choices(caps: tuple[int, ...], jl: int) -> tuple:
    """Every ``(g, jg)`` with ``g[c] <= caps[c]``, ``jg <= jl`` that splits into
    groups (``g`` all zero and ``jg == 0`` included)."""
    key = (caps, jl)
    res = _GROUP_CHOICES.get(key)
    if res is None:
        out = []
        for g in product(*(range(c + 1) for c in caps)):
            for jg in range(jl + 1):
                if _group_partition(g, jg) is not None:
                    out.append((g, jg))
        res = _GROUP_CHOICES[key] = tuple(out)
    return res


_COLOUR_OPTS: dict = {}


def _colour_opts(runs: tuple[int, ...], nmax: int, jmax: int, rem: int) -> tuple:
    """The ways one colour's open runs ``runs`` (sorted states) go through one
    number with at most ``nmax`` naturals and ``jmax`` jokers put into runs.

    Each option is ``(runs2, nr, jr, acts, sn, sj)``: the sorted states after
    the number, the naturals and jokers put into runs, one action per input run
    (0 natural extends it, 1 a joker extends it, 2 it closes) and the runs
    started by a natural (``sn``) and by a joker (``sj``). ``rem`` = numbers left
    after this one (capped at 2): with 0 every run must be valid and closes
    (``runs2`` is ``()``), with 1 no run may need two more tiles. Options with
    the same ``(nr, jr)`` whose states another one dominates are left out.
    """
    key = (runs, nmax, jmax, rem)
    res = _COLOUR_OPTS.get(key)
    if res is not None:
        return res
    distinct = sorted(set(runs))
    per_state = []  # for each distinct state: list of (aN, aJ, aX)
    for s in distinct:
        cnt = runs.count(s)
        choices = []
        for a_n in range(cnt + 1):
            for a_j in range(cnt - a_n + 1):
                a_x = cnt - a_n - a_j
                if a_x and s != _V:
                    continue
                choices.append((a_n, a_j, a_x))
        per_state.append(choices)
    best: dict = {}  # (nr, jr) -> {runs2: (acts, sn, sj)}
    for combo in product(*per_state):
        nr = sum(a[0] for a in combo)
        jr = sum(a[1] for a in combo)
        if nr > nmax or jr > jmax:
            continue
        kept: list[int] = []
        acts: list[int] = []
        for s, (a_n, a_j, a_x) in zip(distinct, combo):
            kept.extend([_EXT_NAT[s]] * a_n)
            kept.extend([_EXT_JK[s]] * a_j)
            acts.extend([0] * a_n + [1] * a_j + [2] * a_x)
        for sn in range(nmax - nr + 1):
            for sj in range(jmax - jr + 1):
                states = sorted(kept + [_A] * sn + [_D] * sj)
                if rem == 0:
                    if any(s != _V for s in states):
                        continue
                    states = []
                elif rem == 1 and any(_NEEDS[s] > 1 for s in states):
                    continue
                bucket = best.setdefault((nr + sn, jr + sj), {})
                t = tuple(states)
                if t not in bucket:
                    bucket[t] = (tuple(acts), sn, sj)
    out = []
    for (nr, jr), bucket in best.items():
        cands = list(bucket)
        for t in cands:
            dominated = any(
                u != t and all(a >= b for a, b in zip(u, t)) for u in cands if len(u) == len(t)
            )
            if not dominated:
                acts, sn, sj = bucket[t]
                out.append((t, nr, jr, acts, sn, sj))
    res = _COLOUR_OPTS[key] = tuple(out)
    return res


_TRANS: dict = {}
_SUCC_BEST: dict = {}
_EDGES: dict = {}


def _transitions(key: tuple) -> dict:
    """All ways through one number: ``{(runs2, dj, u): recipe}`` for the state
    ``runs`` (4 sorted tuples), mandatory and optional naturals ``m``, ``o``
    (per colour) of this number, ``jl`` jokers left and ``rem`` numbers left
    after this one (capped at 2). ``dj``: jokers placed at this number; ``u``:
    naturals used per colour; recipe ``(g, jg, colour options)``."""
    res = _TRANS.get(key)
    if res is not None:
        return res
    runs, m, o, jl, rem = key
    caps = tuple(a + b for a, b in zip(m, o))
    opts = [_colour_opts(runs[c], caps[c], jl, rem) for c in range(NUM_SUITS)]
    out: dict = {}
    for g, jg in _group_choices(caps, jl):
        jrest = jl - jg
        lists = []
        for c in range(NUM_SUITS):
            lo = m[c] - g[c]
            hi = caps[c] - g[c]
            lst = [op for op in opts[c] if lo <= op[1] <= hi and op[2] <= jrest]
            if not lst:
                break
            lists.append(lst)
        else:
            for combo in product(*lists):
                jr = combo[0][2] + combo[1][2] + combo[2][2] + combo[3][2]
                if jr > jrest:
                    continue
                k2 = (
                    (combo[0][0], combo[1][0], combo[2][0], combo[3][0]),
                    jr + jg,
                    (
                        combo[0][1] + g[0],
                        combo[1][1] + g[1],
                        combo[2][1] + g[2],
                        combo[3][1] + g[3],
                    ),
                )
                if k2 not in out:
                    out[k2] = (g, jg, combo)
    return _store(_TRANS, key, out)


def _succ_best(key: tuple) -> tuple:
    """``(runs2, dj, tiles)`` with the most tiles placed at this number (naturals
    plus jokers) for each reachable ``(runs2, dj)``."""
    res = _SUCC_BEST.get(key)
    if res is None:
        best: dict = {}
        for r, dj, u in _transitions(key):
            n = u[0] + u[1] + u[2] + u[3] + dj
            if best.get((r, dj), -1) < n:
                best[(r, dj)] = n
        res = _store(_SUCC_BEST, key, tuple((r, dj, n) for (r, dj), n in best.items()))
    return res


def _edges(key: tuple) -> tuple:
    """``(runs2, dj, tiles, u)`` for every way through one number."""
    res = _EDGES.get(key)
    if res is None:
        res = _store(
            _EDGES,
            key,
            tuple((r, dj, u[0] + u[1] + u[2] + u[3] + dj, u) for (r, dj, u) in _transitions(key)),
        )
    return res


def _playable(mandatory: Sequence[int], optional: Sequence[int]) -> dict[int, int]:
    mand = _as_list(mandatory)
    opt = _as_list(optional)
    levels, jm, jt = _levels(mand, opt)
    if not any(opt):
        return {}
    lo, hi = _first_level(levels, jt), _last_level(levels, jt)
    # forward: best prefix value of every reachable state, and the edges
    fwd = [{(_EMPTY, 0): 0}]
    level_edges = []
    for k in range(lo, hi + 1):
        m, o = levels[k]
        rem = min(hi - k, 2)
        num = k + 1
        new: dict = {}
        get = new.get
        edges = []
        for s, v in fwd[-1].items():
            runs, ju = s
            for r2, dj, n, u in _edges((runs, m, o, jt - ju, rem)):
                s2 = (r2, ju + dj)
                val = v + num * n
                edges.append((s, s2, num * n, u))
                if get(s2, -1) < val:
                    new[s2] = val
        fwd.append(new)
        level_edges.append(edges)
        if not new:
            return {}
    out: dict[int, int] = {}
    if opt[JOKER]:
        vals = [v for (_r, ju), v in fwd[-1].items() if ju >= jm + 1]
        if vals:
            out[JOKER] = max(vals)
    # backward: best suffix value of every state that completes
    bwd = {s: 0 for s in fwd[-1] if s[1] >= jm}
    for i in range(len(level_edges) - 1, -1, -1):
        k = lo + i
        m, o = levels[k]
        pre = fwd[i]
        wants = [(c, c * NUM_RANKS + k, m[c] + 1) for c in range(NUM_SUITS) if o[c]]
        back: dict = {}
        bget = back.get
        for s, s2, add, u in level_edges[i]:
            tail = bwd.get(s2)
            if tail is None:
                continue
            val = add + tail
            if bget(s, -1) < val:
                back[s] = val
            for c, t, need in wants:
                if u[c] >= need:
                    tot = pre[s] + val
                    if out.get(t, -1) < tot:
                        out[t] = tot
        bwd = back
    return out
