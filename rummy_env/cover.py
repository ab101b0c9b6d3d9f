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
* :func:`playable_after` ``(mandatory, optional, played, previous=None) ->
  set``: the same after the tile ``played`` moved from optional to mandatory
  (the vectors given are those after the move), with less work: the answer
  before it (``previous``, or remembered) bounds the answer, and the ways found
  before that used ``played`` show tiles playable;
* :func:`cover_and_playable` ``(mandatory, optional, played=None,
  previous=None) -> (bool, set)``: ``can_cover(mandatory)`` and the playable
  set (as :func:`playable_after` when ``played`` is given) in one call, what a
  turn asks after each tile played (commit, and play which tile next); the
  search for the second often answers the first;
* :func:`split` ``(counts) -> list[list[int]] | None``: one split of exactly
  ``counts`` (runs in number order, 52 where a joker stands; groups by colour,
  jokers last);
* :func:`best_cover` ``(mandatory, optional=None) -> int | None`` and
  :func:`playable_values` ``(mandatory, optional, check=True) -> {t: value}``: the same
  questions with the greatest value of a split (initial meld: 30 or more);
* :func:`clear_caches`: empties the memo tables shared by all calls.

At most two jokers in all (mandatory plus optional; more raises ValueError), as
in the 106-tile game, and at most 13 copies of a face (the tests keep to two).

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

The skeleton programme is searched depth-first, remembering the states after
each number that failed (with those they beat: no fewer jokers needed, no more
with a place) and, for states on a way found, the rest of that way. A colour's
open runs are numbered, so a state is a flat tuple of small ints (one int as a
key of those memos: hence at most 13 copies of a face), and the ways
one colour goes through a number are kept in tables shared by every position
that reads the same there (its naturals and mandatory naturals, whether it is
the last number, and the two numbers after it): per run state and jokers left,
the options for each number of its naturals that go into groups, in order, and
the group choices for which every colour has an option. Each option counts the
jokers its runs need at the next two numbers (``_sk_ahead``: naturals that a
group can hold may be left to one), so a way that cannot go on is seldom
tried. Two orders: the most promising first (fewest jokers needed, fewest runs
still short: :func:`can_cover`, :func:`split`), or the most naturals used first
(:func:`playable`). The rules read the same with the numbers reversed (n -> 14
- n), so the search runs both ways alternately, each with twice the states
allowed the time before, until one finishes (a bad first choice at the wrong
end costs little that way).

:func:`playable` first searches for a way that uses as many optional tiles as
it can (each one it uses is playable; none: nothing is), then once per face not
yet shown, with that tile made mandatory: a face no valid meld of all the tiles
holds is not playable without a search (``_meld_possible``), a way found shows
every optional tile it uses, the searches of one position share what they learnt
about the numbers beyond the one they change, and a face of 8 or more is searched
from 13 down. Once a face is found not playable (a tile played often leaves
several faces unplayable, and at a turn's start in real games most of a rack is:
3.2 failing searches of 4.3 a call, before this was done there too), the faces
left are searched a set at a time, those of numbers 1-7 and those of 8-13 apart,
while two or more are left: a way that uses at least one of the set (the state
then also says whether it has; the failures of those that have not stay true as
the set shrinks, so one failing search shows them all unplayable), from the
set's end of the numbers; a last face alone as above. (Searching so from the
start costs more where the faces left are playable: a set's search finds the one
way per face that the searches one by one find, but reads more states to reach
it.) The ways found are kept with the answer, for
:func:`playable_after`, and for the last 64 answers the position as the search
read it (its views), which a tile moved from optional to mandatory changes at
one number only. ``_can_cover_bfs`` and ``_playable_bfs`` do the same
with one forward (and one backward) pass over every reachable state, as the
first design asked; on dense tables with jokers that is 10^3 to 10^5 states a
number, so the tests use them as a reference only.

**Valued DP** (:func:`best_cover`, :func:`playable_values`). Every joker is
placed as the tile it stands for; open runs are D (jokers only), A, C (one
natural and jokers: needs a natural), B and V; the state is those per colour
plus the jokers used, with the best value so far (each tile adds its number at
the number it stands at). One forward pass keeps the best value of each state;
:func:`playable_values` adds a backward pass of best remaining values and, per
face, the best value through a way that uses it. Both first ask the skeleton
search, so a position with no split costs little; a table with jokers and
dozens of tiles costs seconds here (the initial meld, on a rack alone, is quick).

Memo tables: the options of one colour, group partitions, the tables of the
search (above) and filtered option lists are kept across calls (cleared past
300,000 entries each, 20,000 tables), and the last 4,096 answers of
:func:`can_cover` and :func:`playable` (with the ways found) by their
arguments. The tables depend on small things only (a few hundred colour tables,
some 10,000 rows after a few thousand random positions), so a process that plays
for a while has them all; ``--warmup`` of the benchmark shows that state.

Speed (``python -m experiments.cover_speed --tables 30``, seed 0; a 2-core
machine with another job running, load about 2; random tables of random valid
melds from one 106-tile pack plus a random 14-tile rack; calls per second, each
cell the median of 8 runs; memo tables kept from call to call as in a process
that plays many games (warm), but a run starts with none; each call on a fresh
table; ``after``: :func:`playable_after` once a random playable tile is played;
``both``: :func:`cover_and_playable` for the same):

    table  tiles jokers  can_cover/s table only/s  playable/s slowest ms  after/s   both/s   split/s
        0    0.0   0.33        76738       118156        2915        1.3    14256    14359    128814
       10   10.6   0.80         3343        10466        2061        1.3     6109     5156      1658
       20   20.2   1.43         4077         8415        1414        2.4     2122     1804      7423
       30   30.4   1.77         3544         5930        1592        2.7     3184     2570      6028
       40   40.5   1.93         4834         5560        1396        6.8     1571     1435      5256
       50   50.3   1.97         5962         7223        2898        1.1     5647     2520      6782
       60   60.9   2.00         5444         8236        3920        0.6    18578     5713      5883
       70   70.7   2.00         5684         7766        5472        0.4    69748     6816      6256
       80   80.6   2.00         8434         7393        6961        0.9    43562     8211      5930

Median of the 10-80 rows (median over the runs; from one run to the next it
moves by 20-30%): ``can_cover`` 5,000/s, ``playable`` 2,300/s,
``playable_after`` 5,900/s, ``cover_and_playable`` 3,700/s (its ``can_cover``
of the table with the tile is often a search of its own: a tile put down
usually fits the table's jokers), ``split`` 5,900/s. Initial meld (a 14-tile
rack, no table): best_cover 1,950/s, playable_values 2,560/s (slowest 3 ms). A
garbage collection of the interpreter (10-30 ms) falls in the same cell of every
run (above: ``split`` at 10 tiles) and shows in its figure.

