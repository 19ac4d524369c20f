"""``PUT/GET/DELETE /entity/face`` and ``DELETE /admin/users/{id}/face`` (issue 7: enrolment
by the person, recent sign-in, one face of sufficient size, the template stored encrypted
and never the image, cleared by an administrator)."""

from __future__ import annotations

import io
import struct
import uuid

import pytest
from PIL import Image, ImageFilter

from idp_common.crypto.secretbox import SecretboxError, parse_key
from idp_common.face.template import distance, open_template
from tests.harness import records
from tests.harness.api import assert_guarded as assert_admin_guarded
from tests.harness.faces import FACES
from tests.harness.records import create_user, query
from tests.harness.stack import Stack
from tests.integration.admin.contract import AdminApi
from tests.integration.entity.contract import EntityApi, assert_guarded, assert_problem, now

pytestmark = [pytest.mark.integration, pytest.mark.face]

PATH = "/entity/face"
STEP_UP = 'Bearer error="insufficient_user_authentication", max_age=300'


def face(name: str) -> bytes:
    return (FACES / name).read_bytes()


def upload(name: str) -> dict[str, tuple[str, bytes, str]]:
    return {"file": (name, face(name), "image/jpeg")}


def template_rows(stack: Stack, person: records.TestUser) -> list[dict[str, object]]:
    return query(
        stack,
        "SELECT template_encrypted, created_at, updated_at FROM face_templates WHERE user_id = $1",
        uuid.UUID(person.id),
    )


def actions(stack: Stack, person: records.TestUser) -> list[object]:
    """The face actions audited about ``person`` (the notices they cause are rows too)."""
    rows = query(
        stack,
        "SELECT action FROM audit_events WHERE target = $1 AND action LIKE 'face.%' ORDER BY id",
        person.id,
    )
    return [r["action"] for r in rows]


def test_enrol_read_replace_and_delete(stack: Stack, entity_api: EntityApi) -> None:
    assert entity_api.get(PATH).json() == {"enrolled": False, "enrolledAt": None, "updatedAt": None}
    enrolled = entity_api.put(PATH, files=upload("obama1.jpg"))
    assert enrolled.status_code == 200, enrolled.text
    body = enrolled.json()
    assert body["enrolled"] is True and body["enrolledAt"]
    assert entity_api.get(PATH).json()["enrolled"] is True
    assert len(template_rows(stack, entity_api.person)) == 1

    again = entity_api.put(PATH, content=face("obama2.jpg"), headers={"Content-Type": "image/jpeg"})
    assert again.status_code == 200, again.text
    assert again.json()["enrolledAt"] == body["enrolledAt"]
    assert again.json()["updatedAt"] > body["updatedAt"]
    assert len(template_rows(stack, entity_api.person)) == 1

    assert entity_api.delete(PATH).status_code == 204
    assert entity_api.get(PATH).json()["enrolled"] is False
    assert template_rows(stack, entity_api.person) == []
    # the removal was a credential change: the next one needs a sign-in after it
    assert entity_api.delete(PATH).status_code == 403
    entity_api.sign_in_again()
    assert entity_api.delete(PATH).status_code == 204  # idempotent
    assert actions(stack, entity_api.person) == [
        "face.enroll",
        "face.enroll",
        "face.delete",
        "face.delete",
    ]


