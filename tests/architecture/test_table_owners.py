"""Each table has one owner (issue #20): the module that docs/architecture.md names for it
is the only one that writes it, and SQL lives in repositories only.

Read from the source with :mod:`tests.architecture.writers`; no stack is started.
"""

from __future__ import annotations

import re

from tests.architecture.writers import (
    ROOT,
    raw_sql_tables,
    source_modules,
    table_of_model,
    writers,
)

_MAP_ROW = re.compile(r"^\|\s*`(\w+)`\s*\|\s*`([\w.]+)`\s*\|", re.M)


def documented_owners() -> dict[str, str]:
    """The table -> owner rows of docs/architecture.md ("Who writes each table")."""
    text = (ROOT / "docs/architecture.md").read_text()
    section = text.split("## Who writes each table", 1)[1].split("\n## ", 1)[0]
    return dict(_MAP_ROW.findall(section))


def is_repository(module: str) -> bool:
    """Repositories: ``idp_common.storage`` and a service's own ``repos`` package."""
    return module.startswith("idp_common.storage.") or ".repos." in module


def test_the_map_names_every_table_once() -> None:
    assert sorted(documented_owners()) == sorted(set(table_of_model().values()))


def test_each_table_is_written_by_its_owner_only() -> None:
    owners = documented_owners()
    found = writers()
    wrong = {
        table: sorted(found.get(table, set()))
        for table in table_of_model().values()
        if found.get(table, set()) != {owners.get(table)}
    }
    assert wrong == {}


def test_every_owner_is_a_repository() -> None:
    assert [m for m in documented_owners().values() if not is_repository(m)] == []


def test_sql_text_stays_in_repositories() -> None:
    tables = set(table_of_model().values())
    outside = {
        module: sorted(named)
        for module, tree in source_modules()
        if not is_repository(module) and (named := raw_sql_tables(tree, tables))
    }
    assert outside == {}
