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
* :func:`clear_caches`: empties a memo object's tables.

Each takes an optional keyword ``memo=``, a :class:`CoverMemo`: the object that
keeps what the calls learn (the tables below and the last answers). Without it
the module's :data:`DEFAULT_MEMO` serves, shared by every caller that passes none;
a caller that wants its own (a game engine, a test) makes one and passes it.

At most two jokers in all (mandatory plus optional; more raises ValueError), as
in the 106-tile game, and at most 13 copies of a face (the tests keep to two).

Two dynamic programmes over the numbers 1..13, in the manner of the published
Rummikub solvers (van Rijn, Takes and Vis, "The complexity of Rummikub
problems", 2015): at each number, choose which of its tiles go into groups of
that number, which extend the runs left open by the number before, and which
start runs; mandatory tiles must all be used, optional ones may be skipped; a
run not extended either closes (if valid) or is dead.

**Skeleton DP** (:func:`can_cover`, :func:`playable`, :func:`split`;
:mod:`rummy_env._cover_tables`, :mod:`rummy_env._cover_search`). With two
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

The skeleton programme is searched depth-first (one search, in Python and
compiled, ``rummy_env/_cover_c.c``, where a C compiler was at install;
``RUMMY_PURE_PYTHON=1`` or ``CoverMemo(compiled=False)`` asks for the Python
one), remembering the states after each number that failed (with those they
beat: no fewer jokers needed, no more with a place) and, for states on a way
found, the rest of that way. A colour's open runs are numbered, so a state is a
flat tuple of small ints (one int as a key of those memos: hence at most 13
copies of a face), and the ways one colour goes through a number are kept in
tables shared by every position that reads the same there (its naturals and
mandatory naturals, whether it is the last number, and the two numbers after
it): per run state and jokers left, the options for each number of its naturals
that go into groups, in order, and the group choices for which every colour has
an option. Each option counts the jokers its runs need at the next two numbers
(``_sk_ahead``: naturals that a group can hold may be left to one), so a way
that cannot go on is seldom tried. Two orders: the most promising first (fewest
jokers needed, fewest runs still short: :func:`can_cover`, :func:`split`), or
the most naturals used first (:func:`playable`). The rules read the same with
the numbers reversed (n -> 14 - n), so the search runs both ways alternately,
each with twice the states allowed the time before, until one finishes (a bad
first choice at the wrong end costs little that way).

:func:`playable` first searches for a way that uses as many optional tiles as
it can (each one it uses is playable; none: nothing is), then once per face not
yet shown, with that tile made mandatory: a face no valid meld of all the tiles
holds is not playable without a search (``_meld_possible``), a way found shows
every optional tile it uses, the searches of one position share what they learnt
about the numbers beyond the one they change, and a face of 8 or more is searched
from 13 down. Once a face is found not playable (a tile played often leaves
several faces unplayable, and at a turn's start most of a rack is), the faces
left are searched a set at a time, those of numbers 1-7 and those of 8-13 apart,
while two or more are left: a way that uses at least one of the set (the state
then also says whether it has; the failures of those that have not stay true as
the set shrinks, so one failing search shows them all unplayable), from the
set's end of the numbers; a last face alone as above. The ways found are kept
with the answer, for :func:`playable_after`, and for the last 64 answers the
position as the search read it (its views), which a tile moved from optional to
mandatory changes at one number only. ``_can_cover_bfs`` and ``_playable_bfs``
(:mod:`rummy_env._cover_search`) do the same with one forward (and one
backward) pass over every reachable state; on dense tables with jokers that is
10^3 to 10^5 states a number, so the tests use them as a reference only.

**Valued DP** (:func:`best_cover`, :func:`playable_values`;
:mod:`rummy_env._cover_valued`). Every joker is placed as the tile it stands
for; open runs are D (jokers only), A, C (one natural and jokers: needs a
natural), B and V; the state is those per colour plus the jokers used, with the
best value so far (each tile adds its number at the number it stands at). One
forward pass keeps the best value of each state; :func:`playable_values` adds a
backward pass of best remaining values and, per face, the best value through a
way that uses it. Both first ask the skeleton search, so a position with no
split costs little.

Memo tables (a :class:`CoverMemo`'s): the options of one colour, group
partitions, the tables of the search (above) and filtered option lists, kept
across calls (cleared past 300,000 entries each, 20,000 tables), and the last
4,096 answers of :func:`can_cover` and :func:`playable` (with the ways found) by
their arguments. The tables depend on small things only (a few hundred colour
tables, some 10,000 rows after a few thousand random positions), so a process
that plays for a while has them all. Speed: docs/speed.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial

from rummy_env._cover_search import (
    _C_API,  # noqa: F401 (the compiled search's API, read by the tests)
    _REVERSE_FROM,
    _compiled,
    _path_jokers,
    _Solver,
)
from rummy_env._cover_tables import (
    _MAX_JOKERS,
    _MOST,
    _SA,
    _SG,
    _SK_NAT,
    _as_list,
    _cl_row,
    _gl_fit,
    _levels,
    _sk_group_order,
)
from rummy_env._cover_valued import _best_value, _edges, _values
from rummy_env.cards import JOKER, NUM_FACES, NUM_NATURAL, NUM_RANKS, NUM_SUITS

__all__ = [
    "DEFAULT_MEMO",
    "CoverMemo",
    "best_cover",
    "can_cover",
    "cover_and_playable",
    "playable",
    "playable_after",
    "playable_values",
    "split",
    "clear_caches",
]


# ----------------------------------------------------------------- memo object


class CoverMemo:
    """What the calls of this module learn, kept for the calls that follow: the
    last answers (``results``, ``views``) and the tables of the two programmes
    (see the module docstring). A caller makes one and passes it as ``memo=``
    to every call whose tables it wants to own; :data:`DEFAULT_MEMO` serves the
    calls that pass none. ``compiled``: use the compiled search where it was
    built (``rummy_env/_cover_c.c``), else the Python one; the answers are the
    same."""

    # the tables, each a dict: answers by arguments (the last 4,096), the views of
    # the last 64 playable answers; the skeleton programme's per colour and number
    # (rummy_env._cover_tables); the valued programme's (rummy_env._cover_valued)
    TABLES = (
        *("results", "views"),
        *("sk_colour", "sk_groups", "sk_gfound", "sk_gchoices", "sk_trans", "sk_succ"),
        *("sk_edges", "sk_filter", "sk_ahead", "sk_gsorted", "cl", "gl", "at", "codes"),
        *("partition", "group_choices", "colour_opts", "trans", "succ_best", "edges"),
    )

    def __init__(self, compiled: bool = True) -> None:
        self.compiled = _compiled if compiled else None
        for name in self.TABLES:
            setattr(self, name, {})
        # the table makers the searches call on a miss (the compiled one too)
        self.row_of = partial(_cl_row, self)
        self.fit_of = partial(_gl_fit, self)
        self.order_of = partial(_sk_group_order, self)
        self.edges_of = partial(_edges, self)

    def clear(self) -> None:
        """Empty every table, and the compiled search's copies of tables (those are
        the process's, read from any memo object: all go)."""
        for name in self.TABLES:
            getattr(self, name).clear()
        if _compiled is not None:
            _compiled.clear()


DEFAULT_MEMO = CoverMemo()  # the memo object of the calls that pass none
_RESULTS_LIMIT = 4096
_VIEWS_LIMIT = 64


def _remember(memo: CoverMemo, key: tuple, value):
    if len(memo.results) >= _RESULTS_LIMIT:
        memo.results.clear()
    memo.results[key] = value
    return value


# ------------------------------------------------------------------ public API


def can_cover(
    mandatory: Sequence[int],
    optional: Sequence[int] | None = None,
    *,
    memo: CoverMemo | None = None,
) -> bool:
    """Whether ``mandatory`` plus some sub-multiset of ``optional`` splits
    exactly into valid melds (count vectors of length 53)."""
    return _can_cover(memo or DEFAULT_MEMO, _as_list(mandatory), _as_list(optional))


def playable(
    mandatory: Sequence[int], optional: Sequence[int], *, memo: CoverMemo | None = None
) -> set[int]:
    """The faces ``t`` of ``optional`` with ``can_cover(mandatory + {t},
    optional - {t})``.

    A search for a way that uses as many optional tiles as it can, then one per
    face not yet shown playable: a way found shows every optional tile it uses
    playable."""
    memo = memo or DEFAULT_MEMO
    return set(_playable_answer(memo, _as_list(mandatory), _as_list(optional))[0])


def playable_after(
    mandatory: Sequence[int],
    optional: Sequence[int],
    played: int,
    previous: Iterable[int] | None = None,
    *,
    memo: CoverMemo | None = None,
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
    memo = memo or DEFAULT_MEMO
    return set(_playable_answer(memo, mand, _as_list(optional), played, previous)[0])


def cover_and_playable(
    mandatory: Sequence[int],
    optional: Sequence[int],
    played: int | None = None,
    previous: Iterable[int] | None = None,
    *,
    memo: CoverMemo | None = None,
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
    memo = memo or DEFAULT_MEMO
    mand = _as_list(mandatory)
    if played is not None:
        _check_played(mand, played)
    faces, _ways, covers = _playable_answer(memo, mand, _as_list(optional), played, previous)
    if covers is None:
        none = [0] * NUM_FACES
        covers = memo.results.get(("c", tuple(mand), tuple(none)))
        if covers is None:
            if played is not None and played != JOKER:
                # the tile played alone in no meld of the mandatory tiles: no
                # split (the usual case just after a tile is put down)
                levels, _jm, jt = _levels(mand, none)
                if not _meld_possible(levels, jt, played % NUM_RANKS, played // NUM_RANKS):
                    return False, set(faces)
            covers = _can_cover(memo, mand, none)
    return covers, set(faces)


def best_cover(
    mandatory: Sequence[int],
    optional: Sequence[int] | None = None,
    *,
    memo: CoverMemo | None = None,
) -> int | None:
    """The greatest total value of an exact split of ``mandatory`` plus some
    sub-multiset of ``optional`` into valid melds (each tile worth its number, a
    joker the number it stands for); None when no split exists."""
    memo = memo or DEFAULT_MEMO
    mand = _as_list(mandatory)
    opt = _as_list(optional)
    levels, jm, jt = _levels(mand, opt)
    if any(mand) and not _can_cover(memo, mand, opt):
        return None
    return _best_value(memo, levels, jm, jt)


def playable_values(
    mandatory: Sequence[int],
    optional: Sequence[int],
    check: bool = True,
    *,
    memo: CoverMemo | None = None,
) -> dict[int, int]:
    """``{t: best_cover(mandatory + {t}, optional - {t})}`` for every face ``t``
    of ``optional`` for which that is not None, from one forward and one backward
    pass over the numbers. With ``check`` the skeleton search (:func:`playable`)
    first asks whether any face is, and only the faces it finds are valued: a
    position with no split (a table that cannot be left as it is) then costs
    little. Without it the passes alone answer, the same: quicker where some face
    usually is playable, as for a rack's initial meld (the engine's mask before a
    player has opened; 15% fewer instructions in random Rummikub play)."""
    memo = memo or DEFAULT_MEMO
    mand, opt = _as_list(mandatory), _as_list(optional)
    if check and not _playable_answer(memo, mand, opt)[0]:
        return {}
    return _values(memo, mand, opt)


def split(counts: Sequence[int], *, memo: CoverMemo | None = None) -> list[list[int]] | None:
    """One split of exactly ``counts`` into valid melds, or None. Runs list their
    faces in number order with 52 where a joker stands; groups list their
    naturals by colour, jokers last. Jokers not needed inside a meld go where
    they are worth the most (the split is not always one of greatest value:
    :func:`best_cover` gives that value)."""
    mand = _as_list(counts)
    levels, jm, jt = _levels(mand, [0] * NUM_FACES)
    if not any(mand):
        return []
    found = _Solver(memo or DEFAULT_MEMO, levels, jt, jm).solve(jm)
    if found is None:
        return None
    runs_done, groups_done = _fragments(*found)
    return _place_jokers(runs_done, groups_done, jt)


def clear_caches(*, memo: CoverMemo | None = None) -> None:
    """Empty the memo tables of ``memo`` (default: :data:`DEFAULT_MEMO`; they grow
    with use), and the compiled search's copies of tables."""
    (memo or DEFAULT_MEMO).clear()


# ------------------------------------------------------------------ the answers


def _check_played(mand: list[int], played: int) -> None:
    if not 0 <= played < NUM_FACES or mand[played] < 1:
        raise ValueError("the tile played must be in mandatory")


def _can_cover(memo: CoverMemo, mand: list[int], opt: list[int]) -> bool:
    key = ("c", tuple(mand), tuple(opt))
    hit = memo.results.get(key)
    if hit is not None:
        return hit
    levels, jm, jt = _levels(mand, opt)
    if not any(mand):
        return True
    return _remember(memo, key, _Solver(memo, levels, jt, jm).solve(jm) is not None)


def _playable_answer(
    memo: CoverMemo,
    mand: list[int],
    opt: list[int],
    played: int | None = None,
    previous: Iterable[int] | None = None,
) -> tuple:
    """``(faces, ways, covers)``: the answer of :func:`playable`, the optional
    tiles of each way found, and whether ``mand`` alone splits if that was
    learnt on the way (else None); remembered, and the views its searches read
    (:func:`rummy_env._cover_tables._make_view`) for the last few answers. With
    ``played``: as :func:`playable_after` (``played`` has just moved from ``opt``
    to ``mand``, ``previous`` the answer before)."""
    key = ("p", tuple(mand), tuple(opt))
    hit = memo.results.get(key)
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
        before = memo.results.get(before_key)
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
            views = _views_after(memo.views.get(before_key), played)
        levels, jm, jt = _levels(mand, opt)
        found = _playable_search(memo, levels, opt, jm, jt, todo, out, witnesses, views)
        if covers is None:
            covers = found
        if len(memo.views) >= _VIEWS_LIMIT:
            memo.views.clear()
        memo.views[key] = views
    return _remember(memo, key, (frozenset(out), tuple(witnesses), covers))


def _views_after(old: list | None, played: int) -> list:
    """The views of the position before ``played`` moved to the mandatory tiles
    (``old``, if kept), with the tile moved (the jokers in all and every number's
    naturals in all are the same)."""
    if old is None:
        return [None, None]
    if played == JOKER:
        return list(old)
    k, c = played % NUM_RANKS, played // NUM_RANKS
    v0, v1 = old
    return [
        None if v0 is None else v0.changed(k, c),
        None if v1 is None else v1.changed(NUM_RANKS - 1 - k, c),
    ]


def _playable_search(
    memo: CoverMemo,
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
    of all the tiles holds are not) until one is found not playable, then the
    rest a set at a time (:func:`_search_sets`). Returns whether the mandatory
    tiles alone split, where a way found tells (one that uses no optional tile:
    True; no way at all: False), else None. ``views``: the position as read
    upwards and downwards, where known (filled in as made)."""
    cap = jm + 1 if opt[JOKER] else jm  # ways that place one optional joker show it
    solver = _Solver(memo, levels, jt, cap, _MOST, views)
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
        found = _Solver(memo, levels, jt, jm + 1, _MOST, views).solve(jm + 1)
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
        if found is None:
            _search_sets(solver, levels, jt, jm, rest[i + 1 :], out, mark)
            break
        mark(found)
    return covers


def _search_sets(solver: _Solver, levels, jt: int, jm: int, rest: list, out: set, mark) -> None:
    """The faces of ``rest`` not yet in ``out``, searched once a face was found
    not playable (the others left may well not be either): of two or more left at
    the low (high) numbers, a search for a way that uses any of them, from their
    end (none: none is playable), until one is left, which a search with it made
    mandatory settles. ``mark`` takes each way found (adding to ``out``)."""
    left = [
        f
        for f in rest
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


# ----------------------------------------------------------------------- split


def _fragments(path: list, rev: bool, lo: int) -> tuple[list, list]:
    """The way ``path`` (from number index ``lo``, in the order searched: from 13
    down when ``rev``) replayed into fragments of naturals, gaps as jokers:
    ``(runs, groups)``, runs ``[state, lowest number, faces]`` and groups
    ``[faces, number]``, in numbers 1..13 upwards."""
    hi = lo + len(path) - 1
    recipes = [(step[0][0], step[0][3], [op[5] for op in step[1:]]) for step in path]
    runs_done: list[list] = []
    groups_done: list[list] = []
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
    return runs_done, groups_done


def _place_jokers(runs_done: list, groups_done: list, jt: int) -> list[list[int]] | None:
    """The melds of the fragments of :func:`_fragments` with the ``jt`` jokers in
    all placed: each pair of adjacent naturals and each group of two takes one,
    then the rest go to the open slot worth the most."""
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
