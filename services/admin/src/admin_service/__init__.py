"""The administration API: ``/admin/*`` (contract §4 "Admin: ..."): users, clients, APIs,
roles, groups, profile fields and the audit log."""
