/*
 * gsst.c - module entry point: GUCs, callbacks, the DDL hook.
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
