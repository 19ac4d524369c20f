"""Requests carrying values PostgreSQL cannot store, built from a service's own OpenAPI
document (``test_hostile_values.py``).

For every operation: each string path or query parameter holding a NUL, each integer
query parameter far out of range, and each member of the JSON body (filled from its
schema) holding a NUL, or an integer out of ``integer``'s and ``bigint``'s range. Path
parameters are real ids where the test made one, so the request reaches the code behind
the lookup.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

NUL_TEXT = "a\x00b"
OUT_OF_RANGE = (2**31, 2**63, -(2**63) - 1)
_DEPTH = 6


def _text(schema: Mapping[str, Any]) -> str:
    """A text of the schema's lengths, new each time (a name is not taken already)."""
    text = f"x{uuid.uuid4().hex}"[: schema.get("maxLength", 9)]
    return text.ljust(schema.get("minLength", 1), "x")


@dataclass(frozen=True)
class Probe:
    method: str
    path: str
    query: Mapping[str, str]
    body: Any
    what: str


class Schemas:
    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document

    def resolve(self, schema: Any) -> dict[str, Any]:
        while isinstance(schema, dict) and "$ref" in schema:
            schema = self.document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        return schema if isinstance(schema, dict) else {}

    def kind(self, schema: dict[str, Any]) -> str | None:
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), None)
        return kind

    def options(self, schema: dict[str, Any]) -> list[dict[str, Any]]:
        found = [self.resolve(o) for o in schema.get("oneOf", schema.get("anyOf", []))]
        return [o for o in found if self.kind(o) != "null"]

    def sample(self, raw: Any, depth: int = 0) -> Any:
        """A value of ``raw``: the required members only, the first enum value."""
        schema = self.resolve(raw)
        if depth > _DEPTH:
            return None
        if options := self.options(schema):
            return self.sample(options[0], depth + 1)
        if "enum" in schema:
            return schema["enum"][0]
        return self._sample_of(schema, self.kind(schema), depth)

    def _sample_of(self, schema: dict[str, Any], kind: str | None, depth: int) -> Any:
        if kind == "object":
            required = set(schema.get("required", []))
            members = schema.get("properties", {}).items()
            return {k: self.sample(v, depth + 1) for k, v in members if k in required}
        if kind == "array":
            return [self.sample(schema.get("items", {}), depth + 1)] * max(
                1, schema.get("minItems", 1)
            )
        if kind == "string":
            return {"uuid": str(uuid.uuid4()), "date-time": "2024-01-01T00:00:00Z"}.get(
                schema.get("format", ""), _text(schema)
            )
        if kind in ("integer", "number"):
            return max(1, schema.get("minimum", 1))
        return False if kind == "boolean" else None

    def hostile(
        self, raw: Any, value: Any, path: str = "", depth: int = 0
    ) -> Iterator[tuple[str, Any]]:
        """``(member, body)``: the body with one member made hostile."""
        schema = self.resolve(raw)
        if depth > _DEPTH:
            return
        if options := self.options(schema):
            for option in options:
                yield from self.hostile(option, value, path, depth + 1)
            return
        kind = self.kind(schema)
        if kind == "object":
            base = dict(value) if isinstance(value, dict) else {}
            for key, member in schema.get("properties", {}).items():
                now = base.get(key, self.sample(member))
                inner = f"{path}.{key}" if path else key
                for where, changed in self.hostile(member, now, inner, depth + 1):
                    yield where, {**base, key: changed}
        elif kind == "array":
            item = self.resolve(schema.get("items", {}))
            first = value[0] if isinstance(value, list) and value else self.sample(item)
            for where, changed in self.hostile(item, first, f"{path}[0]", depth + 1):
                yield where, [changed]
        elif kind == "string" and "enum" not in schema:
            yield path, NUL_TEXT
        elif kind == "integer":
            for number in OUT_OF_RANGE:
                yield f"{path}={number}", number


def _url(template: str, path: Mapping[str, str]) -> str:
    for name, value in path.items():
        template = template.replace("{" + name + "}", value.replace("\x00", "%00"))
    return template


def _parameter_probes(
    schemas: Schemas,
    method: str,
    template: str,
    operation: Mapping[str, Any],
    ids: Mapping[str, str],
) -> Iterator[Probe]:
    parameters = operation.get("parameters", [])
    real = {
        p["name"]: ids.get(p["name"], str(uuid.uuid4())) for p in parameters if p["in"] == "path"
    }
    body = _body_schema(operation)
    sent = schemas.sample(body) if body else None
    yield Probe(method, _url(template, real), {}, sent, "as is")
    for parameter in parameters:
        name = parameter["name"]
        kind = schemas.kind(schemas.resolve(parameter.get("schema", {})))
        if parameter["in"] == "path":
            url = _url(template, {**real, name: NUL_TEXT})
            yield Probe(method, url, {}, sent, f"path {name}")
        elif parameter["in"] == "query" and kind == "integer":
            for number in OUT_OF_RANGE:
                url = _url(template, real)
                yield Probe(method, url, {name: str(number)}, sent, f"query {name}={number}")
        elif parameter["in"] == "query":
            yield Probe(method, _url(template, real), {name: NUL_TEXT}, sent, f"query {name}")
    if body:
        for where, hostile in schemas.hostile(body, sent):
            yield Probe(method, _url(template, real), {}, hostile, f"body {where}")


def _body_schema(operation: Mapping[str, Any]) -> Any:
    content = operation.get("requestBody", {}).get("content", {})
    return content.get("application/json", {}).get("schema")


def probes(document: Mapping[str, Any], ids: Mapping[str, str]) -> Iterator[Probe]:
    """Every hostile request of every operation of ``document`` (``ids``: real values of
    path parameters by name)."""
    schemas = Schemas(document)
    for template, item in document["paths"].items():
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                yield from _parameter_probes(schemas, method.upper(), template, operation, ids)
