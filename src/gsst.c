/*
 * gsst.c - module entry point: GUCs, callbacks, the DDL hook; and the
 * hash tables keyed by family or dictionary id that the module keeps.
 */
#include "gsst.h"

#include "utils/guc.h"

#include "worker.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	gsst_learn_init();
	/* the GPU worker: GUCs, shared memory, registration */
	gsst_worker_init();
	MarkGUCPrefixReserved("gsst");

	gsst_dict_init();
	gsst_ddl_init();
}

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
