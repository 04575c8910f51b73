#!/bin/bash
# scripts/matrix.sh [MAJOR ...] - make test on PostgreSQL 15, 17 and 18,
# then the Citus suite (make test-citus) and the Debian package test
# (scripts/deb.sh test MAJOR) of each.
#
# Each major runs on the Debian suite that carries it (bookworm 15, trixie
# 17, forky 18): on this machine when it runs that suite, else in a root made
# with debootstrap under $GSST_ROOTS (default /var/tmp/gsst-roots), kept for
# later runs; one debootstrap per suite, kept as a tarball that the package
# test unpacks too, made in the background while the first major's tests
# run.  The repository's files (what git tracks, and untracked files
# it does not ignore) are copied into the root, and so are the Citus release
# sources of ../shared/deps (the one suite that reads them; Citus is built
# once per root and kept there).  In a root, make test runs the codec's
# unit tests only (CODEC_CHECKS=check): its sanitizer and fuzzing runs,
# which need nothing of PostgreSQL, run once on this machine's major.
# Prints a line per step and
# fails when any failed; the logs stay in $GSST_ROOTS/logs.  Needs root.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
ROOTS=${GSST_ROOTS:-/var/tmp/gsst-roots}
. "$REPO/scripts/debian_root.sh"
MAJORS=${*:-15 17 18}
LOGS=$ROOTS/logs

host_suite=$(host_suite)

# run_major MAJOR TARGET: make TARGET (test, test-citus) on it; returns its status
run_major() {
	local major=$1 target=$2 suite dir status
	suite=$(suite_of "$major")
	if [ "$suite" = "$host_suite" ]; then
		(cd "$REPO" && make "$target" PG_MAJOR="$major")
		return
	fi
	dir=$ROOTS/$suite
	[ -d "$dir" ] || root_unpack "$suite" "$dir"
	root_mount "$dir"
	trap "root_umount '$dir'" EXIT
	copy_repo "$REPO" "$dir/build/gsst"
	if [ "$target" = test-citus ]; then
		mkdir -p "$dir/build/shared/deps"
		cp "$("$REPO/scripts/citus.sh" "$(command -v pg_config || echo pg_config)" --sources)"/citus-*.tar.gz "$dir/build/shared/deps/"
	fi
	status=0
	# a bare root, as the README's quick start: make first, then make test
	chroot "$dir" /bin/bash -c "
		set -e
		command -v make >/dev/null || {
			apt-get update -q
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends make
		}
		cd /build/gsst && make $target PG_MAJOR=$major CODEC_CHECKS=check" || status=$?
	root_umount "$dir"
	trap - EXIT
	return $status
}

# step MAJOR WHAT LOG COMMAND...: run it, log it, add its line to the summary
step() {
	local major=$1 what=$2 log=$3 start result line
	shift 3
	echo "== PostgreSQL $major ($(suite_of "$major")): $what, log $log"
	start=$(date +%s)
	if "$@" > "$log" 2>&1; then
		result=passed
	else
		result=FAILED
		failed=1
		tail -n 60 "$log"
	fi
	line="PostgreSQL $major ($(suite_of "$major")): $what $result in $(( $(date +%s) - start )) s"
	echo "$line"
	summary="$summary$line"$'\n'
}

# The Debian roots the steps need (a tarball of each suite's minimal root,
# unpacked for each major not on this machine's suite), made in the
# background while the first major's tests run here; a step that needs a
# root waits for them.
prepare_roots() {
	local major suite
	for major in $MAJORS; do
		suite=$(suite_of "$major")
		root_minbase "$suite"
		[ "$suite" = "$host_suite" ] || [ -d "$ROOTS/$suite" ] || root_unpack "$suite" "$ROOTS/$suite"
	done
}
wait_roots() {
	[ -n "$roots_pid" ] || return 0
	wait "$roots_pid" || echo "== preparing the Debian roots failed (log $LOGS/roots.log); the steps try again"
	roots_pid=""
}

mkdir -p "$LOGS"
failed=0
summary=""
root_tools
prepare_roots > "$LOGS/roots.log" 2>&1 &
roots_pid=$!
for major in $MAJORS; do
	[ "$(suite_of "$major")" = "$host_suite" ] || wait_roots
	step "$major" "make test" "$LOGS/pg$major.log" run_major "$major" test
	step "$major" "Citus" "$LOGS/pg$major-citus.log" run_major "$major" test-citus
	wait_roots
	step "$major" "package" "$LOGS/pg$major-deb.log" "$REPO/scripts/deb.sh" test "$major"
done
echo "== matrix"
printf '%s' "$summary"
exit $failed
