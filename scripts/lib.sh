# Shared steps of scripts/up.sh and scripts/test.sh: install what is missing, start the
# local servers that are not running, build what is out of date. Sourced, not run.
# Every step is idempotent: a second run finds everything in place and does nothing.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VAR="$ROOT/var"
export UV_PYTHON_DOWNLOADS=never   # only the registries are reachable: use the system Python
export UV_LINK_MODE=copy
NODE_MIN_MAJOR=20
NODE_MIN_MINOR=19

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

listening() {  # listening PORT
  if command -v ss >/dev/null 2>&1; then
    ss -ltnH "sport = :$1" 2>/dev/null | grep -q .
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
  fi
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root to run: $*"; fi
}

APT_UPDATED=0
apt_install() {  # apt_install PACKAGE...: installs the packages not yet installed
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || die "apt-get not found: install ${missing[*]} by hand"
  say "installing ${missing[*]}"
  if [ "$APT_UPDATED" -eq 0 ]; then as_root apt-get update -qq; APT_UPDATED=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

ensure_system_packages() {
  local pkgs=(ca-certificates curl iproute2 procps nginx-light python3 python3-pip)
  command -v psql >/dev/null && command -v pg_ctlcluster >/dev/null || pkgs+=(postgresql)
  command -v redis-server >/dev/null || pkgs+=(redis-server)
  command -v nats-server >/dev/null || [ -x /usr/sbin/nats-server ] || pkgs+=(nats-server)
  command -v node >/dev/null || pkgs+=(nodejs)
  command -v npm >/dev/null || pkgs+=(npm)
  [ -x /usr/bin/chromium ] || pkgs+=(chromium)  # headless browser for the page tests
  # `kubectl kustomize` renders the Kubernetes overlays in tests/deploy (kustomize v5). The
  # package `kubectl` where an apt source carries it (these machines' images do); with
  # none, nothing is installed and tests/deploy fails saying kubectl is missing (Debian's
  # own kubernetes-client bundles kustomize v2, too old for the overlays).
  if ! command -v kubectl >/dev/null && apt_has kubectl; then pkgs+=(kubectl); fi
  apt_install "${pkgs[@]}"
}

apt_has() {  # apt_has PACKAGE: some apt source carries it
  command -v apt-cache >/dev/null || return 1
  if [ "$APT_UPDATED" -eq 0 ]; then as_root apt-get update -qq; APT_UPDATED=1; fi
  apt-cache show "$1" >/dev/null 2>&1
}

ensure_postgres() {
  listening 5432 && return 0
  say "starting PostgreSQL"
  local version
  version=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)
  [ -n "$version" ] || die "PostgreSQL is installed but has no cluster in /etc/postgresql"
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start
  for _ in $(seq 50); do listening 5432 && return 0; sleep 0.2; done
  die "PostgreSQL did not start"
}

ensure_redis() {
  listening 6379 && return 0
  say "starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
  mkdir -p "$VAR/run" && echo redis >> "$VAR/run/started-infra"
  for _ in $(seq 50); do listening 6379 && return 0; sleep 0.2; done
  die "Redis did not start"
}

ensure_nats() {
  listening 4222 && return 0
  say "starting NATS (JetStream)"
  as_root mkdir -p /var/lib/nats-server
  as_root start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server
  mkdir -p "$VAR/run" && echo nats >> "$VAR/run/started-infra"
  for _ in $(seq 50); do listening 4222 && return 0; sleep 0.2; done
  die "NATS did not start"
}

