#!/usr/bin/env python3
"""Run one fuzz target under atheris (libFuzzer): ``python -m tests.fuzz.run TARGET [libFuzzer
options] [CORPUS_DIR ...]``. ``scripts/fuzz.sh`` calls it with a time bound, a work
corpus, the committed corpus and the folder for crash reproducers; see docs/fuzzing.md."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import atheris

# libFuzzer's -merge and -fork run this file again as a program: the checkout's root must
# be importable then too.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

#: The code whose branches guide the fuzzer (the product's, and the parsers it calls).
INSTRUMENTED = ["idp_common", "token_service", "joserfc", "PIL", "tests.fuzz"]

with atheris.instrument_imports(include=INSTRUMENTED):
    from tests.fuzz.targets import TARGETS


def main() -> None:
    # The target travels in the environment: libFuzzer's -merge and -fork start this file
    # again with libFuzzer's own arguments only.
    args = sys.argv[1:]
    if args and args[0] in TARGETS:
        os.environ["FUZZ_TARGET"] = args.pop(0)
    name = os.environ.get("FUZZ_TARGET", "")
    if name not in TARGETS:
        sys.exit(f"usage: python -m tests.fuzz.run {{{','.join(TARGETS)}}} [libFuzzer options]")
    atheris.Setup([sys.argv[0], *args], TARGETS[name])
    atheris.Fuzz()


if __name__ == "__main__":
    main()
