"""The shared library holds only what is shared (docs/architecture.md "Layout"): every
module of ``idp_common`` is reached by two or more of its users, the services and the
library's own command line (``idp_common.operations``: migrations, keys, seeding, serving
any service). A module reached by one service only belongs in that service.

"Reached" follows imports through the library: a module that only another shared module
imports is reached by whoever reaches that one. Read from the source; no stack is started.
"""

from __future__ import annotations

import ast
from collections import defaultdict

from tests.architecture.writers import source_modules

#: The library's own users besides the services (a package of idp_common).
_COMMAND_LINE = "idp_common.operations"


def _imported(name: str, tree: ast.Module, known: set[str], packages: set[str]) -> set[str]:
    """The modules of ``known`` that the module ``name`` imports (a package's import of a
    name inside it counts as the module of that name when there is one)."""
    package = name if name in packages else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        found.update(_nearest_module(target, known) for target in targets)
    found.discard("")
    return found


def _nearest_module(target: str, known: set[str]) -> str:
    """``target`` or the module holding the name it ends with ("" when none is ours)."""
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target


def _user_of(module: str) -> str | None:
    """The user a module speaks for: its service's package, or the command line."""
    if module == _COMMAND_LINE or module.startswith(_COMMAND_LINE + "."):
        return _COMMAND_LINE
    if module.startswith("idp_common"):
        return None
    return module.split(".", 1)[0]


def reach() -> dict[str, set[str]]:
    """Each module of ``idp_common`` (outside the command line) -> the users reaching it."""
    trees = dict(source_modules())
    known = set(trees)
    packages = {name.rsplit(".", 1)[0] for name in known}
    imports = {name: _imported(name, tree, known, packages) for name, tree in trees.items()}
    reached: dict[str, set[str]] = defaultdict(set)
    for name in trees:
        user = _user_of(name)
        if user is None:
            continue
        stack, seen = list(imports[name]), set[str]()
        while stack:
            module = stack.pop()
            if module in seen or not module.startswith("idp_common"):
                continue
            seen.add(module)
            reached[module].add(user)
            stack.extend(imports[module])
    return {
        name: reached[name]
        for name in trees
        if name.startswith("idp_common") and _user_of(name) is None
    }


def test_every_shared_module_serves_two_users_or_more() -> None:
    alone = {name: sorted(users) for name, users in reach().items() if len(users) == 1}
    assert alone == {}, "modules of idp_common that one user only reaches: move them into it"


def test_the_check_sees_the_services_and_the_command_line() -> None:
    # the check above would pass vacuously if it found no users
    users = set().union(*reach().values())
    assert {"token_service", "admin_service", "entity_service", _COMMAND_LINE} <= users
