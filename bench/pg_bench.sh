#!/bin/bash
# bench/pg_bench.sh [data set ...]
#
# Loads each dbtext file into a one-column table (plus an id bigint primary
# key) three times: text (default pglz), text COMPRESSION lz4, text
# COMPRESSION gsst, in a throwaway cluster (./tmp/bench, gsst preloaded),
# and prints TSV:
#   column bytes  sum(pg_column_size(c))
#   copy_s        COPY of the file into a new, empty table (best of 3; the
#                 gsst column learns its dictionary during the COPY)
#   lookup_us     primary-key lookups of random ids returning c as text,
#                 timed server-side in a PL/pgSQL loop (mean of $LOOKUPS)
#   scan_s        SELECT sum(length(c)) (best of 3, no parallel workers)
# then a geomean line over the files.  Needs the extension installed
# (make install); run as root it runs the server as $TEST_USER.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${GSST_DATA_DIR:-$ROOT/../shared/data/dbtext}
CLUSTER_DIR=${BENCH_DIR:-$ROOT/tmp/bench}
CLUSTER_PORT=${BENCH_PORT:-5489}
LOOKUPS=${LOOKUPS:-20000}
RUNS=${RUNS:-3}
CLUSTER_CONF="shared_buffers = 512MB
max_parallel_workers_per_gather = 0
autovacuum = off
synchronous_commit = off
max_wal_size = 4GB
checkpoint_timeout = 30min"
. "$ROOT/scripts/pgcluster.sh"

if [ $# -gt 0 ]; then
	FILES="$*"
else
	FILES=$(cd "$DATA" && ls | grep -v -e '\.md$' -e SHA256SUMS | sort)
fi

cluster_start >&2
psql_do -q -c 'CREATE EXTENSION gsst' >&2

# q SQL: run one statement, print its single value
q() { psql_do -qAt -c "$1"; }

# load VARIANT FILE: best-of-$RUNS COPY seconds into a fresh table b_VARIANT
load() {
	local variant=$1 file=$2 coldef best="" t
	case $variant in
		text) coldef="c text" ;;
		lz4) coldef="c text COMPRESSION lz4" ;;
		gsst) coldef="c text COMPRESSION gsst" ;;
	esac
	for _ in $(seq "$RUNS"); do
		t=$(psql_do -qAt <<SQL
DROP TABLE IF EXISTS b_$variant;
CREATE TABLE b_$variant (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, $coldef);
SELECT clock_timestamp() AS t0 \gset
COPY b_$variant (c) FROM PROGRAM 'sed -e "s/\r\$//" $DATA/$file'
  WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02', FORCE_NOT_NULL (c));
SELECT extract(epoch FROM clock_timestamp() - :'t0');
SQL
)
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
	done
	psql_do -q -c "VACUUM ANALYZE b_$variant" >&2
	echo "$best"
}

# Server-side timing loops with static SQL (plans cached by PL/pgSQL).
timing_functions() {
	local variant=$1
	psql_do -q <<SQL >&2
CREATE OR REPLACE FUNCTION lookup_$variant(n bigint, iters int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; v text;
BEGIN
  FOR i IN 1..least(iters, 2000) LOOP SELECT c INTO v FROM b_$variant WHERE id = 1 + (i::bigint * 104729) % n; END LOOP;
  t0 := clock_timestamp();
  FOR i IN 1..iters LOOP SELECT c INTO v FROM b_$variant WHERE id = 1 + (i::bigint * 7919) % n; END LOOP;
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1e6 / iters;
END \$\$;
CREATE OR REPLACE FUNCTION scan_$variant(runs int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; best float8; s bigint;
BEGIN
  FOR r IN 1..runs LOOP
    t0 := clock_timestamp();
    SELECT sum(length(c)) INTO s FROM b_$variant;
    best := least(best, extract(epoch FROM clock_timestamp() - t0));
  END LOOP;
  RETURN best;
END \$\$;
SQL
}

{
printf 'file\trows\ttext_col_bytes\tlz4_col_bytes\tgsst_col_bytes\tgsst_vs_text\tcopy_s_text\tcopy_s_gsst\tlookup_us_text\tlookup_us_gsst\tscan_s_text\tscan_s_gsst\n'
for file in $FILES; do
	# a fresh extension per file: dictionary ids stay below 32, the range
	# with 2-byte value headers (see bench/README.md); it cannot be dropped
	# while gsst columns exist
	psql_do -q -c 'SET client_min_messages = warning' \
		-c 'DROP TABLE IF EXISTS b_text, b_lz4, b_gsst' \
		-c 'DROP EXTENSION gsst' -c 'CREATE EXTENSION gsst' >&2
	copy_text=$(load text "$file")
	load lz4 "$file" >/dev/null
	copy_gsst=$(load gsst "$file")
	for v in text gsst; do timing_functions $v; done
	rows=$(q "SELECT count(*) FROM b_text")
	bytes_text=$(q "SELECT sum(pg_column_size(c)) FROM b_text")
	bytes_lz4=$(q "SELECT sum(pg_column_size(c)) FROM b_lz4")
	bytes_gsst=$(q "SELECT sum(pg_column_size(c)) FROM b_gsst")
	check=$(q "SELECT count(*) FROM b_text t JOIN b_gsst g USING (id) WHERE t.c IS DISTINCT FROM g.c::text")
	[ "$check" = 0 ] || { echo "$file: $check values differ between text and gsst" >&2; exit 1; }
	lookup_text=$(q "SELECT round(lookup_text($rows, $LOOKUPS)::numeric, 2)")
	lookup_gsst=$(q "SELECT round(lookup_gsst($rows, $LOOKUPS)::numeric, 2)")
	scan_text=$(q "SELECT round(scan_text($RUNS)::numeric, 4)")
	scan_gsst=$(q "SELECT round(scan_gsst($RUNS)::numeric, 4)")
	printf '%s\t%s\t%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%s\t%s\t%s\t%s\n' "$file" "$rows" \
		"$bytes_text" "$bytes_lz4" "$bytes_gsst" \
		"$(awk "BEGIN{print $bytes_gsst / $bytes_text}")" "$copy_text" "$copy_gsst" \
		"$lookup_text" "$lookup_gsst" "$scan_text" "$scan_gsst"
done
} | tee "$CLUSTER_DIR/results.tsv"

# geomean of every numeric column, and of the gsst/text ratios
awk -F'\t' '
NR > 1 {
	n++
	for (i = 2; i <= 12; i++) s[i] += log($i)
	copy += log($8 / $7); look += log($10 / $9); scan += log($12 / $11)
}
END {
	printf "geomean"
	for (i = 2; i <= 12; i++) printf (i == 6 ? "\t%.3f" : "\t%.4g"), exp(s[i] / n)
	printf "\n"
	printf "# geomean over %d files: gsst_vs_text %.3f, copy gsst/text %.2fx, lookup gsst/text %.2fx, scan gsst/text %.2fx\n",
		n, exp(s[6] / n), exp(copy / n), exp(look / n), exp(scan / n)
}' "$CLUSTER_DIR/results.tsv"

cluster_stop
trap - EXIT
