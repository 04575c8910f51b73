"""gsst for asyncpg.

    import asyncpg
    from gsst.asyncpg import register_gsst

    conn = await asyncpg.connect(...)
    await register_gsst(conn)

    # or on every connection of a pool
    pool = await asyncpg.create_pool(..., init=register_gsst)

asyncpg has no binary codec for a type it does not know. It then receives
gsst in text format, parses ``gsst[]`` with its text array parser (which
gets empty strings wrong), and cannot encode gsst in
``copy_records_to_table``. ``register_gsst()`` gives gsst a binary codec:
gsst's binary format is text's, the UTF-8 of the text (asyncpg always sets
client_encoding to UTF-8), so values, ``gsst[]``, parameters and
``copy_records_to_table`` all go through it.
"""

from ._catalog import NOT_INSTALLED, TYPE_QUERY

__all__ = ["register_gsst"]


def _encode(value):
    if not isinstance(value, str):
        raise TypeError("a gsst value must be a str, not %s" % type(value).__name__)
    # Text cannot hold NUL, and gsst's receive function takes a value that
    # starts with one for an encoded datum: send only what text would take.
    if "\x00" in value:
        raise ValueError("a gsst value cannot contain NUL (0x00), as text cannot")
    return value.encode("utf-8")


def _decode(data):
    return data.decode("utf-8")


async def register_gsst(conn):
    """Register gsst (and with it gsst[]) on an asyncpg connection.

    The type is looked up in the schema the extension was created in.
    Raises ValueError when the extension is not installed.
    """
    row = await conn.fetchrow(TYPE_QUERY)
    if row is None:
        raise ValueError(NOT_INSTALLED)
    await conn.set_type_codec("gsst", schema=row[2], encoder=_encode, decoder=_decode,
                              format="binary")
