"""``/admin/profile-fields`` (contract §2 "Profile field" rules 1-10, part 4 "Admin:
profile fields"; docs/design.md "Profile fields"): each route's success, 401/403, 404 and 422
naming the field; what is stored; the audit rows."""
