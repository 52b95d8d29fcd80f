"""Vector kernels over the pattern index rows, written as LLVM IR (Numba has no vector type):
a move's update of a row, one vector add per square that changes (as Egaroucid updates its
features), and the evaluation's table loads as gathers. The IR is the target's own: LLVM
lowers it to AVX-512 or AVX2 where the CPU has them and to scalar code elsewhere.

A row is a whole number of 16-lane chunks of int32 (``row_width``), so that every store
writes a whole chunk: a masked store, or stores of a few lanes, would keep the next load of
the row from taking the stored values straight from the store buffer (measured: 27% slower
search). The squares' deltas are uint16 rows of the same width.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from othellolab.players.search._pattern_tables import INSTANCE_OFFSET, N_INSTANCES

TABLE_SPARE = 1
"""Entries a gathered int16 table needs after its last (``instances_sum``)."""

CHUNK = 16
"""Lanes of one vector: int32 lanes of a 512-bit register (two of 256 on AVX2)."""

_I1 = ir.IntType(1)
_I16 = ir.IntType(16)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_V32 = ir.VectorType(_I32, CHUNK)
_V16 = ir.VectorType(_I16, CHUNK)


def row_width(columns: int) -> int:
    """Int32 lanes of a row holding ``columns`` indices: whole chunks."""
    return -(-columns // CHUNK) * CHUNK


def aligned_zeros(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """``np.zeros(shape, dtype)`` starting on a 64-byte boundary (a cache line), so that rows of
    a multiple of 64 bytes put each vector in one line."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.zeros(nbytes + 64, dtype=np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start : start + nbytes].view(dtype).reshape(shape)


def _addresses(context: Any, builder: Any, signature: Any, args: Any) -> list[Any]:
    return [
        context.cast(builder, a, t, types.int64) for a, t in zip(args, signature.args, strict=True)
    ]


def _splat(builder: Any, value: Any) -> Any:
    first = builder.insert_element(ir.Constant(_V32, ir.Undefined), value, _I32(0))
    return builder.shuffle_vector(
        first, ir.Constant(_V32, ir.Undefined), ir.Constant(_V32, [0] * CHUNK)
    )


def _load(builder: Any, address: Any, vector: ir.VectorType) -> Any:
    size = vector.element.width // 8
    return builder.load(builder.inttoptr(address, vector.as_pointer()), align=size)


def _row_update(chunks: int) -> Any:
    """The intrinsic ``update(dst, src, deltas, sq, flips, place, sign)`` for rows of
    ``chunks`` chunks (addresses as integers): row ``dst`` becomes row ``src`` plus ``place``
    times square ``sq``'s delta row plus ``sign`` times the delta rows of the squares of
    ``flips``, summed in registers and stored once. ``deltas`` holds 64 uint16 rows of the
    rows' width."""
    width = chunks * CHUNK

    @intrinsic
    def update(
        typingctx: Any, dst: Any, src: Any, deltas: Any, sq: Any, flips: Any, place: Any, sign: Any
    ) -> Any:
        sig = types.void(dst, src, deltas, sq, flips, place, sign)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            dst, src, deltas, sq, flips, place, sign = _addresses(context, builder, signature, args)

            def delta_row(square: Any) -> list[Any]:
                row = builder.add(deltas, builder.mul(square, _I64(2 * width)))
                return [
                    builder.zext(_load(builder, builder.add(row, _I64(2 * CHUNK * c)), _V16), _V32)
                    for c in range(chunks)
                ]

            times = _splat(builder, builder.trunc(place, _I32))
            start = [
                builder.add(
                    _load(builder, builder.add(src, _I64(4 * CHUNK * c)), _V32),
                    builder.mul(d, times),
                )
                for c, d in enumerate(delta_row(sq))
            ]
            signs = _splat(builder, builder.trunc(sign, _I32))
            entry = builder.block
            loop = builder.append_basic_block("rows.loop")
            body = builder.append_basic_block("rows.flip")
            done = builder.append_basic_block("rows.done")
            builder.branch(loop)
            builder.position_at_end(loop)
            acc = [builder.phi(_V32) for _ in range(chunks)]  # one legal vector type each
            left = builder.phi(_I64)
            for a, s in zip(acc, start, strict=True):
                a.add_incoming(s, entry)
            left.add_incoming(flips, entry)
            builder.cbranch(builder.icmp_unsigned("!=", left, _I64(0)), body, done)
            builder.position_at_end(body)
            cttz = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(_I64, [_I64, _I1]), "llvm.cttz.i64"
            )
            square = builder.call(cttz, [left, _I1(1)])
            for a, d in zip(acc, delta_row(square), strict=True):
                a.add_incoming(builder.add(a, builder.mul(d, signs)), body)
            left.add_incoming(builder.and_(left, builder.sub(left, _I64(1))), body)
            builder.branch(loop)
            builder.position_at_end(done)
            for c, a in enumerate(acc):
                ptr = builder.inttoptr(builder.add(dst, _I64(4 * CHUNK * c)), _V32.as_pointer())
                builder.store(a, ptr, align=4)
            return context.get_dummy_value()

        return sig, codegen

    return update


