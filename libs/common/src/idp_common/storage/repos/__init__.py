"""Repository functions: the only code that touches the database tables (docs/style.md §4).

Plain async functions taking an ``AsyncSession`` first and returning Structs, never ORM
rows. Each docstring states the contract (missing rows, atomicity)."""
