"""gsst for SQLAlchemy (1.4 and 2.x).

    from sqlalchemy import Column, Integer, MetaData, Table
    from gsst.sqlalchemy import GSST

    items = Table("items", MetaData(),
                  Column("id", Integer, primary_key=True),
                  Column("email", GSST))

``GSST`` is a ``Text``: it compares, concatenates and matches as a string,
and binds and returns ``str``. On PostgreSQL its DDL is ``gsst``, on other
databases ``TEXT``.

Importing this module also registers ``gsst`` with the PostgreSQL dialect's
reflection, so that a reflected ``gsst(N)`` column is a ``GSST`` (no
"Did not recognize type" warning, no ``NullType``), and ``gsst(N)[]`` an
``ARRAY(GSST)``. Reflection finds the type by the name PostgreSQL prints
for it: the extension's schema must be on the search_path.

SQLAlchemy's drivers return gsst values as ``str`` without help. For
``gsst[]`` columns, register gsst on each new connection of an engine that
uses psycopg2 or psycopg:

    from sqlalchemy import event
    from gsst.psycopg2 import register_gsst   # or gsst.psycopg

    @event.listens_for(engine, "connect")
    def connect(dbapi_connection, connection_record):
        register_gsst(dbapi_connection)
"""

from sqlalchemy.dialects.postgresql.base import ischema_names
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.types import Text

__all__ = ["GSST"]


class GSST(Text):
    """A gsst column: text, stored compressed.

    ``family`` is the dictionary family of a reflected ``gsst(N)`` column,
    for information only. It is never a length, and the DDL is plain
    ``gsst``, because a family number belongs to one database: the
    extension gives a new column its own.
    """

    cache_ok = True

    def __init__(self, family=None, collation=None):
        super().__init__(collation=collation)
        self.family = family


@compiles(GSST, "postgresql")
def _compile_gsst(element, compiler, **kw):
    if element.collation:
        return 'gsst COLLATE "%s"' % element.collation
    return "gsst"


# reflection: format_type() prints gsst(N), which both SQLAlchemy 1.4 and
# 2.x split into the name "gsst" and the positional argument N
ischema_names["gsst"] = GSST
