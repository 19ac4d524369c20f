"""``/admin/roles`` (contract §4 "Admin: roles"; issue 4 acceptance 1).

Each route: success, 401/403, 404 for a missing or malformed id, 422 naming the field.
Also: unique names (409), the protected seeded ``administrator`` role, scope
replacement, link rows removed with the role, audit rows of every write.
"""
