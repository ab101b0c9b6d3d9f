"""Rummy 51 (RULES.md 4 rummy51): opening with 51 points and a pure run, the penalty for
not having opened, a match to a penalty limit."""

from __future__ import annotations

from rummy_env.engine.game import Game
from rummy_env.rules import RuleSet

FIELDS = ()  # (no fields of its own)


def resolve_rules(r: RuleSet) -> None:
    """Rummy 51's deal is its preset's (two decks, 14 cards)."""


def check_rules(r: RuleSet) -> None:
    """Rummy 51's opening fields are checked with the melds (basic: an opening needs sets
    of different suits)."""


def configure(rules: RuleSet, g: Game) -> None:
    """Rummy 51 plays basic's turn and scoring; its opening count and unopened penalty are
    rule options the core reads."""
