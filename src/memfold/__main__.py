"""``python -m memfold``: the command line, as the ``memfold`` script."""

from memfold.cli import main

main()
