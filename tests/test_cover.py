"""rummy_env.cover (the Rummikub table's exact-cover check) against a brute-force oracle.

The oracle below is independent of cover.py: it lists every valid meld that can be
formed from the tiles (jokers standing for every possible tile), then searches exact
covers recursively. It is only fast for small multisets, so the random cases keep to
a window of a few numbers and at most 10 tiles, or to long runs of one or two colours
(at most 15 tiles). Every search is also run with the numbers taken from 13 down
(``reversed_first``). Bigger tables are checked against the breadth-first passes of
cover.py, which share the programme's transitions but not the search.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from contextlib import contextmanager
from functools import cache
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from experiments.cover_speed import random_meld, random_position
from rummy_env import _cover_search, cover
from rummy_env.cards import JOKER, parse_cards
from tests.helpers import compiled_module

N = 53


@pytest.fixture(autouse=True, scope="module", params=["compiled", "python"])
def inner_search(request):
    """Every test here runs on both inner searches: the compiled one
    (rummy_env/_cover_c.c, built by ``pip install``) and cover.py's own, its fallback,
    each with a memo object of its own as the default one."""
    saved = cover.DEFAULT_MEMO
    if request.param == "compiled" and cover._compiled is None:
        pytest.skip("the compiled search was not built (no C compiler at install)")
    cover.DEFAULT_MEMO = cover.CoverMemo(compiled=request.param == "compiled")
    cover.clear_caches()
    yield request.param
    cover.DEFAULT_MEMO = saved
    cover.clear_caches()


def bfs_can_cover(mand, opt=None) -> bool:
    """The breadth-first reference pass of can_cover."""
    return _cover_search._can_cover_bfs(cover.DEFAULT_MEMO, mand, opt)


def bfs_playable(mand, opt) -> set[int]:
    """The breadth-first reference pass of playable."""
    return _cover_search._playable_bfs(cover.DEFAULT_MEMO, mand, opt)


def test_the_compiled_search_is_built_where_there_is_a_compiler():
    built = compiled_module("_cover_c", "cover search")
    assert built.API == cover._C_API, "a stale build: pip install -e . rebuilds it"


def _cover_in_a_fresh_process(code: str, **env: str) -> str:
    """What ``code`` prints in a new interpreter that imports rummy_env.cover after it."""
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport rummy_env.cover as c\nprint(c._compiled is None)"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=True,
    )
    return out.stdout.strip() + out.stderr


def test_rummy_pure_python_asks_for_the_python_search():
    got = _cover_in_a_fresh_process("", RUMMY_PURE_PYTHON="1")
    assert got.startswith("True"), got


def test_a_stale_build_is_ignored_with_a_warning():
    # a build of an older _cover_c.c (another API number) is not called: its arguments
    # may differ; the Python search serves, and a warning says how to rebuild
    fake = (
        "import sys, types\n"
        "m = types.ModuleType('rummy_env._cover_c')\n"
        "m.API = 1\n"
        "sys.modules['rummy_env._cover_c'] = m"
    )
    got = _cover_in_a_fresh_process(fake, RUMMY_PURE_PYTHON="")
    assert got.startswith("True") and "pip install -e ." in got, got


@pytest.mark.slow  # about 30 s of CPU
def test_the_compiled_copies_of_the_tables_may_be_dropped_between_searches(
    inner_search, monkeypatch
):
    """The compiled search copies the rows and group tables it reads into C (kept
    between calls, dropped past a size or by clear_caches) while the memos of a
    position keep the ways found, which name those tables' option tuples: dropping
    the copies between any two searches of one position leaves every answer the
    same (and nothing freed is read: a way's tuples are its own)."""
    if inner_search != "compiled":
        pytest.skip("the compiled search's own tables")
    rng = random.Random(77)
    cases = [random_position(rng, size) for size in (12, 20, 30, 40, 50) for _ in range(4)]
    want = [bfs_playable(t, r) for t, r in cases]
    solve, solve_any = cover._Solver.solve, cover._Solver.solve_any

    def dropping(method):
        def call(self, *args, **kwargs):
            cover._compiled.clear()
            assert cover._compiled.sizes() == (0, 0)
            return method(self, *args, **kwargs)

        return call

    monkeypatch.setattr(cover._Solver, "solve", dropping(solve))
    monkeypatch.setattr(cover._Solver, "solve_any", dropping(solve_any))
    cover.clear_caches()
    for (table, rack), playable in zip(cases, want):
        _playable_agrees(table, rack, playable)
    assert cover._compiled.sizes() != (0, 0)  # the last search copied what it read
    cover.clear_caches()
    assert cover._compiled.sizes() == (0, 0)


def test_the_compiled_and_python_searches_agree_on_large_tables(inner_search):
    """Beyond the oracle's and the breadth-first pass's reach (tables of 30-80 tiles,
    racks of 3-20, a tile played after): the compiled search answers as cover.py's own."""
    if inner_search != "compiled":
        pytest.skip("compares the compiled search with the Python one")
    compiled, python = cover.DEFAULT_MEMO, cover.CoverMemo(compiled=False)
    rng = random.Random(2026)

    def answers(table: list[int], rack: list[int], memo: cover.CoverMemo) -> list:
        cover.clear_caches(memo=memo)  # (answers are remembered by their arguments)
        now = cover.playable(table, rack, memo=memo)
        out: list = [now]
        for t in sorted(now)[:3]:
            m2, o2 = list(table), list(rack)
            m2[t] += 1
            o2[t] -= 1
            out.append(cover.cover_and_playable(m2, o2, t, now, memo=memo))
        out.append(cover.playable_values([0] * N, rack, memo=memo))
        out.append(cover.playable_values([0] * N, rack, check=False, memo=memo))
        return out

    for size in (30, 45, 60, 80) * 6:
        table, rack = random_position(rng, size, rng.choice([3, 7, 14, 20]))
        fast = answers(table, rack, compiled)
        assert answers(table, rack, python) == fast, (table, rack)


# ------------------------------------------------------------------ the oracle


def face(colour: int, number: int) -> int:
    return colour * 13 + number - 1


def vec(text: str = "") -> list[int]:
    c = [0] * N
    for f in parse_cards(text):
        c[f] += 1
    return c


def tiles_of(counts) -> list[int]:
    return [f for f in range(N) for _ in range(counts[f])]


@cache
def oracle_melds(total: tuple[int, ...]) -> dict[tuple[int, ...], int]:
    """Every valid meld formable from ``total`` (as a sorted tuple of faces) with
    the best value it can have (jokers counted as what they stand for). Kept per
    ``total``: a playable set asks the same total once per tile."""
    jokers = total[JOKER]
    melds: dict[tuple[int, ...], int] = {}

    def put(tiles: list[int], value: int) -> None:
        key = tuple(sorted(tiles))
        if melds.get(key, -1) < value:
            melds[key] = value

    for number in range(1, 14):
        cols = [c for c in range(4) if total[face(c, number)]]
        for r in range(2, len(cols) + 1):
            for sub in combinations(cols, r):
                for j in range(0, jokers + 1):
                    if 3 <= r + j <= 4 and j <= r:
                        put([face(c, number) for c in sub] + [JOKER] * j, number * (r + j))
    for colour in range(4):
        for lo in range(1, 14):
            for hi in range(lo + 2, 14):
                span = range(lo, hi + 1)
                # the numbers with no tile must be jokers; a joker may also stand
                # where a tile is (a longer span only misses more: stop there)
                missing = [n for n in span if not total[face(colour, n)]]
                if len(missing) > jokers:
                    break
                present = [n for n in span if total[face(colour, n)]]
                for j in range(len(missing), jokers + 1):
                    for extra in combinations(present, j - len(missing)):
                        nat = [n for n in present if n not in extra]
                        if len(nat) < 2 or j > len(nat):
                            continue
                        put([face(colour, n) for n in nat] + [JOKER] * j, sum(span))
    return melds


@cache
def _melds_by_face(total: tuple[int, ...]) -> dict[int, list[tuple[tuple[int, ...], int]]]:
    by_face: dict[int, list[tuple[tuple[int, ...], int]]] = {}
    for tiles, value in oracle_melds(total).items():
        for f in set(tiles):
            by_face.setdefault(f, []).append((tiles, value))
    return by_face


def oracle_best(mand, opt) -> int | None:
    """Brute force: the best exact cover of mand + some part of opt."""
    mand = tuple(mand)
    opt = tuple(opt)
    by_face = _melds_by_face(tuple(a + b for a, b in zip(mand, opt)))

    @cache
    def go(m: tuple[int, ...], o: tuple[int, ...]) -> int | None:
        f = next((i for i in range(N) if m[i] or o[i]), None)
        if f is None:
            return 0
        best = None
        if not m[f]:  # leave one optional copy out
            o2 = list(o)
            o2[f] -= 1
            best = go(m, tuple(o2))
        for tiles, value in by_face.get(f, ()):
            m2, o2 = list(m), list(o)
            ok = True
            for t in tiles:
                if m2[t]:
                    m2[t] -= 1
                elif o2[t]:
                    o2[t] -= 1
                else:
                    ok = False
                    break
            if not ok:
                continue
            rest = go(tuple(m2), tuple(o2))
            if rest is not None and (best is None or rest + value > best):
                best = rest + value
        return best

    return go(mand, opt)


def meld_value(meld: list[int]) -> int | None:
    """The value of one meld as split() writes it, None if it is not valid or not
    in that form (runs in number order with JK where a joker stands; groups by
    colour, jokers last)."""
    nats = [f for f in meld if f != JOKER]
    j = len(meld) - len(nats)
    if len(nats) < 2 or j > len(nats) or len(meld) < 3:
        return None
    numbers = {f % 13 for f in nats}
    colours = [f // 13 for f in nats]
    if len(numbers) == 1 and len(set(colours)) == len(colours):
        if len(meld) > 4 or meld[len(nats) :] != [JOKER] * j or colours != sorted(colours):
            return None
        return (nats[0] % 13 + 1) * len(meld)
    if len(set(colours)) != 1 or len(meld) > 13:
        return None
    first = next(i for i, f in enumerate(meld) if f != JOKER)
    start = meld[first] % 13 - first  # rank of position 0
    if start < 0 or start + len(meld) - 1 > 12:
        return None
    for i, f in enumerate(meld):
        if f != JOKER and f % 13 != start + i:
            return None
    return sum(start + 1 + i for i in range(len(meld)))


def oracle_playable(mand, opt) -> set[int]:
    out = set()
    for t in range(N):
        if opt[t]:
            m2, o2 = list(mand), list(opt)
            m2[t] += 1
            o2[t] -= 1
            if oracle_best(m2, o2) is not None:
                out.add(t)
    return out


def check_split(counts: list[int], melds: list[list[int]]) -> int:
    """Assert ``melds`` is a valid split of exactly ``counts``; return its value."""
    used = [0] * N
    total = 0
    for meld in melds:
        v = meld_value(meld)
        assert v is not None, f"not a valid meld: {meld}"
        total += v
        for f in meld:
            used[f] += 1
    assert used == list(counts), "the melds do not use exactly the tiles"
    return total


@contextmanager
def reversed_first():
    """Make the searches try the numbers from 13 down first (the mirror image)."""
    old = cover._Solver.first
    cover._Solver.first = 1
    cover.DEFAULT_MEMO.results.clear()  # answers remembered from the other order
    try:
        yield
    finally:
        cover._Solver.first = old
        cover.DEFAULT_MEMO.results.clear()


# ------------------------------------------------------------ random cases


@st.composite
def small_cases(draw, max_tiles: int = 10):
    """(mandatory, optional) in a window of numbers and colours, built from a few
    random valid melds plus noise, at most ``max_tiles`` tiles in all."""
    lo = draw(st.integers(1, 10))
    width = draw(st.integers(3, min(6, 14 - lo)))
    numbers = list(range(lo, lo + width))
    colours = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True))
    tiles: list[int] = []
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()) and len(colours) >= 2:  # group
            number = draw(st.sampled_from(numbers))
            sub = draw(st.lists(st.sampled_from(colours), min_size=2, max_size=4, unique=True))
            tiles += [face(c, number) for c in sub]
            tiles += [JOKER] * draw(st.integers(0, min(4 - len(sub), len(sub))))
        else:  # run, some positions turned into jokers
            colour = draw(st.sampled_from(colours))
            length = draw(st.integers(3, width))
            start = draw(st.integers(lo, lo + width - length))
            for n in range(start, start + length):
                tiles.append(JOKER if draw(st.integers(0, 5)) == 0 else face(colour, n))
    noise = draw(
        st.lists(
            st.sampled_from([JOKER] + [face(c, n) for c in colours for n in numbers]), max_size=4
        )
    )
    tiles += noise
    draw(st.randoms(use_true_random=False)).shuffle(tiles)
    mand, opt = [0] * N, [0] * N
    n_opt_bias = draw(st.integers(0, 3))  # 0: no optional part at all
    kept = 0
    for f in tiles:
        cap = 2
        if f == JOKER and mand[JOKER] + opt[JOKER] >= 2:
            continue
        if f != JOKER and mand[f] + opt[f] >= cap:
            continue
        if kept >= max_tiles:
            break
        kept += 1
        if n_opt_bias and draw(st.integers(0, 3)) < n_opt_bias:
            opt[f] += 1
        else:
            mand[f] += 1
    return mand, opt


