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
	DefineCustomIntVariable("gsst.learn_sample_bytes",
							"Bytes of values a new gsst column buffers before it learns its first dictionary.",
							"0 turns learning off: such columns store raw text until gsst.train() is called.",
							&gsst_learn_sample_bytes,
							16 * 1024,
							0, 64 * 1024 * 1024,
							PGC_USERSET,
							GUC_UNIT_BYTE,
							NULL, NULL, NULL);
	/* the GPU worker: GUCs, shared memory, registration */
	gsst_worker_init();
	MarkGUCPrefixReserved("gsst");

	gsst_dict_init();
	gsst_ddl_init();
}