update_row_48 = _row_update(3)
update_row_64 = _row_update(4)


class _VectorGep(ir.instructions.Instruction):
    """``getelementptr`` of one base pointer and a vector of indices (a vector of pointers,
    which a gather takes), which llvmlite's builder does not emit."""

    def __init__(self, parent: Any, element: Any, base: Any, indices: Any) -> None:
        typ = ir.VectorType(element.as_pointer(), indices.type.count)
        super().__init__(parent, typ, "getelementptr", [base, indices])
        self.element = element

    def descr(self, buf: list[str]) -> None:
        base, indices = self.operands
        buf.append(
            f"getelementptr {self.element}, {base.type} {base.get_reference()}, "
            f"{indices.type} {indices.get_reference()}\n"
        )


@intrinsic
def instances_sum(typingctx: Any, table: Any, row: Any) -> Any:
    """``instances_sum(table, row)`` (addresses as integers): the int32 sum over the 46 pattern
    instances ``j`` of the int16 ``table[INSTANCE_OFFSET[j] + row[j]]``, as three 16-lane
    gathers. Each lane reads 4 bytes from its entry's address and keeps the low 2 (no gather
    reads 2-byte elements), so the table needs ``TABLE_SPARE`` entries after its last
    (``evaluation.pattern_units`` pads its rows); ``row`` must hold 48 int32 (its spare lanes are not
    read from the table)."""
    sig = types.int32(table, row)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        table, row = _addresses(context, builder, signature, args)
        base = builder.inttoptr(table, _I16.as_pointer())
        mask_t = ir.VectorType(_I1, CHUNK)
        gather = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(_V32, [ir.VectorType(_I32.as_pointer(), CHUNK), _I32, mask_t, _V32]),
            f"llvm.masked.gather.v{CHUNK}i32.v{CHUNK}p0i32",
        )
        total = ir.Constant(_V32, [0] * CHUNK)
        for c in range(row_width(N_INSTANCES) // CHUNK):
            lanes = range(c * CHUNK, (c + 1) * CHUNK)
            offsets = [int(INSTANCE_OFFSET[j]) if j < N_INSTANCES else 0 for j in lanes]
            index = builder.add(
                _load(builder, builder.add(row, _I64(4 * CHUNK * c)), _V32),
                ir.Constant(_V32, offsets),
            )
            where = _VectorGep(
                builder.block, _I16, base, builder.sext(index, ir.VectorType(_I64, CHUNK))
            )
            builder._insert(where)
            words = builder.bitcast(where, ir.VectorType(_I32.as_pointer(), CHUNK))
            live = ir.Constant(mask_t, [int(j < N_INSTANCES) for j in lanes])
            got = builder.call(gather, [words, _I32(2), live, ir.Constant(_V32, [0] * CHUNK)])
            total = builder.add(total, builder.sext(builder.trunc(got, _V16), _V32))
        reduce = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(_I32, [_V32]), f"llvm.vector.reduce.add.v{CHUNK}i32"
        )
        return builder.call(reduce, [total])

    return sig, codegen
