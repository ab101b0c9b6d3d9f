"""Rummy 51 (RULES.md 4 rummy51): opening with 51 points and a pure run, the penalty for
not having opened, a match to a penalty limit.

It plays basic's turn and scoring: its opening count (``open_points``), pure run
(``open_pure_run``) and unopened penalty (``unopened_penalty``) are rule options that
basic's hooks read, so this module adds no fields, rule checks or hooks of its own (each
of ``FIELDS``, ``resolve_rules``, ``check_rules`` and ``configure`` is optional in a game
module)."""
