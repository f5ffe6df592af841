"""Datasets as sources of record through the library API: register, list, show, refresh, remove.

A dataset is a file of edges (TSV, CSV, JSON Lines, or a KGX ``nodes.tsv``/``edges.tsv`` pair)
recorded by one small committed note, ``datasets/<name>.md``; its edges are indexed outside git
and consulted by ``fact_query``, ``fact_verify``, ``recall`` and ``context`` beside the notes
(docs/datasets.md). Each function returns a frozen dataclass whose ``as_json()`` is what
``biocortex dataset …`` prints with ``--json``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from biocortex_cli.api.checks import UNIT, Choice, checked

if TYPE_CHECKING:
    from biocortex_cli.facts.datasets import Progress
    from biocortex_cli.facts.datasets_index import Notice
    from biocortex_cli.facts.datasets_registry import DatasetStatus, Refreshed, Registered, Removed
    from biocortex_cli.store.git import Author
    from biocortex_cli.store.vault import Vault

FORMAT = Choice(("tsv", "csv", "jsonl", "kgx"))


@dataclass(frozen=True)
class DatasetList:
    """The registered datasets, each with its state on this machine."""

    datasets: tuple[DatasetStatus, ...]

    def as_json(self) -> list[dict[str, Any]]:
        return [s.as_json() for s in self.datasets]


@dataclass(frozen=True)
class DatasetRefresh:
    """What ``dataset_refresh`` did per dataset; ``problems`` counts missing or changed files."""

    datasets: tuple[Refreshed, ...]

    @property
    def problems(self) -> int:
        return sum(r.problem for r in self.datasets)

    def as_json(self) -> list[dict[str, Any]]:
        return [r.as_json() for r in self.datasets]


@checked(confidence=UNIT, format=FORMAT)
def dataset_add(vault: Vault, *, path: str, name: str, version: str, licence: str, author: Author,
                format: str | None = None, header: bool = True, columns: Mapping[str, str] | None = None,
                predicate_map: Mapping[str, str] | None = None, predicate: str | None = None,
                qualifiers: Mapping[str, str] | None = None, confidence: float | None = None,
                title: str = "", url: str = "", progress: Progress | None = None) -> Registered:
    """Register the file at ``path`` as dataset ``name`` (its version and licence required): index
    its edges outside git, then commit one note, ``datasets/<name>.md``. ``columns`` maps fields
    to columns (``subject`` → ``TF``, or a 1-based number without ``header``), ``predicate_map``
    values to predicates (``Activation`` → ``activates``); ``qualifiers`` hold for every row."""
    from biocortex_cli.facts.datasets_registry import add_dataset

    return add_dataset(vault, path, name=name, version=version, licence=licence, author=author,
                       columns=dict(columns or {}), predicates=dict(predicate_map or {}), predicate=predicate,
                       qualifiers=dict(qualifiers or {}), fmt=format, header=header, confidence=confidence,
                       title=title, url=url, progress=progress)


def dataset_list(vault: Vault) -> DatasetList:
    """The registered datasets and whether each can answer on this machine (notes that cannot be
    read are skipped with a warning on stderr)."""
    from biocortex_cli.facts.datasets_registry import statuses

    found, problems = statuses(vault)
    for problem in problems:
        sys.stderr.write(f"biocortex: warning: {problem.location()}{problem.message} (run `biocortex check`)\n")
    return DatasetList(tuple(found))


def dataset_show(vault: Vault, *, name: str) -> DatasetStatus:
    """One dataset: its record (source, licence, file, checksum, mapping) and its state here."""
    from biocortex_cli.facts.datasets import find_dataset
    from biocortex_cli.facts.datasets_registry import dataset_status

    return dataset_status(vault, find_dataset(vault, name))


def dataset_refresh(vault: Vault, *, names: Sequence[str] = (), author: Author, path: str | None = None,
                    accept_change: bool = False, version: str | None = None, rebuild: bool = False,
                    progress: Progress | None = None, notice: Notice | None = None) -> DatasetRefresh:
    """Check each dataset's file (all when ``names`` is empty) against its note and index what is
    missing or out of date; ``path`` gives one dataset's file a new place, ``accept_change``
    registers the file as it is now (a new release: give ``version``). Note changes: one commit."""
    from biocortex_cli.facts.datasets_registry import refresh_datasets

    return DatasetRefresh(tuple(refresh_datasets(vault, list(names), author=author, path=path,
                                                 accept_change=accept_change, version=version, rebuild=rebuild,
                                                 progress=progress, notice=notice)))


def dataset_remove(vault: Vault, *, name: str, reason: str, author: Author) -> Removed:
    """Stop answering from a dataset: its note moves to ``archive/datasets/`` (nothing is deleted;
    the file is not touched), its derived index is dropped."""
    from biocortex_cli.facts.datasets_registry import remove_dataset

    return remove_dataset(vault, name, reason=reason, author=author)
