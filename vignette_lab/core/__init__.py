"""Pure domain core: message model, taxonomy, persona cards, state machine and guardrails."""
