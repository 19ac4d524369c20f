"""``PUT/DELETE /entity/profile/photo`` and ``GET /media/avatars/{name}`` (contract §2
"Built-in person facts" photo, part 4 "Entity" and "Media", §8 body size; issue 5
acceptance 1 and 3) against the run's moto S3 server."""

from __future__ import annotations

import io
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
import httpx
import pytest
from PIL import Image

from idp_common.protocol.constants import SCOPE_IDP_ACCOUNT_WRITE
from tests.harness import records
from tests.harness.records import create_user, query
from tests.harness.stack import Stack
from tests.integration.entity.contract import EntityApi, assert_guarded, assert_problem

pytestmark = pytest.mark.integration

PATH = "/entity/profile/photo"
NAME = re.compile(r"^[0-9a-f]{32}\.(png|jpg|webp)$")
MAX_BYTES = 5 * 1024 * 1024  # the stack's SVC_AVATAR_MAX_BYTES


def image(fmt: str, size: tuple[int, int] = (40, 30), **save: Any) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (10, 120, 200)).save(out, fmt, **save)
    return out.getvalue()


def jpeg_with_exif() -> bytes:
    exif = Image.Exif()
    exif[0x0110] = "Secret Camera"  # Model
    exif[0x8298] = "secret owner"  # Copyright
    return image("JPEG", exif=exif.tobytes())


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


def stored_picture(stack: Stack, person: records.TestUser) -> object:
    return query(stack, "SELECT picture FROM users WHERE id = $1::uuid", person.id)[0]["picture"]


def name_of(url: str, stack: Stack) -> str:
    prefix = f"{stack.issuer}/media/avatars/"
    assert url.startswith(prefix), url
    name = url.removeprefix(prefix)
    assert NAME.fullmatch(name), name
    return name


def put_raw(api: EntityApi, data: bytes, content_type: str) -> httpx.Response:
    return api.put(PATH, content=data, headers={"Content-Type": content_type})


def fetch(stack: Stack, name: str) -> httpx.Response:
    """The public URL, through the proxy, with no token."""
    return httpx.get(f"{stack.proxy_url}/media/avatars/{name}", timeout=10)


def test_upload_png_then_jpeg_form_serves_each_and_replaces_the_first(
    stack: Stack, entity_api: EntityApi, person: records.TestUser
) -> None:
    png = image("PNG")
    resp = put_raw(entity_api, png, "image/png")
    assert resp.status_code == 200, resp.text
    first = name_of(resp.json()["picture"], stack)
    assert first.endswith(".png")
    assert stored_picture(stack, person) == first
    assert first in objects(stack)

    served = fetch(stack, first)
    assert served.status_code == 200, served.text
    assert served.headers["content-type"] == "image/png"
    assert served.headers["cache-control"] == "public, max-age=86400, immutable"
    assert served.headers["x-content-type-options"] == "nosniff"
    assert "authorization" not in served.request.headers
    shown = Image.open(io.BytesIO(served.content))
    assert (shown.format, shown.size) == ("PNG", (40, 30))

    files = {"file": ("me.jpg", image("JPEG"), "image/jpeg")}
    resp = entity_api.put(PATH, files=files)
    assert resp.status_code == 200, resp.text
    second = name_of(resp.json()["picture"], stack)
    assert second.endswith(".jpg") and second != first
    assert stored_picture(stack, person) == second
    assert fetch(stack, second).headers["content-type"] == "image/jpeg"
    assert fetch(stack, first).status_code == 404  # the replaced object is deleted
    assert first not in objects(stack)

    actions = [r["action"] for r in entity_api.audit_rows(person.id)]
    assert actions.count("profile.photo.set") == 2
    for row in entity_api.audit_rows(person.id):
        assert row["actor"] == person.id


