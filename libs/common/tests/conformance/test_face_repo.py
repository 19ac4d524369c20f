"""Contract of :mod:`idp_common.storage.repos.face` against Postgres: one face template per
person (concurrent enrolments leave one whole row, a replacement keeps its creation time),
deleted once and with its person; photo fingerprints refreshed when the same pixels come
again (their embedding kept when the new one has none), listed newest first and bounded
to the newest :data:`PHOTO_FINGERPRINTS_KEPT` per person."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from idp_common.storage.db.models import FaceTemplate, PhotoFingerprint
from idp_common.storage.repos import face, users
from idp_common.storage.repos.face import PHOTO_FINGERPRINTS_KEPT, FaceTemplateRow
from libs.common.tests.conformance import people_fixtures
from libs.common.tests.conformance.people_fixtures import RACERS, Sessions, new_person, race
from libs.common.tests.conformance.shared_fixtures import count, until_waiting

pytestmark = pytest.mark.integration
make_database = people_fixtures.make_database
fresh_database_url = people_fixtures.fresh_database_url
sessions = people_fixtures.sessions
person = people_fixtures.person


def pixels(index: int) -> bytes:
    return index.to_bytes(32, "big")


async def publish(
    sessions: Sessions, person: uuid.UUID, index: int, sealed: bytes | None = None
) -> None:
    """Record photo ``index`` of ``person`` in a transaction of its own."""
    async with sessions.begin() as session:
        await face.record_photo_fingerprint(
            session, person, pixels(index), sealed, picture=f"avatar-{index}.png"
        )


async def remembered(sessions: Sessions, person: uuid.UUID) -> list[bytes]:
    async with sessions() as session:
        return [r.pixel_digest for r in await face.list_photo_fingerprints(session, person)]


async def test_an_enrolment_is_replaced_in_place(sessions: Sessions, person: uuid.UUID) -> None:
    async with sessions.begin() as session:
        assert await face.get_face_template(session, person) is None
        first = await face.put_face_template(session, person, b"sealed-1")
    async with sessions.begin() as session:
        second = await face.put_face_template(session, person, b"sealed-2")
    async with sessions() as session:
        stored = await face.get_face_template(session, person)
    assert stored == FaceTemplateRow(
        sealed=b"sealed-2", created_at=first.created_at, updated_at=second.updated_at
    )
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    assert await count(sessions, FaceTemplate) == 1


async def test_of_concurrent_enrolments_one_whole_row_stands(
    sessions: Sessions, person: uuid.UUID
) -> None:
    async def enrol(session: AsyncSession, index: int) -> FaceTemplateRow:
        return await face.put_face_template(session, person, f"sealed-{index}".encode())

    outcomes = await race(sessions, enrol)
    assert [o for o in outcomes if isinstance(o, BaseException)] == []
    assert await count(sessions, FaceTemplate, FaceTemplate.user_id == person) == 1
    async with sessions() as session:
        stored = await face.get_face_template(session, person)
    assert stored is not None
    assert stored.sealed in {f"sealed-{i}".encode() for i in range(RACERS)}
    assert {o.created_at for o in outcomes if isinstance(o, FaceTemplateRow)} == {stored.created_at}


async def test_a_template_is_deleted_once_and_with_its_person(sessions: Sessions) -> None:
    ada, bob = await new_person(sessions), await new_person(sessions)
    async with sessions.begin() as session:
        for who in (ada, bob):
            await face.put_face_template(session, who, b"sealed")
            await face.record_photo_fingerprint(session, who, pixels(1), b"e", picture=None)

    async def delete(session: AsyncSession, _: int) -> bool:
        return await face.delete_face_template(session, ada)

    assert sorted(await race(sessions, delete), key=str) == [False] * (RACERS - 1) + [True]
    async with sessions.begin() as session:
        assert await face.get_face_template(session, ada) is None
        assert await face.get_face_template(session, bob) is not None
        await users.delete_user(session, bob)
    assert await count(sessions, FaceTemplate) == 0
    assert await count(sessions, PhotoFingerprint) == 1  # ada's: kept after her template
    assert await count(sessions, PhotoFingerprint, PhotoFingerprint.user_id == bob) == 0


async def test_the_same_pixels_again_refresh_their_row(
    sessions: Sessions, person: uuid.UUID
) -> None:
    await publish(sessions, person, 1, b"embedding-1")
    await publish(sessions, person, 2)
    await publish(sessions, person, 1)  # again, with no embedding this time
    async with sessions() as session:
        rows = await face.list_photo_fingerprints(session, person)
    assert [(r.pixel_digest, r.sealed_embedding, r.picture) for r in rows] == [
        (pixels(1), b"embedding-1", "avatar-1.png"),
        (pixels(2), None, "avatar-2.png"),
    ]
    async with sessions.begin() as session:
        await face.record_photo_fingerprint(
            session, person, pixels(2), b"embedding-2", picture=None
        )
    async with sessions() as session:
        rows = await face.list_photo_fingerprints(session, person)
    assert [(r.pixel_digest, r.sealed_embedding, r.picture) for r in rows] == [
        (pixels(2), b"embedding-2", None),
        (pixels(1), b"embedding-1", "avatar-1.png"),
    ]


async def test_only_the_newest_fingerprints_are_kept_per_person(sessions: Sessions) -> None:
    ada, bob = await new_person(sessions), await new_person(sessions)
    extra = 5
    for index in range(PHOTO_FINGERPRINTS_KEPT + extra):
        await publish(sessions, ada, index)
    await publish(sessions, bob, 0)
    newest = [pixels(i) for i in reversed(range(extra, PHOTO_FINGERPRINTS_KEPT + extra))]
    assert await remembered(sessions, ada) == newest
    assert await remembered(sessions, bob) == [pixels(0)]
    await publish(sessions, ada, extra)  # the oldest kept, refreshed: now the newest
    assert await remembered(sessions, ada) == [pixels(extra), *newest[:-1]]


async def test_racing_uploads_leave_at_most_the_newest_after_the_next(
    sessions: Sessions, person: uuid.UUID
) -> None:
    for index in range(PHOTO_FINGERPRINTS_KEPT):
        await publish(sessions, person, index)

    async def upload(session: AsyncSession, index: int) -> None:
        await face.record_photo_fingerprint(
            session, person, pixels(1000 + index), None, picture=None
        )

    assert [o for o in await race(sessions, upload) if isinstance(o, BaseException)] == []
    await publish(sessions, person, 5000)
    kept = await remembered(sessions, person)
    assert len(kept) == PHOTO_FINGERPRINTS_KEPT and kept[0] == pixels(5000)
    assert len(set(kept)) == PHOTO_FINGERPRINTS_KEPT  # the older photos all gone
    assert set(kept[1:]) <= {pixels(1000 + i) for i in range(RACERS)}


async def test_two_overlapping_uploads_keep_only_the_newest(
    sessions: Sessions, person: uuid.UUID
) -> None:
    for index in range(PHOTO_FINGERPRINTS_KEPT):
        await publish(sessions, person, index)
    async with sessions.begin() as first:
        await face.record_photo_fingerprint(first, person, pixels(100), None, picture=None)

        async def second_upload() -> None:
            async with sessions.begin() as second:
                await face.record_photo_fingerprint(second, person, pixels(101), None, picture=None)

        second = asyncio.create_task(second_upload())
        await until_waiting(sessions)  # on the person's turn, which the first holds
    await asyncio.wait_for(second, timeout=5)
    kept = await remembered(sessions, person)
    assert len(kept) == PHOTO_FINGERPRINTS_KEPT