@st.composite
def long_cases(draw):
    """(mandatory, optional): long runs (8 to 13 numbers, near the ends) with
    tiles left out and jokers, at most 14 tiles: the room left for a joker at a
    run's ends matters."""
    colours = draw(st.lists(st.integers(0, 3), min_size=1, max_size=2, unique=True))
    tiles: list[int] = []
    for colour in colours:
        length = draw(st.integers(8, 13))
        start = draw(st.sampled_from(sorted({1, 14 - length, draw(st.integers(1, 14 - length))})))
        holes = draw(st.booleans())
        for n in range(start, start + length):
            if not holes or draw(st.integers(0, 6)):
                tiles.append(face(colour, n))
    tiles = tiles[:13] + [JOKER] * draw(st.integers(0, 2))
    mand, opt = [0] * N, [0] * N
    with_opt = draw(st.booleans())
    for f in tiles:
        if with_opt and draw(st.integers(0, 4)) == 0:
            opt[f] += 1
        else:
            mand[f] += 1
    return mand, opt


def random_table(rng: random.Random, size: int) -> list[int]:
    """A count vector of about ``size`` tiles made of random valid melds from one
    106-tile pack."""
    pool = [2] * 52 + [2]
    counts = [0] * N
    n = 0
    while n < size:
        meld = random_meld(rng, pool)  # (experiments/cover_speed.py: the benchmark's tables)
        if meld is None:
            break
        # a valid meld by the oracle's own rules (a group in split()'s order: by colour)
        group = sorted(f for f in meld if f != JOKER) + [JOKER] * meld.count(JOKER)
        assert meld_value(meld) is not None or meld_value(group) is not None, meld
        for f in meld:
            counts[f] += 1
        n += len(meld)
    return counts


