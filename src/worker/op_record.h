#pragma once
// The C interface of libheadroom_op_record.so (op_record.cpp): the operator record behind
// `torch_fallback`, kept in C++ (docs/eval.md, "Verdicts"). The library is built against the C++
// API of the PyTorch the worker's Python imports; the worker is built against none, loads the
// library once torch is imported (op_record_loader.hpp), and reaches it through these functions
// only, so no C++ type crosses between two builds.
#ifdef __cplusplus
extern "C" {
#endif

// Starts a record: from now on every operator PyTorch's dispatcher runs, on any thread of the
// process, is noted. Returns 0, or -1 when PyTorch refused the callback.
int headroom_op_record_arm(void);

// Ends the record. Returns what its check found, as bits: headroom_op_record_lost_here when an
// observed function run on the calling thread at the end was not recorded because PyTorch's
// RecordFunction was switched off on that thread; headroom_op_record_lost_elsewhere when it was not
// recorded on a new thread either (the callback was removed or disabled for the whole process);
// headroom_op_record_unchecked beside lost_here when no new thread could be started to tell.
int headroom_op_record_disarm(void);
#define headroom_op_record_lost_here 1
#define headroom_op_record_lost_elsewhere 2
#define headroom_op_record_unchecked 4

// The names the last record noted, one per line ("relu", "_softmax"; operators outside the aten
// namespace keep theirs: "my_ext::relu"), valid until the next arm. headroom_op_record_dispatched:
// every operator dispatched; headroom_op_record_outer: those a Python dispatch mode would have
// seen, the outermost kernel of each nest (an operator that CompositeImplicitAutograd decomposes is
// not a kernel: its parts are seen instead). The _sized lists name each operator with the elements
// each of its tensor operands reads, in argument order ("div(2097152,512)"; a dimension broadcast by
// a zero stride counts once), one line per distinct call.
const char* headroom_op_record_names(int which);
#define headroom_op_record_dispatched 0
#define headroom_op_record_outer 1
#define headroom_op_record_dispatched_sized 2
#define headroom_op_record_outer_sized 3

#ifdef __cplusplus
}
#endif
