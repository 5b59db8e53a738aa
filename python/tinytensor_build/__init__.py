"""Build-time helpers of the tinytensor Python package (not installed): the cdef generated
from the C headers (cdef.py) and the cffi builder (ffi.py)."""
