"""Hypothesis draws the same examples on every run (``derandomize``), so that whether the
suite passes does not depend on the day's draw; ``HYPOTHESIS_PROFILE=explore`` draws new
examples each run, which is how to hunt for new failures."""

import os

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))
