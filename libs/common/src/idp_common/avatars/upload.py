"""Reading a photo upload from a request body (docs/design.md "Wire contracts": the image is the
body, typed ``image/png|jpeg|webp``, or the ``file`` field of a ``multipart/form-data``).

The body is read chunk by chunk and refused as soon as it passes the limit, so a large
upload never sits in memory: a raw image may have ``limit`` bytes; a form may add
:data:`FORM_OVERHEAD` for its boundaries and headers, and its ``file`` part alone still
``limit``. A declared ``Content-Length`` above the limit is refused before reading.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable, Mapping
from dataclasses import dataclass
from typing import Final

from multipart import (  # type: ignore[import-untyped]  # Litestar's own form parser
    MultipartError,
    MultipartSegment,
    ParserLimitReached,
    PushMultipartParser,
)

from idp_common.avatars.images import FORMATS
from idp_common.errors import ContentTooLarge, FieldError, InvalidArgument, UnsupportedMediaType

FORM: Final = "multipart/form-data"
FILE_FIELD: Final = "file"
FORM_OVERHEAD: Final = 64 * 1024
MAX_FORM_PARTS: Final = 4


@dataclass(frozen=True)
class Upload:
    data: bytes
    content_type: str
    field: str  # "body" or "file": where an error about the image points


#: Called with (bytes, declared type, field) before the type is checked; raises to refuse.
Screen = Callable[[bytes, str | None, str], None]


def too_large(limit: int) -> ContentTooLarge:
    return ContentTooLarge(
        f"the photo is larger than the limit of {limit} bytes", code="photo.too_large"
    )


def _invalid(field: str, message: str) -> InvalidArgument:
    return InvalidArgument(f"{field} {message}", errors=[FieldError(field, message)])


def _check_type(field: str, content_type: str | None) -> str:
    if content_type not in FORMATS:
        raise _invalid(
            field, f"must be typed one of {', '.join(FORMATS)}, not {content_type or 'nothing'}"
        )
    return content_type


async def read_upload(
    chunks: AsyncIterable[bytes],
    content_type: str,
    options: Mapping[str, str],
    *,
    declared_length: int | None,
    limit: int,
    screen: Screen | None = None,
) -> Upload:
    """The image and its declared type; 413, 415 or 422 (naming ``file``/``body``).
    ``screen`` sees a form's file before its declared type is checked (logos refuse SVG)."""
    if content_type == FORM:
        if declared_length is not None and declared_length > limit + FORM_OVERHEAD:
            raise too_large(limit)
        return await _read_form(chunks, options.get("boundary"), limit, screen)
    if content_type not in FORMATS:
        raise UnsupportedMediaType(
            f"send the photo as {', '.join(FORMATS)} or as the `file` field of {FORM}",
            code="photo.unsupported_type",
        )
    if declared_length is not None and declared_length > limit:
        raise too_large(limit)
    body = bytearray()
    async for chunk in chunks:
        body += chunk
        if len(body) > limit:
            raise too_large(limit)
    if not body:
        raise _invalid("body", "is empty")
    return Upload(bytes(body), content_type, "body")


class _FileField:
    """Collects the one ``file`` part of a form from the parser's events."""

    def __init__(self) -> None:
        self.data: bytearray | None = None
        self.content_type: str | None = None

    def feed(self, event: object) -> None:
        if isinstance(event, MultipartSegment):
            if event.name != FILE_FIELD:
                raise _invalid(event.name or "body", "is not a field of this form")
            if self.data is not None:
                raise _invalid(FILE_FIELD, "is sent more than once")
            self.data, self.content_type = bytearray(), event.content_type
        elif isinstance(event, bytes | bytearray | memoryview) and self.data is not None:
            self.data += event

    def upload(self, screen: Screen | None = None) -> Upload:
        if self.data is None:
            raise _invalid(FILE_FIELD, "is missing: send the image as the `file` field")
        if not self.data:
            raise _invalid(FILE_FIELD, "is empty")
        if screen is not None:
            screen(bytes(self.data), self.content_type, FILE_FIELD)
        return Upload(bytes(self.data), _check_type(FILE_FIELD, self.content_type), FILE_FIELD)


async def _read_form(
    chunks: AsyncIterable[bytes], boundary: str | None, limit: int, screen: Screen | None
) -> Upload:
    if not boundary:
        raise _invalid("body", "is a multipart form without a boundary")
    file = _FileField()
    total = 0
    try:
        with PushMultipartParser(
            boundary, max_segment_size=limit, max_segment_count=MAX_FORM_PARTS, strict=True
        ) as parser:
            async for chunk in chunks:
                total += len(chunk)
                if total > limit + FORM_OVERHEAD:
                    raise too_large(limit)
                if chunk:  # an empty chunk would tell the parser the input ended
                    for event in parser.parse(chunk):
                        file.feed(event)
    except ParserLimitReached:
        raise too_large(limit) from None
    except MultipartError as exc:
        raise _invalid("body", f"is not a valid multipart form ({exc})") from None
    return file.upload(screen)
