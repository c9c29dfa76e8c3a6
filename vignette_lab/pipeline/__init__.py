"""The data-set pipeline: data sets, annotation rounds, review, agreement, gate, golden set, export.

The modules follow the research loop of ``DESIGN.md``: sessions become data-set items, an AI
round proposes labels, humans review them, :mod:`vignette_lab.pipeline.iaa` measures agreement
(Cohen's and Fleiss' kappa, Gwet's AC1, Krippendorff's alpha, ICC, with confidence intervals),
the gate decides, disagreements are adjudicated, and the golden set is exported as JSONL.
"""
