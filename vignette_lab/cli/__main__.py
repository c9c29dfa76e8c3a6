"""``python -m vignette_lab.cli`` — the same as the ``vignette-lab`` entry point."""

from vignette_lab.cli import main

if __name__ == "__main__":  # importing the module (e.g. walking the package) runs nothing
    main()
