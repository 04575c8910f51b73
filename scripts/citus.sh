#!/bin/bash
# scripts/citus.sh [PG_CONFIG [--sources]] - install Citus (or print where
# its sources are looked for) into the PostgreSQL of
# PG_CONFIG (default: $PG_CONFIG, else pg_config on the PATH), for the Citus
# test suite (make test-citus).  Users install Citus from its own packages.
#
# Citus is not in Debian.  Its release sources lie beside the repository, in
# ../shared/deps ($CITUS_SOURCES overrides that): 13.2.2 for PostgreSQL 15,
# 14.0.1 for 17 and 18.  Nothing is done when citus.so is already installed
# for that PostgreSQL.  Otherwise the build is staged once under
# $GSST_CITUS_CACHE (default /var/tmp/gsst-citus)/<major>-<tarball sha256
# prefix>/ and copied in from there on later runs, so only the first run
# compiles.  Fails, saying why, when the sources are missing or the build
# fails: the suite never skips silently.
set -euo pipefail

PG_CONFIG=${1:-${PG_CONFIG:-pg_config}}
REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${GSST_CITUS_CACHE:-/var/tmp/gsst-citus}
JOBS=${CITUS_JOBS:-2}

die() {
	echo "citus.sh: ERROR: $*" >&2
	exit 1
}

command -v "$PG_CONFIG" >/dev/null 2>&1 || [ -x "$PG_CONFIG" ] ||
	die "pg_config not found: '$PG_CONFIG'"
version=$("$PG_CONFIG" --version)
major=$(echo "$version" | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
case $major in
	15) citus=13.2.2 ;;
	17 | 18) citus=14.0.1 ;;
	*) die "no Citus release is set for $version (15: 13.2.2; 17, 18: 14.0.1)" ;;
esac
pkglibdir=$("$PG_CONFIG" --pkglibdir)
sharedir=$("$PG_CONFIG" --sharedir)
includedir=$("$PG_CONFIG" --includedir-server)

# The sources: $CITUS_SOURCES, else the repository's parent's shared/deps.  A
# git worktree's parent is not the repository's: then the main checkout's.
# A clone made elsewhere (CI clones into a temporary folder): the parent of
# the checkout it was cloned from, when that is a local path.
sources=${CITUS_SOURCES:-}
if [ -z "$sources" ]; then
	sources=$(dirname "$REPO")/shared/deps
	if [ ! -d "$sources" ] && common=$(git -C "$REPO" rev-parse --path-format=absolute \
		--git-common-dir 2>/dev/null); then
		sources=$(dirname "$(dirname "$common")")/shared/deps
	fi
	if [ ! -d "$sources" ] && origin=$(git -C "$REPO" remote get-url origin 2>/dev/null) &&
		[ -d "$origin" ]; then
		sources=$(dirname "$(cd "$origin" && pwd)")/shared/deps
	fi
fi
if [ "${2:-}" = --sources ]; then
	echo "$sources"
	exit 0
fi

if [ -f "$pkglibdir/citus.so" ] && [ -f "$sharedir/extension/citus.control" ]; then
	echo "== Citus is installed for $version ($pkglibdir/citus.so)"
	exit 0
fi
tarball=$sources/citus-$citus.tar.gz
[ -f "$tarball" ] ||
	die "Citus $citus's sources are missing: $tarball not found.  Put the release there or set CITUS_SOURCES to its folder."

sha=$(sha256sum "$tarball" | cut -c1-16)
stage=$CACHE/$major-$sha

if [ ! -f "$stage/built" ]; then
	echo "== building Citus $citus for $version from $tarball (cache $stage)"
	start=$(date +%s)
	mkdir -p "$CACHE"
	work=$(mktemp -d "$CACHE/build.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	tar -xzf "$tarball" -C "$work"
	src=$work/citus-$citus
	[ -d "$src" ] || die "$tarball does not hold citus-$citus/"
	# Citus 13.2.2 on PostgreSQL 15 defines a static have_createdb_privilege()
	# for releases whose dbcommands.h did not export it; 15.20 exports it, and
	# the two declarations clash ("static declaration follows non-static
	# declaration").  Where the headers declare it, Citus's copy is renamed
	# out of the way and its one caller gets PostgreSQL's, which does the same.
	compat=$src/src/include/pg_version_compat.h
	if [ "$citus" = 13.2.2 ] &&
		grep -q 'have_createdb_privilege' "$includedir/commands/dbcommands.h"; then
		grep -q '^have_createdb_privilege(void)$' "$compat" ||
			die "the known fix no longer applies to $compat"
		sed -i 's/^have_createdb_privilege(void)$/citus_unused_have_createdb_privilege(void)/' "$compat"
	fi
	# No LLVM bitcode (needs clang, buys nothing for tests), and no libcurl
	# (anonymous statistics) unless the server was built with it: then its
	# pg_config.h defines HAVE_LIBCURL and Citus's code uses it whatever
	# configure said (PostgreSQL 18; the suite turns the statistics off).
	curl=--without-libcurl
	if grep -q '^#define HAVE_LIBCURL 1' "$includedir/pg_config.h"; then
		curl=
	fi
	(cd "$src" && ./configure $curl PG_CONFIG="$PG_CONFIG" >"$work/configure.log" 2>&1) || {
		tail -n 30 "$work/configure.log" >&2 || true
		die "Citus's configure failed (make deps-citus installs what it needs)"
	}
	(cd "$src" && make -j"$JOBS" with_llvm=no >"$work/make.log" 2>&1 &&
		make with_llvm=no DESTDIR="$work/destdir" install >>"$work/make.log" 2>&1) || {
		{ grep -E ': (fatal )?error:|\*\*\* ' "$work/make.log" || tail -n 30 "$work/make.log"; } | sed -n 1,30p >&2
		die "Citus $citus did not build against $version (log above)"
	}
	# The staging tree holds what make install wrote, by pg_config directory,
	# so that any PostgreSQL of this major can take it.
	new=$work/stage
	mkdir -p "$new/lib" "$new/share" "$new/include"
	cp -R "$work/destdir$pkglibdir/." "$new/lib/"
	cp -R "$work/destdir$sharedir/." "$new/share/"
	[ ! -d "$work/destdir$includedir" ] || cp -R "$work/destdir$includedir/." "$new/include/"
	[ -f "$new/lib/citus.so" ] || die "make install wrote no citus.so"
	echo "Citus $citus built against $version in $(($(date +%s) - start)) s" >"$new/built"
	rm -rf "$stage"
	mv "$new" "$stage"
	cat "$stage/built"
fi

echo "== installing Citus $citus from $stage into $pkglibdir"
cp -R "$stage/lib/." "$pkglibdir/"
cp -R "$stage/share/." "$sharedir/"
if [ -d "$stage/include" ] && [ -d "$includedir" ]; then
	cp -R "$stage/include/." "$includedir/"
fi
[ -f "$pkglibdir/citus.so" ] || die "citus.so is not in $pkglibdir after installing"
