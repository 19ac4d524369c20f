"""The administration API: ``/admin/*`` (spec part 4 "Admin: ..."): users, clients, APIs,
roles, groups, profile fields and the audit log."""