def test_webp_is_accepted(stack: Stack, entity_api: EntityApi) -> None:
    resp = put_raw(entity_api, image("WEBP"), "image/webp")
    assert resp.status_code == 200, resp.text
    name = name_of(resp.json()["picture"], stack)
    assert fetch(stack, name).headers["content-type"] == "image/webp"


def test_exif_and_metadata_are_gone_from_the_stored_image(
    stack: Stack, entity_api: EntityApi
) -> None:
    sent = jpeg_with_exif()
    assert b"Secret Camera" in sent
    resp = put_raw(entity_api, sent, "image/jpeg")
    assert resp.status_code == 200, resp.text
    served = fetch(stack, name_of(resp.json()["picture"], stack)).content
    for secret in (b"Secret Camera", b"secret owner", b"Exif"):
        assert secret not in served
    assert not Image.open(io.BytesIO(served)).getexif()


def test_delete_clears_the_photo_and_is_idempotent(
    stack: Stack, entity_api: EntityApi, person: records.TestUser
) -> None:
    name = name_of(put_raw(entity_api, image("PNG"), "image/png").json()["picture"], stack)
    resp = entity_api.delete(PATH)
    assert resp.status_code == 204, resp.text
    assert resp.content == b""
    assert stored_picture(stack, person) is None
    assert name not in objects(stack)
    assert_problem(fetch(stack, name), 404)
    again = entity_api.delete(PATH)
    assert again.status_code == 204, again.text
    actions = [r["action"] for r in entity_api.audit_rows(person.id)]
    assert actions.count("profile.photo.delete") == 2


def test_both_routes_are_guarded(entity_api: EntityApi) -> None:
    assert_guarded(entity_api, "PUT", PATH, SCOPE_IDP_ACCOUNT_WRITE)
    assert_guarded(entity_api, "DELETE", PATH, SCOPE_IDP_ACCOUNT_WRITE)


@pytest.mark.parametrize(
    ("data", "content_type", "message"),
    [
        (b"this is not an image", "image/png", "is not an image"),
        (image("PNG"), "image/jpeg", "is image/png, not the image/jpeg it was sent as"),
        (image("JPEG"), "image/webp", "is image/jpeg, not the image/webp"),
        (image("PNG")[:60], "image/png", "could not be decoded"),
    ],
    ids=["not an image", "png sent as jpeg", "jpeg sent as webp", "truncated"],
)
def test_a_bad_image_is_422_naming_the_body_and_changes_nothing(
    stack: Stack,
    entity_api: EntityApi,
    person: records.TestUser,
    data: bytes,
    content_type: str,
    message: str,
) -> None:
    before = objects(stack)
    resp = put_raw(entity_api, data, content_type)
    assert_problem(resp, 422, field="body")
    assert message in resp.json()["detail"]
    assert stored_picture(stack, person) is None
    assert objects(stack) == before


def test_a_bad_form_is_422_naming_the_field(entity_api: EntityApi) -> None:
    text = {"file": ("x.txt", b"hello", "text/plain")}
    assert_problem(entity_api.put(PATH, files=text), 422, field="file")
    other = {"picture": ("x.png", image("PNG"), "image/png")}
    assert_problem(entity_api.put(PATH, files=other), 422, field="picture")
    fake = {"file": ("x.png", b"GIF89a fake", "image/png")}
    assert_problem(entity_api.put(PATH, files=fake), 422, field="file")


def test_another_body_type_is_415(entity_api: EntityApi) -> None:
    resp = entity_api.put(PATH, json={"picture": "http://elsewhere/x.png"})
    assert_problem(resp, 415)
    assert_problem(put_raw(entity_api, b"GIF89a", "image/gif"), 415)


