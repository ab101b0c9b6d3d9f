"""What every training run of ``experiments/`` names: its config, directory, seed and game.

The trainers' argument dataclasses (``train_es``, ``train_rllib``, ``distill``) extend
:class:`RunArgs`; ``parse_cli`` (``experiments/train_ppo.py``) reads them from flags and TOML.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class RunArgs:
    config: str | None = None
    """TOML file whose keys set these options (flags override it)"""
    exp_name: str = "run"
    """run name: the run directory is <run_dir>/<exp_name>__s<seed>"""
    seed: int = 1
    """seed of the run"""
    run_dir: str = "runs"
    """parent directory of the run"""
    preset: str = "basic"
    """rule preset (rummy_env.PRESETS)"""
    num_players: int = 2
    """players at the table"""
    rules: list[str] = field(default_factory=list)
    """RuleSet overrides as key=value"""

    @property
    def run(self) -> Path:
        return Path(self.run_dir) / f"{self.exp_name}__s{self.seed}"

    def overrides(self) -> dict[str, Any]:
        """``rules`` as keyword arguments (``["jokers=2"]`` -> ``{"jokers": 2}``)."""
        from rummy_env.rules import parse_overrides

        return parse_overrides(self.rules)

    def make_rules(self):
        """The run's :class:`~rummy_env.rules.RuleSet`."""
        from rummy_env.rules import make_rules

        return make_rules(self.preset, self.num_players, **self.overrides())
