"""The native stack, compose.yaml and the Kubernetes manifests run the same services on
the same ports with the same settings. deploy/stack.toml is the native stack (scripts/up.sh
reads its ports and writes var/idp.env from it); everything else is held to it here."""

from __future__ import annotations

import string

import msgspec
import pytest

from idp_common.config import SettingsError, load_settings
from idp_common.config.settings import PREFIX, Settings
from idp_common.operations.cli import DEFAULT_PORTS, SERVICES
from tests.deploy.manifests import (
    ROOT,
    compose,
    compose_value,
    flag,
    one,
    pod_spec,
    rendered,
    services,
    settings,
    stack,
)

# Read by `idp create-admin` only: compose passes them to `init`, Kubernetes to the Job.
OPERATOR_ONLY = {"SVC_ADMIN_EMAIL", "SVC_ADMIN_PASSWORD"}
# Kubernetes only, each for a reason given in deploy/kubernetes/base/settings.env.
KUBERNETES_ONLY = {"SVC_CLEANUP_INTERVAL", "SVC_FACE_WORKERS", "OTEL_EXPORTER_OTLP_ENDPOINT"}
PRODUCTION_ONLY = {"SVC_SESSION_COOKIE_HOST_PREFIX"}
# The Secret idp-secrets: created by hand in production, generated in development.
SECRET_SETTINGS = {
    "SVC_DATABASE_URL",
    "SVC_REDIS_URL",
    "SVC_SMTP_URL",
    "SVC_SECRETS_KEY",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
}
# Development values that are the same wherever the stack runs (the rest are addresses).
SAME_IN_DEVELOPMENT = (
    "SVC_ENV",
    "SVC_ISSUER",
    "SVC_REDIS_PREFIX",
    "SVC_NATS_PREFIX",
    "SVC_AVATAR_MAX_BYTES",
    "SVC_BACKCHANNEL_ALLOW_PRIVATE",
    "SVC_S3_BUCKET",
    "AWS_EC2_METADATA_DISABLED",
)
SETTING_NAMES = {PREFIX + f.name.upper() for f in msgspec.structs.fields(Settings)}


def native() -> dict[str, str]:
    """var/idp.env as `make up` writes it on the default ports (placeholders filled)."""
    values = {
        "PROXY_PORT": str(stack().proxy_port),
        "DATABASE_URL": "postgresql+asyncpg://postgres@127.0.0.1:5432/idp",
        "REDIS_PORT": "6380",
        "KEY_DIR": "/srv/idp/var/keys",
        "S3_PORT": "9000",
        "SECRETS_KEY": "",
        "ADMIN_PASSWORD": "generated",
    }
    return {
        name: string.Template(template).substitute(values)
        for name, template in stack().native_settings.items()
    }


def compose_env() -> dict[str, str]:
    return {k: compose_value(v) for k, v in compose()["x-idp-env"].items()}


def kubernetes_env(overlay: str) -> dict[str, str]:
    config, secret = settings(rendered(overlay))
    assert not set(config) & set(secret), "a setting in both the ConfigMap and the Secret"
    return {**config, **secret}


def test_native_ports_are_the_operator_tools() -> None:
    assert stack().ports == DEFAULT_PORTS
    assert stack().services == list(SERVICES)
    up = (ROOT / "scripts/up.sh").read_text()
    assert "declare -A PORTS=($(python3 deploy/stack.py ports))" in up
    assert "deploy/stack.py native-env" in up


def test_compose_runs_the_same_services_on_the_same_ports() -> None:
    apps = {
        name: svc
        for name, svc in compose()["services"].items()
        if svc.get("command", [])[:2] == ["idp", "serve"]
    }
    assert list(apps) == stack().services
    for name, svc in apps.items():
        port = stack().ports[name]
        assert svc["command"][2] == name
        assert flag(svc["command"], "--port") == str(port)
        assert f"127.0.0.1:{port}/health/ready" in svc["healthcheck"]["test"][-1]
    proxy = compose()["services"]["proxy"]
    assert proxy["ports"] == [f"127.0.0.1:{stack().proxy_port}:{stack().proxy_port}"]
    render = compose()["services"]["proxy-config"]["command"][-1].split()
    assert flag(render, "--listen") == str(stack().proxy_port)
    for service, option in (("token", "--token"), ("admin", "--admin"), ("entity", "--entity")):
        assert flag(render, option) == f"{service}:{stack().ports[service]}"
    assert flag(render, "--authui") == f"authui-api:{stack().ports['authui-api']}"


def test_kubernetes_runs_the_same_services_on_the_same_ports() -> None:
    for overlay in ("development", "production"):
        found = services(rendered(overlay))
        assert sorted(found) == sorted(stack().services)
        for name, deployment in found.items():
            port = stack().ports[name]
            command = pod_spec(deployment)["containers"][0]["command"]
            assert command[:3] == ["idp", "serve", name]
            assert flag(command, "--port") == str(port)
            service = one(rendered(overlay), "Service", name)
            assert service["spec"]["ports"][0]["port"] == port
        proxy = one(rendered(overlay), "Service", "proxy")
        assert proxy["spec"]["ports"][0]["port"] == stack().proxy_port


def test_compose_sets_the_native_settings() -> None:
    env = compose_env()
    assert set(env) == set(native()) - OPERATOR_ONLY
    init = compose()["services"]["init"]["environment"]
    assert set(init) >= OPERATOR_ONLY
    for name in SAME_IN_DEVELOPMENT:
        assert env[name] == native()[name], name


def test_kubernetes_sets_the_native_settings() -> None:
    dev = kubernetes_env("development")
    assert set(dev) == (set(native()) - OPERATOR_ONLY) | KUBERNETES_ONLY
    for name in SAME_IN_DEVELOPMENT:
        assert dev[name] == native()[name], name
    job = pod_spec(one(rendered("development"), "Job", "idp-migrate"))["containers"][0]
    assert {e["name"] for e in job["env"]} == {"SVC_ADMIN_EMAIL"}
    _, dev_secret = settings(rendered("development"))
    assert set(dev_secret) == SECRET_SETTINGS
    prod_config, _ = settings(rendered("production"))
    assert set(prod_config) | SECRET_SETTINGS == set(dev) | PRODUCTION_ONLY


def test_every_setting_named_anywhere_exists() -> None:
    """A misspelt setting is ignored by the services: every name must be a real one."""
    known = SETTING_NAMES | OPERATOR_ONLY
    for where, names in (
        ("deploy/stack.toml", set(native())),
        ("compose.yaml", set(compose_env())),
        ("development", set(kubernetes_env("development"))),
        ("production", set(kubernetes_env("production"))),
    ):
        unknown = {n for n in names if n.startswith(PREFIX)} - known
        assert not unknown, f"{where}: {sorted(unknown)}"


@pytest.mark.parametrize("where", ["native", "compose", "development", "production"])
def test_settings_load(where: str) -> None:
    """What each stack hands the services passes the services' own checks."""
    env = {
        "native": native,
        "compose": compose_env,
        "development": lambda: kubernetes_env("development"),
        "production": lambda: kubernetes_env("production"),
    }[where]()
    if where == "production":  # the Secret an operator creates (docs/operations.md)
        env |= {
            "SVC_DATABASE_URL": "postgresql://app:pw@idp-db-rw.idp.svc:5432/app",
            "SVC_REDIS_URL": "rediss://:pw@redis.example.com:6379/0",
        }
    try:
        loaded = load_settings(env)
    except SettingsError as exc:
        pytest.fail(f"{where}: {exc}")
    assert loaded.env == ("prod" if where == "production" else "dev")
