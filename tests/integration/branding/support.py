"""Branding tests' tools: images, the run's S3 objects, the public reads through the proxy."""

from __future__ import annotations

import io
import os
import re
import time
from collections.abc import Callable
from typing import Any, TypeVar

import boto3
import httpx
from PIL import Image

from tests.harness.stack import Stack

T = TypeVar("T")
LOGO_NAME = re.compile(r"^brand-[0-9a-f]{64}\.(png|jpg|webp)$")
SVG = (
    b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    b"<script>alert(document.cookie)</script></svg>"
)


def image(
    fmt: str, size: tuple[int, int] = (64, 32), color: tuple[int, int, int] = (26, 115, 232)
) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, fmt)
    return out.getvalue()


def noise_png(nbytes: int) -> bytes:
    """A PNG of random pixels: it does not compress, so it is about ``nbytes`` big."""
    side = int((nbytes / 3) ** 0.5) + 1
    out = io.BytesIO()
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(out, "PNG")
    return out.getvalue()


def objects(stack: Stack) -> set[str]:
    s3 = boto3.client(
        "s3",
        endpoint_url=stack.s3_url,
        region_name="us-east-1",
        aws_access_key_id=stack.env["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=stack.env["AWS_SECRET_ACCESS_KEY"],
    )
    try:
        listed = s3.list_objects_v2(Bucket=stack.env["SVC_S3_BUCKET"])
    except s3.exceptions.NoSuchBucket:
        return set()
    return {o["Key"] for o in listed.get("Contents", [])}


def logo_name_of(stack: Stack, url: str) -> str:
    prefix = f"{stack.issuer}/media/brand/"
    assert url.startswith(prefix), url
    name = url.removeprefix(prefix)
    assert LOGO_NAME.fullmatch(name), name
    return name


def public(stack: Stack, path: str) -> httpx.Response:
    """A GET through the proxy with no token (as a browser on the sign-in page)."""
    return httpx.get(f"{stack.proxy_url}{path}", timeout=10)


def eventually(read: Callable[[], T], check: Callable[[T], bool], timeout: float = 10) -> T:
    """``read()`` until ``check`` holds (the public reads are cached a few seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if check(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.5)


def brand_of_challenge(stack: Stack, challenge_id: str) -> dict[str, Any]:
    answer = public(stack, f"/api/v1/auth/challenge/{challenge_id}")
    assert answer.status_code == 200, answer.text
    brand: dict[str, Any] = answer.json()["brand"]
    return brand
