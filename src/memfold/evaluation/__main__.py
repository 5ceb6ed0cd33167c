"""``python -m memfold.evaluation``: the same command as ``memfold eval``."""

from __future__ import annotations

import sys

from memfold.cli import main

if __name__ == "__main__":
    main(["eval", *sys.argv[1:]])
