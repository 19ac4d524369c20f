"""What matters in the rendered overlays, beyond the schemas: restricted containers, the
probes, autoscaling and disruption budgets, the keys Secret, the order-giving Job, the
cleanup CronJob, the network policies and what each overlay changes."""

from __future__ import annotations

import pytest

from tests.deploy.manifests import (
    KUBERNETES,
    OVERLAYS,
    ROOT,
    Doc,
    containers,
    objects,
    one,
    pod_spec,
    pod_template,
    rendered,
    services,
    settings,
    stack,
    workloads,
)

KEY_DIR = "/var/lib/idp/keys"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_container_is_restricted(overlay: str) -> None:
    """Non-root, read-only root filesystem, no privilege escalation, no capabilities,
    seccomp RuntimeDefault: every container of every workload, engines included."""
    checked = 0
    for workload in workloads(rendered(overlay)):
        spec = pod_spec(workload)
        pod = spec.get("securityContext", {})
        assert pod.get("runAsNonRoot") is True, workload["metadata"]["name"]
        assert pod.get("runAsUser", 0) > 0, workload["metadata"]["name"]
        assert pod.get("seccompProfile") == {"type": "RuntimeDefault"}
        assert spec.get("automountServiceAccountToken") is False
        for container in containers(spec):
            where = f"{workload['metadata']['name']}/{container['name']}"
            context = container.get("securityContext", {})
            assert context.get("runAsNonRoot") is True, where
            assert context.get("readOnlyRootFilesystem") is True, where
            assert context.get("allowPrivilegeEscalation") is False, where
            assert context.get("capabilities") == {"drop": ["ALL"]}, where
            assert "privileged" not in context, where
            assert container.get("resources", {}).get("requests"), where
            assert container["resources"].get("limits", {}).get("memory"), where
            checked += 1
    assert checked >= 9


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_services_probe_their_health_routes(overlay: str) -> None:
    found = services(rendered(overlay))
    assert sorted(found) == sorted(stack().services)
    for name, deployment in found.items():
        spec = pod_spec(deployment)
        assert spec["terminationGracePeriodSeconds"] == 30  # drain 5 s + in flight 20 s
        (container,) = spec["containers"]
        port = stack().ports[name]
        assert container["ports"] == [{"name": "http", "containerPort": port}]
        assert container["readinessProbe"]["httpGet"] == {"path": "/health/ready", "port": "http"}
        assert container["livenessProbe"]["httpGet"] == {"path": "/health/live", "port": "http"}
        annotations = pod_template(deployment)["metadata"]["annotations"]
        assert annotations["prometheus.io/scrape"] == "true"
        assert annotations["prometheus.io/port"] == str(port)
        assert annotations["prometheus.io/path"] == "/metrics"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_deployment_has_an_autoscaler_and_a_disruption_budget(overlay: str) -> None:
    docs = rendered(overlay)
    scalers = objects(docs, "HorizontalPodAutoscaler")
    budgets = objects(docs, "PodDisruptionBudget")
    ours = [*stack().services, "proxy"]
    for name in ours:
        deployment = one(docs, "Deployment", name)
        assert "replicas" not in deployment["spec"], f"{name}: the autoscaler owns the count"
        target = scalers[name]["spec"]["scaleTargetRef"]
        assert (target["kind"], target["name"]) == ("Deployment", name)
        selector = deployment["spec"]["selector"]["matchLabels"]
        assert budgets[name]["spec"]["selector"]["matchLabels"] == selector
        assert budgets[name]["spec"]["maxUnavailable"] == 1
    if overlay == "development":
        assert all(scalers[n]["spec"]["maxReplicas"] == 1 for n in ours)
    else:
        assert all(scalers[n]["spec"]["minReplicas"] >= 2 for n in ours)
        assert scalers["token"]["spec"]["minReplicas"] >= 3


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_keys_come_read_only_from_a_secret_that_updates_in_place(overlay: str) -> None:
    config, _ = settings(rendered(overlay))
    assert config["SVC_KEY_DIR"] == KEY_DIR
    for name, deployment in services(rendered(overlay)).items():
        spec = pod_spec(deployment)
        volumes = {v["name"]: v for v in spec["volumes"]}
        (mount,) = [m for m in spec["containers"][0]["volumeMounts"] if m["mountPath"] == KEY_DIR]
        volume = volumes[mount["name"]]
        assert volume["secret"]["secretName"] == "idp-signing-keys", name
        assert volume["secret"]["defaultMode"] == 0o440, name  # group (fsGroup) only
        assert mount["readOnly"] is True, name
        # A subPath mount is never updated by kubelet: rotation would need a restart.
        assert "subPath" not in mount and "subPathExpr" not in mount, name
    # A hash-suffixed (generated) keys Secret would roll every pod on each rotation.
    assert not [d for d in rendered(overlay) if d["metadata"]["name"].startswith("idp-signing")]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_tmp_is_the_only_writable_place_of_a_service(overlay: str) -> None:
    for name, deployment in services(rendered(overlay)).items():
        spec = pod_spec(deployment)
        writable = [m for m in spec["containers"][0]["volumeMounts"] if not m.get("readOnly")]
        assert [m["mountPath"] for m in writable] == ["/tmp"], name
        volumes = {v["name"]: v for v in spec["volumes"]}
        assert "emptyDir" in volumes[writable[0]["name"]], name


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_migration_job_migrates_then_seeds(overlay: str) -> None:
    job = one(rendered(overlay), "Job", "idp-migrate")
    (container,) = pod_spec(job)["containers"]
    script = container["command"][-1]
    assert container["command"][:2] == ["sh", "-ec"]
    assert script.startswith("idp migrate && idp seed")
    assert pod_spec(job)["restartPolicy"] == "Never"
    assert job["metadata"]["annotations"]["argocd.argoproj.io/hook"] == "PreSync"
    if overlay == "development":
        assert script.endswith("&& idp create-admin")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_first_apply_of_a_release_takes_the_job_and_what_it_reads(overlay: str) -> None:
    """`kubectl apply -k OVERLAY -l idp-rollout=before` (docs/operations.md): the Job, the
    settings it reads, and nothing that serves traffic."""
    first = {
        (d["kind"], d["metadata"]["name"].rsplit("-", 1)[0] if d["kind"] != "Job" else "")
        for d in rendered(overlay)
        if d["metadata"].get("labels", {}).get("idp-rollout") == "before"
    }
    expected = {("Job", ""), ("ConfigMap", "idp-settings")}
    if overlay == "development":
        expected.add(("Secret", "idp-secrets"))
    assert first == expected
    job = pod_spec(one(rendered(overlay), "Job", "idp-migrate"))["containers"][0]
    reads = {ref.get("configMapRef", ref.get("secretRef"))["name"] for ref in job["envFrom"]}
    first_names = {
        d["metadata"]["name"]
        for d in rendered(overlay)
        if d["metadata"].get("labels", {}).get("idp-rollout") == "before"
    }
    # In production the Secret idp-secrets is made by hand before any apply.
    assert reads - first_names <= {"idp-secrets"}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_cleanup_runs_as_a_cronjob_instead_of_in_the_token_service(overlay: str) -> None:
    cron = one(rendered(overlay), "CronJob", "idp-cleanup")
    (container,) = pod_spec(cron)["containers"]
    assert container["command"] == ["idp", "cleanup"]
    assert cron["spec"]["concurrencyPolicy"] == "Forbid"
    config, _ = settings(rendered(overlay))
    assert config["SVC_CLEANUP_INTERVAL"] == "0"


