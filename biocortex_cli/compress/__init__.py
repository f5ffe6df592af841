"""Working memory: ``biocortex compress`` keeps an agent's conversation inside a token budget.

``formats`` parses and re-serialises conversations (OpenAI, Anthropic, JSON Lines), ``models``
knows context windows and the auto budget, ``summarize`` writes the summary of the oldest
messages, ``engine`` decides what is kept and guarantees the budget, ``service`` wires the input
and the vault's settings to them. See docs/compress.md.
"""
