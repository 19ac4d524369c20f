"""The mail texts per language: gettext ``.po`` catalogues read at runtime with Babel.

``locales/<locale>.po`` for every locale of
:data:`~idp_common.protocol.rfc4647_locales.SUPPORTED_LOCALES`. ``en.po`` is the source:
its ``msgid`` s are the English texts (its ``msgstr`` s stay empty, English is the
``msgid`` itself); every other catalogue translates each of them. A catalogue is read with
:func:`babel.messages.pofile.read_po`, compiled in memory with
:func:`babel.messages.mofile.write_mo` and loaded as :class:`gettext.GNUTranslations`, once
per process. Plural rules come from the catalogue's ``Plural-Forms`` header, which is
Babel's CLDR-derived rule for the language (``babel.messages.plurals.get_plural``; a test
keeps them equal).
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from importlib import resources

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from idp_common.protocol.rfc4647_locales import SUPPORTED_LOCALES

__all__ = ["SOURCE_LOCALE", "read_catalogue", "translations"]

#: The catalogue whose ``msgid`` s every other one must translate.
SOURCE_LOCALE = "en"


def read_catalogue(locale: str) -> Catalog:
    """The parsed ``.po`` of ``locale`` (a supported locale; ValueError otherwise)."""
    if locale not in SUPPORTED_LOCALES:
        raise ValueError(f"no mail catalogue for {locale!r}")
    source = resources.files(__package__).joinpath("locales", f"{locale}.po")
    with source.open("rb") as handle:
        return read_po(handle, locale=locale, domain="mail")


@cache
def translations(locale: str) -> gettext.GNUTranslations:
    """The compiled catalogue of ``locale`` (fuzzy entries left out, as msgfmt does)."""
    compiled = io.BytesIO()
    write_mo(compiled, read_catalogue(locale))
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)