# ------------------------------------------------------------ hand-written cases


def test_simple_melds():
    assert cover.best_cover(vec("AH 2H 3H")) == 6
    assert cover.best_cover(vec("AS AH AD AC")) == 4
    assert cover.best_cover(vec("TS TH TD")) == 30
    assert cover.best_cover(vec("AH 2H")) is None
    assert cover.best_cover(vec("AH AH AS")) is None  # a group's colours differ
    assert cover.best_cover(vec("5S 5H 5D 5C 5S")) is None  # 5 tiles of one number
    assert cover.best_cover(vec("AS AH AD AC AS AH AD")) == 7  # 4 + 3
    assert cover.best_cover(vec("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS")) == 91


def test_wild_limit_d3():
    assert not cover.can_cover(vec("JK JK 5H"))
    assert cover.best_cover(vec("JK JK 5H")) is None
    # 4-5-6 or 5-6-7: the best value counts the joker as 7
    assert cover.best_cover(vec("JK 5H 6H")) == 18
    assert cover.split(vec("JK 5H 6H")) == [[17, 18, JOKER]]
    assert cover.best_cover(vec("JK 5H 7H")) == 18  # the joker is the 6
    assert cover.best_cover(vec("JK 5H 5S")) == 15  # a group
    assert cover.best_cover(vec("JK JK 5H 5S")) == 20  # group of 4, two jokers
    assert cover.best_cover(vec("JK JK 5H 6H")) == 26  # 5-6-7-8
    assert cover.best_cover(vec("JK JK 5H 7H")) == 26  # 5-6-7-8 again
    assert cover.best_cover(vec("JK JK 5H 6H 7H")) == 35


