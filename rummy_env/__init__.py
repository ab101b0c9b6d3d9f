"""rummy-env: the rummy family of card games as PettingZoo AEC environments.

```python
import rummy_env
env = rummy_env.env("basic", num_players=2)
```
See the README for the observation and action tables.
"""

from rummy_env import cards
from rummy_env.engine import IllegalActionError
from rummy_env.env import env, legal_moves, raw_env
from rummy_env.rules import PRESETS, RuleSet, make_rules
from rummy_env.vector_env import VectorEnv, vector_env

__all__ = [
    "IllegalActionError",
    "PRESETS",
    "RuleSet",
    "VectorEnv",
    "cards",
    "env",
    "legal_moves",
    "make_rules",
    "raw_env",
    "vector_env",
]
__version__ = "0.1.0"
