#!/usr/bin/env bash
# Make sure the local images taskenv's tests and example use exist in one engine.
#
#   scripts/images.sh SOCK [IMAGE...|all]
#
# SOCK is the engine's UNIX socket (dockerd or Podman's Docker-compatible service). IMAGE
# is one of the short names below; without any: busybox app postgres; "all": every one.
# No registry is reachable, so every image is made here from Debian packages:
#   busybox   taskenv-test/busybox:1       busybox-static rootfs, CMD ["sh"]
#   app       taskenv-example/app:1        the same plus httpd on :3000 with /www and /www/cgi-bin/db
#   postgres  taskenv-example/postgres:15  mmdebstrap'd bookworm + postgresql-15 and an entrypoint
#                                          (POSTGRES_PASSWORD, POSTGRES_DB as the official image),
#                                          with curl and amqp-tools for checks from inside
#   rabbitmq  taskenv-example/rabbitmq:3   bookworm + rabbitmq-server 3.10 with management; needs
#                                          RABBITMQ_DEFAULT_USER/PASS; AMQP 5672, API 15672
#   s3rver    taskenv-example/s3rver:3.1   bookworm nodejs + s3rver (the npm tree under
#                                          /opt/taskenv-test); 0.0.0.0:4568, data in /data
# An image that exists already is left alone. The mmdebstrap'd root filesystems are cached in
# ${TASKENV_IMAGE_CACHE:-/var/cache/taskenv-images}, keyed by the apt sources and the code that
# builds each, so a second engine or a rerun does not run mmdebstrap again; the missing ones are
# built side by side (all three from scratch: ~90 s on 2 cores). The s3rver tree is copied from
# ${TASKENV_S3RVER_TREE:-/opt/taskenv-test}/node_modules (.ci/install-deps.sh puts it there).
set -euo pipefail

SOCK=${1:?usage: images.sh SOCK}
CACHE=${TASKENV_IMAGE_CACHE:-/var/cache/taskenv-images}
# mmdebstrap takes the host's apt sources (the mirror this machine can reach).
SOURCES=${TASKENV_APT_SOURCES:-/etc/apt/sources.list.d/debian.sources}
if [[ ! -f $SOURCES && -f /etc/apt/sources.list ]]; then
	SOURCES=/etc/apt/sources.list
fi
DEFAULT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# The docker.io CLI matches the engines' API version; another docker in PATH may not.
if [[ -x /usr/bin/docker ]]; then
	DOCKER=(/usr/bin/docker -H "unix://$SOCK")
else
	DOCKER=(docker -H "unix://$SOCK")
fi

log() {
	printf 'images.sh: %s\n' "$*" >&2
}

