#!/bin/bash
# bench/pg_bundle.sh - the PostgreSQL tree that bench/pg_gpu_bench.sh runs on
# the device machine, which reaches no package registry (run as root from
# the repository root, on a Debian machine with postgresql-N installed):
#
#   bench/pg_bundle.sh OUT.tgz L_COMMENT_FILE
#
# OUT.tgz holds pg/ (the files of Debian's postgresql-N, postgresql-client-N
# and libpq5 as installed here, gsst built from this tree and installed into
# it with make install DESTDIR, and in pg/libs the shared libraries the
# binaries load, but glibc's own) and l_comment.  PostgreSQL finds its share
# and lib directories relative to its binaries, so the tree runs from
# wherever it is unpacked.  Put OUT.tgz under an ignored path (.pgdev/) and
# name that path in the device run's carry.
#
# With GSST_DEBS=DIR, gsst comes from the Debian packages in DIR instead
# (make deb: postgresql-N-gsst and postgresql-N-gsst-gpu), unpacked as dpkg
# would install them: the device run then tests what a DBA installs.
#
# With GSST_CITUS=1, Citus as installed into this PostgreSQL (by
# scripts/citus.sh) goes in too, for bench/pg_citus_bench.sh.
set -euo pipefail
OUT=${1:?usage: bench/pg_bundle.sh OUT.tgz L_COMMENT_FILE}
DATA=${2:?usage: bench/pg_bundle.sh OUT.tgz L_COMMENT_FILE}
PG_CONFIG=${PG_CONFIG:-$(command -v pg_config)}
MAJOR=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
STAGE=$(mktemp -d)
trap 'rm -rf --one-file-system "$STAGE"' EXIT
PG=$STAGE/pg
mkdir -p "$PG/libs"
FROM=""

# PostgreSQL as Debian installed it here
dpkg -L "postgresql-$MAJOR" "postgresql-client-$MAJOR" libpq5 | sort -u |
	while read -r f; do
		if [ -f "$f" ] || [ -L "$f" ]; then echo "$f"; fi
	done > "$STAGE/files"
tar -cf - --no-recursion -T "$STAGE/files" 2>/dev/null | tar -C "$PG" -xf -

if [ -n "${GSST_DEBS:-}" ]; then
	# gsst as its packages install it
	for deb in "$GSST_DEBS/postgresql-$MAJOR-gsst_"*.deb "$GSST_DEBS/postgresql-$MAJOR-gsst-gpu_"*.deb; do
		[ -f "$deb" ] || { echo "$deb: no such package (make deb)" >&2; exit 1; }
		dpkg -x "$deb" "$PG"
		FROM="$FROM $(basename "$deb")"
	done
else
	# gsst from this tree, GPU library included where nvcc is found
	make -s PG_CONFIG="$PG_CONFIG" all >/dev/null
	make -s PG_CONFIG="$PG_CONFIG" install DESTDIR="$PG" >/dev/null
	FROM="gsst $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes')"
fi

if [ "${GSST_CITUS:-0}" = 1 ]; then
	lib=$("$PG_CONFIG" --pkglibdir)
	ext=$("$PG_CONFIG" --sharedir)/extension
	[ -f "$lib/citus.so" ] || { echo "$lib/citus.so: Citus is not installed (scripts/citus.sh)" >&2; exit 1; }
	mkdir -p "$PG$lib" "$PG$ext"
	cp -a "$lib"/citus*.so "$PG$lib/"
	strip --strip-debug "$PG$lib"/citus*.so
	cp -a "$ext"/citus* "$PG$ext/"
	FROM="$FROM, Citus $(sed -n "s/^default_version = '\(.*\)'/\1/p" "$ext/citus.control")"
fi

# every shared library the binaries and modules load, but glibc's
# (not LLVM's: the benchmark runs with jit = off)
rm -rf "$PG/usr/lib/postgresql/$MAJOR/lib/llvmjit"*.so "$PG/usr/lib/postgresql/$MAJOR/lib/bitcode"
find "$PG/usr/lib/postgresql/$MAJOR" -type f \( -perm -u+x -o -name '*.so' \) -print0 |
	{ xargs -0 ldd 2>/dev/null || true; } | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
	grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so' |
	while read -r lib; do cp -L "$lib" "$PG/libs/"; done

cp "$DATA" "$STAGE/l_comment"
tar -C "$STAGE" -czf "$OUT" pg l_comment
echo "$OUT: PostgreSQL $MAJOR,$FROM, $(du -h "$OUT" | cut -f1)"
