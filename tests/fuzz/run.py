"""Run one fuzz target under atheris (libFuzzer): ``python -m tests.fuzz.run TARGET [libFuzzer
options] [CORPUS_DIR ...]``. ``scripts/fuzz.sh`` calls it with a time bound, a work
corpus, the committed corpus and the folder for crash reproducers; see docs/fuzzing.md."""

from __future__ import annotations

import sys

import atheris

#: The code whose branches guide the fuzzer (the product's, and the parsers it calls).
INSTRUMENTED = ["idp_common", "token_service", "joserfc", "PIL", "tests.fuzz"]

with atheris.instrument_imports(include=INSTRUMENTED):
    from tests.fuzz.targets import TARGETS


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: python -m tests.fuzz.run {{{','.join(TARGETS)}}} [libFuzzer options]")
    target = TARGETS[sys.argv[1]]
    atheris.Setup([sys.argv[0], *sys.argv[2:]], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
