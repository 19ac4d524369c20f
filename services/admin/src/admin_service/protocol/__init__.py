"""The admin service's pure rules: brand text fields and colour contrast, who may grant
which scope, and which signing algorithm an API or a client may be registered for.

Pure code, as :mod:`idp_common.protocol`: no Litestar, SQLAlchemy, Redis or NATS
(pyproject.toml, contract "Protocol and crypto code is pure").
"""
