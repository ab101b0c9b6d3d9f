"""State fields declared once.

A :class:`Field` names a piece of a game's state beyond the cards: its start value, when
it starts anew (each round, or once a game), its kind (how ``to_dict`` writes it and how
a saved state is read back and range-checked), and, for a field a game owns, the rules
under which it is used (elsewhere it must hold its start value). The state's slots, its
``copy``, its start of game and of round, ``to_dict``, restoring and that check all come
from the declarations: the core's in :data:`rummy_env.engine.state.CORE_FIELDS`, each
game's in its module's ``FIELDS`` (:mod:`rummy_env.variants`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from rummy_env.cards import card_str, counts_str, face_counts
from rummy_env.rules import RuleSet


class Kind(NamedTuple):
    """How a kind of value is written to ``to_dict`` data and read back (``read(saved,
    key, value, lo, hi)``, a ValueError naming the key when it is not allowed)."""

    dump: Callable[[Any], Any]
    read: Callable[[Any, str, Any, int | None, int | None], Any]


def _same(v: Any) -> Any:
    return v


def _read_text(f: Any, key: str, v: Any, lo: int | None, hi: int | None) -> str | None:
    if v is not None and not isinstance(v, str):
        raise f.error(key, v, "None or a string (why the round ended)")
    return v


INT = Kind(_same, lambda f, key, v, lo, hi: f.integer(key, v, lo, hi))
FLAG = Kind(_same, lambda f, key, v, lo, hi: f.flag(key, v))
#: a seat or None
SEAT = Kind(_same, lambda f, key, v, lo, hi: f.seat(key, v, none=True))
#: a seat, -1 for none (None in ``to_dict``)
SEAT_OR_NONE = Kind(
    lambda v: None if v < 0 else v, lambda f, key, v, lo, hi: -1 if v is None else f.seat(key, v)
)
#: an integer >= lo, -1 for none (None in ``to_dict``)
INT_OR_NONE = Kind(
    lambda v: None if v < 0 else v,
    lambda f, key, v, lo, hi: -1 if v is None else f.integer(key, v, lo, hi),
)
#: a card face, -1 for none (None in ``to_dict``)
CARD = Kind(lambda v: card_str(v) if v >= 0 else None, lambda f, key, v, lo, hi: f.card(key, v))
#: a count vector over the faces (a list of cards in ``to_dict``)
FACES = Kind(counts_str, lambda f, key, v, lo, hi: face_counts(f.cards(key, v)))
#: None or a string
TEXT = Kind(_same, _read_text)

Bound = int | None | Callable[[RuleSet], int | None]


class Field(NamedTuple):
    """One state field (see the module docstring).

    ``start`` is the value a round (or, with ``scope="game"``, a game) starts with, or a
    function of the rules giving it; per seat (``per_seat``) each seat starts with it.
    ``lo``/``hi`` bound an integer (or functions of the rules). ``saved=False``: a hint
    the engine keeps for itself, not in ``to_dict``. ``used``: the rules under which the
    field may leave its start value (None: always); ``unused`` says why it may not.
    """

    name: str
    kind: Kind
    start: Any
    per_seat: bool = False
    scope: str = "round"
    lo: Bound = None
    hi: Bound = None
    saved: bool = True
    used: Callable[[RuleSet], bool] | None = None
    unused: str = ""

    def start_value(self, rules: RuleSet) -> Any:
        return self.start(rules) if callable(self.start) else self.start

    def bounds(self, rules: RuleSet) -> tuple[int | None, int | None]:
        lo, hi = self.lo, self.hi
        return (lo(rules) if callable(lo) else lo, hi(rules) if callable(hi) else hi)

    def fresh(self, value: Any, n: int) -> Any:
        """A new start value for ``n`` seats (lists are never shared between states)."""
        if self.per_seat:
            return [value] * n
        return value[:] if isinstance(value, list) else value

    def dump(self, value: Any) -> Any:
        if self.per_seat:
            return [self.kind.dump(v) for v in value]
        return self.kind.dump(value)

    def read(self, f: Any, rules: RuleSet) -> Any:
        """The field read from saved state data ``f`` (its start value when absent)."""
        lo, hi = self.bounds(rules)
        start = self.dump(self.fresh(self.start_value(rules), rules.num_players))
        read = self.kind.read
        if self.per_seat:
            return f.per_seat(self.name, start, lambda k, v: read(f, k, v, lo, hi))
        return read(f, self.name, f.d.get(self.name, start), lo, hi)


def start_source(fields: tuple[Field, ...], name: str) -> str:
    """A function ``name(s, v, n)`` that sets each of ``fields`` on state ``s`` to its
    start value ``v[i]`` for ``n`` seats (new lists, never shared)."""
    lines = [f"def {name}(s, v, n):"]
    for i, f in enumerate(fields):
        if f.per_seat:
            lines.append(f"    s.{f.name} = [v[{i}]] * n")
        elif f.kind is FACES:
            lines.append(f"    s.{f.name} = v[{i}][:]")
        else:
            lines.append(f"    s.{f.name} = v[{i}]")
    return "\n".join(lines or ["    pass"])


def copy_source(fields: tuple[Field, ...]) -> str:
    """The lines of a ``copy`` method's body that copy ``fields`` from ``self`` to ``c``."""
    return "\n".join(
        f"    c.{f.name} = self.{f.name}[:]"
        if f.per_seat or f.kind is FACES
        else f"    c.{f.name} = self.{f.name}"
        for f in fields
    )
