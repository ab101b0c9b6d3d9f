"""Speed of the Rummikub table check (rummy_env/cover.py) on random realistic tables.

For each table size 0, 10, ..., 80 tiles: tables made of random valid melds drawn
from one 106-tile pack (two of every number in four colours, two jokers), and a
random 14-tile rack from what is left of the pack. Measured per size:

* ``can_cover``: ``can_cover(table, rack)`` (the table must stay, the rack may add);
* ``can_cover table``: ``can_cover(table)`` (is the table valid as it stands);
* ``playable``: ``playable(table, rack)`` (the rack tiles one can add), also the
  slowest call in milliseconds;
* ``after``: ``playable_after(table + t, rack - t, t, before)`` for a random
  playable tile ``t`` (``before``: the answer above), as after a PlayTile;
* ``both``: ``cover_and_playable(table + t, rack - t, t, before)``, the same
  with whether the table may be committed as it stands (what a turn asks after
  each tile played);
* ``split``: ``split(table)``.

Then, for the initial meld (the rack alone, no table): ``best_cover(0, rack)``
and ``playable_values(0, rack)``, with and without its pre-check (``check=False``:
what the engine asks before a player has opened).

Each call is on a fresh table (``--tables`` per size); the memo tables of
cover.py are kept from call to call, as in a process playing many games, and
``--cold`` clears them before every call; ``--warmup N`` first runs every call
on N other random tables of each size (not timed; the timed tables are the same
as without it), as in a process that has already played a while. Prints calls
per second, and the median over the sizes from 10 tiles up.

    python -m experiments.cover_speed
    python -m experiments.cover_speed --tables 50 --seed 1 --cold
    python -m experiments.cover_speed --tables 30 --warmup 100
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from rummy_env import cover
from rummy_env.cards import JOKER, NUM_FACES, NUM_RANKS


def _face(colour: int, number: int) -> int:
    return colour * NUM_RANKS + number - 1


def random_meld(rng: random.Random, pool: list[int]) -> list[int] | None:
    """A random valid meld taken out of ``pool`` (counts, updated), or None."""
    for _ in range(100):
        jokers = min(rng.choice([0, 0, 0, 0, 1, 1, 2]), pool[JOKER])
        if rng.random() < 0.35:  # group
            number = rng.randint(1, 13)
            cols = [c for c in range(4) if pool[_face(c, number)]]
            nat = rng.randint(2, 4)
            if len(cols) < nat:
                continue
            j = min(jokers, 4 - nat, nat)
            if nat + j < 3:
                continue
            meld = [_face(c, number) for c in rng.sample(cols, nat)] + [JOKER] * j
        else:  # run
            colour = rng.randrange(4)
            length = rng.randint(3, 7)
            start = rng.randint(1, 14 - length)
            meld, j = [], 0
            for n in range(start, start + length):
                f = _face(colour, n)
                if pool[f] and not (j < jokers and rng.random() < 0.25):
                    meld.append(f)
                elif j < jokers:
                    meld.append(JOKER)
                    j += 1
                else:
                    meld = None
                    break
            if meld is None or len(meld) - meld.count(JOKER) < 2:
                continue
            if meld.count(JOKER) > len(meld) - meld.count(JOKER):
                continue
        for f in meld:
            pool[f] -= 1
        return meld
    return None


def random_position(rng: random.Random, size: int, rack_size: int = 14) -> tuple[list, list]:
    """``(table, rack)`` count vectors: about ``size`` table tiles in valid melds
    and ``rack_size`` random tiles from the rest of the pack."""
    pool = [2] * NUM_FACES
    table = [0] * NUM_FACES
    n = 0
    while n < size:
        meld = random_meld(rng, pool)
        if meld is None:
            break
        if n + len(meld) > size + 2:  # keep near the target size
            for f in meld:
                pool[f] += 1
            if size - n < 3:
                break
            continue
        for f in meld:
            table[f] += 1
        n += len(meld)
    rest = [f for f in range(NUM_FACES) for _ in range(pool[f])]
    rack = [0] * NUM_FACES
    for f in rng.sample(rest, rack_size):
        rack[f] += 1
    return table, rack


def _timed(fn, items, cold: bool) -> tuple[float, float]:
    """Calls per second over ``items`` and the slowest call in milliseconds."""
    t = 0.0
    worst = 0.0
    for args in items:
        if cold:
            cover.clear_caches()
        t0 = time.perf_counter()
        fn(*args)
        dt = time.perf_counter() - t0
        t += dt
        worst = max(worst, dt)
    return (len(items) / t if t > 0 else float("inf")), worst * 1000


def _after_items(positions, seed: int) -> list[tuple]:
    """``(table + t, rack - t, t, before)`` for a random playable rack tile ``t``
    of each position that has one (its own random numbers, so that the tables
    are those drawn without this column)."""
    rng = random.Random(seed)
    items = []
    for table, rack in positions:
        before = cover.playable(table, rack)
        if before:
            t = rng.choice(sorted(before))
            mand, opt = list(table), list(rack)
            mand[t] += 1
            opt[t] -= 1
            items.append((mand, opt, t, before))
    return items


def _rate(fn, items, cold: bool) -> float:
    return _timed(fn, items, cold)[0]


def _warm_up(sizes: list[int], n: int, seed: int) -> None:
    """Every measured call on ``n`` random tables of each size, from random
    numbers of their own (the timed tables stay those drawn without it)."""
    rng = random.Random(f"warm-up {seed}")
    for size in sizes:
        positions = [random_position(rng, size) for _ in range(n)]
        for table, rack in positions:
            cover.can_cover(table, rack)
            cover.can_cover(table)
            cover.split(table)
        for item in _after_items(positions, rng.randrange(1 << 30)):
            cover.cover_and_playable(*item)
    zero = [0] * NUM_FACES
    for _ in range(n):
        rack = random_position(rng, 0)[1]
        cover.best_cover(zero, rack)
        cover.playable_values(zero, rack)
    cover.DEFAULT_MEMO.results.clear()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=20, help="fresh tables per size")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sizes", default="0,10,20,30,40,50,60,70,80")
    ap.add_argument("--cold", action="store_true", help="clear the memo tables before every call")
    ap.add_argument(
        "--warmup", type=int, default=0, help="untimed tables per size run first (memo tables)"
    )
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.warmup and not args.cold:
        _warm_up(sizes, args.warmup, args.seed)
    print(
        f"{'table':>5} {'tiles':>6} {'jokers':>6} {'can_cover/s':>12} {'table only/s':>12}"
        f" {'playable/s':>11} {'slowest ms':>10} {'after/s':>8} {'both/s':>8} {'split/s':>9}"
    )
    rows = []
    for size in sizes:
        positions = [random_position(rng, size) for _ in range(args.tables)]
        tiles = sum(sum(t) for t, _r in positions) / len(positions)
        jokers = sum(t[JOKER] + r[JOKER] for t, r in positions) / len(positions)
        cc = _rate(cover.can_cover, positions, args.cold)
        ct = _rate(cover.can_cover, [(t,) for t, _r in positions], args.cold)
        pl, worst = _timed(cover.playable, positions, args.cold)
        items = _after_items(positions, args.seed + size)
        af = _rate(cover.playable_after, items, args.cold)
        cover.DEFAULT_MEMO.results.clear()  # the answers after, not those before
        for table, rack in positions:
            cover.playable(table, rack)
        bo = _rate(cover.cover_and_playable, items, args.cold)
        sp = _rate(cover.split, [(t,) for t, _r in positions], args.cold)
        print(
            f"{size:>5} {tiles:>6.1f} {jokers:>6.2f} {cc:>12.0f} {ct:>12.0f} {pl:>11.0f}"
            f" {worst:>10.1f} {af:>8.0f} {bo:>8.0f} {sp:>9.0f}"
        )
        if size >= 10:
            rows.append((cc, ct, pl, af, bo, sp))
    if rows:
        med = [statistics.median(col) for col in zip(*rows)]
        print(
            f"median over {len(rows)} sizes from 10 tiles: can_cover {med[0]:.0f}/s, table only"
            f" {med[1]:.0f}/s, playable {med[2]:.0f}/s, after {med[3]:.0f}/s, both {med[4]:.0f}/s,"
            f" split {med[5]:.0f}/s"
        )
    zero = [0] * NUM_FACES
    racks = [(zero, random_position(rng, 0)[1]) for _ in range(5 * args.tables)]
    bc = _rate(cover.best_cover, racks, args.cold)
    pv, worst = _timed(cover.playable_values, racks, args.cold)
    direct = [(*item, False) for item in racks]
    pv2, worst2 = _timed(cover.playable_values, direct, args.cold)
    print(
        f"initial meld (14-tile rack, no table): best_cover {bc:.0f}/s,"
        f" playable_values {pv:.0f}/s (slowest {worst:.1f} ms),"
        f" with check=False {pv2:.0f}/s (slowest {worst2:.1f} ms)"
    )


if __name__ == "__main__":
    main()
