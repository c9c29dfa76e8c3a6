"""``python -m vignette_lab.cli`` — the same as the ``vignette-lab`` entry point."""

from vignette_lab.cli import main

main()
