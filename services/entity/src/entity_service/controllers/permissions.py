"""Routes of this resource are being built (issue 5); the module exports ``ROUTES``."""

from __future__ import annotations

from typing import Any

ROUTES: list[Any] = []
