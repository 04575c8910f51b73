#!/bin/bash
# scripts/deb.sh build|test
#
#   build  the Debian package postgresql-<major>-gsst of the commit checked
#          out (HEAD: not uncommitted changes), the way Debian builds
#          PostgreSQL extensions (pg_buildext, dh pgxs_loop), for the majors
#          in debian/pgversions this system supports; the .deb files land in
#          tmp/deb/.
#   test   (as root) build the package, install it into a fresh Debian root
#          of this machine's suite, start a cluster with gsst in
#          shared_preload_libraries, and run the regression suite against the
#          installed extension (installcheck).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/tmp/deb
ROOTS=${GSST_ROOTS:-/var/tmp/gsst-roots}
. "$REPO/scripts/debian_root.sh"
VERSION=$(dpkg-parsechangelog -l "$REPO/debian/changelog" -S Version 2>/dev/null ||
	sed -n '1s/.*(\(.*\)).*/\1/p' "$REPO/debian/changelog")

build() {
	local src=$OUT/gsst-$VERSION
	rm -rf --one-file-system "$OUT"
	mkdir -p "$src"
	git -C "$REPO" archive --format=tar HEAD | tar -xf - -C "$src"
	cd "$src"
	pg_buildext updatecontrol
	DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b
	ls -1 "$OUT"/*.deb
}

test_package() {
	local suite debs dir tarball
	suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
	build
	debs=$(cd "$OUT" && ls postgresql-*-gsst_"$VERSION"_*.deb)
	# a fresh root each time, from a pristine one kept as a tarball
	tarball=$ROOTS/$suite-minbase.tar
	if [ ! -f "$tarball" ]; then
		mkdir -p "$ROOTS"
		root_make "$suite" "$ROOTS/$suite-pristine"
		tar -C "$ROOTS/$suite-pristine" -cf "$tarball" .
		root_remove "$ROOTS/$suite-pristine"
	fi
	dir=$ROOTS/$suite-pkgtest
	root_remove "$dir"
	mkdir -p "$dir"
	tar -C "$dir" -xf "$tarball"
	root_mount "$dir"
	trap "root_umount '$dir'" EXIT
	# this machine's apt sources (updates, security): the package needs a
	# server at least as new as the headers it was built with
	if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
		rm -f "$dir/etc/apt/sources.list"
		cp /etc/apt/sources.list.d/*.sources "$dir/etc/apt/sources.list.d/"
	fi
	[ -s /etc/apt/sources.list ] && cp /etc/apt/sources.list "$dir/etc/apt/sources.list"
	mkdir -p "$dir/pkgtest"
	cp "$OUT"/$debs "$dir/pkgtest/"
	cp -r "$REPO/test" "$dir/pkgtest/test"
	chroot "$dir" /bin/bash -euo pipefail -c "
		cd /pkgtest
		apt-get update -q
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ./$debs
		major=\$(ls /usr/lib/postgresql)
		bin=/usr/lib/postgresql/\$major/bin
		useradd -r -M -s /bin/sh gsst_test
		chown -R gsst_test /pkgtest
		echo \"== installed: \$(dpkg-query -W -f='\${Package} \${Version}' postgresql-\$major-gsst), PostgreSQL \$major\"
		runuser -u gsst_test -- \$bin/initdb -D /pkgtest/data -E UTF8 --no-locale >/dev/null
		cat test/regress.conf >> /pkgtest/data/postgresql.conf
		echo \"unix_socket_directories = '/pkgtest'\" >> /pkgtest/data/postgresql.conf
		echo \"listen_addresses = ''\" >> /pkgtest/data/postgresql.conf
		runuser -u gsst_test -- \$bin/pg_ctl -D /pkgtest/data -l /pkgtest/server.log -w start
		trap \"runuser -u gsst_test -- \$bin/pg_ctl -D /pkgtest/data -m immediate stop >/dev/null 2>&1\" EXIT
		status=0
		runuser -u gsst_test -- /usr/lib/postgresql/\$major/lib/pgxs/src/test/regress/pg_regress \
			--bindir=\$bin --host=/pkgtest --inputdir=test --outputdir=/pkgtest \
			--load-extension=gsst \$(cd test/sql && ls *.sql | sed 's/\.sql\$//') || status=\$?
		[ \$status = 0 ] || head -200 /pkgtest/regression.diffs
		exit \$status
	"
}

case ${1:-} in
	build) build ;;
	test) test_package ;;
	*) echo "usage: scripts/deb.sh build|test" >&2; exit 2 ;;
esac
