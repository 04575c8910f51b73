# Loading Citus distributed and reference tables from the coordinator:
# gsst.load, INSERT ... SELECT of text into a gsst column (pulled through
# the coordinator and repartitioned), a repartitioned INSERT ... SELECT
# between distributed tables, and a repartition join on a gsst column.
# Values cross nodes as text: each node encodes what it stores with its
# own shard's dictionaries.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;
use CitusTest;

my ($coord, @workers) = citus_cluster(2);

# The INSERT/SELECT method Citus's EXPLAIN gives for $sql.
sub insert_select_method
{
	my ($sql) = @_;
	my $plan = $coord->safe_psql('postgres', "EXPLAIN (COSTS OFF) $sql");
	return $plan =~ /INSERT\/SELECT method: ([\w ]+)/ ? $1 : "none in:\n$plan";
}

sub all_encoded
{
	my ($raw) = @_;
	return scalar(grep { !m{^0/[1-9]\d*$} } split / /, $raw) == 0;
}

my $rows = gsst_rows(1, 20000);
my $md5 = md5_of_rows($rows);
$coord->safe_psql('postgres', q{
	CREATE TABLE staging (id int, c text);
	CREATE TABLE dist (id int PRIMARY KEY, c text COMPRESSION gsst);
	SELECT create_distributed_table('dist', 'id', shard_count => 4);
	CREATE TABLE dist2 (id int PRIMARY KEY, c text COMPRESSION gsst);
	SELECT create_distributed_table('dist2', 'id', colocate_with => 'dist');
});
$coord->safe_psql('postgres', "COPY staging FROM STDIN;\n" . gsst_copy_text($rows) . "\\.\n");

# ---- a role without INSERT: refused on the coordinator, nothing sent ----

$coord->safe_psql('postgres', 'CREATE ROLE loader LOGIN; GRANT SELECT ON staging TO loader');
my $offsets = citus_log_offsets(@workers);
my ($rc, $stdout, $stderr) = $coord->psql('postgres',
	"\\set VERBOSITY verbose\nSELECT gsst.load('dist', 'SELECT id, c FROM staging');",
	extra_params => [ '-U', 'loader' ]);
like($stderr, qr/ERROR:  42501: permission denied for table dist/,
	'loader: gsst.load into dist is refused (insufficient_privilege)');
unlike(citus_log_since($offsets, @workers), qr/loader/,
	'no worker saw a connection or command of the loader');
is($coord->safe_psql('postgres', 'SELECT count(*) FROM dist'), '0', 'dist is empty');

# ---- gsst.load into a distributed table ----

is($coord->safe_psql('postgres', q{SELECT gsst.load('dist', 'SELECT id, c FROM staging ORDER BY id')}),
	'20000', 'gsst.load into dist returns the rows inserted');
my $raw = citus_raw_per_placement($coord, 'dist');
note("dist after gsst.load, raw/all per placement: $raw");
my @raw = split / /, $raw;
is(scalar(@raw), 4, 'dist: four placements');
is(scalar(grep { m{^(\d+)/(\d+)$} && $1 < $2 } @raw), 4,
	'every shard learned a dictionary and encoded its rows');
is(citus_foreign_per_placement($coord, 'dist'), '0 0 0 0',
	"every encoded value uses a dictionary of its own shard's family on its node");
is(gsst_table_md5($coord, 'dist'), $md5, 'dist: content equal to the source');
is($coord->safe_psql('postgres', q{SELECT gsst.compress_table('dist')}), citus_sum_raw($raw),
	'compress_table encodes the values that arrived raw, if any');
ok(all_encoded(citus_raw_per_placement($coord, 'dist')), 'every value of dist is encoded');

# once a shard has a dictionary, rows are encoded as they arrive
is($coord->safe_psql('postgres',
		q{SELECT gsst.load('dist', 'SELECT c, id + 20000 FROM staging WHERE id <= 2000', columns => '{c,id}')}),
	'2000', 'gsst.load with the columns argument, in another order');
