"""The deployment's JetStream stream: ``{SVC_NATS_PREFIX}.>`` in stream ``{PREFIX}_EVENTS``.

Created when missing by whoever needs it first (the relay before publishing, the
dispatcher before subscribing). An existing stream is used as it is: an operator may have
tuned it. Messages are kept for seven days (limits retention), so a dispatcher that is down
for less than that loses nothing; ``Nats-Msg-Id`` de-duplication over two minutes absorbs
a relay that published a row and crashed before marking it.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Final

from nats.js.api import RetentionPolicy, StorageType, StreamConfig
from nats.js.client import JetStreamContext
from nats.js.errors import NotFoundError

from idp_common.config import Settings

MAX_AGE: Final = timedelta(days=7)
DUPLICATE_WINDOW: Final = timedelta(minutes=2)


def stream_config(settings: Settings) -> StreamConfig:
    return StreamConfig(
        name=settings.nats_stream,
        subjects=[f"{settings.nats_prefix}.>"],
        retention=RetentionPolicy.LIMITS,
        storage=StorageType.FILE,
        max_age=MAX_AGE.total_seconds(),
        duplicate_window=DUPLICATE_WINDOW.total_seconds(),
    )


async def ensure_stream(js: JetStreamContext, settings: Settings) -> None:
    """Create the stream unless it exists (two creators racing both succeed: JetStream
    answers an identical create with the existing stream)."""
    try:
        await js.stream_info(settings.nats_stream)
    except NotFoundError:
        await js.add_stream(stream_config(settings))