def _policies(docs: tuple[Doc, ...]) -> dict[str, Doc]:
    return {name: d["spec"] for name, d in objects(docs, "NetworkPolicy").items()}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_network_policies(overlay: str) -> None:
    policies = _policies(rendered(overlay))
    deny = policies["default-deny"]
    assert deny == {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    proxy = policies["proxy"]
    assert proxy["ingress"] == [{"ports": [{"protocol": "TCP", "port": stack().proxy_port}]}]
    upstreams = {p["port"] for p in proxy["egress"][0]["ports"]}
    public = {n: p for n, p in stack().ports.items() if n != "logout-dispatcher"}
    assert upstreams == set(public.values())
    from_proxy = policies["services-ingress"]["ingress"][0]
    proxy_pods = {"podSelector": {"matchLabels": {"app.kubernetes.io/name": "proxy"}}}
    assert from_proxy["from"] == [proxy_pods]
    assert {p["port"] for p in from_proxy["ports"]} == set(public.values())
    engines = {p["port"] for p in policies["engines-egress"]["egress"][0]["ports"]}
    assert {5432, 6379, 4222, 443} <= engines
    internet = policies["dispatcher-egress"]["egress"][0]["to"]
    assert [block["ipBlock"]["cidr"] for block in internet] == ["0.0.0.0/0", "::/0"]


def test_development_runs_its_own_engines() -> None:
    docs = rendered("development")
    for name in ("postgres", "redis", "nats"):
        engine = one(docs, "StatefulSet", name)
        assert engine["spec"]["replicas"] == 1
        assert engine["spec"]["volumeClaimTemplates"], name
    assert one(docs, "Deployment", "s3")
    assert one(docs, "Deployment", "mail")
    config, secret = settings(docs)
    assert config["SVC_ENV"] == "dev"
    assert secret["SVC_DATABASE_URL"].endswith("@postgres:5432/idp")
    assert secret["SVC_REDIS_URL"] == "redis://redis:6379/0"
    assert config["SVC_NATS_URL"] == "nats://nats:4222"
    assert config["SVC_S3_ENDPOINT_URL"] == "http://s3:5000"
    assert secret["SVC_SMTP_URL"] == "smtp://mail:1025"
    nats = pod_spec(one(docs, "StatefulSet", "nats"))["containers"][0]
    assert "-js" in nats["args"]


def test_development_redis_is_configured_as_everywhere_else() -> None:
    """The overlay's copy of deploy/redis/idp-redis.conf (kustomize reads no file outside
    its folder) is the same file."""
    copy = KUBERNETES / "overlays/development/engines/idp-redis.conf"
    assert copy.read_text() == (ROOT / "deploy/redis/idp-redis.conf").read_text()
    redis = pod_spec(one(rendered("development"), "StatefulSet", "redis"))["containers"][0]
    assert redis["command"][:2] == ["redis-server", "/etc/idp-redis/idp-redis.conf"]


def test_production_addresses_existing_engines_and_spreads_replicas() -> None:
    docs = rendered("production")
    assert not objects(docs, "StatefulSet")
    config, secret = settings(docs)
    assert secret == {}, "production's credentials are created by hand, never kept in git"
    assert config["SVC_ENV"] == "prod"
    assert config["SVC_ISSUER"].startswith("https://")
    assert config["SVC_BACKCHANNEL_ALLOW_PRIVATE"] == "false"
    for name in [*stack().services, "proxy"]:
        spread = pod_spec(one(docs, "Deployment", name))["topologySpreadConstraints"]
        keys = {c["topologyKey"] for c in spread}
        assert keys == {"kubernetes.io/hostname", "topology.kubernetes.io/zone"}, name
        for constraint in spread:
            assert constraint["labelSelector"]["matchLabels"] == {"app.kubernetes.io/name": name}
    ingress = one(docs, "Ingress", "idp")
    (path,) = ingress["spec"]["rules"][0]["http"]["paths"]
    assert path["path"] == "/"
    assert path["backend"]["service"]["name"] == "proxy"
    image = pod_spec(one(docs, "Deployment", "token"))["containers"][0]["image"]
    assert image.startswith("registry.example.com/idp:")
