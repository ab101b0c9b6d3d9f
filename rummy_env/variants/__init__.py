"""One module per game family: what is particular to each game.

Each module may have ``FIELDS`` (its state fields), ``resolve_rules(rules)`` and
``check_rules(rules)`` (its rule fields), and ``configure(rules, game)``, which sets the
hooks of :class:`rummy_env.engine.game.Game` that its game changes when ``rules`` play it;
:data:`FAMILIES` orders them (a later one builds on what the earlier ones set) and
:data:`GAMES` ties each preset to its module.
"""

from __future__ import annotations

from rummy_env.variants import basic, canasta, contract, gin, indian, rummikub, rummy51, rummy500

#: every game module, in the order their ``configure`` runs (basic first: it sets every hook)
FAMILIES = (basic, rummy500, rummy51, gin, indian, contract, rummikub, canasta)

#: preset -> the module of its game (one line per game)
GAMES = {
    "basic": basic,
    "deuces": basic,
    "rummy500": rummy500,
    "persian": rummy500,
    "rummy51": rummy51,
    "gin": gin,
    "indian": indian,
    "contract": contract,
    "rummikub": rummikub,
    "canasta": canasta,
}
