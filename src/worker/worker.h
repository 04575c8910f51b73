/*
 * worker.h - the gsst background worker: its settings, and its start.
 *
 * The worker encodes the bulk paths' batches (batch.c) that backends hand
 * to it (request.c), on the GPU through its helper process (gpu_helper.c),
 * or on its CPU.
 */
#ifndef GSST_WORKER_H
#define GSST_WORKER_H

#include "base/gsst.h"

/* GUCs (worker.c) */
extern bool gsst_gpu_enabled;
extern int	gsst_gpu_device;
extern int	gsst_batch_bytes;
extern int	gsst_worker_timeout_ms;

extern int	gsst_worker_init(void);
extern PGDLLEXPORT void gsst_worker_main(Datum main_arg);

#endif							/* GSST_WORKER_H */
