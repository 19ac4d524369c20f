"""The pieces of the key-rotation run: a resource API validating tokens with PyJWT's
``PyJWKClient`` behind a round-robin "load balancer" of token replicas, a load of
``client_credentials`` requests spread over the replicas, and a sampler of every JWKS the
replicas serve. Each runs in a thread of its own and records what it saw, with times."""

from __future__ import annotations

import base64
import json
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import jwt
from jwt import PyJWKClient, PyJWKSet

from tests.harness.stack import Stack


def own_key_dir(stack: Stack, tmp_path: Path) -> Path:
    """A key directory of the test's own (mode 0700) holding copies of the stack's RS256
    keys, so that writing a key there changes nothing for the other tests."""
    key_dir = tmp_path / "keys"
    key_dir.mkdir(mode=0o700)
    for key in sorted(stack.key_dir.glob("*.pem")):
        shutil.copy2(key, key_dir / key.name)
    return key_dir


@dataclass(frozen=True)
class JwksFetch:
    at: float  # when the answer arrived
    url: str
    kids: frozenset[str]
    refresh: bool  # forced by an unknown kid (PyJWKClient's refetch), not by expiry


class ResourceApi(PyJWKClient):
    """A resource server that caches the JWKS for ``lifespan`` seconds and fetches it
    through a round-robin balancer of ``jwks_urls``. ``cooldown_duration=lifespan``: an
    unknown ``kid`` within the cache lifetime fails validation instead of refetching, so
    the run cannot pass by relying on that refetch."""

    def __init__(self, jwks_urls: list[str], *, lifespan: float) -> None:
        super().__init__(
            jwks_urls[0], cache_jwk_set=True, lifespan=lifespan, cooldown_duration=lifespan
        )
        self.urls = jwks_urls
        self.fetches: list[JwksFetch] = []
        self._turn = 0
        self._refresh = False

    def get_jwk_set(self, refresh: bool = False) -> PyJWKSet:
        self._refresh = refresh
        return super().get_jwk_set(refresh)

    def fetch_data(self) -> Any:
        self.uri = self.urls[self._turn % len(self.urls)]
        self._turn += 1
        data = super().fetch_data()
        kids = frozenset(key["kid"] for key in data["keys"])
        self.fetches.append(JwksFetch(time.time(), self.uri, kids, self._refresh))
        return data

    def validate(self, token: str, *, issuer: str, audience: str) -> dict[str, Any]:
        """Signature, ``iss``, ``aud`` and ``exp``, as a resource API checks them."""
        key = self.get_signing_key_from_jwt(token)
        claims: dict[str, Any] = jwt.decode(
            token,
            key.key,
            algorithms=["RS256"],
            issuer=issuer,
            audience=audience,
            options={"require": ["exp", "iat", "iss", "aud"]},
        )
        return claims


@dataclass(frozen=True)
class Issued:
    replica: str
    kid: str
    iat: int
    exp: int
    received: float
    error: str | None  # None: issued and validated


def header_kid(token: str) -> str:
    segment = token.split(".", maxsplit=1)[0]
    return str(json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))["kid"])


@dataclass
class TokenLoad:
    """``client_credentials`` requests, round-robin over ``token_urls``, each token
    validated by ``api`` as soon as it arrives."""

    token_urls: list[str]
    client_id: str
    secret: str
    scope: str
    issuer: str
    audience: str
    api: ResourceApi
    address: str  # the load's own X-Forwarded-For: rate-limit buckets are shared in Redis
    pause: float = 0.03
    issued: list[Issued] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        with httpx.Client(timeout=30) as http:
            turn = 0
            while not self._stop.is_set():
                url = self.token_urls[turn % len(self.token_urls)]
                turn += 1
                self.issued.append(self._one(http, url))
                time.sleep(self.pause)

    def _one(self, http: httpx.Client, url: str) -> Issued:
        try:
            response = http.post(
                url + "/oauth2/token",
                data={"grant_type": "client_credentials", "scope": self.scope},
                auth=(self.client_id, self.secret),
                headers={"X-Forwarded-For": self.address},
            )
        except httpx.HTTPError as exc:
            return Issued(url, "", 0, 0, time.time(), f"no answer: {exc!r}")
        received = time.time()
        if response.status_code != 200:
            return Issued(url, "", 0, 0, received, f"{response.status_code} {response.text}")
        token = response.json()["access_token"]
        try:
            claims = self.api.validate(token, issuer=self.issuer, audience=self.audience)
        except jwt.PyJWTError as exc:
            return Issued(url, header_kid(token), 0, 0, received, f"invalid: {exc!r}")
        return Issued(url, header_kid(token), claims["iat"], claims["exp"], received, None)

    def stop(self) -> None:
        self._stop.set()


@dataclass(frozen=True)
class Served:
    started: float
    received: float
    url: str
    kids: frozenset[str]
    cache_control: str


@dataclass
class JwksSampler:
    """Every ``period`` seconds, the JWKS of each replica, straight from its port."""

    urls: list[str]
    period: float = 0.1
    served: list[Served] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        with httpx.Client(timeout=30) as http:
            while not self._stop.is_set():
                for url in self.urls:
                    started = time.time()
                    try:
                        response = http.get(url + "/.well-known/jwks.json")
                        response.raise_for_status()
                    except httpx.HTTPError as exc:
                        self.errors.append(f"{url}: {exc!r}")
                        continue
                    kids = frozenset(key["kid"] for key in response.json()["keys"])
                    cache = response.headers.get("cache-control", "")
                    self.served.append(Served(started, time.time(), url, kids, cache))
                time.sleep(self.period)

    def stop(self) -> None:
        self._stop.set()
