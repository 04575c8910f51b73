// gsst_pg.js - what node-postgres (pg), as Debian ships it, does with a gsst
// column and no setup: run by test/tap/023_node.pl (node gsst_pg.js, the
// server named by PGHOST, PGPORT, PGUSER and PGDATABASE, against Debian's
// node-pg).  Prints one "name=value" line per finding; the test compares
// them with the server's.
'use strict';

const crypto = require('crypto');
const { Client, types } = require('pg');

function say(name, value) {
	process.stdout.write(`${name}=${value}\n`);
}

// md5 of "id:value\n" per row, in id order, NULL as \N
function digest(rows) {
	const h = crypto.createHash('md5');
	for (const r of rows)
		h.update(`${r.id}:${r.c === null ? '\\N' : r.c}\n`, 'utf8');
	return h.digest('hex');
}

async function plan(client, query, values) {
	const res = await client.query('EXPLAIN (COSTS OFF) ' + query, values);
	return res.rows.map((r) => r['QUERY PLAN'].trim()).join(' ');
}

function show(array) {
	return array.map((e) => (e === null ? '<null>' : `<${e}>`)).join('');
}

async function main() {
	const client = new Client();
	await client.connect();

	// every value, as a query and as a named prepared statement run three times
	say('read_query', digest((await client.query('SELECT id, c FROM t ORDER BY id')).rows));
	for (let run = 0; run < 3; run++) {
		const res = await client.query({
			name: 'read_all',
			text: 'SELECT id, c FROM t WHERE id > $1 ORDER BY id',
			values: [0],
		});
		say(`read_prepared_${run}`, digest(res.rows));
	}

	// the value's JavaScript type
	const one = await client.query('SELECT c FROM t WHERE id = 3001');
	say('value_type', typeof one.rows[0].c);
	say('value', one.rows[0].c);

	// a string parameter finds a row, through the index
	const found = await client.query('SELECT id FROM t WHERE c = $1', ['emoji 🐘🐘 elephant ünïcödé ∑ ≠ ∞']);
	say('lookup_ids', found.rows.map((r) => r.id).join(','));
	say('lookup_plan', await plan(client, 'SELECT id FROM t WHERE c = $1', ['user1000@example.com']));
	say('range_plan', await plan(client, 'SELECT c FROM t WHERE c > $1 ORDER BY c LIMIT 3', ['user1']));

	// a gsst[]: pg parses arrays of the types it knows, so with no setup it
	// gives the array's text; text[]'s parser, set for gsst[]'s OID, reads it
	const arraySql = "SELECT ARRAY['a', '', 'Zoë', NULL, '東京']::gsst[] AS a";
	say('array_raw', (await client.query(arraySql)).rows[0].a);
	const oid = (await client.query("SELECT 'gsst[]'::regtype::oid AS oid")).rows[0].oid;
	types.setTypeParser(Number(oid), types.getTypeParser(1009));
	say('array', show((await client.query(arraySql)).rows[0].a));

	// parameters write text into a gsst column
	const values = ['', 'Zoë', '東京', null, 'plain ascii'];
	for (let i = 0; i < values.length; i++)
		await client.query('INSERT INTO w VALUES ($1, $2)', [i + 1, values[i]]);
	// and an array parameter, as text[] into gsst[]
	const back = await client.query('SELECT $1::gsst[] AS a', [values]);
	say('array_param', show(back.rows[0].a));

	await client.end();
	say('done', 'yes');
}

main().catch((err) => {
	process.stderr.write(`${err.stack}\n`);
	process.exit(1);
});
