"""The rules a deployment's settings must satisfy, and the values that should not reach
production (logged as warnings)."""

from __future__ import annotations

import uuid
from pathlib import Path
from urllib.parse import urlsplit

import msgspec

from idp_common.config.settings import FACE_SIGNIN_MODES, LOG_FORMATS, Settings
from idp_common.crypto.secretbox import parse_key
from idp_common.protocol.caller_address import parse_trusted_networks
from idp_common.protocol.rfc4647_locales import SUPPORTED_LOCALES
from idp_common.protocol.rfc9126_par import MAX_LIFETIME_SECONDS as MAX_PAR_LIFETIME_SECONDS

#: Numeric settings that must be positive: sizes, lifetimes and every per-address limit.
_POSITIVE: tuple[str, ...] = (
    "avatar_max_bytes",
    "access_token_ttl",
    "recent_sign_in_max_age",
    "shutdown_drain_seconds",
    "shutdown_timeout_seconds",
    "db_pool_size",
    "db_hot_pool_size",
    "cleanup_batch_size",
    "device_code_ttl",
    "device_poll_interval",
    "passkey_challenge_ttl",
    "webhook_retry_base_seconds",
    "webhook_retry_max_delay_seconds",
    "webhook_retry_for_seconds",
    *(field.name for field in msgspec.structs.fields(Settings) if field.name.endswith("_per_ip")),
)


def _is_absolute_url(value: str, schemes: tuple[str, ...]) -> bool:
    try:
        parts = urlsplit(value)
    except ValueError:  # e.g. "http://[::1": reported as a problem, not raised
        return False
    return parts.scheme in schemes and bool(parts.netloc)


def _is_origin(value: str) -> bool:
    """RFC 6454 serialised origin: scheme, host, optional port; no path, query or '*'."""
    if not _is_absolute_url(value, ("http", "https")):
        return False
    parts = urlsplit(value)
    return parts.path == "" and not parts.query and not parts.fragment and "@" not in parts.netloc


def validate(settings: Settings) -> list[str]:
    """Every rule the settings must satisfy; an empty list means valid."""
    problems: list[str] = []
    if settings.api_prefix:
        problems.append(
            "SVC_API_PREFIX: must stay empty (contract §9: /.well-known/* is at the host root)"
        )
    try:
        parse_trusted_networks(settings.forwarded_allow_ips)
    except ValueError as exc:
        problems.append(f"SVC_FORWARDED_ALLOW_IPS: {exc}")
    if not _is_absolute_url(settings.issuer, ("http", "https")):
        problems.append(f"SVC_ISSUER: must be an absolute http(s) URL, got {settings.issuer!r}")
    elif urlsplit(settings.issuer).query or urlsplit(settings.issuer).fragment:
        problems.append("SVC_ISSUER: must not carry a query or fragment (OIDC Discovery §3)")
    if settings.auth_ui_base_url and not _is_absolute_url(
        settings.auth_ui_base_url, ("http", "https")
    ):
        problems.append("SVC_AUTH_UI_BASE_URL: must be an absolute http(s) URL")
    for origin in settings.allowed_admin_origins:
        if not _is_origin(origin):
            problems.append(
                f"SVC_ALLOWED_ADMIN_ORIGINS: {origin!r} is not an origin (scheme://host[:port])"
            )
    problems.extend(_validate_services(settings))
    problems.extend(_validate_face(settings))
    problems.extend(_validate_key_rotation(settings))
    problems.extend(_validate_passkeys(settings))
    if settings.log_format not in LOG_FORMATS:
        problems.append(f"SVC_LOG_FORMAT: must be one of {', '.join(LOG_FORMATS)}")
    if settings.default_locale not in SUPPORTED_LOCALES:
        problems.append(f"SVC_DEFAULT_LOCALE: must be one of {', '.join(SUPPORTED_LOCALES)}")
    if settings.session_cookie_host_prefix and not settings.is_prod:
        problems.append(
            "SVC_SESSION_COOKIE_HOST_PREFIX: needs SVC_ENV=prod (a __Host- cookie must be "
            "Secure, which a plain-http development setup cannot send back)"
        )
    return problems


def _validate_face(settings: Settings) -> list[str]:
    """Face sign-in: docs/design.md caps the distance threshold at 0.5."""
    problems: list[str] = []
    if not 0 < settings.face_threshold <= 0.5:
        problems.append("SVC_FACE_THRESHOLD: must be above 0 and at most 0.5")
    if settings.face_min_size < 20:
        problems.append("SVC_FACE_MIN_SIZE: must be at least 20 (pixels)")
    if settings.face_workers < 0:
        problems.append("SVC_FACE_WORKERS: must be 0 (automatic) or a number of processes")
    if settings.face_signin not in FACE_SIGNIN_MODES:
        problems.append(f"SVC_FACE_SIGNIN: must be one of {', '.join(FACE_SIGNIN_MODES)}")
    return problems


#: The proxy shows a new or removed key this late at most: a minute is plenty for its
#: purpose (one answer for thousands of requests), and keeps rotations prompt.
MAX_JWKS_PROXY_SECONDS = 60