ok(all_encoded(citus_raw_per_placement($coord, 'dist')), 'the new rows arrived encoded on every shard');
is($coord->safe_psql('postgres',
		q{SELECT count(*) FROM dist d JOIN staging s ON s.id = d.id - 20000 WHERE d.id > 20000 AND d.c = s.c}),
	'2000', 'the new rows hold the text of their source rows');

# the caller's query is the INSERT's source and nothing else
is($coord->safe_psql('postgres',
		"SELECT gsst.load('dist', 'SELECT id + 30000, c FROM staging WHERE id <= 5; -- five rows')"),
	'5', 'a source query ending in a semicolon and a comment');
($rc, $stdout, $stderr) = $coord->psql('postgres',
	q{SELECT gsst.load('dist', 'SELECT 1, ''x'') AS s; DROP TABLE staging; SELECT (1')});
like($stderr, qr/syntax error at or near "\)"/, 'a source query that closes the subquery is a syntax error');
is($coord->safe_psql('postgres', q{SELECT to_regclass('staging') IS NOT NULL}), 't', 'and nothing of it ran');
is($coord->safe_psql('postgres', q{SELECT gsst.load('dist', 'VALUES (30006, ''six''), (30007, ''seven'')')}),
	'2', 'VALUES as the source');
is($coord->safe_psql('postgres', q{SELECT gsst.load('dist2', 'TABLE dist')}), '22007', 'TABLE as the source');
is($coord->safe_psql('postgres', q{SELECT string_agg(c, ',' ORDER BY id) FROM dist2 WHERE id > 30005}),
	'six,seven', 'their rows');
is($coord->safe_psql('postgres',
		q{BEGIN; SELECT gsst.load('dist', 'SELECT 30008, ''eight'''); ROLLBACK; SELECT count(*) FROM dist WHERE id = 30008}),
	"1\n0", 'a load rolled back leaves nothing on the workers');