WORK=$(mktemp -d /tmp/te-images-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

have_image() {
	"${DOCKER[@]}" image inspect "$1" >/dev/null 2>&1
}

# Tar a directory as root-owned entries, the way an image layer expects them.
tar_root() {
	tar --numeric-owner --owner=0 --group=0 -C "$1" -cf - .
}

busybox_rootfs() {
	local root=$1 applet
	mkdir -p "$root"/{bin,etc,tmp,root,proc,sys,dev}
	cp /bin/busybox "$root/bin/busybox"
	for applet in $("$root/bin/busybox" --list); do
		[[ $applet == busybox ]] || ln -sf busybox "$root/bin/$applet"
	done
	printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' \
		'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' >"$root/etc/passwd"
	printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' >"$root/etc/group"
	chmod 1777 "$root/tmp"
	chmod 700 "$root/root"
}

build_busybox() {
	local root=$WORK/busybox
	busybox_rootfs "$root"
	tar_root "$root" | "${DOCKER[@]}" import \
		--change "ENV PATH=$DEFAULT_PATH" \
		--change 'CMD ["sh"]' \
		- taskenv-test/busybox:1 >/dev/null
}

build_app() {
	local root=$WORK/app
	busybox_rootfs "$root"
	mkdir -p "$root/www/cgi-bin"
	printf 'taskenv example app\n' >"$root/www/index.html"
	# busybox nc has no -z: "-e /bin/true" connects, runs true on the socket and exits
	# with its status, so the exit code says whether the TCP connect succeeded.
	cat >"$root/www/cgi-bin/db" <<-'EOF'
		#!/bin/sh
		printf 'Content-Type: text/plain\r\n\r\n'
		echo "task=$TASK"
		if [ -n "${DATABASE_NAME:-}" ]; then echo "database_name=$DATABASE_NAME"; fi
		if nc -w 2 "$DATABASE_HOST" "${DATABASE_PORT:-5432}" -e /bin/true >/dev/null 2>&1; then
			echo database=reachable
		else
			echo database=unreachable
		fi
	EOF
	chmod 755 "$root/www/cgi-bin/db"
	# busybox httpd sets no SIGTERM handler and PID 1 ignores unhandled signals, so every
	# `docker stop` would wait out its timeout. This httpd, first in PATH, runs the real one
	# as a child and ends it on TERM/INT; the command line stays `httpd -f -p 3000 -h /www`.
	mkdir -p "$root/usr/local/bin"
	cat >"$root/usr/local/bin/httpd" <<-'EOF'
		#!/bin/sh
		/bin/busybox httpd "$@" &
		pid=$!
		trap 'kill "$pid" 2>/dev/null; wait "$pid"; exit 0' TERM INT
		wait "$pid"
	EOF
	chmod 755 "$root/usr/local/bin/httpd"
	tar_root "$root" | "${DOCKER[@]}" import \
		--change "ENV PATH=$DEFAULT_PATH" \
		--change 'WORKDIR /' \
		--change 'EXPOSE 3000' \
		--change 'CMD ["httpd", "-f", "-p", "3000", "-h", "/www"]' \
		- taskenv-example/app:1 >/dev/null
}

# The entrypoint of taskenv-example/postgres:15, written into the image by mmdebstrap.
postgres_entrypoint() {
	cat <<-'EOF'
		#!/bin/sh
		# Initialise $PGDATA on first start (as the official image does), then run postgres
		# in the foreground as the postgres user. Extra arguments go to postgres (-c k=v).
		set -eu
		: "${PGDATA:=/var/lib/postgresql/data}"
		export PGDATA
		bin=/usr/lib/postgresql/15/bin
		if [ "$(id -u)" = 0 ]; then
			mkdir -p "$PGDATA" /var/run/postgresql
			chown postgres:postgres "$PGDATA" /var/run/postgresql
			chmod 700 "$PGDATA"
			chmod 2775 /var/run/postgresql
			set -- setpriv --reuid=postgres --regid=postgres --init-groups "$bin/postgres" -D "$PGDATA" "$@"
			as_postgres="setpriv --reuid=postgres --regid=postgres --init-groups"
		else
			set -- "$bin/postgres" -D "$PGDATA" "$@"
			as_postgres=
		fi
		if [ ! -s "$PGDATA/PG_VERSION" ]; then
			if [ -z "${POSTGRES_PASSWORD:-}" ]; then
				echo "docker-entrypoint.sh: POSTGRES_PASSWORD must be set to initialise $PGDATA" >&2
				exit 1
			fi
			pwfile=$(mktemp)
			printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
			chown postgres "$pwfile" 2>/dev/null || true
			$as_postgres "$bin/initdb" -D "$PGDATA" \
				--username=postgres --pwfile="$pwfile" \
				--auth-host=scram-sha-256 --auth-local=trust \
				--encoding=UTF8 --locale=C.UTF-8 >/dev/null
			rm -f "$pwfile"
			# jit = off: the LLVM JIT provider is not in the image.
			printf "listen_addresses = '*'\njit = off\n" >>"$PGDATA/postgresql.conf"
			printf 'host all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
			# POSTGRES_DB, as the official image: a database of that name, made once,
			# in single-user mode (no server is listening yet).
			if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
				db=$(printf '%s' "$POSTGRES_DB" | sed 's/"/""/g')
				echo "CREATE DATABASE \"$db\"" | $as_postgres "$bin/postgres" --single -D "$PGDATA" postgres >/dev/null
			fi
			echo "docker-entrypoint.sh: initialised $PGDATA" >&2
		fi
		exec "$@"
	EOF
}

# Run BUILD_FN TMP (it writes a root filesystem tarball to TMP) unless the cache holds
# NAME's tarball for KEY already; print the tarball's path. Concurrent callers (two
# engines prepared at once) wait for each other per image, never build the same one twice.
cached_tarball() {
	local name=$1 key=$2 build=$3 tarball tmp lock
	tarball=$CACHE/$name-$key.tar
	mkdir -p "$CACHE"
	exec {lock}>"$CACHE/.lock-$name"
	flock "$lock"
	if [[ ! -s $tarball ]]; then
		log "building the $name root filesystem (cache miss: $tarball)"
		tmp=$CACHE/.partial-$name-$$.tar
		"$build" "$tmp" >&2 || {
			rm -f "$tmp"
			exec {lock}>&-
			log "building the $name root filesystem failed"
			return 1
		}
		mv "$tmp" "$tarball"
		# Tarballs of other versions are dropped once a day old (another checkout on this
		# machine may still be using a recent one).
		find "$CACHE" -maxdepth 1 -name "$name-*.tar" ! -name "${tarball##*/}" -mmin +1440 -delete
		find "$CACHE" -maxdepth 1 -name ".partial-$name-*.tar" -mmin +60 -delete
	fi
	exec {lock}>&-
	printf '%s\n' "$tarball"
}

# The cache key of an image: the apt sources, the code of the shell functions that
# build it (FN...), and after "--" any extra strings (e.g. files copied in).
cache_key() {
	local fns=()
	while (($# > 0)) && [[ $1 != -- ]]; do
		fns+=("$1")
		shift
	done
	(($# > 0)) && shift
	{
		cat "$SOURCES"
		declare -f "${fns[@]}"
		printf '%s\n' "$@"
	} | sha256sum | cut -c1-16
}

# mmdebstrap a bookworm minbase with PACKAGES (space-separated) into the tarball $1, without
# docs, man pages and translations; more mmdebstrap options (hooks) follow.
# shellcheck disable=SC2016 # "$1" in the hooks is the chroot, expanded by mmdebstrap
debootstrap_tar() {
	local out=$1 packages=$2
	shift 2
	mmdebstrap --quiet --format=tar --variant=minbase --include="${packages// /,}" \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/info/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		"$@" \
		--customize-hook='rm -rf "$1"/usr/share/i18n "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/cache/debconf/*-old "$1"/var/log/*' \
		bookworm "$out" "$SOURCES"
}

# bookworm + postgresql-15, plus the clients the example's app uses for in-container
# checks: curl (7.88: --aws-sigv4, but send x-amz-content-sha256 yourself, s3rver wants it) and
# amqp-tools (amqp-declare-queue/-publish/-get).
postgres_rootfs() {
	local entry=$WORK/postgres-entrypoint.sh
	postgres_entrypoint >"$entry"
	# No main cluster: the entrypoint runs initdb into $PGDATA. The LLVM JIT is not needed.
	# shellcheck disable=SC2016 # "$1" is the chroot, expanded by mmdebstrap's hook shell
	debootstrap_tar "$1" "postgresql-15 curl amqp-tools" \
		--essential-hook='mkdir -p "$1/etc/postgresql-common/createcluster.d" && echo "create_main_cluster = false" >"$1/etc/postgresql-common/createcluster.d/taskenv.conf"' \
		--customize-hook="install -m 755 '$entry' \"\$1/usr/local/bin/docker-entrypoint.sh\"" \
		--customize-hook='rm -rf "$1/etc/postgresql/15" "$1/var/lib/postgresql/15"' \
		--customize-hook='mkdir -p "$1/var/lib/postgresql/data" "$1/var/run/postgresql" && chroot "$1" chown postgres:postgres /var/lib/postgresql/data /var/run/postgresql && chmod 700 "$1/var/lib/postgresql/data"' \
		--customize-hook='rm -f "$1"/usr/lib/postgresql/15/lib/llvmjit*.so "$1"/usr/lib/x86_64-linux-gnu/libLLVM-*.so* "$1"/usr/lib/x86_64-linux-gnu/libz3.so*' \
		--customize-hook='rm -rf "$1"/usr/lib/postgresql/15/lib/bitcode'
}

postgres_tarball() {
	cached_tarball postgres-15 "$(cache_key postgres_rootfs postgres_entrypoint debootstrap_tar)" postgres_rootfs
}

build_postgres() {
	local tarball
	tarball=$(postgres_tarball)
	"${DOCKER[@]}" import \
		--change "ENV PATH=/usr/lib/postgresql/15/bin:$DEFAULT_PATH" \
		--change 'ENV PGDATA=/var/lib/postgresql/data' \
		--change 'EXPOSE 5432' \
		--change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
		- taskenv-example/postgres:15 <"$tarball" >/dev/null
}

# The entrypoint of taskenv-example/rabbitmq:3.
rabbitmq_entrypoint() {
	cat <<-'EOF'
		#!/bin/sh
		# RabbitMQ with the management plugin, configured from the environment on every start:
		#   RABBITMQ_DEFAULT_USER, RABBITMQ_DEFAULT_PASS  (required; [A-Za-z0-9._-]) an administrator
		#       with full permissions on vhost "/", allowed from any address (loopback_users = none)
		# AMQP on 5672, the management HTTP API on 15672; node rabbit@localhost; data in
		# /var/lib/rabbitmq. Runs in the foreground as the rabbitmq user; SIGTERM stops it cleanly.
		set -eu
		for v in RABBITMQ_DEFAULT_USER RABBITMQ_DEFAULT_PASS; do
			eval "val=\${$v:-}"
			if [ -z "$val" ]; then
				echo "docker-entrypoint.sh: $v must be set" >&2
				exit 1
			fi
			case $val in
			*[!A-Za-z0-9._-]*)
				echo "docker-entrypoint.sh: $v may hold only letters, digits, '.', '_' and '-'" >&2
				exit 1
				;;
			esac
		done
		umask 027
		cat >/etc/rabbitmq/rabbitmq.conf <<CONF
		default_user = $RABBITMQ_DEFAULT_USER
		default_pass = $RABBITMQ_DEFAULT_PASS
		default_vhost = /
		default_user_tags.administrator = true
		default_permissions.configure = .*
		default_permissions.read = .*
		default_permissions.write = .*
		loopback_users = none
		listeners.tcp.default = 5672
		management.tcp.port = 15672
		log.console = true
		log.console.level = info
		log.file = false
		CONF
		echo '[rabbitmq_management].' >/etc/rabbitmq/enabled_plugins
		chgrp rabbitmq /etc/rabbitmq/rabbitmq.conf /etc/rabbitmq/enabled_plugins
		mkdir -p /var/lib/rabbitmq/mnesia /var/log/rabbitmq
		chown rabbitmq:rabbitmq /var/lib/rabbitmq /var/lib/rabbitmq/mnesia /var/log/rabbitmq
		unset RABBITMQ_DEFAULT_USER RABBITMQ_DEFAULT_PASS val
		cd /var/lib/rabbitmq
		# epmd (started by the node) on loopback only: the CLI finds the node through it.
		export ERL_EPMD_ADDRESS=127.0.0.1
		exec setpriv --reuid=rabbitmq --regid=rabbitmq --init-groups \
			env HOME=/var/lib/rabbitmq /usr/lib/rabbitmq/bin/rabbitmq-server
	EOF
}

# rabbitmq-env.conf, read by the server and by rabbitmqctl (docker exec ... rabbitmqctl):
# a node name that does not depend on the container's hostname, and the node's Erlang
# distribution port on loopback only (the entrypoint binds epmd to loopback too): task
# containers reach AMQP and the management API, nothing else.
rabbitmq_env_conf() {
	cat <<-'EOF'
		NODENAME=rabbit@localhost
		SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
		CTL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
		MNESIA_BASE=/var/lib/rabbitmq/mnesia
		LOG_BASE=/var/log/rabbitmq
	EOF
}

# bookworm + rabbitmq-server 3.10 (its Erlang); without python3 (a dependency for rabbitmqadmin
# only, which is not needed: the management API is used over HTTP).
rabbitmq_rootfs() {
	local entry=$WORK/rabbitmq-entrypoint.sh envconf=$WORK/rabbitmq-env.conf
	rabbitmq_entrypoint >"$entry"
	rabbitmq_env_conf >"$envconf"
	# shellcheck disable=SC2016 # "$1" is the chroot, expanded by mmdebstrap's hook shell
	debootstrap_tar "$1" "rabbitmq-server" \
		--customize-hook="install -m 755 '$entry' \"\$1/usr/local/bin/docker-entrypoint.sh\"" \
		--customize-hook="install -m 644 '$envconf' \"\$1/etc/rabbitmq/rabbitmq-env.conf\"" \
		--customize-hook='rm -rf "$1"/var/lib/rabbitmq/mnesia "$1"/var/lib/rabbitmq/.erlang.cookie "$1"/var/log/rabbitmq/*' \
		--customize-hook='rm -rf "$1"/usr/lib/erlang/lib/*/src "$1"/usr/lib/erlang/lib/*/examples "$1"/usr/lib/erlang/lib/*/doc "$1"/usr/lib/erlang/man' \
		--customize-hook='rm -rf "$1"/usr/lib/python3* "$1"/usr/bin/python3* "$1"/usr/share/python3 "$1"/usr/lib/rabbitmq/bin/rabbitmqadmin'
}

rabbitmq_tarball() {
	cached_tarball rabbitmq-3 "$(cache_key rabbitmq_rootfs rabbitmq_entrypoint rabbitmq_env_conf debootstrap_tar)" \
		rabbitmq_rootfs
}

build_rabbitmq() {
	local tarball
	tarball=$(rabbitmq_tarball)
	"${DOCKER[@]}" import \
		--change "ENV PATH=$DEFAULT_PATH" \
		--change 'ENV RABBITMQ_NODENAME=rabbit@localhost' \
		--change 'EXPOSE 5672' \
		--change 'EXPOSE 15672' \
		--change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
		- taskenv-example/rabbitmq:3 <"$tarball" >/dev/null
}

# s3rver as the image's main program: PID 1, so SIGTERM needs a handler.
s3rver_main() {
	cat <<-'EOF'
		// s3rver in the foreground on 0.0.0.0:4568, data in /data. Its one credential
		// is S3RVER/S3RVER, or S3RVER_ACCESS_KEY/S3RVER_SECRET_KEY when both are set:
		// taskenv runs one instance per task with that task's random keys. Then
		// S3RVER/S3RVER is revoked and an unsigned request is refused (403): s3rver
		// serves anonymous requests and checks only the access key id of a SigV4 one
		// (it never computes V4 signatures), so the random access key id is the secret.
		// Path-style URLs only (vhostBuckets: false): by default s3rver takes any
		// Host that is not an IP or localhost, such as a network alias ("uploads:4568"),
		// for a bucket name. SIGTERM and SIGINT close it, exit 0.
		'use strict';
		const S3rver = require('/opt/s3rver/node_modules/s3rver');
		const { DUMMY_ACCOUNT } = require('/opt/s3rver/node_modules/s3rver/lib/models/account');
		const ak = process.env.S3RVER_ACCESS_KEY, sk = process.env.S3RVER_SECRET_KEY;
		delete process.env.S3RVER_ACCESS_KEY;
		delete process.env.S3RVER_SECRET_KEY;
		const server = new S3rver({
			address: '0.0.0.0', port: 4568, directory: '/data', silent: false, vhostBuckets: false,
		});
		if (ak && sk) {
			DUMMY_ACCOUNT.revokeAccessKey('S3RVER');
			DUMMY_ACCOUNT.createKeyPair(ak, sk);
			// First in Koa's chain (composed when run() listens).
			server.middleware.unshift(async (ctx, next) => {
				const q = ctx.query;
				if (ctx.get('authorization') || 'X-Amz-Algorithm' in q || 'Signature' in q)
					return next();
				ctx.status = 403;
				ctx.type = 'application/xml';
				ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code>' +
					'<Message>unsigned request</Message></Error>';
			});
		}
		server.run().then(
			() => console.log('s3rver listening on 0.0.0.0:4568, data in /data'),
			(e) => { console.error('s3rver: ' + e.message); process.exit(1); });
		const stop = () => {
			server.close().finally(() => process.exit(0));
			setTimeout(() => process.exit(0), 2000).unref();
		};
		process.on('SIGTERM', stop);
		process.on('SIGINT', stop);
	EOF
}

s3rver_entrypoint() {
	cat <<-'EOF'
		#!/bin/sh
		# Run s3rver (on 0.0.0.0:4568, data in /data) as the unprivileged user s3rver.
		set -eu
		if [ "$(id -u)" = 0 ]; then
			mkdir -p /data
			chown s3rver:s3rver /data
			exec setpriv --reuid=s3rver --regid=s3rver --init-groups node /opt/s3rver/main.js "$@"
		fi
		exec node /opt/s3rver/main.js "$@"
	EOF
}

# bookworm + nodejs, and the s3rver npm tree .ci/install-deps.sh put on this host (no npm
# registry is needed here: node_modules is plain JavaScript).
S3RVER_TREE=${TASKENV_S3RVER_TREE:-/opt/taskenv-test}
s3rver_rootfs() {
	local main=$WORK/s3rver-main.js entry=$WORK/s3rver-entrypoint.sh
	s3rver_main >"$main"
	s3rver_entrypoint >"$entry"
	# shellcheck disable=SC2016 # "$1" is the chroot, expanded by mmdebstrap's hook shell
	debootstrap_tar "$1" "nodejs" \
		--customize-hook="mkdir -p \"\$1/opt/s3rver\" && cp -a '$S3RVER_TREE/node_modules' \"\$1/opt/s3rver/\"" \
		--customize-hook="install -m 644 '$main' \"\$1/opt/s3rver/main.js\"" \
		--customize-hook="install -m 755 '$entry' \"\$1/usr/local/bin/docker-entrypoint.sh\"" \
		--customize-hook='chroot "$1" useradd --system --home-dir /data --no-create-home --shell /usr/sbin/nologin s3rver' \
		--customize-hook='mkdir -p "$1/data" && chroot "$1" chown s3rver:s3rver /data' \
		--customize-hook='chroot "$1" node -e "require(\"/opt/s3rver/node_modules/s3rver\")"'
}

s3rver_tarball() {
	local key
	if [[ ! -f $S3RVER_TREE/node_modules/s3rver/package.json ]]; then
		log "no s3rver under $S3RVER_TREE/node_modules (run .ci/install-deps.sh)"
		return 1
	fi
	key=$(cache_key s3rver_rootfs s3rver_main s3rver_entrypoint debootstrap_tar -- \
		"$(cat "$S3RVER_TREE/package-lock.json" "$S3RVER_TREE/node_modules/s3rver/package.json" 2>/dev/null)")
	cached_tarball s3rver-3.1 "$key" s3rver_rootfs
}

build_s3rver() {
	local tarball
	tarball=$(s3rver_tarball)
	"${DOCKER[@]}" import \
		--change "ENV PATH=$DEFAULT_PATH" \
		--change 'EXPOSE 4568' \
		--change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
		- taskenv-example/s3rver:3.1 <"$tarball" >/dev/null
}

ensure() {
	local name=$1 build=$2 t0
	if have_image "$name"; then
		printf '%-28s present\n' "$name"
		return 0
	fi
	t0=$EPOCHREALTIME
	"$build"
	have_image "$name" || {
		log "$name was not created"
		return 1
	}
	printf '%-28s built in %ss\n' "$name" "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
}

if [[ $(curl -s -m 5 --unix-socket "$SOCK" http://localhost/_ping 2>/dev/null) != OK ]]; then
	log "no engine answers on $SOCK"
	exit 1
fi
WANT=("${@:2}")
if ((${#WANT[@]} == 0)); then
	WANT=(busybox app postgres)
elif [[ ${WANT[*]} == all ]]; then
	WANT=(busybox app postgres rabbitmq s3rver)
fi
# The root filesystems this engine lacks are built side by side first (mmdebstrap spends
# most of its time waiting on the mirror and dpkg); the imports below then hit the cache.
# A failure here shows again, with its message, when its image is built below.
PIDS=()
for w in "${WANT[@]}"; do
	case $w in
	postgres) have_image taskenv-example/postgres:15 || { postgres_tarball >/dev/null & PIDS+=($!); } ;;
	rabbitmq) have_image taskenv-example/rabbitmq:3 || { rabbitmq_tarball >/dev/null & PIDS+=($!); } ;;
	s3rver) have_image taskenv-example/s3rver:3.1 || { s3rver_tarball >/dev/null & PIDS+=($!); } ;;
	esac
done
for pid in "${PIDS[@]}"; do
	wait "$pid" || true
done
for w in "${WANT[@]}"; do
	case $w in
	busybox) ensure taskenv-test/busybox:1 build_busybox ;;
	app) ensure taskenv-example/app:1 build_app ;;
	postgres) ensure taskenv-example/postgres:15 build_postgres ;;
	rabbitmq) ensure taskenv-example/rabbitmq:3 build_rabbitmq ;;
	s3rver) ensure taskenv-example/s3rver:3.1 build_s3rver ;;
	*)
		log "unknown image '$w' (busybox app postgres rabbitmq s3rver, or all)"
		exit 2
		;;
	esac
done
