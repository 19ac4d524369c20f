"""Photo checking and cleaning, object names and upload reading (idp_common.avatars)."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Iterable

import pytest
from PIL import Image, ImageCms, PngImagePlugin

from idp_common.avatars import names
from idp_common.avatars.images import ImageRejected, clean_photo, open_image
from idp_common.avatars.upload import Upload, read_upload
from idp_common.errors import ContentTooLarge, InvalidArgument, UnsupportedMediaType

FORMAT_OF = {"image/png": "PNG", "image/jpeg": "JPEG", "image/webp": "WEBP"}


def exif_bytes(orientation: int = 1) -> bytes:
    exif = Image.Exif()
    exif[0x0110] = "Secret Camera"  # Model
    exif[0x0131] = "secret-software"  # Software
    exif[0x0112] = orientation
    return exif.tobytes()


def photo(content_type: str, size: tuple[int, int] = (20, 10), **save: object) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 40)).save(out, FORMAT_OF[content_type], **save)
    return out.getvalue()


def with_metadata(content_type: str, orientation: int = 1) -> bytes:
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    extra: dict[str, object] = {"exif": exif_bytes(orientation), "icc_profile": icc}
    if content_type == "image/png":
        info = PngImagePlugin.PngInfo()
        info.add_text("Comment", "secret text chunk")
        extra["pnginfo"] = info
    return photo(content_type, **extra)


@pytest.mark.parametrize("content_type", ["image/png", "image/jpeg", "image/webp"])
def test_a_photo_keeps_its_format_and_loses_every_metadata(content_type: str) -> None:
    raw = with_metadata(content_type)
    assert b"Secret Camera" in raw
    clean = clean_photo(raw, content_type)
    assert clean.content_type == content_type
    assert (
        clean.extension
        == {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp"}[content_type]
    )
    image = Image.open(io.BytesIO(clean.data))
    assert image.format == FORMAT_OF[content_type]
    assert image.size == (20, 10)
    assert not image.getexif()
    assert "icc_profile" not in image.info and "exif" not in image.info
    assert "Comment" not in image.info
    for secret in (b"Secret Camera", b"secret-software", b"secret text chunk", b"Exif"):
        assert secret not in clean.data


def test_the_exif_orientation_is_applied_before_it_is_dropped() -> None:
    clean = clean_photo(with_metadata("image/jpeg", orientation=6), "image/jpeg")
    assert Image.open(io.BytesIO(clean.data)).size == (10, 20)


def test_transparency_survives() -> None:
    out = io.BytesIO()
    Image.new("RGBA", (4, 4), (0, 0, 0, 0)).save(out, "PNG")
    png = Image.open(io.BytesIO(clean_photo(out.getvalue(), "image/png").data))
    assert png.mode == "RGBA" and png.getpixel((0, 0))[3] == 0


@pytest.mark.parametrize(
    ("sent_as", "actual"),
    [("image/jpeg", "image/png"), ("image/png", "image/jpeg"), ("image/webp", "image/png")],
)
def test_an_image_of_another_type_than_it_claims_is_refused(sent_as: str, actual: str) -> None:
    with pytest.raises(ImageRejected, match=f"is {actual}, not the {sent_as}"):
        clean_photo(photo(actual), sent_as)


@pytest.mark.parametrize(
    "data",
    [b"not an image at all", b"%PDF-1.4 ...", b"GIF89a" + b"\0" * 40, b""],
    ids=["text", "pdf", "gif", "empty"],
)
def test_a_non_image_is_refused(data: bytes) -> None:
    with pytest.raises(ImageRejected, match="not an image"):
        clean_photo(data, "image/png")


def test_a_truncated_image_is_refused() -> None:
    data = photo("image/png", size=(300, 300))
    with pytest.raises(ImageRejected):
        clean_photo(data[: len(data) // 2], "image/png")


def test_an_unsupported_declared_type_is_refused() -> None:
    with pytest.raises(ImageRejected, match="not one of"):
        clean_photo(photo("image/png"), "image/gif")


def test_too_many_pixels_is_refused_before_decoding() -> None:
    with pytest.raises(ImageRejected, match="more than 100"):
        open_image(photo("image/png", size=(20, 10)), formats=["PNG"], max_pixels=100)
    out = io.BytesIO()
    Image.new("1", (7000, 7000)).save(out, "PNG")  # 49 Mpx in a few kB: a small bomb
    with pytest.raises(ImageRejected, match="more than 40000000"):
        clean_photo(out.getvalue(), "image/png")


def test_object_names_are_random_and_checked_strictly() -> None:
    first, second = names.new_name("png"), names.new_name("png")
    assert first != second
    assert names.is_valid_name(first)
    assert names.content_type_of(names.new_name("jpg")) == "image/jpeg"
    for bad in (
        "../etc/passwd",
        first.upper(),
        first[:-4] + ".gif",
        first + "/x",
        "a" * 31 + ".png",
        first + "\n",
        "",
    ):
        assert not names.is_valid_name(bad), bad
    with pytest.raises(ValueError, match="extension"):
        names.new_name("gif")
    assert names.public_url("https://id.example", first) == (
        f"https://id.example/media/avatars/{first}"
    )


async def stream(parts: Iterable[bytes]) -> AsyncIterator[bytes]:
    for part in parts:
        yield part
    yield b""  # Litestar's request stream ends with an empty chunk


def form(fields: list[tuple[str, str, bytes]], boundary: str = "b0undary") -> bytes:
    body = b""
    for name, content_type, data in fields:
        body += (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="x"\r\n'
                f"Content-Type: {content_type}\r\n\r\n"
            ).encode()
            + data
            + b"\r\n"
        )
    return body + f"--{boundary}--\r\n".encode()


async def test_a_raw_body_is_read_within_the_limit() -> None:
    data = photo("image/png")
    upload = await read_upload(
        stream([data[:10], data[10:]]), "image/png", {}, declared_length=len(data), limit=1000
    )
    assert (upload.data, upload.content_type, upload.field) == (data, "image/png", "body")


async def test_a_body_past_the_limit_is_413_declared_or_not() -> None:
    with pytest.raises(ContentTooLarge, match="limit of 10 bytes"):
        await read_upload(stream([b"x" * 5]), "image/png", {}, declared_length=11, limit=10)
    with pytest.raises(ContentTooLarge):
        await read_upload(stream([b"x" * 6] * 2), "image/png", {}, declared_length=None, limit=10)


async def test_another_body_type_is_415_and_an_empty_body_422() -> None:
    with pytest.raises(UnsupportedMediaType):
        await read_upload(stream([b"{}"]), "application/json", {}, declared_length=2, limit=10)
    with pytest.raises(InvalidArgument) as empty:
        await read_upload(stream([]), "image/png", {}, declared_length=0, limit=10)
    assert empty.value.errors[0].field == "body"


async def read_form(body: bytes, limit: int, options: dict[str, str] | None = None) -> Upload:
    """``read_upload`` of a multipart form sent in one chunk without a declared length."""
    return await read_upload(
        stream([body]),
        "multipart/form-data",
        {"boundary": "b0undary"} if options is None else options,
        declared_length=None,
        limit=limit,
    )


async def test_the_file_field_of_a_form_is_read() -> None:
    data = photo("image/jpeg")
    body = form([("file", "image/jpeg", data)])
    upload = await read_upload(
        stream([body[:7], body[7:]]),
        "multipart/form-data",
        {"boundary": "b0undary"},
        declared_length=len(body),
        limit=len(data),
    )
    assert (upload.data, upload.content_type, upload.field) == (data, "image/jpeg", "file")


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ([("other", "image/png", b"x")], "other"),
        ([("file", "text/plain", b"hello")], "file"),
        ([("file", "image/png", b"a"), ("file", "image/png", b"b")], "file"),
        ([("file", "image/png", b"")], "file"),
    ],
    ids=["unknown field", "file of another type", "file twice", "empty file"],
)
async def test_a_bad_form_is_422_naming_the_field(
    fields: list[tuple[str, str, bytes]], named: str
) -> None:
    body = form(fields)
    with pytest.raises(InvalidArgument) as refused:
        await read_form(body, limit=1000)
    assert refused.value.errors[0].field == named


async def test_a_form_without_file_or_broken_is_422() -> None:
    for body, options in (
        (b"--b0undary--\r\n", {"boundary": "b0undary"}),
        (b"garbage", {"boundary": "b0undary"}),
        (b"whatever", {}),
    ):
        with pytest.raises(InvalidArgument):
            await read_form(body, limit=100, options=options)


async def test_a_form_file_past_the_limit_is_413() -> None:
    body = form([("file", "image/png", b"x" * 101)])
    with pytest.raises(ContentTooLarge):
        await read_form(body, limit=100)
