"""Which files and records belong to the dev split and which to the held-out split.

Tuning happens on dev only; held-out is run once, to report a figure. Keeping the
mapping in one place makes it impossible for a runner to mix them by accident.
"""

from __future__ import annotations

from typing import Literal

Split = Literal["dev", "heldout"]
SPLITS: tuple[Split, ...] = ("dev", "heldout")

SICK_FILES: dict[Split, tuple[str, ...]] = {
    "dev": ("SICK_train.txt", "SICK_trial.txt"),
    "heldout": ("SICK_test_annotated.txt",),
}
MSRP_FILES: dict[Split, tuple[str, ...]] = {
    "dev": ("msr-para-train.tsv", "msr-para-val.tsv"),
    "heldout": ("msr-para-test.tsv",),
}
STSB_FILES: dict[Split, tuple[str, ...]] = {
    "dev": ("sts-train.tsv", "sts-dev.tsv"),
    "heldout": ("sts-test.tsv",),
}
QQP_FILE = "qqp_new_dev.tsv"
# Data rows (1-based, after any header) per split: dev 1-10,000, held-out the rest.
QQP_DEV_ROWS = 10_000

LOCOMO_CONVS: dict[Split, tuple[str, ...]] = {
    "dev": ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43"),
    "heldout": ("conv-44", "conv-47", "conv-48", "conv-49", "conv-50"),
}
BEAM_CHATS: dict[Split, tuple[int, ...]] = {
    "dev": tuple(range(1, 11)),
    "heldout": tuple(range(11, 21)),
}


def check_split(split: str) -> Split:
    if split == "dev":
        return "dev"
    if split == "heldout":
        return "heldout"
    raise ValueError(f"split must be dev or heldout, got {split!r}")