With the memo tables cleared before every call (``--cold``) the 10-80 tile
rows drop to 200-960 ``can_cover`` and 270-540 ``playable`` calls a second
(median 330 and 320; the tables of the search are many; a process that plays
many games keeps them). A ``playable`` call costs a search for each witness it
needs (several when the rack's tiles each need the one joker, say: one way
found shows one of them) and one for each face that cannot be played but is in
some meld of all the tiles; a search is about one state a number, 3-4 us each.
Those are the figures of the Python search. Its inner loops (``_search`` and
``_search_any``) are also compiled (``rummy_env/_cover_c.c``, built by ``pip
install`` where a C compiler is): the same steps over the same tables, which it
copies into C arrays as it first reads them, with its memos kept in C
(:func:`_memo`). With the first version of it (the tables and memos read as
Python objects), the seventh session measured
``can_cover`` 6,150-6,640/s, ``playable`` 3,330/s, ``playable_after`` 10,400/s,
``cover_and_playable`` 5,760-6,130/s and ``split`` 7,410-7,670/s (medians of the
10-80 rows; the Python search 4,510-4,950, 1,280-1,930, 4,770-5,320, 3,480-3,900
and 5,520-5,880 in the same runs). The eighth session's version (the tables copied
into C, the memos in C, the set searches and the initial meld's valued passes compiled
too) measured, in two runs with another job on the other core: ``can_cover``
6,130-7,040/s, ``playable`` 4,980-5,170/s, ``playable_after`` 12,560-14,080/s,
``cover_and_playable`` 7,310-9,070/s, ``split`` 8,810-9,370/s; initial meld
``best_cover`` 1,400-1,790/s and ``playable_values`` 2,550-3,250/s (the Python search in
the same session: 3,600-4,480, 2,230-2,730, 5,800-7,290, 3,350-4,870, 4,970-7,500,
1,750-2,130 and 1,370-1,780; ``best_cover`` runs in Python either way); later runs,
``playable_values`` without its pre-check (``check=False``, the engine's question
before a player has opened): 6,940-8,440/s.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Sequence
from itertools import combinations, product
from operator import add as _add
from typing import Any

from rummy_env.cards import JOKER, NUM_FACES, NUM_NATURAL, NUM_RANKS, NUM_SUITS

_C_API = 8  # the form of the compiled search's call this file makes
_compiled = None  # the compiled inner search, when it was built (pyproject.toml's ext-modules)
if not os.environ.get("RUMMY_PURE_PYTHON"):
    try:
        from rummy_env import _cover_c as _compiled
    except ImportError:  # built without a C compiler: the Python search, the same answers
        pass
    if _compiled is not None and getattr(_compiled, "API", None) != _C_API:
        warnings.warn(
            "rummy_env/_cover_c was built from an older rummy_env/_cover_c.c: "
            "`pip install -e .` rebuilds it; until then Rummikub uses the (slower) Python search",
            stacklevel=2,
        )
        _compiled = None

Memo = Any  # a search's memo (:func:`_memo`): a dict, or the compiled search's own

__all__ = [
    "best_cover",
    "can_cover",
    "cover_and_playable",
    "playable",
    "playable_after",
    "playable_values",
    "split",
    "clear_caches",
]


# ------------------------------------------------------------------- constants

_EMPTY = ((), (), (), ())
_NONE4 = (0, 0, 0, 0)
_MAX_JOKERS = 2
_MAX_COPIES = 13  # of one face in all (the search packs its states into ints)
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
    return _can_cover(_as_list(mandatory), _as_list(optional))


def playable(mandatory: Sequence[int], optional: Sequence[int]) -> set[int]:
    """The faces ``t`` of ``optional`` with ``can_cover(mandatory + {t},
    optional - {t})``.

    A search for a way that uses as many optional tiles as it can, then one per
    face not yet shown playable: a way found shows every optional tile it uses
    playable."""
    return set(_playable_answer(_as_list(mandatory), _as_list(optional))[0])


def playable_after(
    mandatory: Sequence[int],
    optional: Sequence[int],
    played: int,
    previous: Iterable[int] | None = None,
) -> set[int]:
    """:func:`playable` ``(mandatory, optional)`` where the tile ``played`` has
    just moved from ``optional`` to ``mandatory`` (``mandatory`` and
    ``optional`` are the vectors after the move) and ``previous`` is the answer
    before it, if known: the same set, found with less work.

    A face playable now was playable before (a commit with ``played`` and ``u``
    is one with ``u``), and every way found before that used ``played`` shows
    the other optional tiles it used playable now (the ways of the last 4,096
    answers are kept)."""
    mand = _as_list(mandatory)
    _check_played(mand, played)
    return set(_playable_answer(mand, _as_list(optional), played, previous)[0])


