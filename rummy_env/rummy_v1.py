"""Versioned alias, as PettingZoo names its envs: ``from rummy_env import rummy_v1``.

The version changes when the observation or action encoding does (the Version History
of ``rummy_env.env``'s docstring).
"""

from rummy_env.env import env, raw_env

__all__ = ["env", "raw_env"]
