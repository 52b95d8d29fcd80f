"""Compilation helpers for the search kernels of the layers above ``core``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numba
from llvmlite import binding, ir
from numba.core import cgutils, types
from numba.extending import intrinsic

F = TypeVar("F", bound=Callable[..., Any])


def hot_kernel(**options: Any) -> Callable[[F], F]:
    """``numba.njit(cache=True)`` without reference counting, for search kernels that take
    arrays but never allocate one: Numba otherwise may increment and decrement (atomically) the
    count of every array argument on entry to and exit from a recursive kernel, about a tenth
    of the exact solver's time. Numba refuses to compile an allocation in such a kernel."""

    def wrap(fn: F) -> F:
        return numba.njit(cache=True, _nrt=False, **options)(fn)  # type: ignore[no-any-return]

    return wrap


@intrinsic
def prefetch(typingctx: Any, array: Any, index: Any) -> Any:
    """``prefetch(array, i)`` inside a kernel: ask the CPU to bring the cache line of ``array[i]``
    (the first element of row ``i`` of a 2-D array) closer, without waiting for it and without
    any effect on the results. A search that will soon probe several transposition-table slots
    prefetches them all first, so that their memory latencies overlap instead of adding up.
    The index must be within bounds (it is not checked)."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None
    sig = types.void(array, index)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        i = context.cast(builder, args[1], signature.args[1], types.intp)
        zero = context.get_constant(types.intp, 0)
        ptr = cgutils.get_item_pointer2(
            context,
            builder,
            data=ary.data,
            shape=cgutils.unpack_tuple(builder, ary.shape),
            strides=cgutils.unpack_tuple(builder, ary.strides),
            layout=aryty.layout,
            inds=[i] + [zero] * (aryty.ndim - 1),
            wraparound=False,
            boundscheck=False,
        )
        i8p = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # read access, high temporal locality (keep in all cache levels), data cache
        builder.call(fn, [i8p, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


HAS_PEXT = "+bmi2" in binding.get_host_cpu_features().flatten().split(",")
"""This CPU has BMI2's ``pext`` (fast or not)."""

FAST_PEXT = HAS_PEXT and not binding.get_host_cpu_name().startswith(("znver1", "znver2", "bdver"))
"""Kernels may use ``pext``: this CPU runs it in a few cycles (Intel since Haswell and AMD since
Zen 3 do; AMD's Excavator, Zen 1 and Zen 2 have it in microcode, tens to hundreds of cycles).
The kernels' choice is fixed when they compile; Numba's cache is per CPU."""


@intrinsic
def pext(typingctx: Any, x: Any, mask: Any) -> Any:
    """``pext(x, mask)`` inside a kernel: the bits of ``x`` under ``mask``, packed into the low
    bits in order (BMI2's parallel bit extract). Only for kernels compiled where ``FAST_PEXT``
    holds: elsewhere it is slow or missing."""
    if not isinstance(x, types.Integer) or not isinstance(mask, types.Integer):
        return None
    sig = types.uint64(x, mask)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        i64 = ir.IntType(64)
        x, mask = (
            context.cast(builder, a, t, types.uint64)
            for a, t in zip(args, signature.args, strict=True)
        )
        fnty = ir.FunctionType(i64, [i64, i64])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.bmi.pext.64")
        return builder.call(fn, [x, mask])

    return sig, codegen


@intrinsic
def array_at(typingctx: Any, address: Any, shape: Any, strides: Any, dtype: Any) -> Any:
    """``array_at(address, shape, strides, dtype)`` inside a kernel: the array of ``dtype`` and
    ``shape`` (a tuple of integers) whose data start at ``address`` (an integer: an array's
    ``ctypes.data``), C-contiguous where ``strides`` is None, else with those strides in bytes;
    it has no owner, so the caller keeps the array it points into alive. A recursive kernel
    that takes one array of addresses instead of a dozen arrays passes a few words a call
    instead of a hundred (Numba passes an array as seven words and two a dimension)."""
    if not isinstance(address, types.Integer) or not isinstance(shape, types.UniTuple):
        return None
    if not isinstance(shape.dtype, types.Integer) or not isinstance(dtype, types.NumberClass):
        return None
    contiguous = isinstance(strides, types.NoneType)
    if not contiguous and not (
        isinstance(strides, types.UniTuple)
        and isinstance(strides.dtype, types.Integer)
        and strides.count == shape.count
    ):
        return None
    arrty = types.Array(dtype.instance_type, shape.count, "C" if contiguous else "A")
    sig = arrty(address, shape, strides, dtype)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        from numba.np.arrayobj import populate_array

        intp = context.get_value_type(types.intp)

        def unpack(value: Any, tupty: Any) -> list[Any]:
            return [
                context.cast(builder, v, tupty.dtype, types.intp)
                for v in cgutils.unpack_tuple(builder, value, tupty.count)
            ]

        dims = unpack(args[1], signature.args[1])
        itemty = context.get_data_type(arrty.dtype)
        itemsize = ir.Constant(intp, context.get_abi_sizeof(itemty))
        if contiguous:
            steps = []
            step = itemsize
            for d in reversed(dims):
                steps.append(step)
                step = builder.mul(step, d)
            steps.reverse()
        else:
            steps = unpack(args[2], signature.args[2])
        ary = context.make_array(arrty)(context, builder)
        addr = context.cast(builder, args[0], signature.args[0], types.intp)
        data = builder.inttoptr(addr, itemty.as_pointer())
        populate_array(ary, data=data, shape=dims, strides=steps, itemsize=itemsize, meminfo=None)
        return ary._getvalue()

    return sig, codegen
