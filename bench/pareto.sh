#!/bin/bash
# bench/pareto.sh - Pareto plots of the GPU baselines TSV (gpu_bench
# baselines --tsv): ratio against decode GB/s and against encode GB/s, side
# by side in one PNG, gsst marked, the Pareto front of each drawn as a line.
#   bench/pareto.sh TSV PNG [GSST_TILE_RATIO]
# GSST_TILE_RATIO (optional) adds gsst's whole-tile ratio (codes, table and
# the value index) as a second, hollow gsst point; it is left out of the front.
# Prints the front of each plot.  Needs gnuplot (Debian: gnuplot-nox).
set -eu
TSV=$1
PNG=$2
TILE=${3:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DEV=$(awk -F'\t' 'NR == 2 { print $1 }' "$TSV")
FILE=$(awk -F'\t' 'NR == 2 { printf "%s, %.2f GB", $3, $4 / 1e9 }' "$TSV")
# codec ratio encode decode, one line each
awk -F'\t' 'NR > 1 { print $2, $5, $6, $8 }' "$TSV" > "$TMP/all"
for axis in 3 4; do
	# a point is on the front when no other has ratio and speed >= and one >
	awk -v c="$axis" '{ n[NR] = $1; r[NR] = $2; s[NR] = $c }
		END { for (i = 1; i <= NR; i++) { dom = 0
			for (j = 1; j <= NR; j++) if (j != i && r[j] >= r[i] && s[j] >= s[i] && (r[j] > r[i] || s[j] > s[i])) dom = 1
			if (!dom) print s[i], r[i], n[i] } }' "$TMP/all" | sort -g > "$TMP/front$axis"
	awk '$1 == "gsst" { print $'"$axis"', $2, $1 }' "$TMP/all" > "$TMP/gsst$axis"
	awk '$1 != "gsst" { print $'"$axis"', $2, $1 }' "$TMP/all" > "$TMP/other$axis"
	if [ -n "$TILE" ]; then
		awk -v t="$TILE" '$1 == "gsst" { print $'"$axis"', t, "gsst (whole tile)" }' "$TMP/all" > "$TMP/tile$axis"
	else
		: > "$TMP/tile$axis"
	fi
	echo "front ($([ "$axis" = 3 ] && echo encode || echo decode)):" $(awk '{ print $3 }' "$TMP/front$axis")
done
gnuplot <<GP
set terminal pngcairo noenhanced size 1500,620 font "DejaVu Sans,11"
set output "$PNG"
set multiplot layout 1,2 title "GPU codecs on $DEV: $FILE (data in device memory, median of 10)"
set logscale x
set grid
set key top right box opaque font ",10"
set yrange [0.9:4.2]
set ylabel "compression ratio"
do for [ax in "4 3"] {
	set xrange [ax eq "4" ? 20 : 1 : ax eq "4" ? 5000 : 3000]
	set xlabel (ax eq "4" ? "decode GB/s (uncompressed bytes, log scale)" : "encode GB/s (uncompressed bytes, log scale)")
	plot "$TMP/front".ax using 1:2 with lines lw 2 lc rgb "#999999" title "Pareto front", \
		"$TMP/other".ax using 1:2 with points pt 7 ps 1.3 lc rgb "#1f77b4" title "baselines", \
		"$TMP/other".ax using 1:2:3 with labels offset char 0,0.9 font ",9" notitle, \
		"$TMP/gsst".ax using 1:2 with points pt 5 ps 2.2 lc rgb "#d62728" title "gsst (codes + table)", \
		"$TMP/gsst".ax using 1:2:3 with labels offset char 0,1.2 font ",11" tc rgb "#d62728" notitle, \
		"$TMP/tile".ax using 1:2 with points pt 4 ps 2.2 lc rgb "#d62728" title "gsst (whole tile, with its value index)"
}
unset multiplot
GP
echo "wrote $PNG"
