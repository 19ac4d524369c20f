# syntax=docker/dockerfile:1
#
# One image for every Python process of the identity provider (the five services, the
# `idp` operator tool, the proxy-config renderer) plus the two static frontends.
# compose.yaml builds it, and deploy/kubernetes/ runs it (docs/operations.md
# "Kubernetes"); see docs/frontends.md. Written to mirror scripts/up.sh, which is what
# runs on the project's machines (no Docker engine there): the services and ports are
# deploy/stack.toml's, which tests/deploy holds compose and Kubernetes to.

# --- Stage 1: the two frontends (Vite + TypeScript) -----------------------------------
FROM node:20-bookworm-slim AS web

WORKDIR /src/web

# Lock files first, so the dependency layer is reused while only sources change.
COPY web/auth/package.json web/auth/package-lock.json auth/
COPY web/console/package.json web/console/package-lock.json console/
RUN --mount=type=cache,target=/root/.npm \
    cd auth && npm ci --no-audit --no-fund \
    && cd ../console && npm ci --no-audit --no-fund

# .dockerignore keeps node_modules/ and dist/ out of the context, so this copy does not
# clobber what npm ci installed.
COPY web/shared/ shared/
COPY web/auth/ auth/
COPY web/console/ console/
RUN cd auth && npm run build && cd ../console && npm run build


# --- Stage 2: the Python workspace -------------------------------------------------------
FROM python:3.11-slim AS app

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never \
    UV_PROJECT_ENVIRONMENT=/app/.venv

# uv from PyPI, pinned to the version the lock file is maintained with.
RUN pip install --no-cache-dir uv==0.13.8

WORKDIR /app

# The whole workspace (root pyproject.toml + uv.lock, libs/common, services/*, and
# proxy/ for the nginx template); .dockerignore drops tests, caches and the frontends'
# node_modules. --frozen: install exactly uv.lock, never re-resolve.
COPY . .
RUN --mount=type=cache,target=/root/.cache/uv \
    uv sync --frozen --no-dev --group face

ENV PATH=/app/.venv/bin:$PATH

# Static builds; the proxy-config service copies them into the volume nginx serves.
COPY --from=web /src/web/auth/dist /srv/web/auth
COPY --from=web /src/web/console/dist /srv/web/console

# Unprivileged user. The directories that compose mounts named volumes on exist in the
# image, owned by that user, so a fresh volume mounted there inherits the ownership:
#   /var/lib/idp/keys          signing keys (SVC_KEY_DIR), shared by every app container
#   /var/lib/idp/proxy         nginx run directory: rendered nginx.conf, snippets, www/
#                              (written by proxy-config, used by the proxy container)
RUN groupadd --system --gid 10001 idp \
    && useradd --system --uid 10001 --gid idp --home-dir /app --shell /usr/sbin/nologin idp \
    && mkdir -p /var/lib/idp/keys /var/lib/idp/proxy \
    && chown -R idp:idp /var/lib/idp \
    && chmod 700 /var/lib/idp/keys
# Numeric, so that Kubernetes' runAsNonRoot can verify it (a name cannot be checked
# without the image's /etc/passwd). Nothing is written outside /tmp and the mounted
# volumes: the root filesystem can be read-only (bytecode is compiled at build time).
USER 10001:10001

# Each compose service sets its own command (granian ..., idp ..., python proxy/render.py).
CMD ["idp", "--help"]