($rc, $stdout, $stderr) = $coord->psql('postgres', q{SELECT gsst.load('dist', 'SHOW work_mem')},
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($stderr, qr/0A000: gsst.load into a distributed table takes a SELECT, VALUES or TABLE query/,
	'a source that is no SELECT is refused');

# with INSERT granted, the same check sees the loader reach the workers
$coord->safe_psql('postgres', 'GRANT INSERT ON dist TO loader');
$offsets = citus_log_offsets(@workers);
is($coord->safe_psql('postgres', q{SELECT gsst.load('dist', 'SELECT id + 40000, c FROM staging WHERE id <= 3')},
		extra_params => [ '-U', 'loader' ]),
	'3', 'with INSERT granted, the loader loads');
like(citus_log_since($offsets, @workers), qr/connection authorized: user=loader/,
	'and its rows reach the workers through its own connections');
$coord->safe_psql('postgres', 'DELETE FROM dist WHERE id > 20000');

# ---- gsst.load into a reference table ----

$coord->safe_psql('postgres', q{
	CREATE TABLE ref (id int PRIMARY KEY, c text COMPRESSION gsst);
	SELECT create_reference_table('ref');
});
is($coord->safe_psql('postgres', q{SELECT gsst.load('ref', 'SELECT id, c FROM dist WHERE id <= 3000')}),
	'3000', 'gsst.load into ref returns the rows inserted, once');
my $ref_md5 = md5_of_rows([ @$rows[ 0 .. 2999 ] ]);
is(citus_md5_per_placement($coord, 'ref'), join(' ', ($ref_md5) x 3), 'each of the three copies holds the text of the source');
my $ref_raw = citus_raw_per_placement($coord, 'ref');
note("ref after gsst.load: $ref_raw");
like($ref_raw, qr{^\d+/3000 \d+/3000 \d+/3000$}, 'ref: 3000 rows on each node');
is($coord->safe_psql('postgres', q{SELECT gsst.compress_table('ref')}), citus_sum_raw($ref_raw),
	'compress_table(ref) encodes what each copy kept raw');
ok(all_encoded(citus_raw_per_placement($coord, 'ref')), 'every copy of ref is encoded');
is(citus_foreign_per_placement($coord, 'ref'), '0 0 0', "each copy uses its own node's dictionaries");
is(citus_md5_per_placement($coord, 'ref'), join(' ', ($ref_md5) x 3), 'ref: content unchanged');

# ---- INSERT ... SELECT of text into a gsst column ----

# gsst.load from a colocated table: pushed down, each shard's rows stay on
# its node
$coord->safe_psql('postgres', 'TRUNCATE dist2');
($rc, $stdout, $stderr) = $coord->psql('postgres',
	q{SET citus.log_remote_commands = on; SELECT gsst.load('dist2', 'SELECT id, c FROM dist WHERE id <= 100')});
like($stderr, qr/issuing INSERT INTO public\.dist2_\d+ .*FROM public\.dist_\d+/,
	'gsst.load from a colocated table: Citus pushes the INSERT ... SELECT down to the shards');
is($stdout, '100', 'it returns the rows inserted');
is($coord->safe_psql('postgres', q{SELECT count(*) FROM dist2 d2 JOIN dist d USING (id) WHERE d2.c = d.c}),
	'100', 'dist2 holds the text of dist');
is($coord->safe_psql('postgres',
		q{SELECT count(*) FROM dist2 d2 JOIN dist d USING (id) WHERE gsst.datum(d2.c) = gsst.datum(d.c)}),
	'100', 'pushed down, each value keeps the bytes it has on its node');
$coord->safe_psql('postgres', 'TRUNCATE dist2');

is(insert_select_method('INSERT INTO dist2 SELECT id, c FROM staging'), 'pull to coordinator',
	'text from a table of the coordinator: Citus pulls it through the coordinator');
$coord->safe_psql('postgres', 'INSERT INTO dist2 SELECT id, c FROM staging');
is(gsst_table_md5($coord, 'dist2'), $md5, 'dist2: INSERT ... SELECT of text keeps every value');
is(citus_foreign_per_placement($coord, 'dist2'), '0 0 0 0', "dist2: encoded with each shard's own dictionaries");

$coord->safe_psql('postgres', q{
	CREATE TABLE texts (id int, grp int, c text);
	SELECT create_distributed_table('texts', 'id', shard_count => 4);
	INSERT INTO texts SELECT id, id % 97, c FROM staging;
	CREATE TABLE bygrp (grp int, id int, c text COMPRESSION gsst);
	SELECT create_distributed_table('bygrp', 'grp', shard_count => 3);
});
is(insert_select_method('INSERT INTO bygrp SELECT grp, id, c FROM texts'), 'repartition',
	'text of a distributed table into one distributed on another column: repartitioned');
$coord->safe_psql('postgres', 'INSERT INTO bygrp SELECT grp, id, c FROM texts');
is(gsst_table_md5($coord, 'bygrp'), $md5, 'bygrp: the repartitioned text is equal');
is(citus_foreign_per_placement($coord, 'bygrp'), '0 0 0', "bygrp: encoded with each shard's own dictionaries");

# ---- a repartitioned INSERT ... SELECT between gsst columns ----

# Citus names the source column's type, gsst(family) with the coordinator's
# family, in the column list of the intermediate results the workers read:
# dist's family on the coordinator is also a family of a shard of dist on
# each worker, and the values arriving there are encoded with its dictionary.
my $dist_family = $coord->safe_psql('postgres',
	q{SELECT atttypmod FROM pg_attribute WHERE attrelid = 'dist'::regclass AND attname = 'c'});
is(citus_on_placements($coord, 'dist', qq{SELECT count(*) FROM gsst.dictionaries WHERE family = $dist_family}) =~ /^[1-9]/,
	1, "gsst($dist_family), dist's type on the coordinator, names a family with dictionaries on the workers");
for my $case (
	[ 'regrouped', 'c', 'gsst to gsst' ],
	[ 'regrouped_cast', 'c::gsst', 'gsst to gsst, cast to gsst without a family' ],
	[ 'regrouped_load', undef, 'gsst.load' ])
{
	my ($table, $expr, $what) = @$case;
	$coord->safe_psql('postgres', qq{
		CREATE TABLE $table (grp int, id int, c text COMPRESSION gsst);
		SELECT create_distributed_table('$table', 'grp', shard_count => 3);
	});
	if (defined $expr)
	{
		my $sql = "INSERT INTO $table SELECT id % 97, id, $expr FROM dist";
		is(insert_select_method($sql), 'repartition', "$what: Citus repartitions");
		$coord->safe_psql('postgres', $sql);
	}
	else
	{
		is($coord->safe_psql('postgres', qq{SELECT gsst.load('$table', 'SELECT id % 97, id, c FROM dist')}),
			'20000', "$what: the rows of dist into a table distributed on another column");
	}
	is(gsst_table_md5($coord, $table), $md5, "$what: the text is equal");
	my $raw = citus_raw_per_placement($coord, $table);
	note("$table: $raw");
	cmp_ok(citus_sum_raw($raw), '<', 20000, "$what: values are encoded on arrival");
  TODO:
	{
		local $TODO = "Citus passes the coordinator's typmod to the workers: values take a family not their column's"
		  if $table eq 'regrouped';
		is(citus_foreign_per_placement($coord, $table), '0 0 0',
			"$what: every value is encoded with a dictionary of its own shard's family");
	}
	$coord->safe_psql('postgres', "SELECT gsst.compress_table('$table')");
	is(citus_foreign_per_placement($coord, $table), '0 0 0',
		"$what: after compress_table, every value uses its own shard's dictionaries");
}

# ---- a repartition join on a gsst column ----

$coord->safe_psql('postgres', q{
	CREATE TABLE ja (id int, c text COMPRESSION gsst);
	CREATE TABLE jb (k int, c text COMPRESSION gsst);
	CREATE TABLE jat (id int, c text);
	CREATE TABLE jbt (k int, c text);
	SELECT create_distributed_table('ja', 'id', shard_count => 4);
	SELECT create_distributed_table('jat', 'id', shard_count => 4);
	SELECT create_distributed_table('jb', 'k', shard_count => 3);
	SELECT create_distributed_table('jbt', 'k', shard_count => 3);
});
my $ja = q{SELECT i, 'the ' || (i % 500) || '. value of a join, größer als ' || (i % 500) FROM generate_series(1, 6000) i};
my $jb = q{SELECT i, 'the ' || (i % 700) || '. value of a join, größer als ' || (i % 700) FROM generate_series(1, 6000) i};
is($coord->safe_psql('postgres', qq{SELECT gsst.load('ja', \$\$$ja\$\$), gsst.load('jb', \$\$$jb\$\$)}),
	'6000|6000', 'gsst.load from a query of no table');
$coord->safe_psql('postgres', "INSERT INTO jat $ja; INSERT INTO jbt $jb;");
$coord->safe_psql('postgres', q{SELECT gsst.compress_table('ja'); SELECT gsst.compress_table('jb')});
ok(all_encoded(citus_raw_per_placement($coord, 'ja')) && all_encoded(citus_raw_per_placement($coord, 'jb')),
	"ja and jb are encoded, each shard with its own dictionaries");
my $join = q{SET citus.enable_repartition_joins = on;
	SELECT count(*), md5(string_agg(a.id || ':' || b.k, ',' ORDER BY a.id, b.k))
	FROM %s a JOIN %s b ON a.c = b.c};
like($coord->safe_psql('postgres', 'SET citus.enable_repartition_joins = on; EXPLAIN (COSTS OFF) '
		  . 'SELECT count(*) FROM ja a JOIN jb b ON a.c = b.c'),
	qr/MapMergeJob/, 'the join on the gsst column is a repartition join');
my $text_join = $coord->safe_psql('postgres', sprintf($join, 'jat', 'jbt'));
like($text_join, qr/^52800\|/, 'the join on the text columns finds every pair');
is($coord->safe_psql('postgres', sprintf($join, 'ja', 'jb')), $text_join,
	'the repartition join on the gsst columns gives what the text columns give');

done_testing();
