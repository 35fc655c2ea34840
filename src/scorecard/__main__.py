"""``python -m scorecard``: the same as the ``scorecard`` console script."""

from scorecard.cli import main

main()
