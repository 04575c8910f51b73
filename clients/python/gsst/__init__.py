"""Client support for gsst, the PostgreSQL extension that stores text
compressed with FSST symbol tables as its own type ``gsst(N)``.

A gsst value sends and receives text's wire format (UTF-8 in binary, the
text itself in text format), but its type has an OID of its own, different
in each database. One module per driver or ORM tells it that ``gsst`` is
text:

- ``gsst.psycopg``: ``register_gsst(conn)`` for psycopg 3;
- ``gsst.psycopg2``: ``register_gsst(conn)`` for psycopg2;
- ``gsst.asyncpg``: ``await register_gsst(conn)`` for asyncpg;
- ``gsst.sqlalchemy``: the column type ``GSST``, known to reflection.

Importing this package imports no driver.
"""

__version__ = "1.4.0"
