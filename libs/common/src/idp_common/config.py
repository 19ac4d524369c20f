"""Settings read from ``SVC_*`` environment variables (spec §5 "Deployment settings").

Every setting is parsed, then every rule is checked, and all problems are reported
together in one :class:`SettingsError`, so an operator fixes a bad deployment in one
round instead of one restart per mistake. A secret may also be given through
``SVC_<NAME>_FILE`` (Docker/Kubernetes secrets). Settings are loaded once at start-up
and passed explicitly; nothing reads the environment at import time.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, Literal, get_origin
from urllib.parse import urlsplit

import msgspec

from idp_common.crypto.secretbox import parse_key
from idp_common.protocol.caller_address import parse_trusted_networks
from idp_common.protocol.constants import (
    ACCESS_TOKEN_TTL_SECONDS,
    RECENT_SIGN_IN_MAX_AGE_SECONDS,
    RESET_PER_IP_LIMIT,
    SESSION_COOKIE_NAME,
    TOKEN_PER_IP_LIMIT,
)

PREFIX = "SVC_"
HOST_PREFIX = "__Host-"
log = logging.getLogger(__name__)

Environment = Literal["dev", "prod"]
#: How face sign-in may be used (``SVC_FACE_SIGNIN``, docs/face-signin.md): ``first_factor``
#: lets a face replace the password (a weaker sign-in of its own ``acr``);
#: ``second_factor`` accepts a face only after the password; ``off`` never asks for one.
FACE_SIGNIN_MODES: tuple[str, ...] = ("first_factor", "second_factor", "off")


class SettingsError(Exception):
    """Raised with every problem found, one per line."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("invalid settings:\n  - " + "\n  - ".join(problems))


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """Deployment settings. Field ``foo_bar`` is read from ``SVC_FOO_BAR``."""

    env: Environment = "dev"
    issuer: str = "http://localhost:8080"
    auth_ui_base_url: str = ""  # empty: "{issuer}/auth"
    allowed_admin_origins: tuple[str, ...] = ()
    forwarded_allow_ips: tuple[str, ...] = ()
    api_prefix: str = ""
    s3_endpoint_url: str = ""
    s3_bucket: str = "idp-avatars"
    avatar_max_bytes: int = 5 * 1024 * 1024

    database_url: str = "postgresql+asyncpg://postgres@127.0.0.1:5432/idp"
    redis_url: str = "redis://127.0.0.1:6379/0"
    redis_prefix: str = "idp:"
    nats_url: str = "nats://127.0.0.1:4222"
    nats_prefix: str = "idp"
    smtp_url: str = "smtp://127.0.0.1:1025"
    smtp_from: str = "Identity provider <no-reply@localhost>"
    key_dir: str = "var/keys"
    secrets_key: str = ""  # AES-256-GCM key for stored secrets (TOTP, face); empty: TOTP off

    access_token_ttl: int = ACCESS_TOKEN_TTL_SECONDS
    token_per_ip: int = TOKEN_PER_IP_LIMIT  # spec §8 TOKEN_PER_IP, per minute
    reset_per_ip: int = RESET_PER_IP_LIMIT  # spec §8 RESET_PER_IP, per hour
    auth_fail_per_ip: int = 60  # failed bearer authentications per minute per address
    cleanup_interval: int = 600  # seconds between periodic cleanup runs; 0 disables
    # RFC 9470 step-up: how recent a sign-in must be for credential changes (spec §5 rule 5)
    recent_sign_in_max_age: int = RECENT_SIGN_IN_MAX_AGE_SECONDS
    face_threshold: float = 0.5  # largest embedding distance that still matches (<= 0.5)
    face_min_size: int = 80  # smallest face accepted, in pixels of the normalised image
    face_workers: int = 0  # face model processes per service worker; 0: cores / workers
    face_signin: str = "first_factor"  # one of FACE_SIGNIN_MODES
    # Face sign-in attempts per minute per caller address: each costs a decode and an
    # embedding (0.1-0.4 s of a core), far more than a password (docs/security.md).
    face_per_ip: int = 10
    # Authorization requests that may start a sign-in (a challenge in Redis) per minute per
    # caller address (docs/security.md "Throttling").
    challenge_per_ip: int = 60
    # RP-Initiated Logout without a valid id_token_hint shows a confirmation page instead
    # of ending the session at once (OIDC RP-Initiated Logout 1.0 §2; docs/security.md).
    logout_confirmation: bool = False
    # Back-channel logout URIs may name loopback, private and link-local addresses
    # (development and the test suite; docs/security.md). Off: refused at registration
    # and again at delivery, after DNS resolution.
    backchannel_allow_private: bool = False
    # Production only: the session cookie is named ``__Host-svc_session`` (RFC 6265bis
    # §4.1.3.2: Secure, Path=/, no Domain), so no sibling subdomain can set or shadow it.
    session_cookie_host_prefix: bool = False
    dependency_timeout: float = 1.0  # seconds a health probe waits for Postgres/Redis
    log_level: str = "INFO"

    @property
    def is_prod(self) -> bool:
        return self.env == "prod"

    @property
    def session_cookie_name(self) -> str:
        """``svc_session`` (spec §5), or ``__Host-svc_session`` when the prefix is on."""
        prefix = HOST_PREFIX if self.session_cookie_host_prefix else ""
        return prefix + SESSION_COOKIE_NAME

    @property
    def issuer_base(self) -> str:
        return self.issuer.rstrip("/")

    @property
    def secrets_key_bytes(self) -> bytes | None:
        """The decoded secrets key (validated at start-up), or None when unset."""
        return parse_key(self.secrets_key) if self.secrets_key else None

    @property
    def api_audience(self) -> str:
        """Audience of the provider's own API (DESIGN.md: ``{SVC_ISSUER}/api``)."""
        return f"{self.issuer_base}/api"

    @property
    def auth_ui_url(self) -> str:
        return (self.auth_ui_base_url or f"{self.issuer_base}/auth").rstrip("/")

    @property
    def nats_stream(self) -> str:
        return f"{self.nats_prefix.upper().replace('.', '_').replace('-', '_')}_EVENTS"


