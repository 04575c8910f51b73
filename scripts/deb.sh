#!/bin/bash
# scripts/deb.sh build | test MAJOR
#
#   build  the Debian package postgresql-<major>-gsst of the commit checked
#          out (HEAD: not uncommitted changes; outside a git checkout, the
#          files as they are), the way Debian builds PostgreSQL extensions
#          (pg_buildext, dh pgxs_loop), for the majors in debian/pgversions
#          this system supports, and, where nvcc is on the PATH,
#          postgresql-<major>-gsst-gpu, the GPU library (build profile
#          pkg.gsst.gpu; GSST_DEB_GPU=no leaves it out); the .deb files land
#          in tmp/deb/.
#   test   (as root) the packages for PostgreSQL MAJOR, built here when
#          this machine runs the Debian suite that carries MAJOR, else in
#          that suite's root of scripts/matrix.sh (made if missing; this
#          machine's CUDA toolkit, where nvcc is, bound into it read-only);
#          installed into a fresh root of that suite; a
#          cluster with gsst in shared_preload_libraries; the regression
#          suite against the installed extension (installcheck); and what
#          the gsst worker says of the GPU: with the GPU package (the root
#          has no NVIDIA driver) that it loaded the library and found no
#          driver, without it that there is no GPU library.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/tmp/deb
ROOTS=${GSST_ROOTS:-/var/tmp/gsst-roots}
. "$REPO/scripts/debian_root.sh"
VERSION=$(dpkg-parsechangelog -l "$REPO/debian/changelog" -S Version 2>/dev/null ||
	sed -n '1s/.*(\(.*\)).*/\1/p' "$REPO/debian/changelog")

# pick_cuda_host_compiler: where nvcc cannot build with the suite's default
# g++ (too new for it, or headers it conflicts with), the newest g++-N it
# can (installed from the suite when run as root) in GSST_GPU_CCBIN; with
# none, says so and fails
pick_cuda_host_compiler() {
	local v probe
	probe=$(mktemp --suffix=.cu)
	# the C library's math headers are where new suites and CUDA disagree
	printf '#include <cmath>\n__global__ void k(float *x) { x[0] = sqrtf(x[0]); }\n' > "$probe"
	if nvcc -c "$probe" -o /dev/null 2>/dev/null; then
		rm -f "$probe"
		return 0
	fi
	for v in 15 14 13 12; do
		if { command -v "g++-$v" >/dev/null || { [ "$(id -u)" = 0 ] && apt-cache show "g++-$v" >/dev/null 2>&1 &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "g++-$v" >/dev/null; }; } &&
			nvcc -ccbin "g++-$v" -c "$probe" -o /dev/null 2>/dev/null; then
			echo "== nvcc cannot build with this suite's g++; the GPU library is built with g++-$v"
			export GSST_GPU_CCBIN=g++-$v
			rm -f "$probe"
			return 0
		fi
	done
	echo "== GPU package: not built here: nvcc ($(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')) builds with no g++ of this suite"
	nvcc -c "$probe" -o /dev/null 2>&1 | grep -m1 error || true
	rm -f "$probe"
	return 1
}

