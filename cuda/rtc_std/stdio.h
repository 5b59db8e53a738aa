#pragma once
// The run-time compiler (NVRTC) has no system headers: this stands in for <stdio.h> in the
// engine headers it compiles (cuda/jit_*.c embeds this folder). Only what those headers use.
typedef struct tt_rtc_file FILE;
