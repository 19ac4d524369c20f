"""The webhook events (docs/webhooks.md "Events"): their types, their subjects,
their payload, and the pure map from an audit row to the events it announces.

Every audited change already writes its audit row in its own transaction
(:func:`idp_common.storage.repos.audit.write_audit`); a session factory created with
``create_session_factory(engine, audit_events=outbox_events(prefix))`` hands each row to
:func:`outbox_events`'s function, whose events ``write_audit`` stages as ``event_outbox``
rows beside it (:func:`idp_common.storage.repos.outbox.stage_event`). So an event exists
exactly when its change commits: a rolled-back transaction takes its audit row and its
events with it, and a refusal recorded in a transaction of its own (a failed or throttled
sign-in) carries its event in that transaction. ``session.ended`` is the exception: many
paths end sessions without a row per session, so :mod:`idp_common.usecases.session_end`
writes it, once per ended session, beside the ``{prefix}.session.ended`` message the logout
dispatcher consumes.

Events are written whether or not an endpoint subscribes to their type; the fan-out drops
what nobody wants.

Payload (Standard Webhooks): ``{"id": "evt_<uuid4 hex>", "type": ..., "timestamp":
"2026-11-28T01:23:45.123456Z", "data": {...}}``. ``data`` carries identifiers (people,
clients, passkeys, sessions), field names, reasons and counts only: never a password, hash,
secret, code or token, nor a photo, an email address or an IP address (personal data a
receiver can read through the admin API by the person's id when it needs it).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from idp_common.events.trace_context import current_traceparent
from idp_common.storage.repos.audit import AuditEntry
from idp_common.storage.repos.outbox import StagedEvent

USER_CREATED: Final = "user.created"
USER_UPDATED: Final = "user.updated"
USER_DISABLED: Final = "user.disabled"
USER_ENABLED: Final = "user.enabled"
USER_DELETED: Final = "user.deleted"
USER_PROFILE_CHANGED: Final = "user.profile_changed"
USER_PASSWORD_CHANGED: Final = "user.password_changed"  # noqa: S105 (a type name)
USER_AUTHENTICATOR_ENROLLED: Final = "user.authenticator_enrolled"
USER_AUTHENTICATOR_REMOVED: Final = "user.authenticator_removed"
USER_PASSKEY_ENROLLED: Final = "user.passkey_enrolled"
USER_PASSKEY_REMOVED: Final = "user.passkey_removed"
USER_FACE_ENROLLED: Final = "user.face_enrolled"
USER_FACE_REMOVED: Final = "user.face_removed"
SIGNIN_SUCCEEDED: Final = "signin.succeeded"
SIGNIN_FAILED: Final = "signin.failed"
SIGNIN_THROTTLED: Final = "signin.throttled"
SESSION_ENDED: Final = "session.ended"
CONSENT_GRANTED: Final = "consent.granted"
CONSENT_WITHDRAWN: Final = "consent.withdrawn"
CLIENT_CREATED: Final = "client.created"
CLIENT_UPDATED: Final = "client.updated"
CLIENT_DELETED: Final = "client.deleted"
CLIENT_SECRET_ROTATED: Final = "client.secret_rotated"  # noqa: S105 (a type name)

WEBHOOK_EVENT_TYPES: Final = (
    USER_CREATED,
    USER_UPDATED,
    USER_DISABLED,
    USER_ENABLED,
    USER_DELETED,
    USER_PROFILE_CHANGED,
    USER_PASSWORD_CHANGED,
    USER_AUTHENTICATOR_ENROLLED,
    USER_AUTHENTICATOR_REMOVED,
    USER_PASSKEY_ENROLLED,
    USER_PASSKEY_REMOVED,
    USER_FACE_ENROLLED,
    USER_FACE_REMOVED,
    SIGNIN_SUCCEEDED,
    SIGNIN_FAILED,
    SIGNIN_THROTTLED,
    SESSION_ENDED,
    CONSENT_GRANTED,
    CONSENT_WITHDRAWN,
    CLIENT_CREATED,
    CLIENT_UPDATED,
    CLIENT_DELETED,
    CLIENT_SECRET_ROTATED,
)
#: The JetStream filter of every webhook event, ``{prefix}`` being ``SVC_NATS_PREFIX``.
WEBHOOK_SUBJECTS_FILTER: Final = "{prefix}.webhook.>"
EVENT_ID_PREFIX: Final = "evt_"

#: A webhook event before it has an id and a time: its type and its ``data``.
Event = tuple[str, dict[str, Any]]


def webhook_subject(nats_prefix: str, event_type: str) -> str:
    return f"{nats_prefix}.webhook.{event_type}"


def new_event_id() -> str:
    return f"{EVENT_ID_PREFIX}{uuid.uuid4().hex}"


def rfc3339(moment: datetime) -> str:
    """UTC with microseconds and ``Z`` (``2026-11-28T01:23:45.123456Z``)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def webhook_payload(
    event_type: str,
    data: Mapping[str, Any],
    *,
    event_id: str | None = None,
    at: datetime | None = None,
) -> dict[str, Any]:
    """The Standard Webhooks payload of one event (the outbox row's and the message's)."""
    if event_type not in WEBHOOK_EVENT_TYPES:
        raise ValueError(f"not a webhook event type: {event_type!r}")
    return {
        "id": event_id or new_event_id(),
        "type": event_type,
        "timestamp": rfc3339(at or datetime.now(UTC)),
        "data": dict(data),
    }


