"""gsst.sqlalchemy against a server: DDL, round trips, string comparisons,
reflection, the ORM and gsst[] columns, with the psycopg2 dialect and (on
SQLAlchemy 2) the psycopg one; and what reflection does without the module."""

import unittest
import warnings

import sqlalchemy as sa
from sqlalchemy import event, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import ARRAY, aggregate_order_by
from sqlalchemy.dialects.postgresql.base import ischema_names
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, declarative_base
from sqlalchemy.schema import CreateTable

import gsst.psycopg
import gsst.psycopg2
from gsst.sqlalchemy import GSST

from .common import DATA_ROWS, DATA_TABLE, SPECIAL, RowsMixin, dsn

SA2 = int(sa.__version__.split(".")[0]) >= 2


def engine_for(driver, name="GSST_TEST_DSN", register=None):
    engine = sa.create_engine(make_url(dsn(name)).set(drivername="postgresql+" + driver))
    if register is not None:
        @event.listens_for(engine, "connect")
        def connect(dbapi_connection, connection_record):
            register(dbapi_connection)
    return engine


def data_table(metadata):
    return sa.Table(DATA_TABLE, metadata,
                    sa.Column("id", sa.Integer, primary_key=True),
                    sa.Column("t", sa.Text),
                    sa.Column("c", GSST))


