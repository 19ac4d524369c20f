"""Deployment files without a cluster: the Kubernetes overlays render and validate, and
compose.yaml, deploy/kubernetes/ and the native stack (deploy/stack.toml) agree."""
