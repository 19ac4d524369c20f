"""Properties of SCIM PATCH (RFC 7644 §3.5.2): whatever the operations, applying them
either answers a new document or a ScimError 400 (never another exception), and the
document given is never changed."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from admin_service.scim.rfc7643_schema import MESSAGE_PATCH_OP
from admin_service.scim.rfc7644_errors import ScimError
from admin_service.scim.rfc7644_patch import apply_patch, parse_patch_request
from libs.common.tests.unit.properties.support import FAST
from services.admin.tests.unit.scim.support import EXT, USER, barbara

PATHS = st.sampled_from(
    [
        "userName",
        "displayName",
        "title",
        "active",
        "name",
        "name.givenName",
        "emails",
        "emails.value",
        'emails[type eq "work"]',
        'emails[type eq "work"].value',
        'emails[value co "@"].primary',
        "groups",
        "id",
        "meta",
        "meta.created",
        f"{EXT}:department",
        f"{EXT}:age",
        f"{EXT}:vip",
        f"{EXT}:badge",
        f"{EXT}:employeeNumber",
        EXT,
        "nosuch",
        "emails[",
        "x509Certificates",
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=8)
    | st.sampled_from(["True", "false", "42", "2024-01-01T00:00:00Z", "work"])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["value", "type", "primary", "givenName", "display", "kind", "age"]),
            inner,
            max_size=3,
        )
    ),
    max_leaves=6,
)
OPERATIONS = st.lists(
    st.fixed_dictionaries(
        {"op": st.sampled_from(["add", "Replace", "remove", "ADD"])},
        optional={"path": PATHS, "value": VALUES},
    ),
    min_size=1,
    max_size=4,
)


@FAST
@given(OPERATIONS)
def test_patch_is_a_document_or_a_scim_error(operations: list[dict[str, Any]]) -> None:
    document = barbara()
    before = copy.deepcopy(document)
    try:
        parsed = parse_patch_request({"schemas": [MESSAGE_PATCH_OP], "Operations": operations})
        result = apply_patch(document, parsed, USER)
    except ScimError as exc:
        assert exc.status == 400
    else:
        assert isinstance(result, dict)
        assert result["id"] == before["id"]  # readOnly: never changed by a PATCH
    assert document == before
