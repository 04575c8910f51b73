# bench/query_summary.awk - per query, the geomean of gsst/text over the
# files and the worst file, then the geomean of every measurement, from the
# TSV that bench/pg_query_bench.sh prints (file, query, text_ms, gsst_ms,
# ratio; a header line and lines starting with # are skipped).
BEGIN { FS = "\t" }
NR > 1 && $1 !~ /^#/ && $1 != "file" {
	s[$2] += log($5); n[$2]++; all += log($5); m++
	if (!($2 in worst) || $5 + 0 > worst[$2]) { worst[$2] = $5 + 0; wfile[$2] = $1 }
}
END {
	for (q in s) printf "# geomean %s: %.3fx over %d files, worst %s %.3fx\n", q, exp(s[q] / n[q]), n[q], wfile[q], worst[q]
	printf "# geomean all: %.3fx over %d measurements\n", exp(all / m), m
}
