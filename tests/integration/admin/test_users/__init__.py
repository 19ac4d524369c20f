"""``/admin/users`` (contract §4 "Admin: users", docs/design.md "Wire contracts";
``DELETE /admin/users/{user_id}/sessions`` from docs/design.md "The provider's own API").

Each route: success, 401 and 403 (``assert_guarded``), 404 for a missing or malformed id,
422 naming the field; what is stored (and what is not) is read back from the database.
"""
