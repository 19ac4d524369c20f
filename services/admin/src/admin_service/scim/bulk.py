"""``POST /Bulk`` (RFC 7644 §3.7).

Each operation runs as its own request would, in its own transaction, in the order sent,
except that an operation naming ``bulkId:<id>`` (in its path or data) of a resource not
created yet waits until that one is; references that never resolve (circular, unknown) are
409 ``invalidValue``. ``failOnErrors`` stops after that many errors (the rest is not
run). More than :data:`BULK_MAX_OPERATIONS` operations or a body over
:data:`BULK_MAX_PAYLOAD_BYTES` is 413 before anything runs. A refused operation is audited
as a refused write of its own; one whose ``data`` holds a value the database cannot store
is refused as ``invalidValue`` naming it, as the same request alone would be.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from admin_service.scim import resources
from admin_service.scim.http import Req, scim_error_of, unstorable_in
from admin_service.scim.rfc7643_schema import MESSAGE_BULK_REQUEST, MESSAGE_BULK_RESPONSE
from admin_service.scim.rfc7644_errors import ScimError
from admin_service.scim.schemas import BULK_MAX_OPERATIONS, BULK_MAX_PAYLOAD_BYTES
from idp_common.errors import DomainError
from idp_common.storage.repos.audit import AuditEntry, record_refusal
from idp_common.web.caller import caller_ip, resources_of
from idp_common.web.guard import current_caller

_REFERENCE: Final = re.compile(r"^bulkId:(.+)$")
_PATH: Final = re.compile(r"^/(Users|Groups)(?:/([^/]+))?$")
_METHODS: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class _Pending(Exception):
    """The operation names a bulkId not created yet."""


def _resolve(value: Any, created: dict[str, str]) -> Any:
    """``value`` with every ``bulkId:<id>`` string replaced by the id created for it."""
    if isinstance(value, str):
        match = _REFERENCE.match(value)
        if match is None:
            return value
        if match[1] not in created:
            raise _Pending
        return created[match[1]]
    if isinstance(value, list):
        return [_resolve(v, created) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(v, created) for k, v in value.items()}
    return value


def _resolve_path(path: str, created: dict[str, str]) -> str:
    parts = path.split("/")
    return "/".join(str(_resolve(p, created)) for p in parts)


def _put(data: dict[str, Any]) -> resources.Change:
    return lambda _, __: dict(data)


async def _run(
    request: Req, method: str, path: str, data: Any, version: str | None
) -> tuple[int, str | None, str | None]:
    """(status, location, version) of one operation; raises its error."""
    match = _PATH.match(path)
    if match is None:
        raise ScimError(400, f"path: {path!r} is not /Users or /Groups[/id]", "invalidPath")
    kind, resource_id = match[1], match[2]
    if (method == "POST") != (resource_id is None):
        raise ScimError(
            400,
            f"path: {method} needs {'no ' if method == 'POST' else ''}resource id",
            "invalidPath",
        )
    if method in ("POST", "PUT", "PATCH") and not isinstance(data, dict):
        raise ScimError(400, "data: must be an object", "invalidSyntax")
    users = kind == "Users"
    if method == "DELETE":
        assert resource_id is not None  # checked above
        if users:
            await resources.delete_user(request, resource_id, if_match=version)
        else:
            await resources.delete_group(request, resource_id, if_match=version)
        return 204, None, None
    if method == "POST":
        document = await (
            resources.create_user(request, data) if users else resources.create_group(request, data)
        )
        return 201, document["meta"]["location"], document["meta"]["version"]
    assert resource_id is not None  # checked above
    change: resources.Change = resources.patch_change(data) if method == "PATCH" else _put(data)
    if users:
        document = await resources.change_user(
            request, resource_id, change, patch=method == "PATCH", if_match=version
        )
    else:
        document = await resources.change_group(request, resource_id, change, if_match=version)
    return 200, document["meta"]["location"], document["meta"]["version"]


async def _audit_refusal(request: Req, method: str, path: str, error: ScimError) -> None:
    if error.status in (401, 403) or error.status >= 500:
        return
    entry = AuditEntry(
        action=f"{method} /scim/v2/Bulk {path}",
        status_code=error.status,
        ip=caller_ip(request),
        actor=current_caller(request).subject,
        detail={"scimType": error.scim_type},
    )
    await record_refusal(resources_of(request).sessions, entry)


def _request_of(raw: bytes) -> tuple[list[dict[str, Any]], int | None]:
    if len(raw) > BULK_MAX_PAYLOAD_BYTES:
        raise ScimError(413, f"the request exceeds maxPayloadSize ({BULK_MAX_PAYLOAD_BYTES} bytes)")
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        raise ScimError(400, "the body is not valid JSON", "invalidSyntax") from None
    if not isinstance(body, dict):
        raise ScimError(400, "the body must be a BulkRequest object", "invalidSyntax")
    schemas = body.get("schemas")
    if not isinstance(schemas, list) or MESSAGE_BULK_REQUEST not in schemas:
        raise ScimError(400, f"schemas: must list {MESSAGE_BULK_REQUEST}", "invalidSyntax")
    operations = body.get("Operations")
    if not isinstance(operations, list) or not all(isinstance(o, dict) for o in operations):
        raise ScimError(400, "Operations: must be a list of objects", "invalidSyntax")
    if len(operations) > BULK_MAX_OPERATIONS:
        raise ScimError(413, f"the request exceeds maxOperations ({BULK_MAX_OPERATIONS})")
    fail_on = body.get("failOnErrors")
    if fail_on is not None and (
        isinstance(fail_on, bool) or not isinstance(fail_on, int) or fail_on < 1
    ):
        raise ScimError(400, "failOnErrors: must be a positive integer", "invalidValue")
    return operations, fail_on


def _check(operation: dict[str, Any]) -> tuple[str, str, str | None]:
    method = str(operation.get("method", "")).upper()
    path = operation.get("path")
    bulk_id = operation.get("bulkId")
    if method not in _METHODS:
        raise ScimError(400, "method: POST, PUT, PATCH or DELETE", "invalidValue")
    if not isinstance(path, str):
        raise ScimError(400, "path: required", "invalidPath")
    if method == "POST" and not isinstance(bulk_id, str):
        raise ScimError(400, "bulkId: required for POST", "invalidValue")
    return method, path, bulk_id if isinstance(bulk_id, str) else None


def _result_of(operation: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {"method": str(operation.get("method", "")).upper()}
    if isinstance(operation.get("bulkId"), str):
        result["bulkId"] = operation["bulkId"]
    return result


def _error_of(exc: Exception, data: Any) -> ScimError:
    """The SCIM error of a refused operation; ``exc`` itself when it is none."""
    if isinstance(exc, ScimError):
        return exc
    if isinstance(exc, DomainError):
        return scim_error_of(exc)
    if (refused := unstorable_in(exc, data)) is not None:
        return refused
    raise exc


async def _one(
    request: Req, operation: dict[str, Any], created: dict[str, str]
) -> tuple[dict[str, Any], bool]:
    """The result of one operation and whether it failed; ``_Pending`` when it must wait."""
    result = _result_of(operation)
    try:
        method, path, bulk_id = _check(operation)
        path = _resolve_path(path, created)
        data = _resolve(operation.get("data"), created)
        version = operation.get("version")
        tag = version if isinstance(version, str) else None
        status, location, tag = await _run(request, method, path, data, tag)
    except _Pending:
        raise
    except Exception as exc:
        error = _error_of(exc, operation.get("data"))
        await _audit_refusal(request, result["method"], str(operation.get("path")), error)
        return {**result, "status": str(error.status), "response": error.to_scim()}, True
    if bulk_id is not None and location is not None:
        created[bulk_id] = location.rsplit("/", 1)[1]
    result["status"] = str(status)
    if location is not None:
        result["location"] = location
    if tag is not None:
        result["version"] = tag
    return result, False


async def bulk(request: Req, raw: bytes) -> dict[str, Any]:
    operations, fail_on = _request_of(raw)
    created: dict[str, str] = {}
    results: dict[int, dict[str, Any]] = {}
    errors = 0
    waiting = list(range(len(operations)))
    while waiting:
        still: list[int] = []
        for index in waiting:
            if fail_on is not None and errors >= fail_on:
                break
            try:
                results[index], failed = await _one(request, operations[index], created)
            except _Pending:
                still.append(index)
                continue
            errors += failed
        if len(still) == len(waiting) or (fail_on is not None and errors >= fail_on):
            break
        waiting = still
    unresolved = ScimError(
        409, "bulkId: the reference cannot be resolved (unknown or circular)", "invalidValue"
    )
    if fail_on is None or errors < fail_on:
        for index in waiting:
            if index not in results:
                result = _result_of(operations[index])
                results[index] = {**result, "status": "409", "response": unresolved.to_scim()}
    return {
        "schemas": [MESSAGE_BULK_RESPONSE],
        "Operations": [results[i] for i in sorted(results)],
    }
