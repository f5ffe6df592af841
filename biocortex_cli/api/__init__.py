"""The library API of biocortex: what the CLI commands and the MCP tools call.

Every function takes the vault (``store.vault.Vault``; ``find_vault`` finds it) and keyword
arguments, checks them (ranges and choices are declared once, :mod:`.checks`), calls the core
and returns a frozen dataclass whose ``as_json()`` is exactly the JSON the matching command
prints with ``--json`` and the MCP tool of the same name returns. Writes take an ``author``
(``vault.author()``) and are one git commit each. Expected failures raise
:class:`biocortex_cli.errors.BiocortexError` (message, path, line, hint); warnings about notes
that cannot be read go to stderr.

Modules, one per part of memory (each imports the core lazily, inside its functions, so a
command pays only for what it uses):

- :mod:`.episodes`: ``episode_record``, ``episode_add``, ``episode_import``, ``episode_show``,
  ``episode_list``, ``episode_related``, ``suggest_related``
- :mod:`.recall`: ``recall``, ``context`` (``vault_text``: a file inside the vault), ``feedback``,
  ``retract_feedback``, ``compress``, ``evaluate``
- :mod:`.facts`: ``fact_add``, ``fact_import``, ``fact_query``, ``fact_list``, ``fact_retract``,
  ``fact_supersede``, ``fact_unsource``, ``fact_verify``, ``fact_contests``, ``entity_show``,
  ``entity_alias``, ``entity_merge``, ``entity_import``
- :mod:`.datasets`: ``dataset_add``, ``dataset_list``, ``dataset_show``, ``dataset_refresh``,
  ``dataset_remove``
- :mod:`.lessons`: ``lessons``, ``lesson_promote``, ``lessons_refresh``
- :mod:`.vault`: ``index``, ``index_stale``, ``check``, ``doctor``, ``log``, ``sync``, ``forget``,
  ``restore``, ``guide``, ``init``, ``clone``
- :mod:`.vocabulary`: ``vocabulary_suggest``, ``vocabulary_accept``, ``vocabulary_remove``,
  ``vocabulary_show``, ``vocabulary_check``

Example::

    from biocortex_cli.api.recall import recall
    from biocortex_cli.store.vault import find_vault

    vault = find_vault("lab-memory")
    print(recall(vault, query="doublets in 10x multiome", budget=1500).result.context)
"""
