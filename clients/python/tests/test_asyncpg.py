"""gsst.asyncpg against a server: values, gsst[] with empty strings and
NULLs, parameters and copy_records_to_table, before and after
register_gsst()."""

import asyncio
import subprocess
import sys
import unittest

import asyncpg

from gsst.asyncpg import register_gsst

from .common import DATA_ROWS, DATA_TABLE, SPECIAL, RowsMixin, dsn

DATA = "SELECT id, %s FROM " + DATA_TABLE + " ORDER BY id"
# the examples
EMPTY_IN_ARRAY = "SELECT ARRAY['a','','b']::gsst[]"
ARRAY_AGG = ("SELECT array_agg(c ORDER BY o) FROM (VALUES (1, ''::gsst), (2, 'Zoë'::gsst), (3, '東京'::gsst)) v(o, c)")


def literal_array(values):
    return "ARRAY[%s]" % ", ".join("'%s'" % v.replace("'", "''") for v in values)


def rows(records):
    return [tuple(r) for r in records]


def setUpModule():
    global EXPECTED

    async def load():
        conn = await asyncpg.connect(dsn())
        try:
            return rows(await conn.fetch(DATA % "t"))
        finally:
            await conn.close()

    EXPECTED = asyncio.run(load())
    assert len(EXPECTED) == DATA_ROWS, "%s has %d rows" % (DATA_TABLE, len(EXPECTED))


class Base(RowsMixin, unittest.IsolatedAsyncioTestCase):
    register = True
    database = "GSST_TEST_DSN"

    async def asyncSetUp(self):
        self.conn = await asyncpg.connect(dsn(self.database))
        if self.register:
            await register_gsst(self.conn)
        await self.conn.execute("DROP TABLE IF EXISTS apg_t, apg_a")

    async def asyncTearDown(self):
        await self.conn.execute("DROP TABLE IF EXISTS apg_t, apg_a")
        await self.conn.close()