def _parse_list(raw: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in raw.split(",") if part.strip())


_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"0", "false", "no", "off", ""})


def _parse_bool(raw: str) -> bool:
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(raw)


_PARSERS: dict[type, Callable[[str], Any]] = {
    str: str,
    int: int,
    float: float,
    bool: _parse_bool,
    tuple: _parse_list,
}


def _field_kind(annotation: Any) -> type:
    if get_origin(annotation) is tuple:
        return tuple
    return annotation if annotation in (int, float, bool) else str


def _read_raw(name: str, env: Mapping[str, str], problems: list[str]) -> str | None:
    key = PREFIX + name.upper()
    file_key = key + "_FILE"
    if env.get(file_key):  # an empty *_FILE counts as unset
        try:
            return Path(env[file_key]).read_text().strip()
        except OSError as exc:
            problems.append(f"{file_key}: cannot read {env[file_key]!r} ({exc.strerror})")
            return None
    return env.get(key)


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Read, parse and validate settings; raise :class:`SettingsError` listing every problem."""
    source = os.environ if env is None else env
    problems: list[str] = []
    values: dict[str, Any] = {}
    for field in msgspec.structs.fields(Settings):
        raw = _read_raw(field.name, source, problems)
        if raw is None:
            continue
        kind = _field_kind(field.type)
        try:
            values[field.name] = _PARSERS[kind](raw)
        except ValueError:
            problems.append(f"{PREFIX}{field.name.upper()}: expected {kind.__name__}, got {raw!r}")
    if "env" in values and values["env"] not in ("dev", "prod"):
        problems.append(f"SVC_ENV: must be 'dev' or 'prod', got {values.pop('env')!r}")
    # Unparseable values fall back to defaults so that every other rule is still checked.
    settings = Settings(**values)
    problems.extend(validate(settings))
    if problems:
        raise SettingsError(problems)
    for warning in unsafe_defaults(settings):
        log.warning("settings: %s", warning)
    return settings


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
            "SVC_API_PREFIX: must stay empty (spec §9: /.well-known/* is at the host root)"
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
    if settings.session_cookie_host_prefix and not settings.is_prod:
        problems.append(
            "SVC_SESSION_COOKIE_HOST_PREFIX: needs SVC_ENV=prod (a __Host- cookie must be "
            "Secure, which a plain-http development setup cannot send back)"
        )
    return problems


def _validate_face(settings: Settings) -> list[str]:
    """Face sign-in: DESIGN.md caps the distance threshold at 0.5."""
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
    for name in (
        "avatar_max_bytes",
        "access_token_ttl",
        "token_per_ip",
        "reset_per_ip",
        "auth_fail_per_ip",
        "recent_sign_in_max_age",
        "challenge_per_ip",
        "face_per_ip",
    ):
        if getattr(settings, name) <= 0:
            problems.append(f"SVC_{name.upper()}: must be positive")
    if settings.secrets_key:
        try:
            parse_key(settings.secrets_key)
        except ValueError as exc:
            problems.append(str(exc))
    if settings.cleanup_interval < 0:
        problems.append("SVC_CLEANUP_INTERVAL: must be 0 (off) or a number of seconds")
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
    return warnings
