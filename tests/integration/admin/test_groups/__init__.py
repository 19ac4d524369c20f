"""``/admin/groups`` (contract §4 "Admin: groups"; issue 4 acceptance 1).

Each route: success, 401/403, 404 for a missing or malformed id, 422 naming the field.
Also: unique names (409), idempotent member adds, role replacement, what a delete takes
with it (memberships, role links, profile fields bound to the group and their values),
the audit row of every write, and what members hold through the group's roles.
"""
