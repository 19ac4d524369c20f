"""Storage: the Postgres schema (``db``: engine, models, migrations) and its repositories
(``repos``), the only modules that issue SQL. May import config, errors, protocol and crypto."""
