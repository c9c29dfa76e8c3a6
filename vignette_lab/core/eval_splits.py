"""Which dev splits an evaluation set has: found from the file names, never listed by hand.

Every evaluation set under ``datasets/eval/<set>/`` keeps its tuning material as ``dev.jsonl``
(written by the tuner) and ``dev_r1.jsonl``, ``dev_r2.jsonl``, … (an earlier round's held-out
split, made dev material after its scores were read); the PII set pairs each with a
``clean_dev*.jsonl`` file of ordinary sentences. A held-out split is ``test.jsonl`` /
``clean_test.jsonl`` and never matches, so a round's test file cannot enter tuning or training by
being present, and a dev round added later cannot be forgotten in one of the scripts that read them.

Examples
--------
>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> for name in ("dev_r10.jsonl", "dev.jsonl", "dev_r2.jsonl", "test.jsonl", "clean_dev_r2.jsonl", "dev_x.jsonl"):
...     _ = (folder / name).write_text("")
>>> dev_splits(folder)
('dev', 'dev_r2', 'dev_r10')
>>> dev_splits(folder, prefix="clean_")
('dev_r2',)
>>> split_round("dev_r10"), split_round("dev"), split_round("test")
(10, 0, None)
"""

from __future__ import annotations

import re
from pathlib import Path

from vignette_lab.core.taxonomy import datasets_dir

__all__ = ["dev_splits", "eval_dir", "newest_dev_split", "split_round"]

_NAME = re.compile(r"dev(?:_r(?P<round>[1-9][0-9]*))?")


def eval_dir(set_name: str) -> Path:
    """``datasets/eval/<set_name>`` (``pii``, ``evaluator``, ``client_probes``, ``drift``, …)."""
    return datasets_dir() / "eval" / set_name


def split_round(name: str) -> int | None:
    """The round of a dev split's name: ``dev_r7`` -> 7, ``dev`` -> 0, anything else (``test``) -> None."""
    m = _NAME.fullmatch(name)
    return None if m is None else int(m["round"] or 0)


def dev_splits(folder: str | Path, *, prefix: str = "") -> tuple[str, ...]:
    """The dev split names in ``folder`` (``dev``, then ``dev_r1`` … by round number).

    ``prefix`` selects a paired family (``"clean_"`` for the PII set's ordinary sentences); the
    names are returned without it, so ``f"{prefix}{name}.jsonl"`` is the file.
    """
    found = []
    for path in Path(folder).glob(f"{prefix}dev*.jsonl"):
        name = path.name[len(prefix):-len(".jsonl")]
        if (n := split_round(name)) is not None:
            found.append((n, name))
    return tuple(name for _, name in sorted(found))


def newest_dev_split(folder: str | Path, *, prefix: str = "") -> str | None:
    """The highest-numbered dev round in ``folder`` (``None`` when there is none)."""
    names = dev_splits(folder, prefix=prefix)
    return names[-1] if names else None
