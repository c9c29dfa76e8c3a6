"""Panel workbench: trainee session, self-play, review and agreement pages (see docs/app.md).

Importing this package does not start a server; use :func:`vignette_lab.app.serve.serve` or
``vignette-lab serve``.
"""
