"""Simulates an install without the optional face stack (issue 7 acceptance 4).

Put this folder first on ``PYTHONPATH`` of a process: Python's ``site`` imports
``sitecustomize`` at start-up, and the finder below, first on ``sys.meta_path``, refuses
``dlib`` and ``face_recognition_models`` (and their submodules) as if they were not
installed: ``import dlib`` raises ModuleNotFoundError, and so does
``importlib.util.find_spec("dlib")`` (a finder cannot make it answer None, since the
next finders would then find the installed package).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType

HIDDEN = frozenset({"dlib", "_dlib_pybind11", "face_recognition_models"})


class HideFaceStack(MetaPathFinder):
    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if fullname.partition(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


sys.meta_path.insert(0, HideFaceStack())
