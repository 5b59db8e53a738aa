#pragma once
// The run-time compiler (NVRTC) has no system headers: this stands in for <math.h> in the
// engine headers it compiles (cuda/jit_*.c embeds this folder). Only what those headers use.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
#ifndef HUGE_VALF
#define HUGE_VALF __int_as_float(0x7f800000)
#endif
#ifndef HUGE_VAL
#define HUGE_VAL __longlong_as_double(0x7ff0000000000000LL)
#endif