# A login that may create databases. These machines trust local connections as
# `postgres`; a fresh Debian install asks for a password on 127.0.0.1, so there the role
# `idp` is created with a generated password kept in var/pg.env (mode 0600).
ensure_pg_login() {
  PG_ADMIN_URL=${IDP_PG_ADMIN_URL:-postgresql://postgres@127.0.0.1:5432/postgres}
  if [ -f "$VAR/pg.env" ] && [ -z "${IDP_PG_ADMIN_URL:-}" ]; then . "$VAR/pg.env"; PG_ADMIN_URL=$IDP_PG_ADMIN_URL; fi
  if psql "$PG_ADMIN_URL" -Atqc 'select 1' >/dev/null 2>&1; then export IDP_PG_ADMIN_URL=$PG_ADMIN_URL; return 0; fi
  say "creating the PostgreSQL role idp (password in var/pg.env)"
  local pw; pw=$(head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 32)
  as_root runuser -u postgres -- psql -qv ON_ERROR_STOP=1 -c \
    "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'idp') THEN CREATE ROLE idp LOGIN CREATEDB; END IF; END \$\$;" \
    -c "ALTER ROLE idp PASSWORD '$pw'" >/dev/null || die "could not create the idp role"
  mkdir -p "$VAR"
  (umask 077; echo "IDP_PG_ADMIN_URL=postgresql://idp:$pw@127.0.0.1:5432/postgres" > "$VAR/pg.env")
  . "$VAR/pg.env"; export IDP_PG_ADMIN_URL
  psql "$IDP_PG_ADMIN_URL" -Atqc 'select 1' >/dev/null || die "cannot log in to PostgreSQL as idp"
}

# The Redis of `make up`: the security state (sessions, challenges, revocations,
# throttles) on an instance of its own, configured by deploy/redis/idp-redis.conf
# (append-only file, bounded memory, never evicting), data in var/redis. The machine's
# Redis on 6379 (ensure_redis) stays for the test suite, whose keys live a run long.
IDP_REDIS_PORT=${IDP_REDIS_PORT:-6380}
ensure_idp_redis() {
  listening "$IDP_REDIS_PORT" && return 0
  say "starting the identity provider's Redis on 127.0.0.1:$IDP_REDIS_PORT (append-only, noeviction; var/redis)"
  mkdir -p "$VAR/redis" "$VAR/run" "$VAR/log"
  redis-server "$ROOT/deploy/redis/idp-redis.conf" --port "$IDP_REDIS_PORT" --dir "$VAR/redis" \
    --daemonize yes --pidfile "$VAR/run/redis.pid" --logfile "$VAR/log/redis.log" >/dev/null
  for _ in $(seq 50); do listening "$IDP_REDIS_PORT" && return 0; sleep 0.2; done
  die "the identity provider's Redis did not start (log: var/log/redis.log)"
}

ensure_servers() { ensure_postgres; ensure_pg_login; ensure_redis; ensure_nats; }

# The photo store of `make up`: when SVC_S3_ENDPOINT_URL is http://127.0.0.1:PORT and
# nothing listens there, moto's S3-compatible server (a Python dev dependency, in
# memory: photos are lost when it stops) is started on that port. Whatever already
# listens there is reused; another endpoint, or none, is left to the operator.
S3_STATUS=""
ensure_s3() {  # ensure_s3 ENDPOINT_URL
  local url=${1%/} port
  case "$url" in
    "") S3_STATUS="off (SVC_S3_ENDPOINT_URL is empty: photo upload answers 503)"; return 0 ;;
    http://127.0.0.1:*) port=${url#http://127.0.0.1:} ;;
    *) S3_STATUS="$url"; return 0 ;;
  esac
  case "$port" in ''|*[!0-9]*) die "SVC_S3_ENDPOINT_URL: expected http://127.0.0.1:PORT, got $url" ;; esac
  if listening "$port"; then
    if [ -f "$VAR/run/s3.pid" ] && kill -0 "$(cat "$VAR/run/s3.pid")" 2>/dev/null; then
      S3_STATUS="$url (moto, in memory)"
    else
      S3_STATUS="$url (found running: reused)"
    fi
    return 0
  fi
  say "starting the photo store (moto S3) on 127.0.0.1:$port"
  mkdir -p "$VAR/run" "$VAR/log"
  setsid nohup "$ROOT/.venv/bin/moto_server" -H 127.0.0.1 -p "$port" >> "$VAR/log/s3.log" 2>&1 < /dev/null &
  echo $! > "$VAR/run/s3.pid"
  for _ in $(seq 100); do
    if listening "$port"; then S3_STATUS="$url (moto, in memory)"; return 0; fi
    sleep 0.2
  done
  die "the photo store did not start (log: var/log/s3.log)"
}

ensure_uv() {
  command -v uv >/dev/null && return 0
  say "installing uv (from PyPI)"
  python3 -m pip install --quiet uv 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages uv \
    || die "could not install uv with pip"
  hash -r
  command -v uv >/dev/null || export PATH="$HOME/.local/bin:$PATH"
  command -v uv >/dev/null || die "uv installed but not on PATH"
}

ensure_python() {
  ensure_uv
  say "Python packages (uv sync, with the optional face stack)"
  (cd "$ROOT" && uv sync --frozen --quiet --group face) || die "uv sync failed"
}

node_is_recent() {
  local v major minor
  v=$(node --version 2>/dev/null | tr -d v) || return 1
  major=${v%%.*}; minor=$(echo "$v" | cut -d. -f2)
  [ "$major" -gt "$NODE_MIN_MAJOR" ] || { [ "$major" -eq "$NODE_MIN_MAJOR" ] && [ "$minor" -ge "$NODE_MIN_MINOR" ]; }
}

