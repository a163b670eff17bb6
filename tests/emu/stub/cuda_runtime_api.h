/* Stand-in for the CUDA runtime header in the emulated kernel tests (tests/emu/cuda_emu.h): the kernel headers need
   only the stream type in their declarations; nothing here calls the runtime. */
#pragma once
typedef struct CUstream_st *cudaStream_t;