def test_a_joker_needs_a_place():
    assert cover.best_cover(vec("5S 5H 5D 5C JK")) is None  # a group holds at most 4
    assert not cover.can_cover(vec("5S 5H 5D 5C JK"))
    assert cover.split(vec("5S 5H 5D 5C JK")) is None
    assert cover.can_cover(vec("5S 5H 5D 5C JK 6S 7S"))
    thirteen = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"
    assert cover.best_cover(vec(thirteen)) == 91
    # a run of 13 has no room left: the joker goes where the run splits
    assert cover.best_cover(vec(thirteen + " JK")) == 91 - 11 + 11 + 11
    assert cover.best_cover(vec("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH JK")) == 90 + 11
    assert cover.best_cover(vec("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH JK")) == 91
    both = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"
    for text in (
        thirteen + " JK",
        thirteen + " JK JK",
        "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH JK JK",
        "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH JK JK",
        both + " JK JK",
        "AH 3H 4H 5H 6H 7H 8H 9H TH JH QH JK JK",
        "AH 2H 3H 4H 5H 6H JK 8H 9H TH JH QH KH JK",
        "AH 2H 3H 4H 5H 6H 7H JK 9H TH JH QH KH JK",
    ):
        for rev in (False, True):
            if rev:
                with reversed_first():
                    melds = cover.split(vec(text))
            else:
                melds = cover.split(vec(text))
            assert melds is not None, text
            assert check_split(vec(text), melds) <= cover.best_cover(vec(text))


def test_two_jokers_at_the_end_of_a_run():
    assert cover.best_cover(vec("JK JK JH QH")) == 11 + 12 + 13 + 10  # 10-J-Q-K
    assert cover.split(vec("JK JK 2H 3H")) == [[14, 15, JOKER, JOKER]]
    assert cover.best_cover(vec("JK JK 2H 3H")) == 2 + 3 + 4 + 5


def test_no_wrap_and_no_fourteen():
    assert cover.best_cover(vec("QH KH JK")) == 11 + 12 + 13  # JK-12-13
    assert cover.split(vec("QH KH JK")) == [[JOKER, 24, 25]]
    assert not cover.can_cover(vec("KH AH 2H"))
    assert not cover.can_cover(vec("QH KH AH"))
    assert cover.best_cover(vec("AH 2H JK")) == 6  # 1-2-3 only, no 13
    assert not cover.can_cover(vec("KH AH JK"))


def test_two_identical_runs():
    t = vec("3D 4D 5D 3D 4D 5D")
    assert cover.best_cover(t) == 24
    assert cover.split(t) == [[28, 29, 30], [28, 29, 30]]
    t = vec("3D 4D 5D 3D 4D 5D 6D")
    assert cover.best_cover(t) == 30


