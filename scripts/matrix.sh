#!/bin/bash
# scripts/matrix.sh [MAJOR ...] - make test on PostgreSQL 15, 17 and 18.
#
# Each major runs on the Debian suite that carries it (bookworm 15, trixie
# 17, forky 18): on this machine when it runs that suite, else in a root made
# with debootstrap under $GSST_ROOTS (default /var/tmp/gsst-roots), kept for
# later runs.  The repository's files (what git tracks, and untracked files
# it does not ignore) are copied into the root.  Prints a line per major and
# fails when any failed; the logs stay in $GSST_ROOTS/logs.  Needs root.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
ROOTS=${GSST_ROOTS:-/var/tmp/gsst-roots}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
MAJORS=${*:-15 17 18}
LOGS=$ROOTS/logs

suite_of() {
	case $1 in
		15) echo bookworm ;;
		17) echo trixie ;;
		18) echo forky ;;
		*) echo "scripts/matrix.sh: no Debian suite carries PostgreSQL $1" >&2; exit 2 ;;
	esac
}

host_suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")

# make_root SUITE DIR: a minimal Debian root of SUITE
make_root() {
	local suite=$1 dir=$2 script=""
	if ! command -v debootstrap >/dev/null; then
		apt-get update -q
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap
	fi
	# debootstrap of an older release has no script for a newer suite yet
	if [ ! -e "/usr/share/debootstrap/scripts/$suite" ]; then
		script=/usr/share/debootstrap/scripts/sid
	fi
	rm -rf "$dir.partial"
	debootstrap --variant=minbase "$suite" "$dir.partial" "$MIRROR" $script
	# a suite in development can be past its Release file's Valid-Until
	echo 'Acquire::Check-Valid-Until "false";' > "$dir.partial/etc/apt/apt.conf.d/99gsst-matrix"
	mv "$dir.partial" "$dir"
}

mount_root() {
	local dir=$1
	mountpoint -q "$dir/proc" || mount -t proc proc "$dir/proc"
	mountpoint -q "$dir/dev" || mount --bind /dev "$dir/dev"
	# POSIX shared memory for PostgreSQL's dynamic shared memory
	mountpoint -q "$dir/dev/shm" || mount -t tmpfs tmpfs "$dir/dev/shm"
	cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
}

umount_root() {
	local dir=$1
	umount -l "$dir/dev/shm" 2>/dev/null || true
	umount -l "$dir/dev" 2>/dev/null || true
	umount -l "$dir/proc" 2>/dev/null || true
}

copy_repo() {
	local dest=$1
	rm -rf "$dest"
	mkdir -p "$dest"
	if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$REPO" && git ls-files -co --exclude-standard -z | tar --null -cf - -T -) | tar -xf - -C "$dest"
	else
		(cd "$REPO" && tar --exclude=./tmp -cf - .) | tar -xf - -C "$dest"
	fi
}

# run_major MAJOR: make test on it; returns its status
run_major() {
	local major=$1 suite dir
	suite=$(suite_of "$major")
	if [ "$suite" = "$host_suite" ]; then
		(cd "$REPO" && make test PG_MAJOR="$major")
		return
	fi
	dir=$ROOTS/$suite
	[ -d "$dir" ] || make_root "$suite" "$dir"
	mount_root "$dir"
	trap 'umount_root "$dir"' RETURN
	copy_repo "$dir/build/gsst"
	chroot "$dir" /bin/bash -c "cd /build/gsst && make test PG_MAJOR=$major"
}

mkdir -p "$LOGS"
failed=0
summary=""
for major in $MAJORS; do
	log=$LOGS/pg$major.log
	echo "== PostgreSQL $major ($(suite_of "$major")): make test, log $log"
	start=$(date +%s)
	if run_major "$major" > "$log" 2>&1; then
		result=passed
	else
		result=FAILED
		failed=1
		tail -n 60 "$log"
	fi
	line="PostgreSQL $major ($(suite_of "$major")): $result in $(( $(date +%s) - start )) s"
	echo "$line"
	summary="$summary$line"$'\n'
done
echo "== matrix"
printf '%s' "$summary"
exit $failed
