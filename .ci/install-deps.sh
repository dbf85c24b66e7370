#!/usr/bin/env bash
# Install every Debian package taskenv's build, tests and example need. Idempotent and
# quick when all are present (one dpkg-query). Services are installed, never started:
# the tests start private engines (scripts/engine.sh) and their own servers.
set -euo pipefail

PACKAGES=(
	# build
	cmake gcc make pkg-config clang
	libcurl4-openssl-dev libcjson-dev libyaml-dev libsqlite3-dev libpq-dev
	libcmocka-dev libarchive-dev valgrind libssl-dev libxml2-dev
	libmicrohttpd-dev # the broker's HTTP server (docs/broker.md)
	# engines (scripts/engine.sh): dockerd with its containerd, Podman with netavark
	docker.io containerd runc tini docker-compose
	podman conmon netavark aardvark-dns catatonit uidmap slirp4netns fuse-overlayfs
	iptables iproute2 procps util-linux mount
	# local images (scripts/images.sh)
	busybox-static mmdebstrap debian-archive-keyring
	# servers and clients the drivers are tested against
	postgresql-15 postgresql-client-15 rabbitmq-server amqp-tools
	# tools
	curl ca-certificates git shellcheck python3 sqlite3 jq
	# fuzzing (scripts/fuzz.sh): clang 14 with its libFuzzer and sanitizer runtimes
	libclang-rt-14-dev
	# man page rendering (man -l) and a pty for the progress/exec tests (script);
	# zsh runs the generated zsh completion (tests/cli/cli_table.sh)
	man-db groff-base bsdutils zsh
)

missing() {
	local p status
	for p in "${PACKAGES[@]}"; do
		status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		[[ $status == "install ok installed" ]] || printf '%s\n' "$p"
	done
}

# s3rver, the S3 emulator the s3 driver is tested against (scripts/servers.sh),
# from npm into a local prefix. Node comes from Debian unless some node is
# already there (a NodeSource nodejs ships its own npm and conflicts with Debian's).
S3RVER_PREFIX=/opt/taskenv-test
S3RVER_VERSION=3.7.1
install_s3rver() {
	[[ -x $S3RVER_PREFIX/node_modules/.bin/s3rver ]] && return 0
	if ! command -v npm >/dev/null; then
		apt-get -y -q -o DPkg::Lock::Timeout=600 install --no-install-recommends nodejs npm
	fi
	npm install --prefix "$S3RVER_PREFIX" --no-audit --no-fund "s3rver@$S3RVER_VERSION"
}

mapfile -t MISSING < <(missing)
if ((${#MISSING[@]} == 0)); then
	echo "install-deps: all ${#PACKAGES[@]} packages present"
	install_s3rver
	exit 0
fi
echo "install-deps: installing ${MISSING[*]}"

if [[ $(id -u) != 0 ]]; then
	echo "install-deps: must run as root" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -y -q -o DPkg::Lock::Timeout=600)

# Keep maintainer scripts from starting dockerd, containerd, postgresql, rabbitmq...
# (101 = action forbidden). A policy-rc.d that was there before is left as it was.
POLICY=/usr/sbin/policy-rc.d
if [[ ! -e $POLICY ]]; then
	printf '#!/bin/sh\nexit 101\n' >"$POLICY"
	chmod 755 "$POLICY"
	trap 'rm -f "$POLICY"' EXIT
fi

lists_fresh() {
	# Package lists younger than a day are good enough to install from.
	[[ -n $(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n 1) ]]
}

install() {
	"${APT[@]}" install --no-install-recommends "${MISSING[@]}"
}

if ! lists_fresh; then
	"${APT[@]}" update
	install
elif ! install; then
	# The lists may name versions the mirror no longer has.
	"${APT[@]}" update
	install
fi

mapfile -t STILL < <(missing)
if ((${#STILL[@]} > 0)); then
	echo "install-deps: still missing: ${STILL[*]}" >&2
	exit 1
fi
install_s3rver
echo "install-deps: done"