def staged(nats_prefix: str, event_type: str, data: Mapping[str, Any]) -> StagedEvent:
    """The outbox row of one event, with the writer's trace."""
    return StagedEvent(
        subject=webhook_subject(nats_prefix, event_type),
        payload=webhook_payload(event_type, data),
        traceparent=current_traceparent(),
    )


def outbox_events(nats_prefix: str) -> Callable[[AuditEntry], list[StagedEvent]]:
    """What a session factory's ``audit_events`` is: the outbox rows of an audit row."""

    def of(entry: AuditEntry) -> list[StagedEvent]:
        return [staged(nats_prefix, kind, data) for kind, data in events_of_audit(entry)]

    return of


def session_ended_data(
    user_id: str, sid: str, reason: str, client_ids: Sequence[str]
) -> dict[str, Any]:
    """``data`` of ``session.ended`` (written by :mod:`idp_common.usecases.session_end`)."""
    return {"user_id": user_id, "sid": sid, "reason": reason, "client_ids": list(client_ids)}


# --- the map: audit row -> events (pure) -------------------------------------------------


def _ok(entry: AuditEntry) -> bool:
    return entry.status_code < 400


def _by(entry: AuditEntry, **data: Any) -> dict[str, Any]:
    """``data`` about the row's target person, with who did it and, when the row says, the
    way the change came (``via``: ``scim``, ``create-admin``)."""
    found: dict[str, Any] = {"user_id": entry.target}
    via = entry.detail.get("via")
    if isinstance(via, str):
        found["via"] = via
    found.update(data)
    if entry.actor is not None:
        found["actor"] = entry.actor
    return found


def _fields(entry: AuditEntry, key: str) -> list[str]:
    value = entry.detail.get(key)
    return [str(v) for v in value] if isinstance(value, list) else []


def _user_update(entry: AuditEntry) -> list[Event]:
    """An administrator's ``PATCH /admin/users/{id}``: ``disabled`` sent (its value in the
    row's ``disabled``) is ``user.disabled`` or ``user.enabled``; the other fields sent,
    ``user.updated``."""
    fields = _fields(entry, "fields")
    events: list[Event] = []
    others = [f for f in fields if f != "disabled"]
    if others:
        events.append((USER_UPDATED, _by(entry, fields=others)))
    flag = entry.detail.get("disabled")
    if "disabled" in fields and isinstance(flag, bool):
        ended = entry.detail.get("sessionsEnded")
        if flag:
            extra = {"sessions_ended": ended} if isinstance(ended, int) else {}
            events.append((USER_DISABLED, _by(entry, **extra)))
        else:
            events.append((USER_ENABLED, _by(entry)))
    return events