def test_optional_part():
    zero = vec()
    assert cover.best_cover(zero, vec("AH 2H 3H 9S")) == 6
    assert cover.best_cover(zero, vec("9S")) == 0
    assert cover.best_cover(zero) == 0
    assert cover.can_cover(zero, vec("JK JK"))
    assert cover.best_cover(vec("JK")) is None  # a mandatory joker must be used
    assert cover.best_cover(vec("JK"), vec("5H 6H")) == 18
    assert cover.best_cover(vec("5H 6H"), vec("7H 4H JK 5S 5D")) == 37  # 4-5-6-7, 5 5 JK
    assert cover.playable(vec("5H 6H"), vec("7H 9S")) == {parse_cards("7H")[0]}
    assert cover.playable_values(vec("5H 6H"), vec("7H 4H 9S")) == {
        parse_cards("7H")[0]: 22,
        parse_cards("4H")[0]: 22,
    }
    assert cover.playable(zero, vec("9S 9H")) == set()
    assert cover.playable(zero, vec("9S 9H 9D")) == set(parse_cards("9S 9H 9D"))
    jk = cover.playable_values(vec("5H 6H"), vec("JK"))
    assert jk == {JOKER: 18}


def test_bad_input():
    with pytest.raises(ValueError):
        cover.can_cover([0] * 52)
    with pytest.raises(ValueError):
        cover.can_cover(vec("JK JK"), vec("JK"))
    many = [0] * N
    many[face(0, 5)] = 14  # the search packs its states: at most 13 copies
    with pytest.raises(ValueError):
        cover.can_cover(many)
    with pytest.raises(ValueError):
        cover.playable(vec("5H 6H"), many)
    many[face(0, 5)] = 13
    assert cover.can_cover(many) == (oracle_best(many, [0] * N) is not None)


def test_big_tables_are_quick():
    rng = random.Random(7)
    for _ in range(20):
        table = random_table(rng, 90)
        assert sum(table) >= 80
        t0 = time.perf_counter()
        assert cover.can_cover(table)
        melds = cover.split(table)
        assert melds is not None
        check_split(table, melds)
        rest = [f for f in range(N) for _ in range(2 - table[f])]
        rack = [0] * N
        for f in rng.sample(rest, min(14, len(rest))):
            rack[f] += 1
        assert cover.can_cover(table, rack)
        cover.playable(table, rack)
        assert time.perf_counter() - t0 < 2.0


def test_big_tables_one_tile_more():
    """A table with one more tile: the search, split and the valued search agree."""
    rng = random.Random(3)
    for _ in range(10):
        table = random_table(rng, 40)
        table[JOKER] = 0  # the valued search is slow on big tables with jokers
        extra = [f for f in range(52) if table[f] < 2]
        f = rng.choice(extra)
        table[f] += 1
        ok = cover.can_cover(table)
        assert ok == (cover.split(table) is not None)
        assert ok == (cover.best_cover(table) is not None)


@pytest.mark.parametrize("seed", range(12))
def test_search_matches_the_full_pass(seed):
    """On tables too big for the oracle, the depth-first search (can_cover,
    playable) agrees with the breadth-first pass over every reachable state."""
    rng = random.Random(seed)
    for size in (8, 12, 16, 20, 24, 28, 32):
        table = random_table(rng, size)
        if rng.random() < 0.5:
            table[JOKER] = 0
        free = [f for f in range(52) for _ in range(2 - table[f])]
        rack = [0] * N
        for f in rng.sample(free, 10):
            rack[f] += 1
        if table[JOKER] + 1 <= 2 and rng.random() < 0.5:
            rack[JOKER] = 1
        # take a few tiles off the table so that it does not always split
        for f in rng.sample(tiles_of(table), 2):
            table[f] -= 1
        assert cover.can_cover(table) == bfs_can_cover(table)
        assert cover.can_cover(table, rack) == bfs_can_cover(table, rack)
        assert cover.playable(table, rack) == bfs_playable(table, rack)
        with reversed_first():
            assert cover.can_cover(table, rack) == bfs_can_cover(table, rack)
            assert cover.playable(table, rack) == bfs_playable(table, rack)
            melds = cover.split(table)
            assert (melds is not None) == bfs_can_cover(table)
            if melds is not None:
                check_split(table, melds)


# ------------------------------------------------------------ against the oracle

