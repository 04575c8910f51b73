# Every path on which Citus moves values between nodes keeps the text
# equal, and every placement encodes only with dictionaries of its own
# column's family on its own node: a rebalance onto a new worker (shards
# moved there, a reference table copied there), undistribute_table and
# alter_distributed_table, the binary protocol on and off, joins, a
# reference table updated from the coordinator, and pg_dump of the
# coordinator.
use strict;
use warnings;
use utf8;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GsstTest;
use CitusTest;

my ($coord, @workers) = citus_cluster(2);

my $rows = gsst_rows(1, 8000);
my $md5 = md5_of_rows($rows);
my $copy = "\n" . gsst_copy_text($rows) . "\\.\n";

sub q1 { return $coord->safe_psql('postgres', @_); }

# A distributed table $name (id, c gsst) of $shards shards, its rows
# copied through the coordinator and compressed.
sub dist_table
{
	my ($name, $shards) = @_;
	q1("CREATE TABLE $name (id int, c text COMPRESSION gsst);
		SELECT create_distributed_table('$name', 'id', shard_count => $shards);");
	q1("COPY $name FROM STDIN;$copy");
	q1("SELECT gsst.compress_table('$name')");
}

sub encoded_from_first_row
{
	my ($raw) = @_;
	return scalar(grep { !m{^0/[1-9]\d*$} } split / /, $raw) == 0;
}

# Equal text, every value encoded (unless raw_ok), each with its own
# placement's dictionaries (a TODO with foreign_todo's reason).
sub check_table
{
	my ($table, $what, %opt) = @_;
	is(gsst_table_md5($coord, $table), $md5, "$what: content equal to the source");
	my $raw = citus_raw_per_placement($coord, $table);
	note("$table: raw/all per placement: $raw");
	ok(encoded_from_first_row($raw), "$what: every value encoded") unless $opt{raw_ok};
  TODO:
	{
		local $TODO = $opt{foreign_todo};
		like(citus_foreign_per_placement($coord, $table), qr/^0( 0)*$/,
			"$what: each placement encodes with its own family's dictionaries on its node");
	}
}

# ---- 1. a rebalance onto a worker added to the cluster ----

dist_table('reb', 6);
q1('ALTER TABLE reb ADD PRIMARY KEY (id)');
q1(q{CREATE TABLE ref (id int PRIMARY KEY, c text COMPRESSION gsst); SELECT create_reference_table('ref');});
q1("COPY ref FROM STDIN;$copy");
q1(q{SELECT gsst.compress_table('ref')});
my $worker3 = citus_add_worker($coord, 'worker3');
my $p3 = $worker3->port;
my $t0 = time;
q1(q{SELECT rebalance_table_shards(shard_transfer_mode => 'force_logical')});
note('rebalance_table_shards took ' . (time - $t0) . ' s');
is(q1(qq{SELECT count(*) FROM citus_shards WHERE table_name = 'reb'::regclass AND nodeport = $p3}), '2',
	'the rebalance moved two shards of reb onto the new worker');
check_table('reb', 'reb after a rebalance onto a new worker');
is(citus_on_placements($coord, 'ref', q{SELECT count(*) FROM %s}), '8000 8000 8000 8000',
	'the rebalance copied ref onto the new worker: a copy on the coordinator and on each worker');
check_table('ref', 'ref copied onto a new worker');

# ---- 2. undistribute_table and alter_distributed_table ----

dist_table('und', 4);
q1(q{SELECT undistribute_table('und')});
is(q1(q{SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = 'und'::regclass}), '0',
	'und is a local table of the coordinator again');
is(gsst_table_md5($coord, 'und'), $md5, 'undistribute_table: content equal to the source');
# Values of column c of the coordinator's table und: encoded with a
# dictionary of another family, and raw.
sub und_foreign_raw
{
	return q1(q{
		SELECT count(*) FILTER (WHERE gsst.value_dictionary(c) NOT IN
		                        (SELECT id FROM gsst.dictionaries WHERE family = atttypmod))
		       || '/' || count(*) FILTER (WHERE gsst.value_dictionary(c) IS NULL)
		FROM und, pg_attribute WHERE attrelid = 'und'::regclass AND attname = 'c'});
}
note('und: foreign/raw values: ' . und_foreign_raw());
TODO:
{
	local $TODO = "undistribute_table moves the rows as gsst(F) of the old shell's family F, and a gsst "
	  . 'value keeps its dictionary into another gsst column: they name the old family';
	is(und_foreign_raw(), '0/0', "undistribute_table: the coordinator encodes with its own column's dictionaries");
}
q1(q{SELECT gsst.compress_table('und')});
is(und_foreign_raw(), '0/0', "after compress_table, und uses its own column's dictionaries only");
is(gsst_table_md5($coord, 'und'), $md5, 'and keeps its text');

dist_table('adt', 4);
my $adt_todo = "alter_distributed_table moves the rows with an INSERT ... SELECT that Citus types gsst(F), "
  . "F the coordinator's family: each worker keeps the codes of its own family F, another column's";
q1(q{SELECT alter_distributed_table('adt', shard_count => 3)});
is(q1(q{SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'adt'::regclass}), '3',
	'alter_distributed_table: three shards');
check_table('adt', 'alter_distributed_table, shard_count', raw_ok => 1, foreign_todo => $adt_todo);
q1(q{SELECT gsst.compress_table('adt')});
check_table('adt', 'alter_distributed_table, shard_count, then compress_table');
q1(q{SELECT alter_distributed_table('adt', distribution_column => 'c')});
is(q1(q{SELECT column_to_column_name(logicalrelid, partkey) FROM pg_dist_partition WHERE logicalrelid = 'adt'::regclass}),
	'c', 'alter_distributed_table: adt is distributed on its gsst column');
check_table('adt', 'alter_distributed_table, distribution_column', raw_ok => 1, foreign_todo => $adt_todo);
q1(q{SELECT gsst.compress_table('adt')});
check_table('adt', 'alter_distributed_table, distribution_column, then compress_table');
is(q1(qq{SELECT id FROM adt WHERE c = '$rows->[1234][1]'}), '1235',
	'a router query on the gsst distribution column finds its row');
like(q1(qq{EXPLAIN (COSTS OFF) SELECT id FROM adt WHERE c = '$rows->[1234][1]'}), qr/Task Count: 1\b/,
	'on one shard');

# ---- 3. the binary protocol on and off ----

for my $binary ('on', 'off')
{
	my $set = "SET citus.enable_binary_protocol = $binary;";
	my $t = "bin_$binary";
	q1("CREATE TABLE $t (id int PRIMARY KEY, c text COMPRESSION gsst);
		SELECT create_distributed_table('$t', 'id', shard_count => 4);");
	q1("$set COPY $t FROM STDIN;$copy");
	check_table($t, "binary protocol $binary: COPY through the coordinator", raw_ok => 1);
	q1("SELECT gsst.compress_table('$t')");
	is(q1("$set SELECT c FROM $t WHERE id = 4321"), $rows->[4320][1], "binary protocol $binary: a router SELECT");
	is(q1("$set SELECT md5(string_agg(c, E'\\n' ORDER BY id)) FROM $t"), $md5,
		"binary protocol $binary: a multi-shard SELECT");
	is(q1("$set SELECT md5(string_agg(c::text, E'\\n' ORDER BY id)) FROM (SELECT id, c FROM $t ORDER BY id LIMIT 10000) s"), $md5,
		"binary protocol $binary: rows pulled to the coordinator");
	q1("CREATE TABLE ${t}_r (k int, id int, c text COMPRESSION gsst);
		SELECT create_distributed_table('${t}_r', 'k', shard_count => 3);");
	like(q1("EXPLAIN (COSTS OFF) INSERT INTO ${t}_r SELECT id % 7, id, c FROM $t"),
		qr/INSERT\/SELECT method: repartition/, "binary protocol $binary: INSERT ... SELECT is repartitioned");
	q1("$set INSERT INTO ${t}_r SELECT id % 7, id, c FROM $t");
	is(gsst_table_md5($coord, "${t}_r"), $md5, "binary protocol $binary: repartitioned INSERT ... SELECT");
	q1("SELECT gsst.compress_table('${t}_r')");
	like(citus_foreign_per_placement($coord, "${t}_r"), qr/^0( 0)*$/,
		"binary protocol $binary: the repartitioned rows use their own placements' dictionaries");
	my ($shard, $from) = split /\|/, q1(qq{
		SELECT shardid, nodeport FROM citus_shards WHERE table_name = '$t'::regclass ORDER BY shardid LIMIT 1});
	my $to = $from == $workers[0]->port ? $workers[1]->port : $workers[0]->port;
	q1("$set SELECT citus_move_shard_placement($shard, '127.0.0.1', $from, '127.0.0.1', $to, "
		  . "shard_transfer_mode => 'block_writes')");
	check_table($t, "binary protocol $binary: a shard move");
}

# ---- 4. joins ----

$coord->safe_psql('postgres', q{
	CREATE TABLE ja (id int, c text COMPRESSION gsst);
	CREATE TABLE jb (id int, c text COMPRESSION gsst);
	CREATE TABLE jat (id int, c text);
	CREATE TABLE jbt (id int, c text);
	SELECT create_distributed_table('ja', 'id', shard_count => 4);
	SELECT create_distributed_table('jb', 'id', colocate_with => 'ja');
	SELECT create_distributed_table('jat', 'id', colocate_with => 'ja');
	SELECT create_distributed_table('jbt', 'id', colocate_with => 'ja');
	CREATE TABLE ga (c text COMPRESSION gsst, id int);
	CREATE TABLE gat (c text, id int);
	SELECT create_distributed_table('ga', 'c', shard_count => 4);
	SELECT create_distributed_table('gat', 'c', shard_count => 4);
});
my $ja = q{SELECT i, 'the ' || (i % 500) || '. value of a join, größer als ' || (i % 500) FROM generate_series(1, 2000) i};
my $jb = q{SELECT i, 'the ' || (i % 700) || '. value of a join, größer als ' || (i % 700) FROM generate_series(1, 2000) i};
q1("INSERT INTO ja $ja; INSERT INTO jat $ja; INSERT INTO jb $jb; INSERT INTO jbt $jb;
	INSERT INTO ga SELECT c, id FROM jb; INSERT INTO gat SELECT c, id FROM jbt;");
q1("SELECT gsst.compress_table('ja'); SELECT gsst.compress_table('jb'); SELECT gsst.compress_table('ga');");
my $colocated = q{SELECT count(*), md5(string_agg(a.id::text, ',' ORDER BY a.id)) FROM %s a JOIN %s b USING (id) WHERE a.c = b.c};
my $text_colocated = q1(sprintf($colocated, 'jat', 'jbt'));
like($text_colocated, qr/^[1-9]\d*\|/, 'the text tables have equal values on the same id');
unlike(q1('EXPLAIN (COSTS OFF) ' . sprintf($colocated, 'ja', 'jb')), qr/MapMergeJob|repartition/i,
	'the join on the distribution column is colocated');
is(q1(sprintf($colocated, 'ja', 'jb')), $text_colocated,
	'a colocated join on the distribution column compares the gsst values as the text tables do');
my $on_c = q{SET citus.enable_repartition_joins = on;
	SELECT count(*), md5(string_agg(a.id || ':' || b.id, ',' ORDER BY a.id, b.id)) FROM %s a JOIN %s b ON a.c = b.c};
my $text_on_c = q1(sprintf($on_c, 'jat', 'gat'));
like($text_on_c, qr/^[1-9]\d*\|/, 'the text tables join on c');
is(q1(sprintf($on_c, 'ja', 'ga')), $text_on_c,
	'a join on a gsst column, the distribution column of one side, gives what the text tables give');
is(q1(sprintf($on_c, 'ga', 'ga')), q1(sprintf($on_c, 'gat', 'gat')),
	'a self-join of a table distributed on its gsst column gives what the text table gives');

# ---- 5. a reference table updated from the coordinator ----

my $ref_md5 = md5_of_rows([ map { [ $_->[0], $_->[0] <= 100 ? 'updated' : $_->[1] ] } @$rows ]);
q1(q{UPDATE ref SET c = 'updated' WHERE id <= 100});
is(citus_md5_per_placement($coord, 'ref'), join(' ', ($ref_md5) x 4), 'every copy of ref holds the updated text');
like(citus_foreign_per_placement($coord, 'ref'), qr/^0 0 0 0$/, "each copy encodes with its own node's dictionaries");
TODO:
{
	local $TODO = 'Citus refuses STABLE functions with column references in UPDATE, '
	  . 'and the cast text -> gsst(family) is STABLE';
	my ($rc, $out, $err) = $coord->psql('postgres', q{UPDATE ref SET c = c || 'x'});
	is($err, '', 'UPDATE ref SET c = c || x') or note($err);
	is(citus_md5_per_placement($coord, 'ref'),
		join(' ', (md5_of_rows([ map { [ $_->[0], ($_->[0] <= 100 ? 'updated' : $_->[1]) . 'x' ] } @$rows ])) x 4),
		'every copy of ref holds the text updated from its own values');
}

# ---- 6. pg_dump of the coordinator, restored into a single-node database ----

my @tables = split /\n/, q1(q{
	SELECT attrelid::regclass FROM pg_attribute JOIN pg_class c ON c.oid = attrelid
	WHERE atttypid = 'gsst'::regtype AND attname = 'c' AND relkind = 'r' AND relnamespace = 'public'::regnamespace
	ORDER BY 1});
my %source_md5 = map { $_ => q1("SELECT md5(string_agg(c::text, E'\\n' ORDER BY id, c)) FROM $_") } @tables;
my $dump = $coord->basedir . '/coordinator.sql';
$coord->command_ok([ 'pg_dump', '-d', $coord->connstr('postgres'), '-f', $dump ], 'pg_dump of the coordinator');
my $sql = slurp_file($dump);
my @shards = grep { $sql =~ /\b\Q$_\E\b/ } split /\n/, q1(q{SELECT shard_name FROM citus_shards});
is(scalar(@shards), 0, 'the dump holds no shard table') or note("shards in the dump: @shards");
like($sql, qr/^COPY public\.reb /m, "the dump holds the distributed tables' rows");

# a fresh database, not part of the cluster, on a server with Citus and
# gsst preloaded (the dump creates both extensions)
my $single = $worker3;
$single->safe_psql('postgres', 'CREATE DATABASE restored');
my ($rc, $out, $err) = $single->psql('restored', undef, extra_params => [ '-v', 'ON_ERROR_STOP=1', '-f', $dump ]);
is($rc, 0, 'the dump restores into a fresh single-node database');
unlike($err, qr/ERROR/, 'without an error') or note($err);
is($single->safe_psql('restored', q{SELECT count(*) FROM pg_dist_partition}), '0',
	'its tables are local tables');
for my $t (@tables)
{
	is($single->safe_psql('restored', "SELECT md5(string_agg(c::text, E'\\n' ORDER BY id, c)) FROM $t"),
		$source_md5{$t}, "restored $t: text equal to the coordinator's");
}
is($single->safe_psql('restored', q{
	SELECT count(*) FROM pg_attribute
	WHERE atttypid = 'gsst'::regtype AND attname = 'c' AND atttypmod <= 0
	  AND attrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace)}),
	'0', 'every restored gsst column has a family');

done_testing();
