"""Administrator-defined profile fields and their values (contract §2, "Profile field").

The ``unique`` rule is enforced by Postgres, so two concurrent writes of one value cannot
both succeed: each value row carries a copy of its field's flag (``is_unique``), a
composite foreign key ``(field_id, is_unique) → profile_fields (id, unique)`` keeps the
copy honest, and a partial unique index on ``(field_id, value) WHERE is_unique`` refuses
the second writer (it waits for the first to commit, then fails with a unique violation).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import (
    CheckConstraint,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    UniqueConstraint,
    false,
    text,
    true,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from ._base import EMPTY_JSON_OBJECT, Base, created_at, updated_at, uuid_pk

DATA_TYPES = ("string", "integer", "boolean", "date", "enum", "email", "phone", "url")
"""Values of ``profile_fields.data_type`` (contract §2, ``dataType``)."""

_DATA_TYPE_CHECK = "data_type IN ({})".format(", ".join(f"'{t}'" for t in DATA_TYPES))


class ProfileField(Base):
    """A field definition.

    ``key``, ``data_type``, ``is_unique`` (column ``unique``) and ``group_id`` are
    immutable (contract §2, rule 4). ``claim_name`` and ``claim_scope`` are both set or
    both NULL (rule 1, ``ck_profile_fields_claim_pair``). ``enum_values`` is the list of
    permitted values of an ``enum`` field. A field bound to a group is deleted with it;
    deleting a field deletes its values (rule 5).
    """

    __tablename__ = "profile_fields"
    __table_args__ = (
        CheckConstraint(_DATA_TYPE_CHECK, name="data_type"),
        CheckConstraint("(claim_name IS NULL) = (claim_scope IS NULL)", name="claim_pair"),
        # Target of the composite foreign key from profile_values.
        UniqueConstraint("id", "unique"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    key: Mapped[str] = mapped_column(unique=True)
    label: Mapped[str]
    data_type: Mapped[str] = mapped_column(server_default="string")
    required: Mapped[bool] = mapped_column(server_default=false())
    is_unique: Mapped[bool] = mapped_column("unique", server_default=false())
    user_readable: Mapped[bool] = mapped_column(server_default=true())
    user_writable: Mapped[bool] = mapped_column(server_default=false())
    validators: Mapped[dict[str, Any]] = mapped_column(server_default=EMPTY_JSON_OBJECT)
    enum_values: Mapped[list[str] | None] = mapped_column(JSONB)
    display_order: Mapped[int] = mapped_column(server_default=text("0"))
    group_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("groups.id", ondelete="CASCADE"), index=True
    )
    claim_name: Mapped[str | None] = mapped_column(unique=True)
    claim_scope: Mapped[str | None]
    created_at: Mapped[datetime] = created_at()
    updated_at: Mapped[datetime] = updated_at()


class ProfileValue(Base):
    """One user's value of one field, as text (rule 10).

    Set ``is_unique`` to the field's ``is_unique`` when inserting; any other value is
    refused by ``fk_profile_values_field_id_is_unique_profile_fields``.
    """

    __tablename__ = "profile_values"
    __table_args__ = (
        ForeignKeyConstraint(
            ["field_id", "is_unique"],
            ["profile_fields.id", "profile_fields.unique"],
            ondelete="CASCADE",
        ),
        Index(
            "uq_profile_values_field_id_value",
            "field_id",
            "value",
            unique=True,
            postgresql_where=text("is_unique"),
        ),
    )

    field_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    value: Mapped[str]
    is_unique: Mapped[bool]