def cover_and_playable(
    mandatory: Sequence[int],
    optional: Sequence[int],
    played: int | None = None,
    previous: Iterable[int] | None = None,
) -> tuple[bool, set[int]]:
    """``(can_cover(mandatory), playable(mandatory, optional))`` in one call,
    what a turn asks after each tile played: may the table be left as it stands
    (``optional`` not used), and which tiles may be played next. With
    ``played`` (and ``previous``) the second is found as by
    :func:`playable_after`.

    The search for playable tiles often answers the first question too: a way
    that uses no optional tile covers ``mandatory``, and no way at all means
    nothing does; and a tile just played that no meld of the mandatory tiles
    can hold means no; otherwise :func:`can_cover` searches."""
    mand = _as_list(mandatory)
    if played is not None:
        _check_played(mand, played)
    faces, _ways, covers = _playable_answer(mand, _as_list(optional), played, previous)
    if covers is None:
        none = [0] * NUM_FACES
        covers = _RESULTS.get(("c", tuple(mand), tuple(none)))
        if covers is None:
            if played is not None and played != JOKER:
                # the tile played alone in no meld of the mandatory tiles: no
                # split (the usual case just after a tile is put down)
                levels, _jm, jt = _levels(mand, none)
                if not _meld_possible(levels, jt, played % NUM_RANKS, played // NUM_RANKS):
                    return False, set(faces)
            covers = _can_cover(mand, none)
    return covers, set(faces)


def _check_played(mand: list[int], played: int) -> None:
    if not 0 <= played < NUM_FACES or mand[played] < 1:
        raise ValueError("the tile played must be in mandatory")


def _can_cover(mand: list[int], opt: list[int]) -> bool:
    key = ("c", tuple(mand), tuple(opt))
    hit = _RESULTS.get(key)
    if hit is not None:
        return hit
    levels, jm, jt = _levels(mand, opt)
    if not any(mand):
        return True
    return _remember(key, _Solver(levels, jt, jm).solve(jm) is not None)


def _playable_answer(
    mand: list[int],
    opt: list[int],
    played: int | None = None,
    previous: Iterable[int] | None = None,
) -> tuple:
    """``(faces, ways, covers)``: the answer of :func:`playable`, the optional
    tiles of each way found, and whether ``mand`` alone splits if that was
    learnt on the way (else None); remembered, and the views its searches read
    (:func:`_make_view`) for the last few answers. With ``played``: as
    :func:`playable_after` (``played`` has just moved from ``opt`` to
    ``mand``, ``previous`` the answer before)."""
    tm, to = tuple(mand), tuple(opt)
    key = ("p", tm, to)
    hit = _RESULTS.get(key)
    if hit is not None:
        return hit
    if mand[JOKER] + opt[JOKER] > _MAX_JOKERS:
        _levels(mand, opt)  # raises
    out: set[int] = set()
    witnesses: list[tuple[int, ...]] = []
    covers = None
    views: list = [None, None]  # the position as the search reads it, each way
    if played is not None and previous is not None:
        todo = {f for f in previous if 0 <= f < NUM_FACES and opt[f]}
    else:
        todo = {f for f in range(NUM_FACES) if opt[f]}
    if played is not None:
        bm, bo = list(mand), list(opt)
        bm[played] -= 1
        bo[played] += 1
        before_key = ("p", tuple(bm), tuple(bo))
        before = _RESULTS.get(before_key)
        if before is not None:
            todo &= before[0]
            for w in before[1]:
                if played in w:
                    rest = list(w)
                    rest.remove(played)
                    out.update(rest)
                    witnesses.append(tuple(rest))
                    if not rest:
                        covers = True
    if todo - out:
        if played is not None:
            # the views before, with the tile moved (the jokers in all and
            # every number's naturals in all are the same)
            old = _VIEWS.get(before_key)
            if old is not None:
                if played == JOKER:
                    views = list(old)
                else:
                    k, c = played % NUM_RANKS, played // NUM_RANKS
                    v0, v1 = old
                    views = [
                        None if v0 is None else v0.changed(k, c),
                        None if v1 is None else v1.changed(NUM_RANKS - 1 - k, c),
                    ]
        levels, jm, jt = _levels(mand, opt)
        found = _playable_search(levels, opt, jm, jt, todo, out, witnesses, views)
        if covers is None:
            covers = found
        if len(_VIEWS) >= _VIEWS_LIMIT:
            _VIEWS.clear()
        _VIEWS[key] = views
    return _remember(key, (frozenset(out), tuple(witnesses), covers))


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


def playable_values(
    mandatory: Sequence[int], optional: Sequence[int], check: bool = True
) -> dict[int, int]:
    """``{t: best_cover(mandatory + {t}, optional - {t})}`` for every face ``t``
    of ``optional`` for which that is not None, from one forward and one backward
    pass over the numbers. With ``check`` the skeleton search (:func:`playable`)
    first asks whether any face is, and only the faces it finds are valued: a
    position with no split (a table that cannot be left as it is) then costs
    little. Without it the passes alone answer, the same: quicker where some face
    usually is playable, as for a rack's initial meld (the engine's mask before a
    player has opened; 15% fewer instructions in random Rummikub play)."""
    if check and not playable(mandatory, optional):
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
    found = _Solver(levels, jt, jm).solve(jm)
    if found is None:
        return None
    path, rev, lo = found
    hi = lo + len(path) - 1
    recipes = [(step[0][0], step[0][3], [op[5] for op in step[1:]]) for step in path]
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
    for d in (_SK_COLOUR, _SK_GROUPS, _SK_GFOUND, _SK_GCHOICES, _SK_TRANS, _SK_SUCC, _SK_EDGES):
        d.clear()
    for d in (_SK_FILTER, _SK_GSORTED, _SK_AHEAD, _CL, _GL, _AT, _CODES, _RESULTS, _VIEWS):
        d.clear()
    if _compiled is not None:
        _compiled.clear()  # its copies of the rows and group tables


_RESULTS: dict = {}  # (kind, mandatory, optional) -> answer, for repeated questions
_RESULTS_LIMIT = 4096
_VIEWS: dict = {}  # playable's key -> the views of its search: [upwards, downwards]
_VIEWS_LIMIT = 64


def _remember(key: tuple, value):
    if len(_RESULTS) >= _RESULTS_LIMIT:
        _RESULTS.clear()
    _RESULTS[key] = value
    return value


def _playable_search(
    levels: list[tuple],
    opt: list[int],
    jm: int,
    jt: int,
    todo: set[int],
    out: set[int],
    witnesses: list[tuple[int, ...]],
    views: list,
) -> bool | None:
    """The search behind :func:`playable`: adds to ``out`` the faces of
    ``todo`` (faces of ``opt``) that are playable, and to ``witnesses`` the
    optional tiles of each way found (each of them playable too). With
    ``out`` empty a first search without a tile forced tells whether anything
    is; the faces then left are searched one by one (those that no valid meld
    of all the tiles holds are not) until one is found not playable, then
    those left of numbers up to 7 and those above together while two or more
    are left (:meth:`_Solver.solve_any`), a last one alone. Returns whether
    the mandatory tiles alone split, where a way found tells (one that uses no optional tile: True; no
    way at all: False), else None. ``views``: the position as read upwards
    and downwards, where known (filled in as made)."""
    cap = jm + 1 if opt[JOKER] else jm  # ways that place one optional joker show it
    solver = _Solver(levels, jt, cap, _MOST, views)
    # the optional naturals: (number index, colour, mandatory ones there, face)
    cells = [
        (f % NUM_RANKS, f // NUM_RANKS, levels[f % NUM_RANKS][0][f // NUM_RANKS], f)
        for f in range(NUM_NATURAL)
        if opt[f]
    ]

    covers = None

    def mark(found) -> None:
        nonlocal covers
        path, rev, lo = found
        w = []
        for k, c, m, f in cells:
            step = path[(NUM_RANKS - 1 - k if rev else k) - lo]
            more = step[0][0][c] + step[c + 1][1] - m
            if more > 0:
                out.add(f)
                w.append(f)
                if more > 1:
                    w.extend([f] * (more - 1))
        if opt[JOKER]:  # else no way places an optional joker
            n, x = _path_jokers(path, cap)
            j = max(n, min(jt, x)) - jm  # optional jokers the way can place
            if j > 0:
                out.add(JOKER)
                w.extend([JOKER] * j)
        if not w:
            covers = True
        witnesses.append(tuple(w))

    if not out:
        found = solver.solve(jm)
        if found is None:
            return False
        mark(found)
    if JOKER in todo and JOKER not in out:
        found = _Solver(levels, jt, jm + 1, _MOST, views).solve(jm + 1)
        if found is not None:
            mark(found)
    rest = [f for f in todo if f not in out and f != JOKER]
    rest.sort(key=lambda f: -abs(f % NUM_RANKS - 6))  # the ends first
    for i, t in enumerate(rest):
        if t in out:
            continue
        k, c = t % NUM_RANKS, t // NUM_RANKS
        if not _meld_possible(levels, jt, k, c):
            continue
        found = solver.solve(jm, k, c)
        if found is not None:
            mark(found)
        else:
            # a face not playable: the others left may well not be either. Of
            # two or more left at the low (high) numbers, a search for a way
            # that uses any of them, from their end (none: none is playable),
            # until one is left, which a search with it made mandatory settles
            left = [
                f
                for f in rest[i + 1 :]
                if f not in out and _meld_possible(levels, jt, f % NUM_RANKS, f // NUM_RANKS)
            ]
            for high in (False, True):
                part = [f for f in left if (f % NUM_RANKS > _REVERSE_FROM) == high]
                while len(part) > 1:
                    found = solver.solve_any(jm, part, high)
                    if found is None:
                        part = []
                        break
                    mark(found)
                    part = [f for f in part if f not in out]
                for f in part:
                    found = solver.solve(jm, f % NUM_RANKS, f // NUM_RANKS)
                    if found is not None:
                        mark(found)
            break
    return covers


def _meld_possible(levels: list[tuple], jt: int, k: int, c: int) -> bool:
    """Whether some valid meld of the position's tiles (mandatory and optional,
    ``jt`` jokers) holds the natural of colour ``c`` at number index ``k``: a
    group (another colour and a joker, or two), or a run; if a run holds it, a
    window of 3 or 4 numbers around it does, with 2 naturals or more and no more
    numbers missing than there are jokers (nor than naturals)."""
    m, o = levels[k]
    others = sum(1 for c2 in range(NUM_SUITS) if c2 != c and (m[c2] or o[c2]))
    if others >= 2 or (others and jt):
        return True
    have = [1 if levels[i][0][c] or levels[i][1][c] else 0 for i in range(NUM_RANKS)]
    for length in (3, 4):
        for start in range(max(0, k - length + 1), min(k, NUM_RANKS - length) + 1):
            nat = sum(have[start : start + length])
            miss = length - nat
            if nat >= 2 and miss <= jt and miss <= nat:
                return True
    return False


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
    out = list(map(int, counts))
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
    more = _SK_COLOUR.get((runs, nmax, _MAX_JOKERS, fin)) if gmax < _MAX_JOKERS else None
    if more is not None:  # the same as with more jokers, less those needing more
        res = _SK_COLOUR[key] = tuple(op for op in more if op[2] <= gmax)
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
    found = _sk_group_found(g)
    out = []
    for (need, extra), parts in found.items():
        if not any((n2, e2) != (need, extra) and n2 <= need and e2 >= extra for (n2, e2) in found):
            out.append((need, min(extra, 2), parts))
    res = _SK_GROUPS[g] = tuple(out)
    return res


_SK_GFOUND: dict = {}


def _sk_group_found(g: tuple[int, ...]) -> dict:
    """``{(need, extra): groups}`` over every partition of ``g`` into groups, the
    first one found for each pair: the group holding the first colour left
    (with 1, 2 or 3 of the others, in order), then the rest the same way."""
    res = _SK_GFOUND.get(g)
    if res is not None:
        return res
    if not any(g):
        res = {(0, 0): ()}
    else:
        res = {}
        c0 = next(c for c in range(NUM_SUITS) if g[c])
        others = [c for c in range(c0 + 1, NUM_SUITS) if g[c]]
        for size in range(1, min(3, len(others)) + 1):
            for pick in combinations(others, size):
                r2 = list(g)
                r2[c0] -= 1
                for c in pick:
                    r2[c] -= 1
                grp = (c0, *pick)
                n, e = size == 1, size < 3  # a group of 2 needs a joker; 2 or 3 take one
                for (need, extra), parts in _sk_group_found(tuple(r2)).items():
                    key = (need + n, extra + e)
                    if key not in res:
                        res[key] = (grp, *parts)
    _SK_GFOUND[g] = res
    return res


_SK_GCHOICES: dict = {}


def _sk_group_choices(caps: tuple[int, ...], gmax: int) -> tuple:
    """``(g, need, extra, groups)`` for every ``g[c] <= caps[c]`` that splits into
    groups needing at most ``gmax`` jokers."""
    key = (caps, gmax)
    res = _SK_GCHOICES.get(key)
    if res is None:
        more = _SK_GCHOICES.get((caps, _MAX_JOKERS)) if gmax < _MAX_JOKERS else None
        if more is not None:  # the same as with more jokers, less those needing more
            res = tuple(ch for ch in more if ch[1] <= gmax)
        else:
            res = tuple(
                (g, need, extra, parts)
                for g in product(*(range(c + 1) for c in caps))
                for need, extra, parts in _sk_group_opts(g)
                if need <= gmax
            )
        _SK_GCHOICES[key] = res
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

# A colour's open runs (a sorted tuple of run codes) are numbered, so that a
# search state is a flat tuple of small ints; ``_CS_OPEN``: the runs of each that
# are not valid yet (each takes a natural or a joker at the next number).
_CS_ID: dict = {}
_CS_MAX = 1 << 12
_CS: list = []
_CS_OPEN: list = []


def _cs_id(runs: tuple[int, ...]) -> int:
    i = _CS_ID.get(runs)
    if i is None:
        if len(_CS) >= _CS_MAX:  # ids are 12-bit fields of the search's keys
            raise ValueError(f"more than {_MAX_COPIES} copies of a tile")
        i = _CS_ID[runs] = len(_CS)
        _CS.append(runs)
        _CS_OPEN.append(sum(1 for r in runs if r != _SV))
    return i


_cs_id(())  # 0: no open run

# Orders of the ways through a number: the most promising first (fewest jokers
# needed, fewest runs still short), or the most naturals used first (playable).
_PROMISE, _MOST = 0, 1

_SK_FILTER: dict = {}


def _sk_filtered(sid: int, cap: int, gmax: int, fin: bool, nxt: int, order: int) -> tuple:
    """One colour's options from the runs ``sid``: ``(runs2 id, nr, e, dn, de,
    option)`` with ``e`` the jokers needed here plus those the runs left open
    need at least at the next two numbers (:func:`_sk_ahead`, ``nxt``): options
    with ``e > gmax`` are left out. Sorted by ``order`` (:func:`_cl_row` takes
    the ones with a number of naturals into runs from these, in this order)."""
    key = (sid, cap, gmax, fin, nxt, order)
    res = _SK_FILTER.get(key)
    if res is None:
        out = []
        for op in _sk_colour_opts(_CS[sid], cap, gmax, fin):
            runs2, nr, dn, de = op[0], op[1], op[2], op[3]
            s2 = _cs_id(runs2)
            e = dn + _sk_ahead(s2, nxt) if nxt else dn
            if e > gmax:
                continue
            rank = (e, sum(1 for r in runs2 if r < _SB), -de, len(runs2))
            out.append(((-nr, *rank) if order else rank, (s2, nr, e, dn, de, op)))
        out.sort(key=lambda p: p[0])
        res = _store(_SK_FILTER, key, tuple(p[1] for p in out))
    return res


_SK_AHEAD: dict = {}


def _sk_ahead(sid: int, nxt: int) -> int:
    """The fewest jokers one colour's open runs ``sid`` need at the next one or
    two numbers, ``nxt`` = ``first << 16 | second`` with each number coded by
    :func:`_next_code` (0: none); naturals not run-only may go into groups or
    stay unused. 9 if there is no way."""
    key = (sid, nxt)
    res = _SK_AHEAD.get(key)
    if res is None:
        code = (nxt >> 16) - 1
        more = (nxt & 0xFFFF) << 16
        cap, must, fin = code >> 7, (code >> 1) & 63, bool(code & 1)
        res = 9
        for op in _sk_colour_opts(_CS[sid], cap, _MAX_JOKERS, fin):
            if op[1] < must or op[2] >= res:
                continue
            v = op[2] + (_sk_ahead(_cs_id(op[0]), more) if more else 0)
            if v < res:
                res = v
        _SK_AHEAD[key] = res
    return res


def _next_code(cap: int, must: int, fin: bool) -> int:
    """One number as :func:`_sk_ahead` reads it: a colour's naturals there,
    those only a run can hold, and whether it is the last."""
    return ((cap * 64 + must) * 2 + fin) + 1


_SK_GSORTED: dict = {}


def _sk_group_order(caps: tuple[int, ...], gmax: int, order: int) -> tuple:
    key = (caps, gmax, order)
    res = _SK_GSORTED.get(key)
    if res is None:
        if order:
            rank = lambda c: (-sum(c[0]), c[1], -c[2])  # noqa: E731
        else:
            rank = lambda c: (c[1], sum(c[0]), -c[2])  # noqa: E731
        res = tuple(sorted(_sk_group_choices(caps, gmax), key=rank))
        _SK_GSORTED[key] = res
    return res


def _path_jokers(path: list, cap: int) -> tuple[int, int]:
    """Jokers a way needs and (capped at ``cap``) the jokers it has a place for."""
    n = x = 0
    for step in path:
        choice = step[0]
        dn = choice[1] + step[1][3] + step[2][3] + step[3][3] + step[4][3]
        n += dn
        x += dn + choice[2] + step[1][4] + step[2][4] + step[3][4] + step[4][4]
    return n, min(x, cap)


# Per colour and number, the options of every run state are kept in a table
# shared by all the positions that read the same there: the colour's naturals
# and mandatory naturals at the number, whether it is the last, the two numbers
# after it (:func:`_sk_ahead`) and the order. Likewise per number the group
# choices, by the naturals of each colour and the order.
_CL: dict = {}  # (cap, fin, m, nxt, order) -> [{runs id * 4 + jokers left: row}, key]
_GL: dict = {}  # (caps, order) -> [{(masks, jokers left): choices}, key]
_LEVELS_LIMIT = 20_000  # tables of either kind before they are dropped
_AT: dict = {}  # (naturals, mandatory, next codes, order) -> :func:`_colour_tables`
_CODES: dict = {}  # (mandatory, naturals, jokers, last) -> :func:`_number_codes`
_C_TABLES = (_CL, _GL)  # what the compiled search reads of these


def _colour_level(key: tuple) -> list:
    cl = _CL.get(key)
    if cl is None:
        if len(_CL) > _LEVELS_LIMIT:
            _CL.clear()
        cl = _CL[key] = [{}, key]
    return cl


def _group_level(key: tuple) -> list:
    """The group table of ``key`` = ``(caps, order)``."""
    gl = _GL.get(key)
    if gl is None:
        if len(_GL) > _LEVELS_LIMIT:
            _GL.clear()
        gl = _GL[key] = [{}, key]
    return gl


def _number_codes(m: tuple, caps: tuple, jt: int, fin: bool) -> tuple:
    """Per colour, a number with naturals ``caps`` (``m`` mandatory) as
    :func:`_sk_ahead` reads it (see :func:`_next_code`)."""
    must = _run_only(m, caps, jt)
    f = 2 if fin else 1
    return (
        (caps[0] * 64 + must[0]) * 2 + f,
        (caps[1] * 64 + must[1]) * 2 + f,
        (caps[2] * 64 + must[2]) * 2 + f,
        (caps[3] * 64 + must[3]) * 2 + f,
    )


def _cl_row(cl: list, sid: int, gmax: int) -> tuple:
    """One colour's options from the runs ``sid`` with ``gmax`` jokers left, for
    each number ``g`` of its naturals put into groups: ``(mask, lists)``,
    ``lists[g]`` the options with ``m - g .. cap - g`` naturals into runs (from
    :func:`_sk_filtered`, in its order), bit ``g`` of ``mask`` set when there is
    one."""
    cap, fin, m, nxt, order = cl[1]
    full = _sk_filtered(sid, cap, gmax, fin, nxt, order)
    lists = []
    mask = 0
    for g in range(cap + 1):
        lo, hi = m - g, cap - g
        lst = tuple(p for p in full if lo <= p[1] <= hi)
        lists.append(lst)
        if lst:
            mask |= 1 << g
    row = (mask, tuple(lists))
    rows = cl[0]
    if len(rows) > _CACHE_LIMIT:
        rows.clear()
    rows[sid * 4 + gmax] = row
    return row


def _gl_fit(gl: list, key: int, m0: int, m1: int, m2: int, m3: int, gmax: int) -> tuple:
    """The group choices (:func:`_sk_group_order`) for which every colour has an
    option: ``m0..m3`` the colours' masks (:func:`_cl_row`), ``gmax`` the jokers
    left, ``key`` those as one int."""
    caps, order = gl[1]
    out = tuple(
        choice
        for choice in _sk_group_order(caps, gmax, order)
        if m0 >> choice[0][0] & m1 >> choice[0][1] & m2 >> choice[0][2] & m3 >> choice[0][3] & 1
    )
    fits = gl[0]
    if len(fits) > _CACHE_LIMIT:
        fits.clear()
    fits[key] = out
    return out


class _OutOfBudget(Exception):
    pass


_WORSE: dict = {}


def _worse(jt: int, cap: int) -> list[int]:
    """Per code, the codes as bits that a failing state fails with too: with ``n``
    jokers needed and ``x`` placeable (code ``n * 4 + x``), more needed or fewer
    placeable. The searches' memos keep, per state after a number without its code
    (``key``), the codes that failed as such bits at ``~key``, and each way found
    at ``key | code``."""
    res = _WORSE.get((jt, cap))
    if res is None:
        res = _WORSE[(jt, cap)] = [
            sum(1 << (nn * 4 + xx) for nn in range(n, jt + 1) for xx in range(x + 1))
            if n <= jt and x <= cap
            else 0
            for n in range(4)
            for x in range(4)
        ]
    return res


def _colour_tables(cp: tuple, mk: tuple, a: tuple | None, b: tuple | None, order: int) -> tuple:
    """The colours' tables of options at a number with naturals ``cp`` and
    mandatory naturals ``mk``, ``a`` and ``b`` the codes of the next two numbers
    (:func:`_number_codes`, ``_NONE4`` for none; ``a`` None: the last number),
    and its group table; kept, as a number reads the same in many positions."""
    got = _AT.get((cp, mk, a, b, order))
    if got is not None:
        return got
    if a is not None:
        k0 = (cp[0], False, mk[0], a[0] << 16 | b[0], order)
        k1 = (cp[1], False, mk[1], a[1] << 16 | b[1], order)
        k2 = (cp[2], False, mk[2], a[2] << 16 | b[2], order)
        k3 = (cp[3], False, mk[3], a[3] << 16 | b[3], order)
    else:
        k0 = (cp[0], True, mk[0], 0, order)
        k1 = (cp[1], True, mk[1], 0, order)
        k2 = (cp[2], True, mk[2], 0, order)
        k3 = (cp[3], True, mk[3], 0, order)
    get = _CL.get
    got = (
        get(k0) or _colour_level(k0),
        get(k1) or _colour_level(k1),
        get(k2) or _colour_level(k2),
        get(k3) or _colour_level(k3),
        _GL.get((cp, order)) or _group_level((cp, order)),
    )
    if len(_AT) > _LEVELS_LIMIT:
        _AT.clear()
    _AT[(cp, mk, a, b, order)] = got
    return got


class _View:
    """One position read in one number order, as the search wants it: per
    number index the colours' tables of options (:func:`_colour_level`) and the
    group table (:func:`_group_level`), looked up when the search first reaches
    that number (:meth:`level`; a failing search often stops early)."""

    __slots__ = ("m", "caps", "codes", "cl", "lo", "hi", "jt", "order")

    def __init__(self, m: list, caps: list, lo: int, hi: int, jt: int, order: int) -> None:
        """``m``, ``caps``: per number index the mandatory naturals and all the
        naturals per colour, in this view's number order."""
        self.lo, self.hi, self.jt, self.order = lo, hi, jt, order
        self.m, self.caps = m, caps
        self.codes = [None] * NUM_RANKS  # filled by code()
        self.cl = [None] * NUM_RANKS  # filled by level()

    def level(self, k: int) -> tuple:
        """The tables at number index ``k`` (``cl[k]``), looked up the first time."""
        lv = self.cl[k]
        if lv is None:
            lv = self.cl[k] = self._colour_levels(k)
        return lv

    def code(self, k: int) -> tuple:
        """:func:`_number_codes` of number index ``k``, looked up the first time."""
        c = self.codes[k]
        if c is None:
            key = (self.m[k], self.caps[k], self.jt, k == self.hi)
            c = _CODES.get(key)
            if c is None:
                c = _number_codes(*key)
                if len(_CODES) > _LEVELS_LIMIT:
                    _CODES.clear()
                _CODES[key] = c
            self.codes[k] = c
        return c

    def _colour_levels(self, k: int) -> tuple:
        """The colours' tables of options and the group table at number index
        ``k``."""
        cp, mk, order, hi = self.caps[k], self.m[k], self.order, self.hi
        if k < hi:
            a = self.code(k + 1)
            b = self.code(k + 2) if k + 2 <= hi else _NONE4
        else:
            a = b = None
        return _colour_tables(cp, mk, a, b, order)

    def changed(self, k: int, c: int) -> _View:
        """The same with one more mandatory natural of colour ``c`` at number
        index ``k`` (one optional natural made mandatory)."""
        v = object.__new__(_View)
        v.lo, v.hi, v.jt, v.order = self.lo, self.hi, self.jt, self.order
        v.caps = self.caps
        mk = list(self.m[k])
        mk[c] += 1
        v.m = list(self.m)
        v.m[k] = mk = tuple(mk)
        v.codes, v.cl = self.codes, list(self.cl)
        codes = _number_codes(mk, self.caps[k], self.jt, k == self.hi)
        v.cl[k] = None
        if codes != self.code(k):  # the numbers before read it too
            v.codes = list(self.codes)
            v.codes[k] = codes
            for j in (k - 1, k - 2):
                if j >= self.lo:
                    v.cl[j] = None
        return v


def _run_only(m: tuple, caps: tuple, jt: int) -> tuple:
    """Per colour the mandatory naturals that no group of their number can hold
    (no other colour there, or one and no joker), else 0."""
    have = (caps[0] > 0) + (caps[1] > 0) + (caps[2] > 0) + (caps[3] > 0)
    if have > 2 or (have == 2 and jt):
        return _NONE4
    out = []
    for c in range(NUM_SUITS):
        others = have - (caps[c] > 0)
        out.append(m[c] if others == 0 or (others == 1 and not jt) else 0)
    return tuple(out)


def _search(
    view: _View,
    cap: int,
    need_x: int,
    shared: Memo,
    from_k: int,
    local: Memo,
    budget: int,
    start: tuple | None = None,
) -> tuple | None:
    """Depth-first search for one way through the numbers ``lo..hi`` of ``view``
    that ends with at least ``need_x`` jokers placeable (``cap`` caps that
    count): a linked list ``(step, rest)`` (``rest`` None after the last number)
    of steps ``(group choice, colour options)``, or None. The states after a
    number that were tried are remembered (failed ones with those they beat: no
    fewer jokers needed, no more placeable) in ``shared`` when the number is
    ``> from_k`` (only levels the caller did not change lie beyond), else in
    ``local``. Raises _OutOfBudget after ``budget`` states (-1: no limit).
    ``start`` = ``(k, s0, s1, s2, s3, n, x)``: search from that state before
    number index k instead (the way then starts there)."""
    lo, hi, jt = view.lo, view.hi, view.jt
    if hi < lo:
        return () if need_x <= 0 else None
    if _compiled is not None:  # the same search, compiled
        state = (lo, 0, 0, 0, 0, 0, 0) if start is None else start
        return _search_compiled(view, cap, need_x, from_k, budget, shared, local, state, None)
    CL, level = view.cl, view.level
    left = budget
    row_of = _cl_row
    fit_of = _gl_fit
    # failing (n, x) fails (n', x') with n' >= n, x' <= x: codes n * 4 + x
    worse = _worse(jt, cap)

    def go(k: int, s0: int, s1: int, s2: int, s3: int, n: int, x: int):
        nonlocal left
        left -= 1
        if left == 0:
            raise _OutOfBudget
        gl = jt - n
        c0, c1, c2, c3, gtab = CL[k] or level(k)
        r0 = c0[0].get(s0 * 4 + gl) or row_of(c0, s0, gl)
        r1 = c1[0].get(s1 * 4 + gl) or row_of(c1, s1, gl)
        r2 = c2[0].get(s2 * 4 + gl) or row_of(c2, s2, gl)
        r3 = c3[0].get(s3 * 4 + gl) or row_of(c3, s3, gl)
        gkey = (((r0[0] << 14 | r1[0]) << 14 | r2[0]) << 14 | r3[0]) << 2 | gl
        groups = gtab[0].get(gkey)
        if groups is None:
            groups = fit_of(gtab, gkey, r0[0], r1[0], r2[0], r3[0], gl)
            if not groups:
                return None
        l0, l1, l2, l3 = r0[1], r1[1], r2[1], r3[1]
        fin = k == hi
        k1 = k + 1
        mm = shared if k1 > from_k else local
        for choice in groups:
            g0, g1, g2, g3 = choice[0]
            rest = gl - choice[1]
            lb, lc, ld = l1[g1], l2[g2], l3[g3]
            if not (lb and lc and ld):
                continue
            for a in l0[g0]:
                ea = a[2]
                if ea > rest:
                    continue
                na = choice[1] + a[3]
                xa = choice[2] + a[4]
                ka = (k1 << 12 | a[0]) << 12
                for b in lb:
                    eab = ea + b[2]
                    if eab > rest:
                        continue
                    nb = na + b[3]
                    xb = xa + b[4]
                    kb = (ka | b[0]) << 12
                    for c in lc:
                        eabc = eab + c[2]
                        if eabc > rest:
                            continue
                        nc = nb + c[3]
                        xc = xb + c[4]
                        kc = (kb | c[0]) << 12
                        for d in ld:
                            if eabc + d[2] > rest:
                                continue
                            dn = nc + d[3]
                            x2 = x + dn + xc + d[4]
                            if x2 > cap:
                                x2 = cap
                            if fin:
                                if x2 >= need_x:
                                    return ((choice, a, b, c, d), None)
                                continue
                            n2 = n + dn
                            # the state after the number, as one int (see _cs_id)
                            key = (kc | d[0]) << 4
                            code = n2 * 4 + x2
                            r = mm.get(key | code, 0)
                            if r == 0:
                                fails = mm.get(~key, 0)
                                if fails >> code & 1:  # failed before
                                    continue
                                r = go(k1, a[0], b[0], c[0], d[0], n2, x2)
                                if r is None:  # (go wrote no key of this number)
                                    mm[~key] = fails | worse[code]
                                else:
                                    mm[key | code] = r
                            if r is not None:
                                return ((choice, a, b, c, d), r)
        return None

    if start is not None:
        return go(*start)
    return go(lo, 0, 0, 0, 0, 0, 0)


def _search_any(
    view: _View,
    cap: int,
    need_x: int,
    shared: Memo,
    unused: Memo,
    budget: int,
    um: list,
    last: int,
) -> tuple | None:
    """:func:`_search` for a way that also uses at least one of some optional
    naturals (the faces not yet shown playable): ``um[k]`` has bit ``c`` set
    when the natural of colour ``c`` at number index ``k`` is one of them, the
    last such index ``last``. A state is the same plus whether the way has used
    one yet. States that have are plain ones: they read and write ``shared``
    (:func:`_search`'s memo of the same view, with no number changed); those
    that have not keep their failures in ``unused``, which stay true for fewer
    such faces (the caller's next search), and their ways in a memo of this
    search only (a way found shows a face, which is then no longer one of
    them)."""
    lo, hi, jt = view.lo, view.hi, view.jt
    if hi < lo or last < lo:
        return None
    if _compiled is not None:  # the same search, compiled
        state = (lo, 0, 0, 0, 0, 0, 0)
        return _search_compiled(
            view, cap, need_x, -1, budget, shared, shared, state, (um, last, unused)
        )
    CL, M, level = view.cl, view.m, view.level
    left = budget
    row_of = _cl_row
    fit_of = _gl_fit
    worse = _worse(jt, cap)
    found_here: dict = {}

    def go(k: int, s0: int, s1: int, s2: int, s3: int, n: int, x: int, used: bool):
        nonlocal left
        left -= 1
        if left == 0:
            raise _OutOfBudget
        gl = jt - n
        c0, c1, c2, c3, gtab = CL[k] or level(k)
        r0 = c0[0].get(s0 * 4 + gl) or row_of(c0, s0, gl)
        r1 = c1[0].get(s1 * 4 + gl) or row_of(c1, s1, gl)
        r2 = c2[0].get(s2 * 4 + gl) or row_of(c2, s2, gl)
        r3 = c3[0].get(s3 * 4 + gl) or row_of(c3, s3, gl)
        gkey = (((r0[0] << 14 | r1[0]) << 14 | r2[0]) << 14 | r3[0]) << 2 | gl
        groups = gtab[0].get(gkey)
        if groups is None:
            groups = fit_of(gtab, gkey, r0[0], r1[0], r2[0], r3[0], gl)
            if not groups:
                return None
        l0, l1, l2, l3 = r0[1], r1[1], r2[1], r3[1]
        fin = k == hi
        k1 = k + 1
        u = 0 if used else um[k]
        m0, m1, m2, m3 = M[k]
        for choice in groups:
            g0, g1, g2, g3 = choice[0]
            rest = gl - choice[1]
            lb, lc, ld = l1[g1], l2[g2], l3[g3]
            if not (lb and lc and ld):
                continue
            for a in l0[g0]:
                ea = a[2]
                if ea > rest:
                    continue
                na = choice[1] + a[3]
                xa = choice[2] + a[4]
                ka = (k1 << 12 | a[0]) << 12
                ua = used or (u & 1 and g0 + a[1] > m0)
                for b in lb:
                    eab = ea + b[2]
                    if eab > rest:
                        continue
                    nb = na + b[3]
                    xb = xa + b[4]
                    kb = (ka | b[0]) << 12
                    ub = ua or (u & 2 and g1 + b[1] > m1)
                    for c in lc:
                        eabc = eab + c[2]
                        if eabc > rest:
                            continue
                        nc = nb + c[3]
                        xc = xb + c[4]
                        kc = (kb | c[0]) << 12
                        uc = ub or (u & 4 and g2 + c[1] > m2)
                        for d in ld:
                            if eabc + d[2] > rest:
                                continue
                            ud = uc or (u & 8 and g3 + d[1] > m3)
                            dn = nc + d[3]
                            x2 = x + dn + xc + d[4]
                            if x2 > cap:
                                x2 = cap
                            if fin:
                                if ud and x2 >= need_x:
                                    return ((choice, a, b, c, d), None)
                                continue
                            if not ud and k1 > last:
                                continue  # none of the faces left to use
                            n2 = n + dn
                            key = (kc | d[0]) << 4
                            code = n2 * 4 + x2
                            memo = shared if ud else unused
                            r = memo.get(key | code, 0)
                            if r == 0 and not ud:
                                r = found_here.get(key | code, 0)
                            if r == 0:
                                fails = memo.get(~key, 0)
                                if fails >> code & 1:  # failed before
                                    continue
                                r = go(k1, a[0], b[0], c[0], d[0], n2, x2, ud)
                                if r is None:  # (go wrote no key of this number)
                                    memo[~key] = fails | worse[code]
                                elif ud:
                                    shared[key | code] = r
                                else:
                                    found_here[key | code] = r
                            if r is not None:
                                return ((choice, a, b, c, d), r)
        return None

    return go(lo, 0, 0, 0, 0, 0, 0, False)


def _search_compiled(
    view: _View,
    cap: int,
    need_x: int,
    from_k: int,
    budget: int,
    shared: Memo,
    local: Memo,
    state: tuple,
    any_: tuple | None,
) -> tuple | None:
    """:func:`_search` (``any_`` None) or :func:`_search_any` (``any_`` = ``(um,
    last, unused)``) from ``state``, in rummy_env/_cover_c.c: the same steps, the
    Python functions called there only to make a table it has not read before."""
    worse = _worse(view.jt, cap)
    tables = (_cl_row, _sk_group_order, _OutOfBudget, *_C_TABLES)
    return _compiled.search(
        view, cap, need_x, from_k, budget, shared, local, worse, *tables, state, any_
    )


def _memo() -> Memo:
    """A search's memo: a dict for the Python search, the compiled one's own type (the
    same entries, kept in C) when it is built."""
    return {} if _compiled is None else _compiled.Memo()


def _unlink(path: tuple | None) -> list:
    out = []
    while path:
        out.append(path[0])
        path = path[1]
    return out


# states allowed a search's first run in each order (then twice as many each time):
# measured by instruction counts over random games, 64 was best for the Python search
# and 1024 for the compiled one (256: 0.5% more; 64: 4% more)
_START_BUDGET = 64
_START_BUDGET_C = 1024


def _start_budget() -> int:
    return _START_BUDGET if _compiled is None else _START_BUDGET_C


_REVERSE_FROM = 6


class _Solver:
    """Searches on one position in both number orders (the rules read the same
    with the numbers reversed, 13 down to 1): one order, then the other, each
    with twice the states allowed last time, until one finishes. The memos of
    each order are kept from run to run and shared by searches that change one
    number (``solve`` with ``k_mod``)."""

    first = 0  # the order tried first without a changed number (the tests set 1)

    def __init__(
        self,
        levels: list[tuple],
        jt: int,
        cap: int,
        order: int = _PROMISE,
        views: list | None = None,
        shared: list | None = None,
    ) -> None:
        self.jt, self.cap, self.order = jt, cap, order
        self.levels = levels
        # the position as read in each order (may be shared by solvers of one
        # position with the same order)
        self.views: list = [None, None] if views is None else views
        self.shared: list = [_memo(), _memo()] if shared is None else shared
        self.unused: dict | None = None  # solve_any's memos of failures

    def view(self, d: int) -> _View:
        v = self.views[d]
        if v is None:
            v = self.views[d] = _make_view(self.levels, d, self.jt, self.order)
        return v

    def solve(self, need_x: int, k_mod: int | None = None, c_mod: int = 0):
        """``(path, reversed, lo)`` of a way (a list of steps from number index
        ``lo`` in the order searched), or None. With ``k_mod``, one optional
        natural of colour ``c_mod`` at number index ``k_mod`` is mandatory."""
        order = (self.first, 1 - self.first)
        if k_mod is not None:
            order = (1, 0) if k_mod > _REVERSE_FROM else (0, 1)  # reach the changed number early
            if self.first:
                order = order[::-1]
        locals_: list = [_memo(), _memo()]
        views: list = [None, None]
        budget = _start_budget()
        while True:
            for d in order:
                if views[d] is None:
                    view = self.view(d)
                    from_k = -1
                    if k_mod is not None:
                        from_k = k_mod if d == 0 else NUM_RANKS - 1 - k_mod
                        view = view.changed(from_k, c_mod)
                    views[d] = (view, from_k)
                view, from_k = views[d]
                try:
                    path = _search(
                        view, self.cap, need_x, self.shared[d], from_k, locals_[d], budget
                    )
                except _OutOfBudget:
                    continue
                return None if path is None else (_unlink(path), d == 1, view.lo)
            budget *= 2

    def solve_any(self, need_x: int, faces: Iterable[int], high: bool = False):
        """:meth:`solve` for a way that uses at least one of the optional
        naturals ``faces`` (one natural of each), searched from 13 down first
        when ``high`` (the faces are then numbers past the middle)."""
        if self.unused is None:
            self.unused = {}
        # failures of states that used none of the faces stay true for fewer
        # faces: one memo for each set of faces and the sets that follow it
        unused = self.unused.get(high)
        if unused is None:
            unused = self.unused[high] = [_memo(), _memo()]
        order = (1, 0) if high else (0, 1)  # reach the faces early
        if self.first:
            order = order[::-1]
        budget = _start_budget()
        views: list = [None, None]
        while True:
            for d in order:
                if views[d] is None:
                    view = self.view(d)
                    um = [0] * NUM_RANKS
                    for f in faces:
                        k = f % NUM_RANKS
                        um[NUM_RANKS - 1 - k if d else k] |= 1 << (f // NUM_RANKS)
                    last = max(k for k in range(NUM_RANKS) if um[k]) if any(um) else -1
                    views[d] = (view, um, last)
                view, um, last = views[d]
                try:
                    path = _search_any(
                        view, self.cap, need_x, self.shared[d], unused[d], budget, um, last
                    )
                except _OutOfBudget:
                    continue
                return None if path is None else (_unlink(path), d == 1, view.lo)
            budget *= 2


def _make_view(levels: list[tuple], d: int, jt: int, order: int) -> _View:
    """The position ``levels`` read upwards (``d`` 0) or from 13 down (1)."""
    m = [lv[0] for lv in levels]
    caps = [a if b == _NONE4 else tuple(map(_add, a, b)) for a, b in levels]
    ks = [k for k in range(NUM_RANKS) if caps[k] != _NONE4]
    lo, hi = (ks[0], ks[-1]) if ks else (0, -1)
    if ks and max(map(max, caps)) > _MAX_COPIES:
        raise ValueError(f"at most {_MAX_COPIES} copies of a tile in all")
    if d:
        m.reverse()
        caps.reverse()
        lo, hi = NUM_RANKS - 1 - hi, NUM_RANKS - 1 - lo
    return _View(m, caps, lo, hi, jt, order)


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
    if _compiled is not None and lo <= hi:  # the same passes, compiled (_cover_c.c)
        args = (lo, hi, jt, jm, opt[JOKER], JOKER, _EDGES, _edges, (_EMPTY, 0))
        return _compiled.valued(levels, *args)
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