build() {
	local src=$OUT/gsst-$VERSION
	rm -rf --one-file-system "$OUT"
	mkdir -p "$src"
	if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$REPO" archive --format=tar HEAD | tar -xf - -C "$src"
	else
		copy_repo "$REPO" "$src"
	fi
	cd "$src"
	pg_buildext updatecontrol
	local profiles=()
	if [ "${GSST_DEB_GPU:-yes}" = no ]; then
		echo "== GPU package: not built (GSST_DEB_GPU=no)"
	elif ! command -v nvcc >/dev/null; then
		echo "== GPU package: not built (nvcc not found)"
	elif pick_cuda_host_compiler; then
		profiles=(--build-profiles=pkg.gsst.gpu)
		echo "== GPU package: building it with $(command -v nvcc)"
	fi
	DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b "${profiles[@]}"
	ls -1 "$OUT"/*.deb
}

# build_in_root MAJOR SUITE: make deb in SUITE's root of the matrix; the
# packages in tmp/deb/
build_in_root() {
	local major=$1 suite=$2 dir=$ROOTS/$2 cuda="" path=/usr/sbin:/usr/bin:/sbin:/bin
	[ -d "$dir" ] || root_unpack "$suite" "$dir"
	root_mount "$dir"
	trap "root_umount '$dir'" EXIT
	copy_repo "$REPO" "$dir/build/gsst-deb"
	# this machine's CUDA toolkit, read-only at the same place in the root,
	# so that the GPU package is built there too
	if [ "${GSST_DEB_GPU:-yes}" != no ] && command -v nvcc >/dev/null; then
		cuda=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
		mkdir -p "$dir$cuda"
		mount --bind "$cuda" "$dir$cuda"
		mount -o remount,bind,ro "$dir$cuda"
		path=$cuda/bin:$path
	fi
	chroot "$dir" /usr/bin/env PATH="$path" /bin/bash -c "
		set -e
		command -v make >/dev/null || {
			apt-get update -q
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends make
		}
		cd /build/gsst-deb && make deb PG_MAJOR=$major"
	root_umount "$dir"
	trap - EXIT
	rm -rf --one-file-system "$OUT"
	mkdir -p "$OUT"
	cp "$dir"/build/gsst-deb/tmp/deb/*.deb "$OUT/"
}

test_package() {
	local major=$1 suite debs install_args packages expect_start expect_part dir tarball
	suite=$(suite_of "$major")
	if [ "$suite" = "$(host_suite)" ]; then
		# what dpkg-buildpackage needs, as make deb installs it
		make -C "$REPO" --no-print-directory deps-deb PG_MAJOR="$major"
		build
	else
		build_in_root "$major" "$suite"
	fi
	# the GPU package is there only when build made it
	debs=$(cd "$OUT" && ls postgresql-"$major"-gsst_"$VERSION"_*.deb postgresql-"$major"-gsst-gpu_"$VERSION"_*.deb 2>/dev/null |
		tr '\n' ' ' || true)
	install_args=$(for d in $debs; do printf './%s ' "$d"; done)
	packages=$(for d in $debs; do printf '%s ' "${d%%_*}"; done)
	# what the worker says of the GPU in a root without an NVIDIA driver
	case $debs in
		*-gsst-gpu_*) expect_start='cpu, no GPU: ' expect_part='no NVIDIA driver: libcuda.so.1 not found' ;;
		*) expect_start='cpu, no GPU library is installed (' expect_part='' ;;
	esac
	# a fresh root each time, from a pristine one kept as a tarball
	dir=$ROOTS/$suite-pkgtest
	root_remove "$dir"
	root_unpack "$suite" "$dir"
	root_mount "$dir"
	trap "root_umount '$dir'" EXIT
	# this machine's apt sources (updates, security) when it runs the suite:
	# the package needs a server at least as new as the headers it was
	# built with
	if [ "$suite" = "$(host_suite)" ]; then
		if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
			rm -f "$dir/etc/apt/sources.list"
			cp /etc/apt/sources.list.d/*.sources "$dir/etc/apt/sources.list.d/"
		fi
		[ -s /etc/apt/sources.list ] && cp /etc/apt/sources.list "$dir/etc/apt/sources.list"
	fi
	mkdir -p "$dir/pkgtest"
	for d in $debs; do cp "$OUT/$d" "$dir/pkgtest/"; done
	cp -r "$REPO/test" "$dir/pkgtest/test"
	chroot "$dir" /bin/bash -euo pipefail -c "
		cd /pkgtest
		apt-get update -q
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $install_args
		major=\$(ls /usr/lib/postgresql)
		bin=/usr/lib/postgresql/\$major/bin
		useradd -r -M -s /bin/sh gsst_test
		chown -R gsst_test /pkgtest
		echo \"== installed: \$(dpkg-query -W -f='\${Package} \${Version} ' $packages), PostgreSQL \$major\"
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
		# the worker's word on the GPU, from the installed files alone
		said=\$(runuser -u gsst_test -- \$bin/psql -h /pkgtest -d regression -Atc \\
			\"SELECT mode || ', ' || reason FROM gsst.worker_status\")
		echo \"== gsst.worker_status: \$said\"
		case \$said in
			\"$expect_start\"*\"$expect_part\"*) echo '== GPU library: as expected' ;;
			*) echo \"== GPU library: expected '$expect_start...$expect_part...'\"; status=1 ;;
		esac
		exit \$status
	"
}

case ${1:-} in
	build) build ;;
	test) test_package "${2:?usage: scripts/deb.sh test MAJOR}" ;;
	*) echo "usage: scripts/deb.sh build | test MAJOR" >&2; exit 2 ;;
esac
