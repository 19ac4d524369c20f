"""Relational storage of the identity provider (contract §2, docs/design.md section 2).

Why it exists: every service reads and writes the same Postgres schema, so the schema
lives here once. ``models`` declares the tables, ``engine`` builds the asyncpg engine and
session factory, ``migrate`` runs the Alembic migrations in ``migrations``. Only the
repository functions (``idp_common.storage.repos``) import this package; controllers never do
(docs/style.md section 1).
"""
