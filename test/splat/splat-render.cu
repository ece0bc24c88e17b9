// The rasterizer demo (demos/splat): meshad's gradient of the per-tile
// rendering kernel (front-to-back blending, early termination, alpha
// clamped) and the hand-written gsplat-style backward, both against central
// differences on a small scene with empty tiles, a partial tile row and
// column, and pixels that terminate early; on the CPU emulation. The
// gradient keeps no tape: the transmittance recurrence is undone by
// division, the loop's locals and branches are recomputed, the early exit
// is one flag per thread.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -I%test_inputs %S/../../demos/splat/splat.cu -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: FileCheck %s --check-prefix=REMARK < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
//
// CHECK-LABEL: __global__ void renderTiles_grad(int width, int height, const int *ranges, const int *ids, const double *means, const double *conics, const double *colours, const double *opacities, double *image, double *finalT, int *walked, double *_d_means, double *_d_conics, double *_d_colours, double *_d_opacities, double *_d_image, double *_d_finalT) {
// CHECK-NOT: meshad::Tape
// CHECK: bool _cond0 = false;
// CHECK: for (k = begin; k < end; ++k) {
// CHECK: meshad::checkUndoable(T, nextT);
// CHECK-NEXT: T = nextT;
// CHECK: for (; _cnt0 > 0; --_cnt0) {
// CHECK-NEXT: k = begin + (_cnt0 - 1);
// CHECK: alpha = fmin(0.99, opacities[id] * exp(power));
// CHECK-NEXT: _cond1 = alpha < 1.0 / 255;
// CHECK: if (!_cond0) {
// CHECK-NEXT: T /= 1 - alpha;
// CHECK: weight = alpha * T;
// CHECK: _cond0 = false;
// CHECK-NOT: meshad::pop
// CHECK: {{^}}}
//
// REMARK: Splat.h:{{[0-9]+}}:5: remark: recurrence of 'T' undone by its inverse in the reverse sweep (divided by its factor), not taped: the factor lies in [0.01, inf]
// REMARK: Splat.h:{{[0-9]+}}:5: remark: early exit of the loop recorded once per thread (the reverse sweep starts at the iteration that left), not taped per iteration
//
// NUM: {{[0-9]+}} pixels terminated early
// NUM-NOT: FAIL
// NUM: numeric checks: 308 passed, 0 failed
