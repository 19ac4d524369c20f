"""The administration API: ``/admin/*`` (spec part 4 "Admin: ..."). For now the audit log."""