FAST = settings(
    max_examples=1000,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@FAST
@given(small_cases())
def test_best_and_can_cover_match_the_oracle(case):
    mand, opt = case
    want = oracle_best(mand, opt)
    assert cover.best_cover(mand, opt) == want
    assert cover.can_cover(mand, opt) == (want is not None)
    with reversed_first():
        assert cover.can_cover(mand, opt) == (want is not None)


@settings(FAST, max_examples=120)
@given(long_cases())
def test_long_runs_match_the_oracle(case):
    mand, opt = case
    want = oracle_best(mand, opt)
    assert cover.best_cover(mand, opt) == want
    assert cover.can_cover(mand, opt) == (want is not None)
    counts = [a + b for a, b in zip(mand, opt)]
    melds = cover.split(counts)
    whole = oracle_best(counts, [0] * N)
    assert (melds is not None) == (whole is not None)
    if melds is not None:
        assert check_split(counts, melds) <= whole
    if any(opt):
        assert cover.playable(mand, opt) == oracle_playable(mand, opt)


@settings(FAST, max_examples=600)
@given(small_cases())
def test_split_matches_the_oracle(case):
    mand, opt = case
    counts = [a + b for a, b in zip(mand, opt)]  # every tile mandatory
    want = oracle_best(counts, [0] * N)
    for rev in (False, True):
        if rev:
            with reversed_first():
                melds = cover.split(counts)
        else:
            melds = cover.split(counts)
        if want is None:
            assert melds is None
        else:
            assert melds is not None
            assert check_split(counts, melds) <= want


@settings(FAST, max_examples=500)
@given(small_cases(max_tiles=9))
def test_playable_matches_the_oracle(case):
    mand, opt = case
    want = {}
    for t in range(N):
        if opt[t]:
            m2, o2 = list(mand), list(opt)
            m2[t] += 1
            o2[t] -= 1
            v = oracle_best(m2, o2)
            if v is not None:
                want[t] = v
    assert cover.playable_values(mand, opt) == want
    assert cover.playable_values(mand, opt, check=False) == want  # the passes alone
    assert cover.playable(mand, opt) == set(want)
    with reversed_first():
        assert cover.playable(mand, opt) == set(want)


# ------------------------------------------------ playable: new code paths


@settings(FAST, max_examples=300)
@given(small_cases(max_tiles=9))
def test_meld_possible_matches_the_oracle(case):
    """The cheap exclusion of playable(): a natural no valid meld of all the
    tiles holds (the oracle lists every meld)."""
    mand, opt = case
    total = tuple(a + b for a, b in zip(mand, opt))
    levels, _jm, jt = cover._levels(list(mand), list(opt))
    in_meld = {f for tiles in oracle_melds(total) for f in tiles}
    for t in range(52):
        if total[t]:
            assert cover._meld_possible(levels, jt, t % 13, t // 13) == (t in in_meld)


@settings(FAST, max_examples=200)
@given(small_cases(max_tiles=9))
def test_playable_after_matches_the_oracle(case):
    """Playing the playable tiles one by one: playable_after (with the answer
    before, the ways found before, or neither) is the oracle's playable set."""
    mand, opt = case
    before = cover.playable(mand, opt)
    assert before == oracle_playable(mand, opt)
    for t in sorted(before):
        m2, o2 = list(mand), list(opt)
        m2[t] += 1
        o2[t] -= 1
        want = oracle_playable(m2, o2)
        cover.DEFAULT_MEMO.results.clear()
        cover.playable(mand, opt)  # the ways found before are remembered
        assert cover.playable_after(m2, o2, t, before) == want
        cover.DEFAULT_MEMO.results.clear()
        assert cover.playable_after(m2, o2, t) == want  # nothing remembered
        cover.DEFAULT_MEMO.results.clear()
        assert cover.playable_after(m2, o2, t, before) == want


def _window_case(rng: random.Random, j_table: int, j_rack: int, dup: bool, table: bool):
    """A small random position: naturals of 2-3 colours in a window of 5
    numbers, ``j_table`` / ``j_rack`` jokers, two copies of one face when
    ``dup`` (one on the table and one in the rack when ``table``), no table
    tiles at all unless ``table``."""
    lo = rng.randint(1, 9)
    colours = rng.sample(range(4), rng.randint(2, 3))
    faces = [face(c, n) for c in colours for n in range(lo, lo + 5)]
    mand, opt = [0] * N, [0] * N
    for f in rng.sample(faces, rng.randint(3, 6 - j_table - j_rack)):
        (mand if table and rng.random() < 0.5 else opt)[f] += 1
    if dup:
        f = rng.choice(faces)
        mand[f] = opt[f] = 0
        opt[f] += 1
        (mand if table else opt)[f] += 1
    mand[JOKER] = j_table if table else 0
    opt[JOKER] = j_rack
    return mand, opt


@pytest.mark.parametrize(
    ("j_table", "j_rack", "dup", "table"),
    [
        (jt, jr, dup, table)
        for jt, jr in [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0)]
        for dup in (False, True)
        for table in (True, False)
        if table or not jt
    ],
)
def test_playable_jokers_duplicates_empty_table(j_table, j_rack, dup, table):
    """playable and playable_after against the oracle with 0, 1 or 2 jokers on
    the table and in the rack, two copies of a face, and an empty table."""
    rng = random.Random(j_table * 1000 + j_rack * 100 + dup * 10 + table)
    for _ in range(20 if j_table + j_rack < 2 else 8):
        mand, opt = _window_case(rng, j_table, j_rack, dup, table)
        cover.DEFAULT_MEMO.results.clear()
        want = oracle_playable(mand, opt)
        assert cover.playable(mand, opt) == want, (mand, opt)
        with reversed_first():
            assert cover.playable(mand, opt) == want
        cover.playable(mand, opt)
        for t in sorted(want):
            m2, o2 = list(mand), list(opt)
            m2[t] += 1
            o2[t] -= 1
            assert cover.playable_after(m2, o2, t, want) == oracle_playable(m2, o2)


@pytest.mark.parametrize("seed", range(4))
def test_playable_after_along_a_turn(seed):
    """Random turns on tables too big for the oracle: after each tile played,
    playable_after agrees with the breadth-first pass, and so does can_cover
    of the table with the tiles played."""
    rng = random.Random(100 + seed)
    for size in (10, 16, 24):
        table = random_table(rng, size)
        free = [f for f in range(N) for _ in range(2 - table[f])]
        rack = [0] * N
        for f in rng.sample(free, 10):
            rack[f] += 1
        mand, opt = list(table), rack
        now = cover.playable(mand, opt)
        assert now == bfs_playable(mand, opt)
        step = 0
        while now:
            t = rng.choice(sorted(now))
            mand[t] += 1
            opt[t] -= 1
            want = bfs_playable(mand, opt)
            covers = bfs_can_cover(mand)
            step += 1
            if step % 2:  # the two calls, or the one that answers both
                now = cover.playable_after(mand, opt, t, now)
                assert cover.can_cover(mand) == covers
            else:
                ok, now = cover.cover_and_playable(mand, opt, t, now)
                assert ok == covers
            assert now == want


def test_playable_after_bad_input():
    with pytest.raises(ValueError):
        cover.playable_after(vec("5H 6H"), vec("7H"), parse_cards("7H")[0])
    with pytest.raises(ValueError):
        cover.cover_and_playable(vec("5H 6H"), vec("7H"), parse_cards("7H")[0])


# ------------------------------------------ cover_and_playable: the turn's masks


def oracle_covers(mand) -> bool:
    return oracle_best(mand, [0] * N) is not None


@settings(FAST, max_examples=150)
@given(small_cases(max_tiles=9))
def test_cover_and_playable_matches_the_oracle(case):
    """cover_and_playable against the oracle: on a fresh position, with the
    answer remembered (playable asked first), and after each playable tile is
    played (from the ways found before, or with nothing remembered)."""
    mand, opt = case
    want = (oracle_covers(mand), oracle_playable(mand, opt))
    cover.DEFAULT_MEMO.results.clear()
    assert cover.cover_and_playable(mand, opt) == want
    cover.DEFAULT_MEMO.results.clear()
    cover.playable(mand, opt)
    assert cover.cover_and_playable(mand, opt) == want
    before = want[1]
    for t in sorted(before):
        m2, o2 = list(mand), list(opt)
        m2[t] += 1
        o2[t] -= 1
        after = (oracle_covers(m2), oracle_playable(m2, o2))
        cover.DEFAULT_MEMO.results.clear()
        cover.playable(mand, opt)  # the ways found before are remembered
        assert cover.cover_and_playable(m2, o2, t, before) == after
        cover.DEFAULT_MEMO.results.clear()
        assert cover.cover_and_playable(m2, o2, t) == after


def test_a_memo_object_keeps_what_its_calls_learn():
    """Calls given ``memo=`` keep their answers and tables in that object, not in the
    default one, and answer as without it; clear_caches(memo=...) empties that one."""
    mand, opt = vec("5H 6H JK"), vec("7H 9S 9D 9C")
    own = cover.CoverMemo(compiled=cover.DEFAULT_MEMO.compiled is not None)
    cover.clear_caches()
    got = (
        cover.playable(mand, opt, memo=own),
        cover.can_cover(mand, opt, memo=own),
        cover.split(vec("5H 6H 7H JK"), memo=own),
        cover.playable_values([0] * N, opt, memo=own),
    )
    assert own.results and own.cl and own.edges
    assert not any(getattr(cover.DEFAULT_MEMO, t) for t in cover.CoverMemo.TABLES)
    assert got == (
        cover.playable(mand, opt),
        cover.can_cover(mand, opt),
        cover.split(vec("5H 6H 7H JK")),
        cover.playable_values([0] * N, opt),
    )
    cover.clear_caches(memo=own)
    assert not any(getattr(own, t) for t in cover.CoverMemo.TABLES)
    assert cover.DEFAULT_MEMO.results


def test_cover_and_playable_answers_from_the_search(monkeypatch):
    """Where the search for playable tiles tells whether the mandatory tiles
    split (a way with no optional tile, no way at all, a way found before that
    used only the tile played), no other search runs."""

    def no_search(*_args):
        raise AssertionError("can_cover searched")

    cases = [  # (mandatory, optional, answer, answered by the search)
        (vec("5H 6H 7H"), vec("9S KD"), (True, set()), True),  # valid, nothing to add
        (vec("5H 6H"), vec("9S KD"), (False, set()), True),  # no way at all
        (vec("5H 6H 7H JK"), vec("9S"), (True, set()), True),
        (vec("5H 6H"), vec("JK 9S"), (False, {JOKER}), False),  # the way found needs the joker
        (vec("5H 6H 7H"), vec("8H"), (True, {parse_cards("8H")[0]}), False),
    ]
    for mand, opt, want, by_search in cases:
        cover.DEFAULT_MEMO.results.clear()
        if by_search:
            monkeypatch.setattr(cover, "_can_cover", no_search)
        assert cover.cover_and_playable(mand, opt) == want
        monkeypatch.undo()
        assert (oracle_covers(mand), oracle_playable(mand, opt)) == want
    # a way found before used 7H and nothing else: with 7H played the table splits
    mand, opt = vec("5H 6H"), vec("7H 9S")
    seven = parse_cards("7H")[0]
    cover.DEFAULT_MEMO.results.clear()
    before = cover.playable(mand, opt)
    assert before == {seven}
    m2, o2 = list(mand), list(opt)
    m2[seven] += 1
    o2[seven] -= 1
    monkeypatch.setattr(cover, "_can_cover", no_search)
    assert cover.cover_and_playable(m2, o2, seven, before) == (True, set())
    # 9S just put down: no meld of the table's tiles holds it
    mand, opt = vec("5H 6H 7H 9S"), vec("9H 9D")
    cover.DEFAULT_MEMO.results.clear()
    want = (False, set(parse_cards("9H 9D")))
    assert cover.cover_and_playable(mand, opt, parse_cards("9S")[0]) == want
    monkeypatch.undo()
    assert (oracle_covers(mand), oracle_playable(mand, opt)) == want


# ------------------------------------------ the search for a way with any of a set


def _any_search_agrees(mand, opt, rng, playable_set) -> None:
    """``_Solver.solve_any`` on random sets of optional naturals, in the order
    ``_playable_search`` keeps (sets that only shrink for each ``high``, the two
    interleaved): a way is found exactly when one of the set is playable, and
    it uses one of them."""
    levels, jm, jt = cover._levels(list(mand), list(opt))
    cap = jm + 1 if opt[JOKER] else jm
    solver = cover._Solver(cover.DEFAULT_MEMO, levels, jt, cap, cover._MOST)
    faces = [f for f in range(52) if opt[f]]
    sets = {False: rng.sample(faces, rng.randint(1, len(faces))) if faces else []}
    sets[True] = rng.sample(faces, rng.randint(1, len(faces))) if faces else []
    for step in range(6):
        high = bool(step % 2)
        part = sets[high]
        if not part:
            continue
        found = solver.solve_any(jm, part, high)
        assert (found is not None) == any(f in playable_set for f in part), (mand, opt, part)
        if found is not None:
            path, rev, lo = found
            used = set()
            for f in part:
                k, c = f % 13, f // 13
                step_ = path[(12 - k if rev else k) - lo]
                if step_[0][0][c] + step_[c + 1][1] > levels[k][0][c]:
                    used.add(f)
            assert used, (mand, opt, part)
            sets[high] = [f for f in part if f not in used]
        else:
            sets[high] = []


@settings(FAST, max_examples=200)
@given(small_cases(max_tiles=9), st.randoms(use_true_random=False))
def test_any_search_matches_the_oracle(case, rng):
    mand, opt = case
    _any_search_agrees(mand, opt, rng, oracle_playable(mand, opt))
    with reversed_first():
        _any_search_agrees(mand, opt, rng, oracle_playable(mand, opt))


@pytest.mark.parametrize("seed", range(12))
def test_any_search_matches_the_full_pass(seed):
    """The same on random tables of 10-20 tiles with a 14-tile rack (the
    breadth-first pass as reference), and playable and playable_after there."""
    rng = random.Random(500 + seed)
    for size in (10, 14, 18, 22):
        table, rack = random_position(rng, size)
        want = bfs_playable(table, rack)
        for _ in range(3):
            _any_search_agrees(table, rack, rng, want)
        _playable_agrees(table, rack, want)


def _playable_agrees(table: list[int], rack: list[int], want: set[int]) -> None:
    """playable(table, rack) is ``want``, and playable_after agrees with the
    breadth-first pass once each of the first two faces of it is played."""
    assert cover.playable(table, rack) == want
    for t in sorted(want)[:2]:
        m2, o2 = list(table), list(rack)
        m2[t] += 1
        o2[t] -= 1
        assert cover.playable_after(m2, o2, t, want) == bfs_playable(m2, o2)
