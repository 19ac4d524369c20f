"""Properties of the paging cursors the list endpoints read back from the caller: any
string is a position or the documented refusal (``InvalidArgument`` naming ``cursor``,
a 422), never another exception; and a cursor the provider made reads back as itself."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from hypothesis import example, given
from hypothesis import strategies as st

from entity_service.repos.sessions import _decode_cursor as session_cursor
from idp_common.errors import InvalidArgument
from idp_common.protocol.rfc4648_base64url import base64url_encode
from idp_common.storage.db.models import User
from idp_common.storage.repos import audit, paging
from libs.common.tests.unit.properties.support import FAST

#: JSON nested deeper than the decoder's recursion limit, as a cursor.
DEEP = base64url_encode(b"[" * 5000)
COLUMNS = [User.created_at, User.id]


def _refused_or_decoded(decode: object, cursor: str) -> None:
    try:
        decode(cursor)  # type: ignore[operator]
    except InvalidArgument as exc:
        assert [error.field for error in exc.errors] == ["cursor"]


@FAST
@given(st.text(max_size=200) | st.binary(max_size=200).map(base64url_encode))
@example(DEEP)
def test_any_cursor_is_a_position_or_the_documented_refusal(cursor: str) -> None:
    _refused_or_decoded(lambda c: paging.decode_cursor(c, COLUMNS), cursor)
    _refused_or_decoded(audit.decode_cursor, cursor)
    _refused_or_decoded(session_cursor, cursor)  # the self-service session list's


@FAST
@given(st.datetimes(timezones=st.just(UTC)), st.uuids())
def test_a_keyset_cursor_reads_back_as_its_values(when: datetime, key: uuid.UUID) -> None:
    cursor = paging.encode_cursor([when, key])
    assert paging.decode_cursor(cursor, COLUMNS) == [when, key]


@FAST
@given(st.datetimes(timezones=st.just(UTC)), st.integers(0, 2**63 - 1))
def test_an_audit_cursor_reads_back_as_its_values(when: datetime, row_id: int) -> None:
    assert audit.decode_cursor(audit.encode_cursor(when, row_id)) == (when, row_id)
