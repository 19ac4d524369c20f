"""The proxy on Kubernetes is the proxy of `make up` and compose: its configuration is
rendered at pod start by proxy/render.py from proxy/nginx.conf.template, with the
Services of the base as upstreams. The test runs that very command."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.deploy.manifests import ROOT, flag, one, pod_spec, rendered, settings, stack

RUN_DIR = "/var/lib/idp/proxy"
UPSTREAM_FLAGS = {
    "token": "--token",
    "admin": "--admin",
    "entity": "--entity",
    "authui-api": "--authui",
}


def _init(overlay: str, name: str) -> dict:
    spec = pod_spec(one(rendered(overlay), "Deployment", "proxy"))
    return next(c for c in spec["initContainers"] if c["name"] == name)


@pytest.mark.parametrize("overlay", ["development", "production"])
def test_proxy_renders_the_shared_template_with_the_services_as_upstreams(overlay: str) -> None:
    command = _init(overlay, "render")["command"]
    assert command[:2] == ["python", "proxy/render.py"]
    assert flag(command, "--run-dir") == RUN_DIR
    assert flag(command, "--listen") == str(stack().proxy_port)
    for service, option in UPSTREAM_FLAGS.items():
        assert flag(command, option) == f"{service}:{stack().ports[service]}"
        assert (
            one(rendered(overlay), "Service", service)["spec"]["ports"][0]["port"]
            == (stack().ports[service])
        )
    assert flag(command, "--avatar-max-bytes") == "$(SVC_AVATAR_MAX_BYTES)"
    assert ("--prod" in command) is (overlay == "production")
    nginx = pod_spec(one(rendered(overlay), "Deployment", "proxy"))["containers"][0]
    assert nginx["command"][-2:] == ["-c", f"{RUN_DIR}/nginx.conf"]
    assert nginx["ports"][0]["containerPort"] == stack().proxy_port
    assert [m["mountPath"] for m in nginx["volumeMounts"]] == [RUN_DIR]


def test_proxy_serves_the_frontends_built_into_the_image() -> None:
    script = _init("development", "www")["command"][-1]
    dockerfile = (ROOT / "Dockerfile").read_text()
    for app in ("auth", "console"):
        assert f"COPY --from=web /src/web/{app}/dist /srv/web/{app}" in dockerfile
        assert f"/srv/web/{app}" in script
    assert f"cp -R /srv/web/auth /srv/web/console {RUN_DIR}/www/" in script


@pytest.mark.parametrize("overlay", ["development", "production"])
def test_rendered_proxy_keeps_the_origin_layout(overlay: str, tmp_path: Path) -> None:
    """Run the pod's render command here (paths moved into a temporary folder): the
    configuration proxies to the Services and refuses /health from outside."""
    config, _ = settings(rendered(overlay))
    command = [
        arg.replace(RUN_DIR, str(tmp_path)).replace(
            "$(SVC_AVATAR_MAX_BYTES)", config["SVC_AVATAR_MAX_BYTES"]
        )
        for arg in _init(overlay, "render")["command"]
    ]
    (tmp_path / "www").mkdir()
    subprocess.run([sys.executable, *command[1:]], cwd=ROOT, check=True, timeout=60)
    conf = (tmp_path / "nginx.conf").read_text()
    for service, name in (("token", "token"), ("admin", "admin"), ("entity", "entity")):
        upstream = re.search(rf"upstream {name}_service \{{([^}}]*)\}}", conf)
        assert upstream, conf
        assert f"{service}:{stack().ports[service]}" in upstream.group(1)
    assert f"authui-api:{stack().ports['authui-api']}" in conf
    assert re.search(rf"^\s*listen {stack().proxy_port};", conf, re.M)
    refuse = f"include {tmp_path}/refuse_403.conf;"
    assert f"location = /health {{ {refuse} }}" in conf
    assert f"location ^~ /health/ {{ {refuse} }}" in conf
    assert "daemon off;" in conf
    photo_limit = int(config["SVC_AVATAR_MAX_BYTES"]) + 1024 * 1024
    assert f"client_max_body_size {photo_limit};" in conf
    hsts = "Strict-Transport-Security" in (tmp_path / "security_headers.conf").read_text()
    assert hsts is (overlay == "production")
