#pragma once
// The run-time compiler (NVRTC) has no system headers: this stands in for <stddef.h> in the
// engine headers it compiles (cuda/jit_*.c embeds this folder). Only what those headers use.
#ifndef NULL
#define NULL 0
#endif
#define offsetof(t, m) __builtin_offsetof(t, m)