def reflect(engine, table):
    """The reflected table, and SQLAlchemy's warnings while reflecting."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reflected = sa.Table(table, sa.MetaData(), autoload_with=engine)
    return reflected, [w for w in caught if issubclass(w.category, sa.exc.SAWarning)]


def family_of(conn, table, column="c"):
    return conn.execute(sa.text(
        "SELECT atttypmod FROM pg_attribute WHERE attrelid = CAST(:t AS regclass) AND attname = :c"),
        {"t": table, "c": column}).scalar()


class DDL(unittest.TestCase):
    def test_renders_gsst(self):
        table = sa.Table("items", sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True),
                         sa.Column("c", GSST), sa.Column("f", GSST(3)), sa.Column("a", ARRAY(GSST)),
                         sa.Column("k", GSST(collation="C")))
        ddl = str(CreateTable(table).compile(dialect=postgresql.dialect()))
        self.assertIn("c gsst,", ddl)
        self.assertIn("f gsst,", ddl, "the family number is never rendered")
        self.assertIn("a gsst[]", ddl)
        self.assertIn('k gsst COLLATE "C"', ddl)
        self.assertNotIn("TEXT", ddl)
        other = sa.Table("other", sa.MetaData(), sa.Column("c", GSST))
        self.assertIn("c TEXT", str(CreateTable(other).compile(dialect=sqlite.dialect())),
                      "on other databases: TEXT")

    def test_is_a_string(self):
        self.assertTrue(isinstance(GSST(), sa.Text) and isinstance(GSST(), sa.String))
        self.assertIs(GSST().python_type, str)
        self.assertIsNone(GSST(3).length)
        self.assertEqual(GSST(3).family, 3)
        c = sa.column("c", GSST)
        self.assertEqual(str((c + "x").compile(dialect=postgresql.dialect())), "c || %(c_1)s")
        self.assertEqual(str(c.like("a%").compile(dialect=postgresql.dialect())), "c LIKE %(c_1)s")
        self.assertEqual(str(sa.cast(c, GSST).compile(dialect=postgresql.dialect())), "CAST(c AS gsst)")

    def test_registered_for_reflection(self):
        self.assertIs(ischema_names["gsst"], GSST)
        self.assertIs(postgresql.dialect.ischema_names["gsst"], GSST)


class WithoutTheModule(unittest.TestCase):
    """What reflection does when gsst.sqlalchemy has not registered gsst."""

    def setUp(self):
        self.engine = engine_for("psycopg2")

    def tearDown(self):
        ischema_names["gsst"] = GSST
        with self.engine.begin() as conn:
            conn.execute(sa.text("DROP TABLE IF EXISTS sa_text_copy"))
        self.engine.dispose()

    def test_null_type_and_warning(self):
        del ischema_names["gsst"]
        reflected, caught = reflect(self.engine, DATA_TABLE)
        self.assertIsInstance(reflected.c.c.type, sa.types.NullType)
        self.assertTrue(any("Did not recognize type 'gsst'" in str(w.message) for w in caught),
                        [str(w.message) for w in caught])

    def test_text_takes_the_family_as_a_length(self):
        ischema_names["gsst"] = sa.Text
        reflected, _ = reflect(self.engine, DATA_TABLE)
        with self.engine.connect() as conn:
            family = family_of(conn, DATA_TABLE)
        self.assertEqual(reflected.c.c.type.length, family)
        copy = sa.Table("sa_text_copy", sa.MetaData(), *[sa.Column(c.name, c.type) for c in reflected.columns])
        ddl = str(CreateTable(copy).compile(dialect=self.engine.dialect))
        self.assertIn("c TEXT(%d)" % family, ddl)
        with self.assertRaises(sa.exc.DBAPIError):
            with self.engine.begin() as conn:
                conn.execute(CreateTable(copy))


class Driver(RowsMixin):
    driver = None
    register = None

    @classmethod
    def setUpClass(cls):
        cls.engine = engine_for(cls.driver)
        cls.registered = engine_for(cls.driver, register=cls.register)
        cls.data = data_table(sa.MetaData())
        with cls.engine.connect() as conn:
            cls.expected = [tuple(r) for r in conn.execute(
                select(cls.data.c.id, cls.data.c.t).order_by(cls.data.c.id))]
        assert len(cls.expected) == DATA_ROWS

    @classmethod
    def tearDownClass(cls):
        cls.engine.dispose()
        cls.registered.dispose()

    def setUp(self):
        self.drop()

    def tearDown(self):
        self.drop()

    def drop(self):
        with self.engine.begin() as conn:
            conn.execute(sa.text("DROP TABLE IF EXISTS sa_items, sa_copy, sa_orm"))

    def test_values(self):
        d = self.data
        with self.engine.connect() as conn:
            got = [tuple(r) for r in conn.execute(select(d.c.id, d.c.c).order_by(d.c.id))]
        self.assertTrue(all(v is None or type(v) is str for _, v in got))
        self.assertRows(got, self.expected)

    def test_create_insert_select(self):
        items = sa.Table("sa_items", sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True),
                         sa.Column("c", GSST))
        items.create(self.engine)
        with self.engine.begin() as conn:
            conn.execute(items.insert(), [{"id": i, "c": v} for i, v in self.expected])
            got = [tuple(r) for r in conn.execute(select(items.c.id, items.c.c).order_by(items.c.id))]
            self.assertRegex(conn.execute(sa.text(
                "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                "WHERE attrelid = 'sa_items'::regclass AND attname = 'c'")).scalar(), r"^gsst\(\d+\)$")
            encoded = conn.execute(sa.text(
                "SELECT count(*) FROM sa_items WHERE gsst.value_dictionary(c) IS NOT NULL")).scalar()
        self.assertRows(got, self.expected)
        self.assertGreater(encoded, DATA_ROWS // 2)

    def test_comparisons(self):
        d = self.data

        def same(make, what):
            with self.engine.connect() as conn:
                want = conn.execute(make(d.c.t)).all()
                got = conn.execute(make(d.c.c)).all()
            self.assertTrue(want, what)
            self.assertRows(got, want, what)

        for value in SPECIAL:
            same(lambda col: select(d.c.id).where(col == value).order_by(d.c.id), "== %r" % value)
        same(lambda col: select(d.c.id).where(col.in_(SPECIAL)).order_by(d.c.id), "in_")
        same(lambda col: select(d.c.id).where(col != "Zoë").order_by(d.c.id), "!=")
        same(lambda col: select(func.count()).where(col.like("%@example.com")), "like")
        same(lambda col: select(d.c.id).where(col.startswith("https://")).order_by(d.c.id), "startswith")
        same(lambda col: select(d.c.id).where(col.contains("東京")).order_by(d.c.id), "contains")
        same(lambda col: select(d.c.id).where(col.ilike("%EXAMPLE.COM")).order_by(d.c.id), "ilike")
        same(lambda col: select(d.c.id).where(col.between("user1", "user2")).order_by(d.c.id), "between")
        same(lambda col: select(d.c.id, col + "!").order_by(d.c.id), "||")
        same(lambda col: select(d.c.id, func.lower(col), func.length(col)).order_by(d.c.id), "lower, length")
        same(lambda col: select(d.c.id).order_by(col, d.c.id), "order by")
        same(lambda col: select(col, func.count()).group_by(col).order_by(col), "group by")
        same(lambda col: select(func.min(col), func.max(col)), "min, max")

    def test_reflection(self):
        reflected, caught = reflect(self.engine, DATA_TABLE)
        self.assertEqual(caught, [])
        self.assertIsInstance(reflected.c.t.type, sa.Text)
        self.assertNotIsInstance(reflected.c.t.type, GSST)
        self.assertIsInstance(reflected.c.c.type, GSST)
        with self.engine.connect() as conn:
            self.assertEqual(reflected.c.c.type.family, family_of(conn, DATA_TABLE))
        self.assertIsNone(reflected.c.c.type.length)

        with self.engine.begin() as conn:
            conn.execute(sa.text("CREATE TABLE sa_items (id int PRIMARY KEY, a gsst[], n gsst NOT NULL)"))
        reflected, caught = reflect(self.engine, "sa_items")
        self.assertEqual(caught, [])
        self.assertIsInstance(reflected.c.a.type, ARRAY)
        self.assertIsInstance(reflected.c.a.type.item_type, GSST)
        self.assertIsInstance(reflected.c.n.type, GSST)
        self.assertFalse(reflected.c.n.nullable)

    def test_reflected_table_recreated(self):
        reflected, _ = reflect(self.engine, DATA_TABLE)
        copy = sa.Table("sa_copy", sa.MetaData(), *[sa.Column(c.name, c.type) for c in reflected.columns])
        self.assertIn("c gsst", str(CreateTable(copy).compile(dialect=self.engine.dialect)))
        copy.create(self.engine)
        with self.engine.begin() as conn:
            conn.execute(copy.insert().from_select(["id", "t", "c"], select(reflected)))
            got = [tuple(r) for r in conn.execute(select(copy.c.id, copy.c.c).order_by(copy.c.id))]
            self.assertNotEqual(family_of(conn, "sa_copy"), family_of(conn, DATA_TABLE),
                                "the copy has a family of its own")
        self.assertRows(got, self.expected)

    def test_orm(self):
        Base = declarative_base()

        class Item(Base):
            __tablename__ = "sa_orm"
            id = sa.Column(sa.Integer, primary_key=True)
            name = sa.Column(GSST, nullable=False)

        Base.metadata.create_all(self.engine)
        values = [v for v in SPECIAL] + ["user%d@example.com" % i for i in range(2000)]
        with Session(self.engine) as session:
            session.add_all([Item(id=i, name=v) for i, v in enumerate(values)])
            session.commit()
        with Session(self.engine) as session:
            item = session.execute(select(Item).where(Item.name == "東京")).scalar_one()
            self.assertEqual((item.id, item.name), (values.index("東京"), "東京"))
            item.name = "Zoë 東京"
            session.commit()
            self.assertEqual(session.get(Item, item.id).name, "Zoë 東京")
            names = session.execute(select(Item.name).order_by(Item.id)).scalars().all()
        values[values.index("東京")] = "Zoë 東京"
        self.assertEqual(names, values)

    def test_arrays(self):
        items = sa.Table("sa_items", sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True),
                         sa.Column("a", ARRAY(GSST)))
        items.create(self.engine)
        want = [(1, SPECIAL), (2, []), (3, None), (4, [None, ""])]
        with self.registered.begin() as conn:
            conn.execute(items.insert(), [{"id": i, "a": a} for i, a in want])
            got = [tuple(r) for r in conn.execute(select(items.c.id, items.c.a).order_by(items.c.id))]
            self.assertEqual(got, want)
            d = self.data
            got = conn.execute(select(func.array_agg(aggregate_order_by(d.c.c, d.c.id)))).scalar()
        self.assertRows(got, [v for _, v in self.expected])


class Psycopg2(Driver, unittest.TestCase):
    driver = "psycopg2"
    register = staticmethod(gsst.psycopg2.register_gsst)


class Psycopg(Driver, unittest.TestCase):
    driver = "psycopg"
    register = staticmethod(gsst.psycopg.register_gsst)

    @classmethod
    def setUpClass(cls):
        if not SA2:
            raise unittest.SkipTest("SQLAlchemy %s has no psycopg (3) dialect: it came with 2.0" % sa.__version__)
        super().setUpClass()


if __name__ == "__main__":
    unittest.main()
