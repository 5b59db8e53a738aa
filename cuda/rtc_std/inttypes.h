#pragma once
// The run-time compiler (NVRTC) has no system headers: this stands in for <inttypes.h> in the
// engine headers it compiles (cuda/jit_*.c embeds this folder). Only what those headers use.
#include <stdint.h>
#define PRId64 "ld"
#define PRIu64 "lu"
#define PRIx64 "lx"
