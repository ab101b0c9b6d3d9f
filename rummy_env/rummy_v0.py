"""Deprecated alias of :mod:`rummy_env.rummy_v1` (``from rummy_env import rummy_v1``).

It gives the current env, whose encodings are v1's (``rummy_env.env``'s Version History).
"""

import warnings

from rummy_env.rummy_v1 import env, raw_env

warnings.warn(
    "rummy_env.rummy_v0 is deprecated: use rummy_env.rummy_v1 (the observation and action "
    "encodings changed; see rummy_env.env's Version History)",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["env", "raw_env"]
