"""OpenAPI links (OpenAPI 3.1 §4.8.20) from a list to the operation on one of its items.

A list of the caller's sessions or connections names, in each item, the id that the
operation ending it takes in its path. The link says so in the document, so a client
generator or a stateful fuzzer (schemathesis follows links) can chain the
two: list, then end the first one listed.
"""

from __future__ import annotations

from dataclasses import dataclass

from litestar.openapi.spec import Link, OpenAPIResponse, Operation


def linked_list(operation_id: str, parameter: str, field: str) -> type[Operation]:
    """An operation class whose 200 answer (a page of ``items``) links to
    ``operation_id``, its path ``parameter`` taken from the first item's ``field``."""

    @dataclass
    class ListWithLink(Operation):
        def __post_init__(self) -> None:
            answer = (self.responses or {}).get("200")
            if isinstance(answer, OpenAPIResponse):
                link = Link(
                    operation_id=operation_id,
                    parameters={parameter: f"$response.body#/items/0/{field}"},
                    description=f"the first item listed, by its {field}",
                )
                answer.links = {operation_id: link}

    return ListWithLink
