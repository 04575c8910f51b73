#!/bin/sh
# A/B of the per-value encoder (gsst_encode_value), or of the per-value
# decoder (gsst_decode_value) with BENCH_ONLY=value_decode: bench/codec_bench built
# against two trees of src/codec, run alternately on one core.
#
#   bench/value_encode_ab.sh OLD_CODEC_DIR NEW_CODEC_DIR ROUNDS OUT.tsv [DATA_DIR]
#
# Each round runs both builds, in turn first, over every file of DATA_DIR
# (one value a line, default ../shared/data/dbtext) and over l_comment with
# 16 and 32 lines joined into one value (GSST_BENCH_JOIN), printing only
# value_encode_MBps (GSST_BENCH_ONLY=value_encode; BENCH_ONLY=value_decode
# times gsst_decode_value instead, and adds l_comment with 64 lines a
# value, whose codes are too many for the glue's roomy buffer).  The builds use
# BENCH_CFLAGS (default -O2 -g: the flags PostgreSQL's PGXS builds the
# codec with).  OUT.tsv gets one row per build, round and file; a summary
# of the medians and their ratio goes to stdout.
set -eu

if [ $# -lt 4 ]; then
	echo "usage: $0 OLD_CODEC_DIR NEW_CODEC_DIR ROUNDS OUT.tsv [DATA_DIR]" >&2
	exit 2
fi
old=$1
new=$2
rounds=$3
out=$4
here=$(cd "$(dirname "$0")" && pwd)
data=${5:-$here/../../shared/data/dbtext}
cflags=${BENCH_CFLAGS:--O2 -g}
core=${BENCH_CORE:-1}
only=${BENCH_ONLY:-value_encode}
joins="16 32"
[ "$only" = value_decode ] && joins="16 32 64"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT

for side in old new; do
	if [ $side = old ]; then dir=$old; else dir=$new; fi
	# shellcheck disable=SC2086
	cc -std=c11 -Wall -Wextra -Werror $cflags -I"$dir" -o "$build/codec_bench_$side" \
		"$here/codec_bench.c" "$dir"/*.c -llz4 -lzstd -lm
done

files=$(ls "$data" | grep -v -e '\.md$' -e '^SHA256SUMS$' | sed "s|^|$data/|")
if [ "$only" = value_decode ]; then
	printf 'round\tbuild\tfile\tvalues\tbytes\tvalue_decode_MBps\tportable_MBps\tratio\n' > "$out"
else
	printf 'round\tbuild\tfile\tvalues\tbytes\t%s_MBps\n' "$only" > "$out"
fi
for round in $(seq "$rounds"); do
	if [ $((round % 2)) = 1 ]; then order="old new"; else order="new old"; fi
	for side in $order; do
		bin=$build/codec_bench_$side
		# shellcheck disable=SC2086
		{
			GSST_BENCH_ONLY=$only taskset -c "$core" "$bin" $files
			for join in $joins; do
				GSST_BENCH_JOIN=$join GSST_BENCH_ONLY=$only taskset -c "$core" "$bin" "$data/l_comment"
			done
		} | grep -v -e '^file' -e '^geomean' | sed "s/^/$round\t$side\t/" >> "$out"
	done
done

# medians per build and file, and new / old; the geomean is over the files as they are
awk -F'\t' 'NR > 1 { v[$3 "\t" $2] = v[$3 "\t" $2] " " $6; files[$3] = 1 }
function median(list,    a, n, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	printf "file\told_MBps\tnew_MBps\tnew/old\n"
	for (f in files) {
		o = median(v[f "\told"]); n = median(v[f "\tnew"])
		printf "%s\t%.1f\t%.1f\t%.2f\n", f, o, n, n / o
		if (index(f, "*") == 0) { lo += log(o); ln += log(n); k++ }
	}
	printf "geomean\t%.1f\t%.1f\t%.2f\n", exp(lo / k), exp(ln / k), exp(ln / k) / exp(lo / k)
}' "$out" | sort
