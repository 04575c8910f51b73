/*
 * gsst_gpu_common.h - the parts of the gsst_gpu ABI (gsst_gpu.h) that do not
 * depend on how a library encodes: its version, its config and its status
 * texts.  Included once by each implementation, gsst_gpu_context.cu (CUDA)
 * and gsst_gpu_cpu.c (the CPU codec), after it has defined GG_EXPORT.
 */
#ifndef GSST_GPU_COMMON_H
#define GSST_GPU_COMMON_H

#include <string.h>

#include "gsst_gpu.h"

GG_EXPORT int
gsst_gpu_abi_version(void)
{
	return GSST_GPU_ABI_VERSION;
}

GG_EXPORT size_t
gsst_gpu_config_size(void)
{
	return sizeof(gsst_gpu_config);
}

GG_EXPORT void
gsst_gpu_config_default(gsst_gpu_config *config)
{
	if (config == NULL)
		return;
	memset(config, 0, sizeof(*config));
	config->device = -1;
	config->split_bytes = GSST_GPU_DEFAULT_SPLIT_BYTES;
	config->unit_bytes = GSST_GPU_DEFAULT_UNIT_BYTES;
	config->sample_bytes = GSST_GPU_DEFAULT_SAMPLE_BYTES;
}

GG_EXPORT const char *
gsst_gpu_strerror(int status)
{
	switch (status)
	{
		case GSST_GPU_OK:
			return "ok";
		case GSST_GPU_ERR_NO_DEVICE:
			return "no usable GPU";
		case GSST_GPU_ERR_ARG:
			return "invalid argument";
		case GSST_GPU_ERR_NOMEM:
			return "out of device or pinned memory";
		case GSST_GPU_ERR_LIMIT:
			return "batch exceeds the configured limits";
		case GSST_GPU_ERR_SPACE:
			return "output buffer too small";
		case GSST_GPU_ERR_CORRUPT:
			return "tile is corrupt";
		case GSST_GPU_ERR_CODEC:
			return "symbol table training or loading failed";
		case GSST_GPU_ERR_CUDA:
			return "CUDA failure";
		case GSST_GPU_ERR_BROKEN:
			return "context broken by an earlier CUDA failure";
	}
	return "unknown status";
}

#endif							/* GSST_GPU_COMMON_H */
