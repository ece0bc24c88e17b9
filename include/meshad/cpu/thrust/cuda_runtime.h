// Thrust over the CPU emulation: see cuda_runtime_api.h here.
#include "cuda_runtime_api.h"