def _validate_key_rotation(settings: Settings) -> list[str]:
    """The JWKS cache lifetime and the key directory's reload interval."""
    problems: list[str] = []
    if settings.jwks_cache_seconds < 0:
        problems.append("SVC_JWKS_CACHE_SECONDS: must be 0 (no caching) or a number of seconds")
    if not 0 <= settings.jwks_proxy_seconds <= MAX_JWKS_PROXY_SECONDS:
        problems.append(
            f"SVC_JWKS_PROXY_SECONDS: must be 0 (the proxy does not keep it) to "
            f"{MAX_JWKS_PROXY_SECONDS} seconds"
        )
    if settings.key_reload_seconds < 1:
        problems.append("SVC_KEY_RELOAD_SECONDS: must be at least 1 (second)")
    return problems


def _validate_cleanup(settings: Settings) -> list[str]:
    """The cleanup job's interval and pause (its batch size is in :data:`_POSITIVE`)."""
    problems: list[str] = []
    if settings.cleanup_interval < 0:
        problems.append("SVC_CLEANUP_INTERVAL: must be 0 (off) or a number of seconds")
    if not 0 <= settings.cleanup_batch_pause <= 60:
        problems.append("SVC_CLEANUP_BATCH_PAUSE: must be between 0 and 60 seconds")
    if not 0.1 <= settings.activity_flush_seconds <= 3600:
        problems.append("SVC_ACTIVITY_FLUSH_SECONDS: must be between 0.1 and 3600 seconds")
    return problems


def _validate_passkeys(settings: Settings) -> list[str]:
    """AAGUIDs are UUIDs; a roots file is readable PEM (used only with an allow-list:
    attestation is asked for then only)."""
    problems: list[str] = []
    for aaguid in settings.passkey_allowed_aaguids:
        try:
            uuid.UUID(aaguid)
        except ValueError:
            problems.append(f"SVC_PASSKEY_ALLOWED_AAGUIDS: {aaguid!r} is not a UUID")
    roots = settings.passkey_attestation_roots
    if roots:
        try:
            text = Path(roots).read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(f"SVC_PASSKEY_ATTESTATION_ROOTS: cannot be read ({exc})")
        else:
            if "-----BEGIN CERTIFICATE-----" not in text:
                problems.append("SVC_PASSKEY_ATTESTATION_ROOTS: holds no PEM certificate")
    return problems


def _validate_par(settings: Settings) -> list[str]:
    """A pushed authorization request's lifetime (RFC 9126 §2.2; FAPI 2.0: under 600 s)."""
    if 1 <= settings.par_request_ttl <= MAX_PAR_LIFETIME_SECONDS:
        return []
    return [f"SVC_PAR_REQUEST_TTL: must be 1 to {MAX_PAR_LIFETIME_SECONDS} seconds"]


def _validate_services(settings: Settings) -> list[str]:
    """Rules on the addresses of the dependencies and on numeric limits."""
    problems: list[str] = []
    if settings.s3_endpoint_url and not _is_absolute_url(
        settings.s3_endpoint_url, ("http", "https")
    ):
        problems.append("SVC_S3_ENDPOINT_URL: must be an absolute http(s) URL or empty")
    if not settings.database_url.startswith(("postgresql://", "postgresql+asyncpg://")):
        problems.append("SVC_DATABASE_URL: must be a postgresql:// URL")
    if not settings.redis_url.startswith(("redis://", "rediss://", "unix://")):
        problems.append("SVC_REDIS_URL: must be a redis:// or rediss:// URL")
    if not settings.nats_url.startswith(("nats://", "tls://")):
        problems.append("SVC_NATS_URL: must be a nats:// or tls:// URL")
    if not settings.smtp_url.startswith(("smtp://", "smtps://")):
        problems.append("SVC_SMTP_URL: must be an smtp:// or smtps:// URL")
    for name in _POSITIVE:
        if getattr(settings, name) <= 0:
            problems.append(f"SVC_{name.upper()}: must be positive")
    if settings.secrets_key:
        try:
            parse_key(settings.secrets_key)
        except ValueError as exc:
            problems.append(str(exc))
    if settings.dpop_nonce and not settings.secrets_key:
        problems.append("SVC_DPOP_NONCE: needs SVC_SECRETS_KEY (the nonces' key derives from it)")
    problems += _validate_par(settings)
    problems += _validate_cleanup(settings)
    if settings.dependency_timeout <= 0:
        problems.append("SVC_DEPENDENCY_TIMEOUT: must be positive")
    if not settings.nats_prefix.replace("_", "").replace("-", "").isalnum():
        problems.append("SVC_NATS_PREFIX: letters, digits, '-' and '_' only")
    return problems


def unsafe_defaults(settings: Settings) -> list[str]:
    """Values that work but should not reach production."""
    warnings: list[str] = []
    if settings.is_prod and not settings.issuer.startswith("https://"):
        warnings.append("SVC_ISSUER is not https in production")
    if settings.is_prod:
        try:
            password = urlsplit(settings.database_url).password
        except ValueError:
            password = None
        if not password:
            warnings.append("SVC_DATABASE_URL has no password in production")
    if settings.is_prod and settings.backchannel_allow_private:
        warnings.append(
            "SVC_BACKCHANNEL_ALLOW_PRIVATE is on in production: back-channel logout may "
            "reach loopback and private addresses"
        )
    if settings.is_prod and settings.client_jwks_allow_private:
        warnings.append(
            "SVC_CLIENT_JWKS_ALLOW_PRIVATE is on in production: a client's jwks_uri may "
            "reach loopback and private addresses"
        )
    if settings.is_prod and settings.webhook_allow_private:
        warnings.append(
            "SVC_WEBHOOK_ALLOW_PRIVATE is on in production: webhooks may reach loopback "
            "and private addresses"
        )
    return warnings
