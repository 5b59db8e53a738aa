/* The example's functors: plain C over one element at a time. The program compiles this header
 * for the CPU, and CMake embeds its text (tinytensor_embed_source) so that the library compiles
 * the same functions for the GPU at run time. No C-only syntax (compound literals): the GPU side
 * compiles it as C++. */
#ifndef CUSTOM_REDUCTION_FUNCTORS_H
#define CUSTOM_REDUCTION_FUNCTORS_H

#include <math.h>
#include <stdint.h>

static float zero(void) { return 0.0f; }
static float add(float a, float b) { return a + b; }
static float done(float a, int64_t count) { return (void)count, a; }
static float absval(const float *x) { return fabsf(x[0]); }
static float product(const float *x) { return x[0] * x[1]; }
static float first(const float *x) { return x[0]; }

/* softmax denominator: a running max and the sum of exp(x - max) */
typedef struct {
    float max, sum;
} softmax_acc;
static softmax_acc softmax_identity(void) {
    softmax_acc a;
    a.max = -INFINITY;
    a.sum = 0.0f;
    return a;
}
static softmax_acc softmax_add(softmax_acc a, float x) {
    if (x > a.max) {
        a.sum = a.sum * expf(a.max - x) + 1.0f;
        a.max = x;
    } else {
        a.sum += expf(x - a.max);
    }
    return a;
}
static softmax_acc softmax_merge(softmax_acc a, softmax_acc b) {
    if (a.max == -INFINITY) return b;
    if (b.max == -INFINITY) return a;
    softmax_acc r;
    r.max = a.max > b.max ? a.max : b.max;
    r.sum = a.sum * expf(a.max - r.max) + b.sum * expf(b.max - r.max);
    return r;
}
static float softmax_result(softmax_acc a, int64_t count) { return (void)count, a.sum; }

#endif