def _had(entry: AuditEntry, key: str, event_type: str) -> list[Event]:
    """A removal that is idempotent: an event only when there was something to remove."""
    return [(event_type, _by(entry))] if entry.detail.get(key) is True else []


def _password(via: str) -> Callable[[AuditEntry], list[Event]]:
    def of(entry: AuditEntry) -> list[Event]:
        password_set = entry.detail.get("passwordSet")
        data = _by(entry, via=via, password_set=password_set is not False)
        return [(USER_PASSWORD_CHANGED, data)]

    return of


def _passkey(event_type: str) -> Callable[[AuditEntry], list[Event]]:
    def of(entry: AuditEntry) -> list[Event]:
        passkey = entry.detail.get("passkeyId")
        return [(event_type, _by(entry, passkey_id=None if passkey is None else str(passkey)))]

    return of


def _fixed(event_type: str, **data: Any) -> Callable[[AuditEntry], list[Event]]:
    def of(entry: AuditEntry) -> list[Event]:
        return [(event_type, _by(entry, **data))]

    return of


def _listed(event_type: str, key: str, *, into: str) -> Callable[[AuditEntry], list[Event]]:
    """An event naming what changed, from the row's list ``key`` (``fields`` or ``keys``)."""

    def of(entry: AuditEntry) -> list[Event]:
        return [(event_type, _by(entry, **{into: _fields(entry, key)}))]

    return of


def _face_enrolled(entry: AuditEntry) -> list[Event]:
    return [(USER_FACE_ENROLLED, _by(entry, replaced=entry.detail.get("replaced") is True))]


def _photo(entry: AuditEntry) -> list[Event]:
    if entry.action == "profile.photo.delete" and entry.detail.get("hadPhoto") is not True:
        return []
    return [(USER_PROFILE_CHANGED, _by(entry, keys=["picture"]))]


def _sign_in(entry: AuditEntry, **data: Any) -> dict[str, Any]:
    """``data`` of a sign-in event: the person when known (``actor`` of these rows) and the
    client signed in to (the row's target). No address: docs/webhooks.md says why."""
    found: dict[str, Any] = {"user_id": entry.actor, "client_id": entry.target}
    found.update({k: v for k, v in data.items() if v is not None})
    return found


def _signin_succeeded(entry: AuditEntry) -> list[Event]:
    detail = entry.detail
    data = _sign_in(entry, amr=detail.get("amr"), acr=detail.get("acr"), sid=detail.get("sid"))
    return [(SIGNIN_SUCCEEDED, data)]


def _signin_failed(entry: AuditEntry) -> list[Event]:
    detail = entry.detail
    if entry.action == "totp.failed":
        data = _sign_in(entry, reason="wrong_code", method="totp", failures=detail.get("failures"))
    else:
        data = _sign_in(
            entry,
            reason=detail.get("reason") or "unknown",
            method=detail.get("method") or "password",
            step=detail.get("step"),
        )
    return [(SIGNIN_FAILED, data)]


_THROTTLE_REASONS: Final = {
    "login.throttled": "account_throttled",
    "second_factor.throttled": "factor_throttled",
    "second_factor.locked": "factor_locked",
}


def _signin_throttled(entry: AuditEntry) -> list[Event]:
    detail = entry.detail
    data = _sign_in(
        entry,
        reason=_THROTTLE_REASONS[entry.action],
        factor=detail.get("factor"),
        retry_after=detail.get("retry_after"),
        failures=detail.get("failures"),
    )
    return [(SIGNIN_THROTTLED, data)]


def _consent_granted(entry: AuditEntry) -> list[Event]:
    data = {"user_id": entry.actor, "client_id": entry.target, "scopes": _fields(entry, "scopes")}
    return [(CONSENT_GRANTED, data)]


