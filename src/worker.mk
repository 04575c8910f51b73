# src/worker.mk - installs gsst_gpu.so next to gsst.so ($libdir), where the
# gsst worker dlopen()s it (gsst.gpu_library).  Included by the Makefile
# after cuda/gpu.mk; without nvcc there is nothing to install.
ifneq ($(NVCC),)
.PHONY: install-gsst-gpu
install: install-gsst-gpu
install-gsst-gpu: $(GSST_GPU_LIB)
	$(MKDIR_P) '$(DESTDIR)$(pkglibdir)'
	$(INSTALL_SHLIB) $(GSST_GPU_LIB) '$(DESTDIR)$(pkglibdir)/gsst_gpu.so'
endif