class Unregistered(Base):
    """asyncpg on its own: text format for gsst, no binary encoder."""

    register = False

    async def test_values_are_str(self):
        self.assertRows(rows(await self.conn.fetch(DATA % "c")), EXPECTED)

    async def test_copy_records_to_table_fails(self):
        await self.conn.execute("CREATE TABLE apg_t (id int PRIMARY KEY, c gsst)")
        with self.assertRaisesRegex(asyncpg.InternalClientError, "no binary format encoder for type gsst"):
            await self.conn.copy_records_to_table("apg_t", records=[(1, "Zoë")])

    def test_text_format_arrays(self):
        # In a process of its own: asyncpg's text array parser has crashed
        # the interpreter on these. Only reported, as what it returns
        # depends on asyncpg's version.
        script = (
            "import asyncio, asyncpg, sys\n"
            "async def main():\n"
            "    conn = await asyncpg.connect(sys.argv[1])\n"
            "    for q in sys.argv[2:]:\n"
            "        print(repr(await conn.fetchval(q)), flush=True)\n"
            "asyncio.run(main())\n")
        queries = [EMPTY_IN_ARRAY, ARRAY_AGG, "SELECT %s::gsst[]" % literal_array(SPECIAL),
                   "SELECT array_agg(c ORDER BY id) FROM " + DATA_TABLE]
        proc = subprocess.run([sys.executable, "-c", script, dsn()] + queries,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        got = proc.stdout.decode(errors="replace").splitlines()
        report = ["asyncpg %s without register_gsst():" % asyncpg.__version__]
        for i, query in enumerate(queries):
            report.append("  %.70s -> %.200s" % (query, got[i] if i < len(got) else "(no answer)"))
        report.append("  exit status %d%s" % (proc.returncode, " (killed by a signal)" if proc.returncode < 0 else ""))
        sys.stderr.write("\n" + "\n".join(report) + "\n")


class Registered(Base):
    async def test_values(self):
        got = rows(await self.conn.fetch(DATA % "c"))
        self.assertTrue(all(v is None or type(v) is str for _, v in got))
        self.assertRows(got, EXPECTED)

    async def test_arrays(self):
        self.assertEqual(await self.conn.fetchval(EMPTY_IN_ARRAY), ["a", "", "b"])
        self.assertEqual(await self.conn.fetchval(ARRAY_AGG), ["", "Zoë", "東京"])
        got = await self.conn.fetchval("SELECT array_agg(c ORDER BY id) FROM " + DATA_TABLE)
        self.assertRows(got, [v for _, v in EXPECTED])
        self.assertEqual(await self.conn.fetchval("SELECT $1::gsst[]", SPECIAL + [None]), SPECIAL + [None])
        self.assertEqual(await self.conn.fetchval("SELECT '{}'::gsst[]"), [])

    async def test_parameters(self):
        for value in SPECIAL:
            want = rows(await self.conn.fetch("SELECT id FROM %s WHERE t = $1 ORDER BY id" % DATA_TABLE, value))
            self.assertTrue(want, "%r is in %s" % (value, DATA_TABLE))
            got = rows(await self.conn.fetch("SELECT id FROM %s WHERE c = $1 ORDER BY id" % DATA_TABLE, value))
            self.assertEqual(got, want, "WHERE c = $1 with %r" % value)
        want = rows(await self.conn.fetch("SELECT id, t FROM %s WHERE t = ANY($1) ORDER BY id" % DATA_TABLE, SPECIAL))
        got = rows(await self.conn.fetch("SELECT id, c FROM %s WHERE c = ANY($1) ORDER BY id" % DATA_TABLE, SPECIAL))
        self.assertEqual(got, want)

        await self.conn.execute("CREATE TABLE apg_t (id int PRIMARY KEY, c gsst)")
        await self.conn.executemany("INSERT INTO apg_t VALUES ($1, $2)", EXPECTED)
        self.assertRows(rows(await self.conn.fetch("SELECT id, c FROM apg_t ORDER BY id")), EXPECTED)
        with self.assertRaisesRegex(asyncpg.DataError, "a gsst value must be a str"):
            await self.conn.execute("INSERT INTO apg_t VALUES (-1, $1)", 42)

    async def test_copy_records_to_table(self):
        await self.conn.execute("CREATE TABLE apg_t (id int PRIMARY KEY, c gsst)")
        await self.conn.copy_records_to_table("apg_t", records=EXPECTED)
        self.assertRows(rows(await self.conn.fetch("SELECT id, c::text FROM apg_t ORDER BY id")), EXPECTED)
        encoded = await self.conn.fetchval("SELECT count(*) FROM apg_t WHERE gsst.value_dictionary(c) IS NOT NULL")
        self.assertGreater(encoded, DATA_ROWS // 2, "the column compresses what COPY loads")

        await self.conn.execute("CREATE TABLE apg_a (id int PRIMARY KEY, a gsst[])")
        want = [(1, SPECIAL), (2, []), (3, None), (4, [None, ""])]
        await self.conn.copy_records_to_table("apg_a", records=want)
        self.assertEqual(rows(await self.conn.fetch("SELECT id, a::text[] FROM apg_a ORDER BY id")), want)

    async def test_refuses_nul(self):
        # as text does: a leading NUL would reach the server as an encoded datum
        for value in ("\x00abc", "a\x00b"):
            with self.assertRaisesRegex(asyncpg.DataError, "cannot contain NUL"):
                await self.conn.fetchval("SELECT $1::gsst", value)
        await self.conn.execute("CREATE TABLE apg_t (id int PRIMARY KEY, c gsst)")
        with self.assertRaisesRegex(Exception, "cannot contain NUL"):
            await self.conn.copy_records_to_table("apg_t", records=[(1, "ok"), (2, "\x00abc")])
        self.assertEqual(await self.conn.fetchval("SELECT count(*) FROM apg_t"), 0)

    async def test_pool_init(self):
        pool = await asyncpg.create_pool(dsn(), min_size=1, max_size=2, init=register_gsst)
        try:
            async with pool.acquire() as conn:
                self.assertEqual(await conn.fetchval(EMPTY_IN_ARRAY), ["a", "", "b"])
        finally:
            await pool.close()


class OtherSchema(Base):
    database = "GSST_TEST_DSN_SCHEMA"

    async def test_extension_in_another_schema(self):
        self.assertIsNone(await self.conn.fetchval("SELECT to_regtype('gsst')"),
                          "schema ext is not on the search_path")
        await self.conn.execute("CREATE TABLE apg_t (id int PRIMARY KEY, c ext.gsst)")
        want = list(enumerate(SPECIAL + [None]))
        await self.conn.copy_records_to_table("apg_t", records=want)
        self.assertEqual(rows(await self.conn.fetch("SELECT id, c FROM apg_t ORDER BY id")), want)
        self.assertEqual(await self.conn.fetchval("SELECT array_agg(c ORDER BY id) FROM apg_t"),
                         [v for _, v in want])


class NotInstalled(unittest.IsolatedAsyncioTestCase):
    async def test_not_installed(self):
        conn = await asyncpg.connect(dsn("GSST_TEST_DSN_NOEXT"))
        try:
            with self.assertRaisesRegex(ValueError, "CREATE EXTENSION gsst"):
                await register_gsst(conn)
            self.assertEqual(await conn.fetchval("SELECT 1"), 1)
        finally:
            await conn.close()


if __name__ == "__main__":
    unittest.main()
