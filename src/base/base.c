/*
 * base.c - helpers and state every subsystem of the glue may use; it calls
 * none of them.
 */
#include "base/gsst.h"

/* See gsst.h; set by column/ddl.c, read by type/type.c. */
bool		gsst_relabel_families = false;

/* A hash table keyed by a family or dictionary id, in cxt. */
HTAB *
gsst_id_hash_create(const char *name, long nelem, Size entrysize, MemoryContext cxt)
{
	HASHCTL		ctl;

	StaticAssertStmt(sizeof(int32) == sizeof(uint32), "ids are 4 bytes");
	ctl.keysize = sizeof(int32);
	ctl.entrysize = entrysize;
	ctl.hcxt = cxt;
	return hash_create(name, nelem, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}
