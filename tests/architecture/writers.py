"""Which module writes which table, read from the source (no import, no database).

A module writes a table when it builds an ORM write on the table's model
(``insert(Model)``, ``update(Model)``, ``delete(Model)``, ``Model(...)`` rows to add; a
write whose target is a variable, as ``session.delete(row)``, counts for every model the
module names) or
holds a raw statement that starts one (``INSERT INTO t``, ``UPDATE t``, ``DELETE FROM t``,
``TRUNCATE t``). An attribute write on a loaded row (``row.x = y``) cannot be told apart
by reading, so the import rules add the other half: only repositories import the models
(``pyproject.toml``, contract "Only repositories touch the tables").
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "libs/common/src/idp_common/storage/db/models"
SOURCES = [ROOT / "libs/common/src", *sorted((ROOT / "services").glob("*/src"))]
_ORM_WRITES = {"insert", "update", "delete", "pg_insert"}
# SQL keywords in capitals, as every statement of this code base writes them (prose in
# docstrings says "update the users" in lower case and is skipped anyway).
_RAW_WRITE = re.compile(r"\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)\s+(\w+)")
_RAW_ANY = re.compile(r"\b(?:FROM|JOIN|INSERT\s+INTO|UPDATE)\s+(\w+)")


def table_of_model() -> dict[str, str]:
    """``{"RefreshToken": "refresh_tokens", ...}`` from the models' ``__tablename__``."""
    tables: dict[str, str] = {}
    for path in MODELS.glob("_*.py"):
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, ast.ClassDef):
                continue
            for statement in node.body:
                if (
                    isinstance(statement, ast.Assign)
                    and any(getattr(t, "id", None) == "__tablename__" for t in statement.targets)
                    and isinstance(statement.value, ast.Constant)
                ):
                    tables[node.name] = str(statement.value.value)
    return tables


def source_modules() -> Iterator[tuple[str, ast.Module]]:
    """Every module of the shipped code but the migrations, as (dotted name, tree)."""
    for base in SOURCES:
        for path in sorted(base.rglob("*.py")):
            relative = path.relative_to(base)
            if "migrations" in relative.parts:
                continue
            name = ".".join(relative.with_suffix("").parts).removesuffix(".__init__")
            yield name, ast.parse(path.read_text())


def _called_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _docstrings(tree: ast.Module) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _strings(tree: ast.Module) -> Iterator[str]:
    """String constants that are not docstrings."""
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            yield node.value


def _orm_write_target(node: ast.Call) -> ast.expr | None:
    if _called_name(node) in _ORM_WRITES and node.args:
        return node.args[0]
    return None


def generic_writers(trees: list[ast.Module], models: dict[str, str]) -> set[str]:
    """Functions and classes that write a table their caller names: their ORM write's
    target is a parameter (``insert(owner.class_)``, ``delete(self.model)``), not a model."""
    found: set[str] = set()
    for tree in trees:
        for scope in ast.walk(tree):
            if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            for node in ast.walk(scope):
                target = isinstance(node, ast.Call) and _orm_write_target(node)
                if isinstance(target, ast.Attribute) and not (
                    isinstance(target.value, ast.Name) and target.value.id in models
                ):
                    found.add(scope.name)
    return found - _ORM_WRITES  # a method named delete is not every delete()


def _model_of(argument: ast.expr, models: dict[str, str]) -> str | None:
    """``Model`` or ``Model.column`` as an argument: the model's table."""
    if isinstance(argument, ast.Attribute):
        argument = argument.value
    if isinstance(argument, ast.Name) and argument.id in models:
        return models[argument.id]
    return None


def writes_of(tree: ast.Module, models: dict[str, str], generic: set[str]) -> set[str]:
    """The tables one module writes, itself or through a generic writer."""
    tables = set(models.values())
    written: set[str] = set()
    named = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id in models}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _called_name(node)
        target = _orm_write_target(node)
        if name in models:
            written.add(models[name])
        elif name in generic:
            arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
            written.update(t for a in arguments if (t := _model_of(a, models)))
        elif isinstance(target, ast.Name) and target.id in models:
            written.add(models[target.id])
        elif isinstance(target, ast.Name):
            # delete(model) over a loop variable, session.delete(row): any table the
            # module names may be the one written.
            written.update(models[name] for name in named)
        elif (
            isinstance(target, ast.Attribute)
            and target.attr == "__table__"
            and (table := _model_of(target.value, models)) is not None
        ):
            written.add(table)
    for text in _strings(tree):
        written.update(t for t in _RAW_WRITE.findall(text) if t in tables)
    return written


def raw_sql_tables(tree: ast.Module, tables: set[str]) -> set[str]:
    """Tables a module names in SQL text of its own (reads included)."""
    found: set[str] = set()
    for text in _strings(tree):
        found.update(t for t in _RAW_ANY.findall(text) if t in tables)
    return found


def writers() -> dict[str, set[str]]:
    """``{table: {module, ...}}`` over the shipped code."""
    models = table_of_model()
    modules = list(source_modules())
    generic = generic_writers([tree for _, tree in modules], models)
    result: dict[str, set[str]] = defaultdict(set)
    for module, tree in modules:
        for table in writes_of(tree, models, generic):
            result[table].add(module)
    return result
