"""Data files shipped with the package (read with ``importlib.resources``):
``common_passwords.txt``, the list behind the password policy (docs/design.md §2)."""