def _consent_withdrawn(entry: AuditEntry) -> list[Event]:
    data = {
        "user_id": entry.actor,
        "client_id": entry.target,
        "had_consent": entry.detail.get("hadConsent") is True,
    }
    return [(CONSENT_WITHDRAWN, data)]


def _client(event_type: str, *, fields: str | None = None) -> Callable[[AuditEntry], list[Event]]:
    def of(entry: AuditEntry) -> list[Event]:
        data: dict[str, Any] = {"client_id": entry.target}
        if fields is not None:
            data["fields"] = [fields] if fields == "scopes" else _fields(entry, fields)
        if event_type == CLIENT_CREATED and isinstance(entry.detail.get("type"), str):
            data["client_type"] = entry.detail["type"]
        if entry.actor is not None:
            data["actor"] = entry.actor
        return [(event_type, data)]

    return of


#: Audit action -> its events. Only successful rows count (status below 400), except the
#: sign-in refusals, which are the events themselves.
_WRITES: Final[dict[str, Callable[[AuditEntry], list[Event]]]] = {
    "user.create": _fixed(USER_CREATED),
    "user.created": _fixed(USER_CREATED),  # `idp create-admin`
    "user.update": _user_update,
    "user.delete": _fixed(USER_DELETED),
    "user.set_roles": _fixed(USER_UPDATED, fields=["roles"]),
    "user.set_scopes": _fixed(USER_UPDATED, fields=["scopes"]),
    "credentials.email": _fixed(USER_UPDATED, fields=["email"]),
    "user.set_profile": _listed(USER_PROFILE_CHANGED, "keys", into="keys"),
    "profile.update": _listed(USER_PROFILE_CHANGED, "keys", into="keys"),
    "profile.photo.set": _photo,
    "profile.photo.delete": _photo,
    "user.reset_password": _password("admin"),
    "password_reset.completed": _password("reset_link"),
    "credentials.password": _password("self_service"),
    "totp.confirm": _fixed(USER_AUTHENTICATOR_ENROLLED),
    "totp.delete": lambda e: _had(e, "hadAuthenticator", USER_AUTHENTICATOR_REMOVED),
    "user.clear_totp": lambda e: _had(e, "hadAuthenticator", USER_AUTHENTICATOR_REMOVED),
    "passkey.registered": _passkey(USER_PASSKEY_ENROLLED),
    "passkey.removed": _passkey(USER_PASSKEY_REMOVED),
    "user.remove_passkey": _passkey(USER_PASSKEY_REMOVED),
    "face.enroll": _face_enrolled,
    "face.delete": lambda e: _had(e, "hadFace", USER_FACE_REMOVED),
    "user.clear_face": lambda e: _had(e, "hadFace", USER_FACE_REMOVED),
    "login.succeeded": _signin_succeeded,
    "consent.granted": _consent_granted,
    "connection.withdraw": _consent_withdrawn,
    "client.create": _client(CLIENT_CREATED),
    "client.update": _client(CLIENT_UPDATED, fields="fields"),
    "client.set_scopes": _client(CLIENT_UPDATED, fields="scopes"),
    "client.delete": _client(CLIENT_DELETED),
    "client.rotate_secret": _client(CLIENT_SECRET_ROTATED),
}
_REFUSALS: Final[dict[str, Callable[[AuditEntry], list[Event]]]] = {
    "login.failed": _signin_failed,
    "totp.failed": _signin_failed,
    "login.throttled": _signin_throttled,
    "second_factor.throttled": _signin_throttled,
    "second_factor.locked": _signin_throttled,
}
#: Every audit action that announces something (for docs and tests).
MAPPED_ACTIONS: Final = frozenset({*_WRITES, *_REFUSALS})


def events_of_audit(entry: AuditEntry) -> list[Event]:
    """The webhook events an audit row announces (most rows: none). Pure."""
    refusal = _REFUSALS.get(entry.action)
    if refusal is not None:
        return refusal(entry)
    write = _WRITES.get(entry.action)
    if write is None or not _ok(entry):
        return []
    return write(entry)