def test_an_oversized_photo_is_413_through_the_proxy(
    stack: Stack, entity_api: EntityApi, person: records.TestUser
) -> None:
    headers = {"Authorization": f"Bearer {entity_api.token()}", "Content-Type": "image/png"}
    url = f"{stack.proxy_url}{PATH}"
    just_over = httpx.put(url, content=b"\0" * (MAX_BYTES + 1), headers=headers, timeout=30)
    assert_problem(just_over, 413)
    assert just_over.json()["code"] == "photo.too_large"  # the service's answer, not nginx's
    assert str(MAX_BYTES) in just_over.json()["detail"]
    far_over = httpx.put(url, content=b"\0" * (MAX_BYTES + 2 * 1024 * 1024), headers=headers)
    assert far_over.status_code == 413
    assert stored_picture(stack, person) is None


def test_a_3_mb_photo_passes_the_proxy(stack: Stack, entity_api: EntityApi) -> None:
    data = noise_png(3 * 1024 * 1024)
    assert len(data) > 3 * 1024 * 1024
    headers = {"Authorization": f"Bearer {entity_api.token()}", "Content-Type": "image/png"}
    resp = httpx.put(f"{stack.proxy_url}{PATH}", content=data, headers=headers, timeout=60)
    assert resp.status_code == 200, resp.text
    served = fetch(stack, name_of(resp.json()["picture"], stack))
    assert served.status_code == 200
    assert (
        Image.open(io.BytesIO(served.content)).tobytes() == Image.open(io.BytesIO(data)).tobytes()
    )


def test_a_machine_client_has_no_photo(stack: Stack, entity_api: EntityApi) -> None:
    token = entity_api.token(sub="some-machine-client")
    resp = entity_api.client.put(
        PATH,
        content=image("PNG"),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "image/png"},
    )
    assert_problem(resp, 404)


def test_media_refuses_unknown_and_malformed_names(stack: Stack) -> None:
    for name in (
        "0" * 32 + ".png",
        "..%2F..%2Fetc%2Fpasswd",
        "ABCDEF0123456789ABCDEF0123456789.png",
        "0" * 32 + ".gif",
        "0" * 32,
    ):
        resp = fetch(stack, name)
        assert resp.status_code == 404, (name, resp.text)


def test_without_a_store_photo_routes_answer_503_and_nothing_changes(
    extra_processes: Stack, entity_api: EntityApi, person: records.TestUser
) -> None:
    stack = extra_processes
    name = name_of(put_raw(entity_api, image("PNG"), "image/png").json()["picture"], stack)
    storeless = stack.start_service("entity", overrides={"SVC_S3_ENDPOINT_URL": ""})
    stack.wait_until_up(storeless)
    headers = {"Authorization": f"Bearer {entity_api.token()}"}
    with httpx.Client(base_url=storeless.url, headers=headers, timeout=10) as client:
        put = client.put(PATH, content=image("PNG"), headers={"Content-Type": "image/png"})
        assert_problem(put, 503)
        assert put.json()["code"] == "photo.store_not_configured"
        assert_problem(client.delete(PATH), 503)
        assert_problem(client.get(f"/media/avatars/{name}"), 503)
        assert client.get("/health/ready").status_code == 200
    assert stored_picture(stack, person) == name
    assert name in objects(stack)


def test_a_second_person_keeps_their_own_photo(stack: Stack, entity_api: EntityApi) -> None:
    other = create_user(stack)
    theirs = EntityApi(stack, other)
    try:
        their_name = name_of(put_raw(theirs, image("PNG"), "image/png").json()["picture"], stack)
        assert entity_api.delete(PATH).status_code == 204
        assert stored_picture(stack, other) == their_name
        assert fetch(stack, their_name).status_code == 200
    finally:
        theirs.close()


def test_two_uploads_at_once_leave_one_object(
    stack: Stack, entity_api: EntityApi, person: records.TestUser
) -> None:
    before = objects(stack)
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: put_raw(entity_api, image("PNG"), "image/png"), range(2)))
    assert [a.status_code for a in answers] == [200, 200]
    time.sleep(0.2)
    kept = stored_picture(stack, person)
    assert objects(stack) - before == {kept}