ensure_node() {
  # Vite 8 needs Node >= 20.19; Debian 12 ships 18. The npm registry carries Node itself
  # (package "node"), so an older system Node gets a private newer one under var/.
  if [ -x "$VAR/node/node_modules/.bin/node" ]; then export PATH="$VAR/node/node_modules/.bin:$PATH"; fi
  node_is_recent && return 0
  say "installing Node 22 from the npm registry into var/node"
  mkdir -p "$VAR/node"
  npm install --silent --no-audit --no-fund --prefix "$VAR/node" node@22 >/dev/null \
    || die "could not install Node from the npm registry"
  export PATH="$VAR/node/node_modules/.bin:$PATH"
  node_is_recent || die "Node $(node --version) is too old for Vite (need >= $NODE_MIN_MAJOR.$NODE_MIN_MINOR)"
}

npm_ci() {  # npm_ci web/auth: `npm ci` there when node_modules is missing or older than the lock file
  local dir="$ROOT/$1"
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    say "npm ci in $1"
    (cd "$dir" && npm ci --silent --no-audit --no-fund) || die "npm ci failed in $1"
  fi
}

build_frontend() {  # build_frontend web/auth
  local dir="$ROOT/$1"
  npm_ci "$1"
  if [ ! -f "$dir/dist/index.html" ] || [ -n "$(find "$dir/src" "$dir/index.html" "$dir/vite.config.ts" "$dir/package.json" "$ROOT/web/shared" -newer "$dir/dist/index.html" 2>/dev/null | head -n 1)" ]; then
    say "building $1"
    (cd "$dir" && npm run --silent build >/dev/null) || die "frontend build failed in $1"
  fi
}

ensure_frontends() {
  ensure_node
  build_frontend web/auth
  build_frontend web/console
}

# The Node relying parties of tests/interop (openid-client, oauth4webapi, jose), at the
# exact versions of tests/interop/node/package-lock.json.
ensure_interop_node() {
  ensure_node
  npm_ci tests/interop/node
}

# --- replicas (make up, make down) ---------------------------------------------------
# A replica is one `idp serve NAME` process; its pid file is var/run/LABEL.pid and its log
# var/log/LABEL.log, LABEL being NAME for the first replica and NAME-1, NAME-2 ... after
# (idp_common.operations.replicas, which also checks SVC_REPLICAS).
SERVICE_NAMES="token admin entity authui-api logout-dispatcher"

replica_labels_running() {  # the labels of every service pid file in var/run
  local file label name
  for file in "$VAR/run"/*.pid; do
    [ -f "$file" ] || continue
    label=$(basename "$file" .pid)
    for name in $SERVICE_NAMES; do
      case "$label" in "$name"|"$name"-[0-9]|"$name"-[0-9][0-9]) echo "$label" ;; esac
    done
  done
}

# Seconds a service may take to stop on SIGTERM: its drain and in-flight bound
# (SVC_SHUTDOWN_DRAIN_SECONDS, SVC_SHUTDOWN_TIMEOUT_SECONDS: the environment, else
# var/idp.env, else 5 and 20), plus 5.
shutdown_grace() {
  local drain timeout
  drain=${SVC_SHUTDOWN_DRAIN_SECONDS:-$(sed -n 's/^SVC_SHUTDOWN_DRAIN_SECONDS=//p' "$VAR/idp.env" 2>/dev/null | tail -n 1)}
  timeout=${SVC_SHUTDOWN_TIMEOUT_SECONDS:-$(sed -n 's/^SVC_SHUTDOWN_TIMEOUT_SECONDS=//p' "$VAR/idp.env" 2>/dev/null | tail -n 1)}
  drain=${drain:-5}; timeout=${timeout:-20}
  echo $(( ${drain%%.*} + ${timeout%%.*} + 6 ))
}

stop_pids() {  # stop_pids LABEL...: SIGTERM to each at once (their drains overlap), then wait
  local label file pid pids=() deadline
  for label in "$@"; do
    file="$VAR/run/$label.pid"
    [ -f "$file" ] || continue
    pid=$(cat "$file")
    if kill -0 "$pid" 2>/dev/null; then
      say "stopping $label"
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
    rm -f "$file"
  done
  [ ${#pids[@]} -eq 0 ] && return 0
  deadline=$((SECONDS + $(shutdown_grace)))
  for pid in "${pids[@]}"; do
    while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.2; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  done
}
