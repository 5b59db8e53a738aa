/* Symbol visibility: the shared library exports only what carries TENSOR_API. */
#ifndef TENSOR_EXPORT_H
#define TENSOR_EXPORT_H

#if defined(TENSOR_STATIC_DEFINE) || defined(__CUDACC_RTC__)
/* (__CUDACC_RTC__: the run-time compiler reads these headers for their device code only.) */
#define TENSOR_API
#elif defined(_WIN32)
#if defined(TENSOR_BUILDING)
#define TENSOR_API __declspec(dllexport)
#else
#define TENSOR_API __declspec(dllimport)
#endif
#else
#define TENSOR_API __attribute__((visibility("default")))
#endif

#endif
