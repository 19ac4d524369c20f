"""Every Kubernetes overlay renders with ``kubectl kustomize`` and every object it renders
validates against the Kubernetes schemas, offline and strict (kubernetes-validate): an
unknown field, a wrong type or a missing required field fails here, not at apply time."""

from __future__ import annotations

import copy
from typing import Any

import kubernetes_validate
import pytest

from tests.deploy.manifests import (
    KUBERNETES,
    MIN_KUSTOMIZE_MAJOR,
    OVERLAYS,
    Doc,
    kustomize,
    kustomize_version,
    one,
    rendered,
)

# The oldest Kubernetes the manifests are written for and the newest the package ships:
# a field too new for the one or an API removed from the other fails.
VERSIONS = ("1.30.0", "1.37.0")


def schema_problems(docs: tuple[Doc, ...] | list[Doc], version: str) -> list[str]:
    problems = []
    for doc in docs:
        name = f"{doc.get('kind')}/{doc.get('metadata', {}).get('name')}"
        try:
            kubernetes_validate.validate(doc, version, strict=True)
        except kubernetes_validate.ValidationError as exc:
            path = "/".join(str(p) for p in exc.path)
            problems.append(f"{name}: {path}: {exc.message}")
        except kubernetes_validate.SchemaNotFoundError as exc:
            problems.append(f"{name}: {exc.message}")
    return problems


def test_kubectl_has_kustomize_v5() -> None:
    version = kustomize_version()
    major = int(version.lstrip("v").split(".")[0])
    assert major >= MIN_KUSTOMIZE_MAJOR, f"kubectl's kustomize is {version}; need v5 or later"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_overlay_renders(overlay: str) -> None:
    kinds = {doc["kind"] for doc in rendered(overlay)}
    assert {"Namespace", "Deployment", "Service", "ConfigMap", "Job", "CronJob"} <= kinds
    assert {"HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy"} <= kinds
    assert all(doc["metadata"].get("namespace", "idp") == "idp" for doc in rendered(overlay))


def test_base_renders() -> None:
    """The base alone renders too (it is what both overlays start from)."""
    docs = kustomize(KUBERNETES / "base")
    assert one(tuple(docs), "Deployment", "token")


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_object_validates(overlay: str, version: str) -> None:
    docs = rendered(overlay)
    assert schema_problems(docs, version) == []


def _break(doc: Doc, change: Any) -> Doc:
    broken = copy.deepcopy(doc)
    change(broken["spec"]["template"]["spec"]["containers"][0])
    return broken


@pytest.mark.parametrize(
    ("what", "change"),
    [
        ("a misspelt field", lambda c: c["securityContext"].update(readOnlyRootFileSystem=True)),
        ("a port as a word", lambda c: c["ports"][0].update(containerPort="eighty")),
        ("a container without its name", lambda c: c.pop("name")),
        ("capabilities as a word", lambda c: c["securityContext"].update(capabilities="ALL")),
    ],
)
def test_validation_refuses_a_broken_deployment(what: str, change: Any) -> None:
    """The check above can fail: the same Deployment, broken, is refused."""
    token = one(rendered("production"), "Deployment", "token")
    assert schema_problems([token], VERSIONS[0]) == []
    assert schema_problems([_break(token, change)], VERSIONS[0]), what
