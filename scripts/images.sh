#!/usr/bin/env bash
# Make sure the local images taskenv's tests and example use exist in one engine.
#
#   scripts/images.sh SOCK
#
# SOCK is the engine's UNIX socket (dockerd or Podman's Docker-compatible service). No
# registry is reachable, so every image is made here from Debian packages:
#   taskenv-test/busybox:1       busybox-static rootfs, CMD ["sh"]
#   taskenv-example/app:1        the same plus httpd on :3000 with /www and /www/cgi-bin/db
#   taskenv-example/postgres:15  mmdebstrap'd bookworm + postgresql-15 and an entrypoint
# An image that exists already is left alone. The postgres root filesystem is cached in
# ${TASKENV_IMAGE_CACHE:-/var/cache/taskenv-images}, keyed by this script's hash, so a
# second engine or a rerun does not run mmdebstrap again.
set -euo pipefail

SOCK=${1:?usage: images.sh SOCK}
CACHE=${TASKENV_IMAGE_CACHE:-/var/cache/taskenv-images}
# mmdebstrap takes the host's apt sources (the mirror this machine can reach).
SOURCES=${TASKENV_APT_SOURCES:-/etc/apt/sources.list.d/debian.sources}
if [[ ! -f $SOURCES && -f /etc/apt/sources.list ]]; then
	SOURCES=/etc/apt/sources.list
fi
SELF=$(readlink -f "${BASH_SOURCE[0]}")
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
			echo "docker-entrypoint.sh: initialised $PGDATA" >&2
		fi
		exec "$@"
	EOF
}

# mmdebstrap bookworm + postgresql-15 into a tarball, or take it from the cache.
postgres_tarball() {
	local key tarball tmp entry
	key=$(cat "$SELF" "$SOURCES" | sha256sum | cut -c1-16)
	tarball=$CACHE/postgres-15-$key.tar
	mkdir -p "$CACHE"
	# Two engines prepared at once must not both run mmdebstrap into the same file.
	exec 9>"$CACHE/.lock"
	flock 9
	if [[ ! -s $tarball ]]; then
		log "mmdebstrap bookworm + postgresql-15 (cache miss: $tarball)"
		entry=$WORK/docker-entrypoint.sh
		postgres_entrypoint >"$entry"
		tmp=$CACHE/.partial-$$.tar
		# No main cluster: the entrypoint runs initdb into $PGDATA.
		# Docs, man pages, translations and the LLVM JIT are not needed in a test image.
		# shellcheck disable=SC2016 # "$1" is the chroot, expanded by mmdebstrap's hook shell
		mmdebstrap --quiet --format=tar --variant=minbase --include=postgresql-15 \
			--dpkgopt='path-exclude=/usr/share/doc/*' \
			--dpkgopt='path-exclude=/usr/share/man/*' \
			--dpkgopt='path-exclude=/usr/share/info/*' \
			--dpkgopt='path-exclude=/usr/share/locale/*' \
			--essential-hook='mkdir -p "$1/etc/postgresql-common/createcluster.d" && echo "create_main_cluster = false" >"$1/etc/postgresql-common/createcluster.d/taskenv.conf"' \
			--customize-hook="install -m 755 '$entry' \"\$1/usr/local/bin/docker-entrypoint.sh\"" \
			--customize-hook='rm -rf "$1/etc/postgresql/15" "$1/var/lib/postgresql/15"' \
			--customize-hook='mkdir -p "$1/var/lib/postgresql/data" "$1/var/run/postgresql" && chroot "$1" chown postgres:postgres /var/lib/postgresql/data /var/run/postgresql && chmod 700 "$1/var/lib/postgresql/data"' \
			--customize-hook='rm -f "$1"/usr/lib/postgresql/15/lib/llvmjit*.so "$1"/usr/lib/x86_64-linux-gnu/libLLVM-*.so* "$1"/usr/lib/x86_64-linux-gnu/libz3.so*' \
			--customize-hook='rm -rf "$1"/usr/share/i18n "$1"/usr/lib/postgresql/15/lib/bitcode "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/cache/debconf/*-old "$1"/var/log/*' \
			bookworm "$tmp" "$SOURCES" >&2 || {
			rm -f "$tmp"
			log "mmdebstrap failed"
			return 1
		}
		mv "$tmp" "$tarball"
		# Tarballs of other versions of this script are dropped once a day old (another
		# checkout on this machine may still be using a recent one).
		find "$CACHE" -maxdepth 1 -name 'postgres-15-*.tar' ! -name "${tarball##*/}" \
			-mmin +1440 -delete
		find "$CACHE" -maxdepth 1 -name '.partial-*.tar' -mmin +60 -delete
	fi
	exec 9>&-
	printf '%s\n' "$tarball"
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
ensure taskenv-test/busybox:1 build_busybox
ensure taskenv-example/app:1 build_app
ensure taskenv-example/postgres:15 build_postgres
