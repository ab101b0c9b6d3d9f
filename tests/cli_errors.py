"""How a console script answers bad input: one line naming the problem, exit status 2."""

from __future__ import annotations

from collections.abc import Callable

import pytest


def usage_error(main: Callable[[list[str]], object], argv: list[str], capsys) -> str:
    """Run ``main(argv)``: it must exit with status 2 and one line on stderr, no traceback;
    that line."""
    with pytest.raises(SystemExit) as e:
        main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2, (argv, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err