@pytest.mark.parametrize(
    ("image", "code"),
    [
        ("obama_and_biden.jpg", "face.several_faces"),
        ("no-face", "face.no_face"),
        ("blurred", "face.too_blurry"),
        ("tiny", "face.too_small"),
        ("garbage", "face.unreadable_image"),
    ],
)
def test_an_unusable_image_is_refused_saying_why(
    stack: Stack, entity_api: EntityApi, image: str, code: str
) -> None:
    if image.endswith(".jpg"):
        data = face(image)
    elif image == "garbage":
        data = b"\xff\xd8 this is not a JPEG at all"
    else:
        picture = Image.open(io.BytesIO(face("obama1.jpg"))).convert("RGB")
        if image == "no-face":
            picture = picture.crop((0, 0, 200, 200)).resize((600, 600))  # a corner: no face
        elif image == "blurred":
            picture = picture.filter(ImageFilter.GaussianBlur(12))
        else:
            picture = picture.resize((picture.width // 8, picture.height // 8))
        out = io.BytesIO()
        picture.save(out, "JPEG")
        data = out.getvalue()
    refused = entity_api.put(PATH, files={"file": ("x.jpg", data, "image/jpeg")})
    assert_problem(refused, 422, field="file")
    assert refused.json()["code"] == code
    assert refused.json()["detail"]  # a sentence for a person
    assert template_rows(stack, entity_api.person) == []


def test_the_template_is_sealed_not_plain_numbers(stack: Stack, entity_api: EntityApi) -> None:
    assert entity_api.put(PATH, files=upload("biden1.jpg")).status_code == 200
    (row,) = template_rows(stack, entity_api.person)
    stored = bytes(row["template_encrypted"])  # type: ignore[call-overload]
    key = parse_key(stack.env["SVC_SECRETS_KEY"])
    embedding = open_template(stored, key=key, user_id=entity_api.person.id)
    numbers = struct.unpack("<128f", embedding)
    assert all(-1.0 < n < 1.0 for n in numbers) and any(numbers)
    # None of the 128 numbers appears in the stored bytes, as float32 or as text.
    for n in numbers:
        assert struct.pack("<f", n) not in stored
        assert f"{n:.4f}".encode() not in stored
    # Sealed for this person: the same bytes on another person's row do not open.
    with pytest.raises(SecretboxError):
        open_template(stored, key=key, user_id=str(uuid.uuid4()))
    # And it is the face: the person's other photo is close to it.
    other = EntityApi(stack, create_user(stack))
    try:
        assert other.put(PATH, files=upload("biden2.jpg")).status_code == 200
    finally:
        other.close()
    (their,) = template_rows(stack, other.person)
    theirs = open_template(
        bytes(their["template_encrypted"]),  # type: ignore[call-overload]
        key=key,
        user_id=other.person.id,
    )
    assert distance(embedding, theirs) <= 0.5


def test_writes_need_a_recent_sign_in(stack: Stack, entity_api: EntityApi) -> None:
    entity_api.claims = {"auth_time": now() - 301, "amr": ["pwd"]}
    for refused in (entity_api.put(PATH, files=upload("obama1.jpg")), entity_api.delete(PATH)):
        assert refused.status_code == 403
        assert refused.headers["www-authenticate"] == STEP_UP
    assert template_rows(stack, entity_api.person) == []
    assert entity_api.get(PATH).status_code == 200  # reading does not


def test_routes_are_guarded(entity_api: EntityApi) -> None:
    assert_guarded(entity_api, "GET", PATH, "idp:account:read")
    assert_guarded(entity_api, "DELETE", PATH, "idp:account:write")


def test_an_administrator_clears_a_face(stack: Stack, entity_api: EntityApi) -> None:
    assert entity_api.put(PATH, files=upload("kit_harington1.jpg")).status_code == 200
    admin = AdminApi(stack)
    try:
        target = f"/admin/users/{entity_api.person.id}/face"
        assert_admin_guarded(admin, "DELETE", target, "idp:users:write")
        assert entity_api.get(PATH).json()["enrolled"] is True
        assert admin.delete(target).status_code == 204
        assert template_rows(stack, entity_api.person) == []
        assert admin.delete(target).status_code == 204
        assert admin.delete(f"/admin/users/{uuid.uuid4()}/face").status_code == 404
        assert admin.delete("/admin/users/not-a-uuid/face").status_code == 404
        rows = query(
            stack,
            "SELECT action, actor, detail->>'hadFace' AS had FROM audit_events"
            " WHERE action = 'user.clear_face' AND target = $1 ORDER BY id",
            entity_api.person.id,
        )
        assert [(r["actor"], r["had"]) for r in rows] == [
            (admin.actor, "true"),
            (admin.actor, "false"),
        ]
    finally:
        admin.close()
