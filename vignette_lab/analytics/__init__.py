"""Drift and longitudinal analytics.

:mod:`vignette_lab.analytics.label_drift` measures how label distributions and AI-annotator
agreement with human gold move between model versions and over time (PSI, Jensen-Shannon,
chi-square, per-label rate shifts, kappa per period).
"""
