#include <stdio.h>

#include "runtime/device.h"
#include "runtime/error.h"

tensor_status tensor_device_check(tensor_device device, const char *func) {
    if (device.type == TENSOR_DEVICE_CPU) {
        if (device.index != 0)
            return tensor_error(TENSOR_ERR_DEVICE, "%s: CPU device index must be 0, got %d", func, device.index);
        return TENSOR_OK;
    }
    if (device.type == TENSOR_DEVICE_CUDA) {
        if (!tensor_cuda_is_built())
            return tensor_error(TENSOR_ERR_DEVICE, "%s: device cuda:%d requested but tinytensor was built without CUDA",
                                func, device.index);
        int count = tensor_cuda_device_count();
        if (device.index < 0 || device.index >= count)
            return tensor_error(TENSOR_ERR_DEVICE, "%s: device cuda:%d is not available (%d CUDA device%s)", func,
                                device.index, count, count == 1 ? "" : "s");
        return TENSOR_OK;
    }
    return tensor_error(TENSOR_ERR_DEVICE, "%s: unknown device type %d", func, (int)device.type);
}

char *tensor_device_format(tensor_device device, char *buf, size_t size) {
    if (buf == NULL || size == 0) return buf;
    if (device.type == TENSOR_DEVICE_CPU)
        snprintf(buf, size, "cpu");
    else if (device.type == TENSOR_DEVICE_CUDA)
        snprintf(buf, size, "cuda:%d", device.index);
    else
        snprintf(buf, size, "unknown:%d", device.index);
    return buf;
}
