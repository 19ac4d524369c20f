"""DETAIL lines of PostgreSQL errors stay out of the log (docs/security.md, attack 13)."""

from __future__ import annotations

import io
import logging

from idp_common.observability.log_redaction import RedactDetails, install, redact

ERROR = (
    "(sqlalchemy.dialects.postgresql.asyncpg.IntegrityError) <class 'asyncpg.exceptions."
    'CheckViolationError\'>: new row for relation "password_credentials" violates check '
    'constraint "refuse_x"\nDETAIL:  Failing row contains (1f0c, $argon2id$v=19$m=65536).'
)


def test_detail_lines_are_hidden_and_the_rest_stays() -> None:
    redacted = redact(ERROR)
    assert "$argon2id" not in redacted
    assert 'violates check constraint "refuse_x"' in redacted
    assert redacted.endswith("DETAIL: (hidden)")


def test_the_filter_hides_them_in_messages_and_tracebacks() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactDetails())
    logger = logging.getLogger("test.redaction")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        try:
            raise ValueError(ERROR)
        except ValueError:
            logger.exception("unhandled error on %s", "POST /admin/users")
        logger.error("plain %s", "DETAIL:  Key (email)=(someone@example.com) already exists.")
    finally:
        logger.removeHandler(handler)
    text = stream.getvalue()
    assert "unhandled error on POST /admin/users" in text
    assert "ValueError" in text and "refuse_x" in text
    assert "$argon2id" not in text and "someone@example.com" not in text


def test_install_redacts_every_record_whatever_the_handler() -> None:
    before = logging.getLogRecordFactory()
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)  # no filter on it
    logger = logging.getLogger("test.redaction.factory")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        install()
        install()  # idempotent
        logger.error("%s", ERROR)
    finally:
        logging.setLogRecordFactory(before)
        logger.removeHandler(handler)
    assert "$argon2id" not in stream.getvalue()
    assert "DETAIL: (hidden)" in stream.getvalue()
