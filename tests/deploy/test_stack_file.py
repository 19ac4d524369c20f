"""deploy/stack.py writes var/idp.env for `make up`: every setting the first time, then
only what a later release added, never overwriting what an operator set."""

from __future__ import annotations

import stat
from pathlib import Path

from deploy import stack as stack_file
from idp_common.crypto.secretbox import parse_key

VALUES = {
    "PROXY_PORT": "8080",
    "DATABASE_URL": "postgresql+asyncpg://postgres@127.0.0.1:5432/idp",
    "REDIS_PORT": "6380",
    "KEY_DIR": "/srv/var/keys",
    "S3_PORT": "9000",
    "SECRETS_KEY": "k",
    "ADMIN_PASSWORD": "p",
}


def _lines(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


def test_first_run_writes_every_setting_private(tmp_path: Path) -> None:
    target = tmp_path / "idp.env"
    stack = stack_file.load()
    added = stack_file.write_native_env(stack, target, VALUES)
    assert added == list(stack.native_settings)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    env = _lines(target)
    assert env["SVC_ISSUER"] == "http://localhost:8080"
    assert env["SVC_REDIS_URL"] == "redis://127.0.0.1:6380/0"
    assert env["SVC_S3_ENDPOINT_URL"] == "http://127.0.0.1:9000"
    assert stack_file.write_native_env(stack, target, VALUES) == []


def test_later_runs_append_only_what_is_missing(tmp_path: Path) -> None:
    target = tmp_path / "idp.env"
    target.write_text("SVC_ENV=dev\nSVC_ISSUER=https://mine.example\nSVC_S3_ENDPOINT_URL=\n")
    added = stack_file.write_native_env(stack_file.load(), target, VALUES)
    env = _lines(target)
    assert env["SVC_ISSUER"] == "https://mine.example"
    assert env["SVC_S3_ENDPOINT_URL"] == ""
    assert "SVC_BACKCHANNEL_ALLOW_PRIVATE" in added
    # Photos turned off by the operator: no placeholder credentials appear.
    assert not {"SVC_S3_BUCKET", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} & set(added)


def test_generated_secrets_have_the_expected_shape() -> None:
    values = stack_file.generated_values()
    assert len(parse_key(values["SECRETS_KEY"])) == 32
    assert len(values["ADMIN_PASSWORD"]) == 20 and values["ADMIN_PASSWORD"].isalnum()
    assert stack_file.generated_values() != values
