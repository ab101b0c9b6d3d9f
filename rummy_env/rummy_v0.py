"""Versioned alias, as PettingZoo names its envs: ``from rummy_env import rummy_v0``."""

from rummy_env.env import env, raw_env

__all__ = ["env", "raw_env"]
