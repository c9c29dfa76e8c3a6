"""Pure domain core: message model, taxonomy, persona cards, state machine and guardrails."""

from vignette_lab.core import _re_table

# before any module of the gate compiles a pattern: the shipped compilations (core/re_table.json)
_re_table.install()
