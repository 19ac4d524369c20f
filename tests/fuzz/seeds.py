"""Write the seed inputs of the committed corpus (``python -m tests.fuzz.seeds``).

Small, hand-made inputs that reach each check of each target at least once; the fuzzer
mutates them. Run again only to regenerate the seeds (files are named after their
content, so nothing the fuzzer added is overwritten).
"""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zlib
from pathlib import Path

from PIL import Image

from tests.fuzz.targets import AUDIENCE, CLIENT_ID, ISSUER, NOW

CORPUS = Path(__file__).parent / "corpus"


def _jwt_seeds() -> list[bytes]:
    access = {"iss": ISSUER, "aud": AUDIENCE, "sub": "u-1", "exp": NOW + 600, "iat": NOW}
    hint = {
        "iss": ISSUER,
        "aud": [CLIENT_ID, "other"],
        "azp": CLIENT_ID,
        "sub": "u-1",
        "exp": NOW - 60,
        "sid": "s-1",
    }
    head = b'{"alg":"RS256","kid":"@kid@","typ":"at+jwt"}'
    return [
        b"\x00eyJhbGciOiJSUzI1NiJ9.e30.c2ln",
        b"\x00a.b.c",
        b"\x01" + head + b"." + json.dumps(access).encode() + b".sig",
        b'\x01{"alg":"none"}.{}.',
        b'\x01{"alg":"HS256","kid":"@kid@"}.{}.x',
        b'\x01{"alg":"RS256","kid":"@kid@","crit":["b64"],"b64":false}.{}.x',
        b'\x01{"alg":"RS256","kid":"@kid@","jwk":{}}.{}.x',
        b"\x01" + b"[" * 3000,
        b"\x02" + json.dumps(access).encode(),
        b"\x02" + json.dumps({**access, "aud": [AUDIENCE, 1], "nbf": 1e400}).encode(),
        b"\x02" + b"[" * 3000,
        b"\x03" + json.dumps(hint).encode(),
        b"\x03" + json.dumps({**hint, "events": {}, "exp": "soon"}).encode(),
    ]


def _form_seeds() -> list[bytes]:
    return [
        b"grant_type=authorization_code&code=abc&redirect_uri=https%3A%2F%2Fapp.example%2Fcb"
        b"&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk&client_id=app-1",
        b"grant_type=refresh_token&refresh_token=r&scope=openid+email&client_secret=",
        b"client_id=a&client_id=b&client_id=",
        b"client_id=%FF&x=%zz&;&&==",
        b"response_type=code&client_id=app-1&redirect_uri=https://app.example/cb&scope=openid"
        b"&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSKlw1cM&code_challenge_method=S256"
        b"&state=s&nonce=n&prompt=login&max_age=0&acr_values=mfa",
        b"response_type=token&redirect_uri=https://app.example/cb&request=x&prompt=none+login",
        b"app-1:s%3Acret+x",
        b"Basic YXBwLTE6c2VjcmV0",
    ]


def _image(fmt: str, mode: str = "RGB", size: tuple[int, int] = (8, 6), **save: object) -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, "red" if mode != "L" else 128).save(out, fmt, **save)
    return out.getvalue()


def _png_claiming(width: int, height: int) -> bytes:
    """A PNG whose header claims a size its (absent) pixels do not have."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr
    return b"\x89PNG\r\n\x1a\n" + chunk + struct.pack(">I", zlib.crc32(chunk[4:]))


def _image_seeds() -> list[bytes]:
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: rotated
    jpeg = _image("JPEG", exif=exif.tobytes())
    return [
        _image("PNG"),
        _image("PNG", "RGBA"),
        _image("PNG", "L"),
        _image("PNG", "P", transparency=0),
        jpeg,
        jpeg[: len(jpeg) // 2],
        _image("WEBP"),
        _image("WEBP", "RGBA", lossless=True),
        _image("GIF", "P"),
        _png_claiming(40_000, 40_000),
        _png_claiming(3000, 3000),
    ]


def main() -> None:
    for name, seeds in (("jwt", _jwt_seeds()), ("form", _form_seeds()), ("image", _image_seeds())):
        folder = CORPUS / name
        folder.mkdir(parents=True, exist_ok=True)
        for seed in seeds:
            (folder / f"seed-{hashlib.sha1(seed).hexdigest()[:16]}").write_bytes(seed)  # noqa: S324
        print(f"{name}: {len(seeds)} seeds in {folder}")


if __name__ == "__main__":
    main()
