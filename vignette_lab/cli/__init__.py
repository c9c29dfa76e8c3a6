"""``vignette-lab`` command line: a thin click layer over library functions.

- :mod:`vignette_lab.cli._base` — the error mapping (any
  :class:`~vignette_lab.errors.VignetteError` → one ``Error: …`` line, exit code 1), ``open_db``
  (closed when the command ends) and the shared option decorators;
- :mod:`vignette_lab.cli.core` — the group :data:`main` and ``init``, ``doctor``, ``backup``;
- one module per area: :mod:`~vignette_lab.cli.kb`, :mod:`~vignette_lab.cli.session`,
  :mod:`~vignette_lab.cli.pipeline`, :mod:`~vignette_lab.cli.analytics`, :mod:`~vignette_lab.cli.app`;
- :mod:`vignette_lab.cli.worker` — the warm local worker that serves the session commands of
  console calls (the group callback hands them over before the PII gate is even imported).

Every area command is registered below, explicitly. The area modules import only click and
``_base`` at module level (the library modules behind each command are imported when it
runs), so ``vignette-lab --help`` stays fast; nothing imports this package back.
"""

from __future__ import annotations

from vignette_lab.cli import analytics, app, kb, pipeline, session, worker
from vignette_lab.cli._base import open_db
from vignette_lab.cli.core import LONG_LIVED_COMMANDS, doctor_report, main

__all__ = ["AREA_COMMANDS", "LONG_LIVED_COMMANDS", "doctor_report", "main", "open_db"]

#: the area commands, in ``--help`` order within each area
AREA_COMMANDS = (
    kb.kb,
    session.selfplay, session.session,
    pipeline.scheme, pipeline.dataset, pipeline.annotations, pipeline.annotate, pipeline.iaa, pipeline.gate,
    pipeline.export, pipeline.import_, pipeline.pipeline, pipeline.review,
    analytics.report, analytics.drift,
    app.serve, app.users,
    worker.worker,
)

for _command in AREA_COMMANDS:
    main.add_command(_command)
