"""The S3-compatible store of profile photos (``SVC_S3_ENDPOINT_URL``, ``SVC_S3_BUCKET``).

One :class:`AvatarStore` per worker holds one aiobotocore client, opened on first use and
closed by :meth:`AvatarStore.aclose`. The bucket is created when missing, on the first
write. Credentials come from the standard AWS chain (``AWS_ACCESS_KEY_ID`` /
``AWS_SECRET_ACCESS_KEY``, a profile, an instance role) unless given explicitly; region
``us-east-1``, path-style addressing (what MinIO, Ceph and moto serve).

Contract: ``put`` and ``delete`` either succeed or raise :class:`StoreUnavailable`;
``delete`` of a missing object succeeds; ``open`` answers None for a missing object or
bucket. Any failure to reach the store, or a refusal of it (bad credentials), is
:class:`StoreUnavailable`, which the service answers with 503.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import aioboto3
from aiobotocore.config import AioConfig
from botocore.exceptions import BotoCoreError, ClientError

if TYPE_CHECKING:
    from types_aiobotocore_s3.client import S3Client

log = logging.getLogger("idp.avatars")
REGION: Final = "us-east-1"
CHUNK: Final = 64 * 1024
_CONFIG: Final = AioConfig(
    region_name=REGION,
    connect_timeout=2,
    read_timeout=10,
    retries={"max_attempts": 2, "mode": "standard"},
    s3={"addressing_style": "path"},
)
_MISSING: Final = frozenset({"NoSuchKey", "NoSuchBucket", "404", "NotFound"})


class StoreUnavailable(Exception):
    """The store cannot be reached or refused the request (logged, never shown)."""


@dataclass(frozen=True)
class StoredPhoto:
    """An object being read: ``chunks`` must be iterated to the end or closed."""

    length: int | None
    chunks: AsyncIterator[bytes]


def _code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


class AvatarStore:
    def __init__(
        self,
        endpoint_url: str,
        bucket: str,
        *,
        access_key: str | None = None,
        secret_key: str | None = None,
    ) -> None:
        self.endpoint_url = endpoint_url
        self.bucket = bucket
        # None: the standard AWS chain finds them
        self._access_key = access_key if access_key and secret_key else None
        self._secret_key = secret_key if access_key and secret_key else None
        self._session = aioboto3.Session()
        self._exit = AsyncExitStack()
        self._client: S3Client | None = None
        self._bucket_ready = False
        self._lock = asyncio.Lock()

    async def _s3(self) -> S3Client:
        client = self._client
        if client is None:
            async with self._lock:
                client = self._client
                if client is None:
                    factory = self._session.client(
                        "s3",
                        endpoint_url=self.endpoint_url,
                        config=_CONFIG,
                        aws_access_key_id=self._access_key,
                        aws_secret_access_key=self._secret_key,
                    )
                    client = self._client = await self._exit.enter_async_context(factory)
        return client

    async def aclose(self) -> None:
        self._client, self._bucket_ready = None, False
        exit_stack, self._exit = self._exit, AsyncExitStack()
        await exit_stack.aclose()

    async def _ensure_bucket(self, s3: S3Client) -> None:
        if self._bucket_ready:
            return
        try:
            await s3.head_bucket(Bucket=self.bucket)
        except ClientError as exc:
            if _code(exc) not in _MISSING:
                raise
            try:
                await s3.create_bucket(Bucket=self.bucket)
            except ClientError as race:  # another worker created it meanwhile
                if _code(race) not in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
                    raise
        self._bucket_ready = True

    async def put(self, name: str, data: bytes, content_type: str) -> None:
        try:
            s3 = await self._s3()
            await self._ensure_bucket(s3)
            await s3.put_object(Bucket=self.bucket, Key=name, Body=data, ContentType=content_type)
        except (BotoCoreError, ClientError) as exc:
            raise self._unavailable("put", exc) from exc

    async def delete(self, name: str) -> None:
        try:
            s3 = await self._s3()
            await s3.delete_object(Bucket=self.bucket, Key=name)
        except ClientError as exc:
            if _code(exc) in _MISSING:
                return
            raise self._unavailable("delete", exc) from exc
        except BotoCoreError as exc:
            raise self._unavailable("delete", exc) from exc

    async def open(self, name: str) -> StoredPhoto | None:
        """The object ``name`` streamed in chunks, or None when there is none."""
        try:
            s3 = await self._s3()
            answer = await s3.get_object(Bucket=self.bucket, Key=name)
        except ClientError as exc:
            if _code(exc) in _MISSING:
                return None
            raise self._unavailable("get", exc) from exc
        except BotoCoreError as exc:
            raise self._unavailable("get", exc) from exc
        body = answer["Body"]

        async def chunks() -> AsyncIterator[bytes]:
            try:
                async for chunk in body.iter_chunks(CHUNK):
                    yield chunk
            finally:
                body.close()

        return StoredPhoto(answer.get("ContentLength"), chunks())

    def _unavailable(self, operation: str, exc: Exception) -> StoreUnavailable:
        log.warning("photo store %s failed at %s: %s", operation, self.endpoint_url, exc)
        return StoreUnavailable(f"photo store {operation} failed")


def open_store(endpoint_url: str, bucket: str) -> AvatarStore | None:
    """The store ``SVC_S3_ENDPOINT_URL`` names (credentials from the AWS chain), or None
    when it is empty (no photos in this deployment)."""
    return AvatarStore(endpoint_url, bucket) if endpoint_url else None


async def read_photo(store: AvatarStore, name: str) -> bytes | None:
    """The bytes of the stored photo ``name``, or None when there is none;
    :class:`StoreUnavailable` when the store cannot be read."""
    stored = await store.open(name)
    if stored is None:
        return None
    return b"".join([chunk async for chunk in stored.chunks])
