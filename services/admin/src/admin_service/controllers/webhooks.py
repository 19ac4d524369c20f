"""``/admin/webhooks``: webhook endpoints, their signing secrets and their delivery log
(docs/webhooks.md, docs/admin-api.md "Webhooks").

Reads need ``idp:webhooks:read``, writes ``idp:webhooks:write``; every write is audited
(``webhook.create`` ... ``webhook.resend``), never with the secret. The secret
(``whsec_`` + base64 of 32 random bytes, :mod:`idp_common.protocol.standard_webhooks`) is
in the answers of the creation and of ``rotate-secret`` only; it is stored sealed with
``SVC_SECRETS_KEY`` (without one, both answer 503). A URL must be https and must not name
a loopback, private or link-local host unless ``SVC_WEBHOOK_ALLOW_PRIVATE`` is on (then
plain http is accepted for such hosts); the dispatcher checks again after resolving it.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Annotated, Literal, TypeVar

import msgspec
from litestar import Router, delete, get, patch, post
from litestar.params import JSONBody
from litestar.status_codes import HTTP_200_OK, HTTP_202_ACCEPTED

from admin_service.routes import MAX_LIST_ENTRIES, Limit, Req, operation, reading, writing
from idp_common.errors import FieldError, InvalidArgument, ServiceUnavailable
from idp_common.events.webhook_events import WEBHOOK_EVENT_TYPES
from idp_common.protocol.constants import SCOPE_IDP_WEBHOOKS_READ, SCOPE_IDP_WEBHOOKS_WRITE
from idp_common.protocol.standard_webhooks import (
    MAX_URL_LENGTH,
    SECRET_BYTES,
    encode_secret,
    target_problem,
)
from idp_common.storage.repos import webhooks as repo
from idp_common.storage.repos.paging import DEFAULT_LIMIT, Page
from idp_common.storage.repos.webhooks import DeliveryRead, EndpointRead
from idp_common.web.caller import resources_of

T = TypeVar("T")
READ, WRITE = SCOPE_IDP_WEBHOOKS_READ, SCOPE_IDP_WEBHOOKS_WRITE
_ENDPOINT = "/{endpoint_id:str}"
_DELIVERY = _ENDPOINT + "/deliveries/{delivery_id:str}"
_KNOWN_TYPES = frozenset(WEBHOOK_EVENT_TYPES)

Url = Annotated[str, msgspec.Meta(max_length=MAX_URL_LENGTH + 1)]  # longer: 422 naming url
Description = Annotated[str, msgspec.Meta(max_length=500)]
EventTypes = Annotated[list[str], msgspec.Meta(max_length=MAX_LIST_ENTRIES)]
_RULES = (
    "`url`: https, at most 2000 characters, no user name or password, no fragment; not a "
    "loopback, private, link-local or other non-global host unless the deployment allows it "
    "(`SVC_WEBHOOK_ALLOW_PRIVATE`, which also admits plain http to such hosts); else 422 "
    "naming `url`. `eventTypes`: one or more of `GET /admin/webhooks/event-types` (422 "
    "naming the entry)."
)


class WebhookCreate(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    url: Url
    event_types: EventTypes
    description: Description = ""
    enabled: bool = True


class WebhookPatch(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    url: Url | msgspec.UnsetType = msgspec.UNSET
    description: Description | msgspec.UnsetType = msgspec.UNSET
    event_types: EventTypes | msgspec.UnsetType = msgspec.UNSET
    enabled: bool | msgspec.UnsetType = msgspec.UNSET


class WebhookCreated(msgspec.Struct, frozen=True, rename="camel"):
    """The endpoint, and its signing secret: shown here and on rotate-secret only."""

    id: str
    url: str
    description: str
    event_types: list[str]
    enabled: bool
    created_at: datetime
    updated_at: datetime
    secret: str


class WebhookSecret(msgspec.Struct, frozen=True):
    secret: str


class EventTypeList(msgspec.Struct, frozen=True):
    items: list[str]


def _check(url: str | None, event_types: list[str] | None, *, allow_private: bool) -> None:
    errors: list[FieldError] = []
    if url is not None:
        problem = target_problem(url, allow_private=allow_private)
        if problem is not None:
            errors.append(FieldError("url", problem))
    if event_types is not None:
        if not event_types:
            errors.append(FieldError("eventTypes", "at least one event type"))
        for i, event_type in enumerate(event_types):
            if event_type not in _KNOWN_TYPES:
                errors.append(FieldError(f"eventTypes[{i}]", "not an event type"))
    if errors:
        names = ", ".join(dict.fromkeys(e.field for e in errors))
        raise InvalidArgument(f"invalid {names}", code="admin.webhook_invalid", errors=errors)


def _given(value: T | msgspec.UnsetType) -> T | None:
    return None if isinstance(value, msgspec.UnsetType) else value


def _allow_private(request: Req) -> bool:
    return resources_of(request).settings.webhook_allow_private


def _secrets_key(request: Req) -> bytes:
    key = resources_of(request).settings.secrets_key_bytes
    if key is None:
        raise ServiceUnavailable(
            "webhooks are not available: SVC_SECRETS_KEY is not configured (the signing "
            "secrets are kept sealed with it)",
            code="admin.secrets_key_missing",
        )
    return key


def _new_secret() -> str:
    return encode_secret(secrets.token_bytes(SECRET_BYTES))


@get("/event-types", **operation("listWebhookEventTypes", "The webhook event types", READ))
async def list_event_types() -> EventTypeList:
    return EventTypeList(items=list(WEBHOOK_EVENT_TYPES))


@get(**operation("listWebhooks", "List webhook endpoints (oldest first)", READ))
async def list_webhooks(
    request: Req, limit: Limit = DEFAULT_LIMIT, cursor: str | None = None
) -> Page[EndpointRead]:
    async with reading(request) as session:
        return await repo.list_endpoints(session, limit=limit, cursor=cursor)


@post(
    **operation(
        "createWebhook",
        "Register a webhook endpoint",
        WRITE,
        "Answers the endpoint with its signing `secret` (`whsec_...`), shown only here and "
        "on rotate-secret. " + _RULES,
    )
)
async def create_webhook(request: Req, data: JSONBody[WebhookCreate]) -> WebhookCreated:
    _check(data.url, data.event_types, allow_private=_allow_private(request))
    key, secret = _secrets_key(request), _new_secret()
    async with writing(request) as write:
        made = await repo.create_endpoint(
            write.session,
            url=data.url,
            description=data.description,
            event_types=data.event_types,
            enabled=data.enabled,
            secret=secret,
            secrets_key=key,
        )
        write.audit("webhook.create", made.id, status_code=201, eventTypes=made.event_types)
    return WebhookCreated(**msgspec.structs.asdict(made) | {"id": str(made.id)}, secret=secret)


@get(_ENDPOINT, **operation("getWebhook", "Read a webhook endpoint", READ))
async def get_webhook(request: Req, endpoint_id: str) -> EndpointRead:
    async with reading(request) as session:
        return await repo.get_endpoint(session, endpoint_id)


@patch(
    _ENDPOINT,
    **operation(
        "updateWebhook",
        "Change a webhook endpoint's URL, description, event types or enabled flag",
        WRITE,
        "Fields left out stay. Disabling pauses delivery: deliveries already queued wait "
        "and go out once it is enabled again (within their retry window). " + _RULES,
    ),
)
async def update_webhook(
    request: Req, endpoint_id: str, data: JSONBody[WebhookPatch]
) -> EndpointRead:
    url, types = _given(data.url), _given(data.event_types)
    _check(url, types, allow_private=_allow_private(request))
    async with writing(request) as write:
        endpoint, changed = await repo.update_endpoint(
            write.session,
            endpoint_id,
            url=url,
            description=None
            if isinstance(data.description, msgspec.UnsetType)
            else data.description,
            event_types=types,
            enabled=_given(data.enabled),
        )
        write.audit("webhook.update", endpoint.id, fields=changed)
    return endpoint


@delete(
    _ENDPOINT,
    **operation(
        "deleteWebhook",
        "Delete a webhook endpoint and its delivery log",
        WRITE,
        "Nothing more is sent to it, including deliveries waiting for a retry.",
    ),
)
async def delete_webhook(request: Req, endpoint_id: str) -> None:
    async with writing(request) as write:
        endpoint = await repo.delete_endpoint(write.session, endpoint_id)
        write.audit("webhook.delete", endpoint.id, status_code=204)


@post(
    f"{_ENDPOINT}/rotate-secret",
    status_code=HTTP_200_OK,
    **operation(
        "rotateWebhookSecret",
        "Replace a webhook endpoint's signing secret",
        WRITE,
        "Answers the new `secret` (shown only here); attempts from now on are signed with it.",
        sensitive=True,
    ),
)
async def rotate_webhook_secret(request: Req, endpoint_id: str) -> WebhookSecret:
    key, secret = _secrets_key(request), _new_secret()
    async with writing(request) as write:
        endpoint = await repo.rotate_secret(
            write.session, endpoint_id, secret=secret, secrets_key=key
        )
        write.audit("webhook.rotate_secret", endpoint.id)
    return WebhookSecret(secret=secret)


@get(
    f"{_ENDPOINT}/deliveries",
    **operation(
        "listWebhookDeliveries",
        "An endpoint's delivery log (newest first)",
        READ,
        "`status` filters: `pending`, `succeeded` or `failed`.",
    ),
)
async def list_deliveries(
    request: Req,
    endpoint_id: str,
    status: Literal["pending", "succeeded", "failed"] | None = None,
    limit: Limit = DEFAULT_LIMIT,
    cursor: str | None = None,
) -> Page[DeliveryRead]:
    async with reading(request) as session:
        return await repo.list_deliveries(
            session, endpoint_id, status=status, limit=limit, cursor=cursor
        )


@post(
    f"{_DELIVERY}/resend",
    status_code=HTTP_202_ACCEPTED,
    **operation(
        "resendWebhookDelivery",
        "Send a delivery again",
        WRITE,
        "Queues it again at once (status `pending`, attempts from 0, a new retry window), "
        "with the same event id and payload; 409 while an attempt is in flight.",
    ),
)
async def resend_delivery(request: Req, endpoint_id: str, delivery_id: str) -> DeliveryRead:
    async with writing(request) as write:
        delivery = await repo.resend_delivery(write.session, endpoint_id, delivery_id)
        write.audit("webhook.resend", endpoint_id, status_code=202, deliveryId=str(delivery.id))
    return delivery


ROUTES = [
    Router(
        path="/admin/webhooks",
        route_handlers=[
            list_event_types,
            list_webhooks,
            create_webhook,
            get_webhook,
            update_webhook,
            delete_webhook,
            rotate_webhook_secret,
            list_deliveries,
            resend_delivery,
        ],
        tags=["webhooks"],
    )
]
