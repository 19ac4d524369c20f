"""The deployment settings: one field per ``SVC_*`` variable, with its default."""

from __future__ import annotations

import hashlib
import hmac
from typing import Literal

import msgspec

from idp_common.crypto.secretbox import parse_key
from idp_common.protocol.constants import (
    ACCESS_TOKEN_TTL_SECONDS,
    DISCOVERY_MAX_AGE_SECONDS,
    RECENT_SIGN_IN_MAX_AGE_SECONDS,
    RESET_PER_IP_LIMIT,
    SESSION_COOKIE_NAME,
    TOKEN_PER_IP_LIMIT,
)
from idp_common.protocol.rfc4647_locales import DEFAULT_LOCALE
from idp_common.protocol.rfc9126_par import DEFAULT_LIFETIME_SECONDS as PAR_LIFETIME_SECONDS

PREFIX = "SVC_"
HOST_PREFIX = "__Host-"

Environment = Literal["dev", "prod"]
#: How face sign-in may be used (``SVC_FACE_SIGNIN``, docs/face-signin.md): ``first_factor``
#: lets a face replace the password (a weaker sign-in of its own ``acr``);
#: ``second_factor`` accepts a face only after the password; ``off`` never asks for one.
FACE_SIGNIN_MODES: tuple[str, ...] = ("first_factor", "second_factor", "off")
#: How log lines are written (``SVC_LOG_FORMAT``, docs/operations.md "Traces and logs"):
#: ``json``, one JSON object a line, for collectors; ``text``, one readable line, for people.
LOG_FORMATS: tuple[str, ...] = ("json", "text")


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
    # The deployment's language (one of SUPPORTED_LOCALES, docs/languages.md "Mails"):
    # security notices to a person who saved no language are written in it, never in the
    # language of the request that caused them; the reset mail falls back to it last.
    default_locale: str = DEFAULT_LOCALE
    key_dir: str = "var/keys"
    # Signing-key rotation (docs/operations.md "Signing keys"): the JWKS and discovery
    # max-age, how long the proxy answers the JWKS itself (X-Accel-Expires), and how
    # often every process re-reads key_dir; a rotated key signs only after all have passed.
    jwks_cache_seconds: int = DISCOVERY_MAX_AGE_SECONDS
    jwks_proxy_seconds: int = 5
    key_reload_seconds: int = 10
    # The token service's hot endpoints skip Litestar's routing and response layers
    # (token_service.lean_routes; docs/performance.md). false: the full stack, to compare.
    lean_routes: bool = True
    secrets_key: str = ""  # AES-256-GCM key for stored secrets (TOTP, face); empty: TOTP off
    # RFC 9449 §8: DPoP proofs must carry a server nonce (an HMAC of the time window under
    # a key derived from SVC_SECRETS_KEY, which must then be set; docs/oauth/dpop.md).
    dpop_nonce: bool = False

    access_token_ttl: int = ACCESS_TOKEN_TTL_SECONDS
    token_per_ip: int = TOKEN_PER_IP_LIMIT  # contract §8 TOKEN_PER_IP, per minute
    reset_per_ip: int = RESET_PER_IP_LIMIT  # contract §8 RESET_PER_IP, per hour
    auth_fail_per_ip: int = 60  # failed bearer authentications per minute per address
    cleanup_interval: int = 600  # seconds between periodic cleanup runs; 0 disables
    # Seconds between two writes of the token service's issued-token counts to the audit
    # log (one ``tokens.issued`` row per grant and client; docs/activity-dashboard.md).
    activity_flush_seconds: float = 10.0
    # Rows one statement of the cleanup deletes at most; each batch commits by itself
    # (docs/operations.md "Cleanup").
    cleanup_batch_size: int = 1000
    cleanup_batch_pause: float = 0.0  # seconds the cleanup waits between two batches
    # RFC 9470 step-up: how recent a sign-in must be for credential changes (contract §5 rule 5)
    recent_sign_in_max_age: int = RECENT_SIGN_IN_MAX_AGE_SECONDS
    face_threshold: float = 0.5  # largest embedding distance that still matches (<= 0.5)
    face_min_size: int = 80  # smallest face accepted, in pixels of the normalised image
    face_workers: int = 0  # face model processes per service worker; 0: cores / workers
    face_signin: str = "first_factor"  # one of FACE_SIGNIN_MODES
    # Face sign-in attempts per minute per caller address: each costs a decode and an
    # embedding (0.1-0.4 s of a core), far more than a password (docs/security.md).
    face_per_ip: int = 10
    # RFC 8628 device authorization (docs/oauth/device-flow.md): a device code's lifetime,
    # the least seconds between two polls, and the wrong user codes an address may enter
    # in an hour on the device page before it is refused (429).
    device_code_ttl: int = 600
    device_poll_interval: int = 5
    user_code_failures_per_ip: int = 20
    # Authorization requests that may start a sign-in (a challenge in Redis) per minute per
    # caller address (docs/security.md "Throttling").
    challenge_per_ip: int = 60
    # Seconds a pushed authorization request (RFC 9126 §2.2 ``expires_in``) stays usable,
    # 1 to 599 (FAPI 2.0 asks for under 600; docs/oauth/par.md).
    par_request_ttl: int = PAR_LIFETIME_SECONDS
    # Passkeys (docs/passkeys.md): seconds a WebAuthn challenge stays usable
    # (a page offering passkeys through autofill waits for the person); the AAGUIDs of
    # the authenticators a new passkey must come from (empty: any, attestation "none");
    # with a list, a PEM file of the attestation roots the statement must chain to.
    passkey_challenge_ttl: int = 300
    passkey_allowed_aaguids: tuple[str, ...] = ()
    passkey_attestation_roots: str = ""
    # RP-Initiated Logout without a valid id_token_hint shows a confirmation page instead
    # of ending the session at once (OIDC RP-Initiated Logout 1.0 §2; docs/security.md).
    logout_confirmation: bool = False
    # Back-channel logout URIs may name loopback, private and link-local addresses
    # (development and the test suite; docs/security.md). Off: refused at registration
    # and again at delivery, after DNS resolution.
    backchannel_allow_private: bool = False
    # A client's jwks_uri (private_key_jwt) may name loopback, private and
    # link-local addresses (development and the test suite; docs/oauth/client-authentication.md).
    # Off: refused at registration and again when the token service fetches it.
    client_jwks_allow_private: bool = False
    # Webhooks (docs/webhooks.md): endpoints may name loopback, private and
    # link-local hosts (plain http too, for those only); off, refused at registration and
    # again at delivery, after DNS resolution. A failed delivery is tried again after
    # base * 2^(attempts-1) seconds (at most max_delay, +10 % jitter) for retry_for seconds
    # after it was queued, then marked failed.
    webhook_allow_private: bool = False
    webhook_retry_base_seconds: float = 5.0
    webhook_retry_max_delay_seconds: float = 3600.0
    webhook_retry_for_seconds: float = 3 * 24 * 3600.0
    # Production only: the session cookie is named ``__Host-svc_session`` (RFC 6265bis
    # §4.1.3.2: Secure, Path=/, no Domain), so no sibling subdomain can set or shadow it.
    session_cookie_host_prefix: bool = False
    dependency_timeout: float = 1.0  # seconds a health probe waits for Postgres/Redis
    # Postgres connections each worker may hold: the ORM pool and the hot statements' pool
    # (docs/operations.md "Sizing": replicas x workers x their sum must stay under the
    # server's max_connections).
    db_pool_size: int = 10
    db_hot_pool_size: int = 16
    # Graceful shutdown of `idp serve` (docs/operations.md "Rolling restart"): on SIGTERM
    # /health/ready answers 503 and the service keeps serving, with `Connection: close`,
    # for the drain; then it stops accepting and in-flight requests get at most the
    # timeout to finish (Granian's workers_kill_timeout).
    shutdown_drain_seconds: float = 5.0
    shutdown_timeout_seconds: float = 20.0
    # Prometheus metrics at GET /metrics on each service's own port (docs/operations.md
    # "Metrics"); off: the route is 404 and nothing is counted. ``metrics_dir``: where
    # ``idp serve`` makes each replica's multiprocess directory (empty: the temp folder).
    metrics_enabled: bool = True
    metrics_dir: str = ""
    log_level: str = "INFO"
    log_format: str = "json"  # one of LOG_FORMATS

    @property
    def is_prod(self) -> bool:
        return self.env == "prod"

    @property
    def session_cookie_name(self) -> str:
        """``svc_session`` (contract §5), or ``__Host-svc_session`` when the prefix is on."""
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
    def dpop_nonce_key(self) -> bytes | None:
        """The key of the DPoP server nonces (RFC 9449 §8), None when nonces are off."""
        key = self.secrets_key_bytes if self.dpop_nonce else None
        return None if key is None else hmac.new(key, b"dpop-nonce", hashlib.sha256).digest()

    @property
    def api_audience(self) -> str:
        """Audience of the provider's own API (docs/design.md: ``{SVC_ISSUER}/api``)."""
        return f"{self.issuer_base}/api"

    @property
    def auth_ui_url(self) -> str:
        return (self.auth_ui_base_url or f"{self.issuer_base}/auth").rstrip("/")

    @property
    def nats_stream(self) -> str:
        return f"{self.nats_prefix.upper().replace('.', '_').replace('-', '_')}_EVENTS"
