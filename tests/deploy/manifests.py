"""Rendering the Kubernetes overlays and reading them, compose.yaml and deploy/stack.toml."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from deploy import stack as stack_file

ROOT = Path(__file__).resolve().parents[2]
KUBERNETES = ROOT / "deploy" / "kubernetes"
OVERLAYS = ("development", "production")
MIN_KUSTOMIZE_MAJOR = 5  # the kustomizations use `labels` and target patches (kustomize v5)

Doc = dict[str, Any]


def kubectl() -> str:
    path = shutil.which("kubectl")
    assert path, "kubectl is not installed: scripts/lib.sh ensure_system_packages installs it"
    return path


def kustomize_version() -> str:
    out = subprocess.run(
        [kubectl(), "version", "--client", "-o", "json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return str(json.loads(out)["kustomizeVersion"])


def kustomize(path: Path) -> list[Doc]:
    """``kubectl kustomize PATH``: the rendered objects; fails with kubectl's message."""
    result = subprocess.run(
        [kubectl(), "kustomize", str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, f"kubectl kustomize {path} failed:\n{result.stderr}"
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


@cache
def rendered(overlay: str) -> tuple[Doc, ...]:
    return tuple(kustomize(KUBERNETES / "overlays" / overlay))


@cache
def stack() -> stack_file.Stack:
    return stack_file.load()


def objects(docs: tuple[Doc, ...], kind: str) -> dict[str, Doc]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


def one(docs: tuple[Doc, ...], kind: str, name: str) -> Doc:
    found = objects(docs, kind)
    assert name in found, f"no {kind} {name} (have {sorted(found)})"
    return found[name]


def pod_spec(workload: Doc) -> Doc:
    """The pod template's spec of a Deployment, StatefulSet, Job or CronJob."""
    spec = workload["spec"]
    if workload["kind"] == "CronJob":
        spec = spec["jobTemplate"]["spec"]
    return dict(spec["template"]["spec"])


def pod_template(workload: Doc) -> Doc:
    spec = workload["spec"]
    if workload["kind"] == "CronJob":
        spec = spec["jobTemplate"]["spec"]
    return dict(spec["template"])


WORKLOAD_KINDS = ("Deployment", "StatefulSet", "Job", "CronJob")


def workloads(docs: tuple[Doc, ...]) -> Iterator[Doc]:
    return (d for d in docs if d["kind"] in WORKLOAD_KINDS)


def containers(spec: Doc) -> list[Doc]:
    return [*spec.get("initContainers", []), *spec["containers"]]


def services(docs: tuple[Doc, ...]) -> dict[str, Doc]:
    """The identity provider's own service Deployments (not the proxy, not the engines)."""
    return {
        name: d
        for name, d in objects(docs, "Deployment").items()
        if d["metadata"]["labels"].get("app.kubernetes.io/component") == "service"
    }


def flag(command: list[str], name: str) -> str:
    """The value after ``name`` in an argument list."""
    assert name in command, f"{name} missing from {command}"
    return command[command.index(name) + 1]


def settings(docs: tuple[Doc, ...]) -> tuple[dict[str, str], dict[str, str]]:
    """(ConfigMap idp-settings, Secret idp-secrets or {}) of a rendered overlay."""
    maps = [d for d in docs if d["kind"] == "ConfigMap"]
    config = next(d for d in maps if d["metadata"]["name"].startswith("idp-settings"))
    secrets = [
        d for d in docs if d["kind"] == "Secret" and d["metadata"]["name"].startswith("idp-secrets")
    ]
    secret: dict[str, str] = {}
    for doc in secrets:
        secret.update({k: base64.b64decode(v).decode() for k, v in doc.get("data", {}).items()})
        secret.update(doc.get("stringData", {}))
    return dict(config["data"]), secret


def compose() -> Doc:
    return dict(yaml.safe_load((ROOT / "compose.yaml").read_text()))


_INTERPOLATION = re.compile(r"\$\{([A-Z_]+):-([^}]*)\}")


def compose_value(raw: Any) -> str:
    """A compose environment value as a container gets it when the shell sets nothing."""
    if raw is None:
        return ""
    if isinstance(raw, bool):
        return str(raw).lower()
    return _INTERPOLATION.sub(lambda m: m.group(2), str(raw))
