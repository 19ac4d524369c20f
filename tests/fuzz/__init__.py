"""Coverage-guided fuzzing (atheris) of the parsers of untrusted bytes: docs/fuzzing.md."""
