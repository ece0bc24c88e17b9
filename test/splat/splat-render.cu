// The rasterizer demo (demos/splat): meshad's gradient of the per-tile
// rendering kernel (front-to-back blending, early termination, alpha
// clamped), also with meshad::AfterPrimal (no forward loop: the final T and
// where each pixel stopped read back from the forward's outputs), and the
// hand-written gsplat-style backward, each against central
// differences on a small scene with empty tiles, a partial tile row and
// column, and pixels that terminate early; on the CPU emulation. The
// gradient keeps no tape: the transmittance recurrence is undone by
// division, the loop's locals and branches are recomputed, the early exit
// is one flag per thread. The adds into the Gaussians' gradients are summed
// per warp, the reverse loop run in step across each warp, the nine adds
// of an iteration in one shuffle tree, their addresses through the key id
// (issue 15).
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
// CHECK: _steps = _cnt0;
// CHECK: for (int _step = meshad::warpMaxSteps(_steps); _step > 0; --_step) {
// CHECK: if (_step <= _steps) {
// CHECK-NEXT: k = begin + (_cnt0 - 1);
// CHECK-NEXT: id = ids[k];
// CHECK-NEXT: _key = id;
// CHECK: alpha = fmin(0.99, opacities[id] * exp(power));
// CHECK-NEXT: _cond1 = alpha < 1.0 / 255;
// CHECK: if (!_cond0) {
// CHECK-NEXT: T /= 1 - alpha;
// CHECK: weight = alpha * T;
// CHECK: _d_colours_sum = _r{{[0-9]+}} * weight;
// CHECK: _cond0 = false;
// CHECK-NOT: meshad::pop
// CHECK-NOT: atomicAdd
// CHECK: --_cnt0;
// CHECK: meshad::warpKeyedAdds(_key, _d_colours, 3, 2, _d_colours_sum, _d_colours, 3, 1, _d_colours_sum1, _d_colours, 3, 0, _d_colours_sum2, _d_opacities, 1, 0, _d_opacities_sum, _d_conics, 3, 0, _d_conics_sum, _d_conics, 3, 2, _d_conics_sum1, _d_conics, 3, 1, _d_conics_sum2, _d_means, 2, 1, _d_means_sum, _d_means, 2, 0, _d_means_sum1);
// CHECK-NOT: warpUniformAdd
// CHECK: {{^}}}
// CHECK-LABEL: __global__ void renderTiles_grad_after_primal(
// CHECK-NOT: for (k = begin
// CHECK: pix = py * width + px;
// CHECK-NEXT: T = finalT[pix];
// CHECK-NEXT: _cnt0 = walked[pix];
// CHECK-NEXT: _cond0 = _cnt0 < end - begin;
// CHECK: for (int _step = meshad::warpMaxSteps(_steps); _step > 0; --_step) {
// CHECK: meshad::checkRestored(T);
// CHECK-NEXT: T /= 1 - alpha;
// CHECK: meshad::warpKeyedAdds(_key,
// CHECK: {{^}}}
//
// REMARK: Splat.h:{{[0-9]+}}:5: remark: recurrence of 'T' undone by its inverse in the reverse sweep (divided by its factor), not taped: the factor lies in [0.01, inf]
// REMARK: Splat.h:{{[0-9]+}}:5: remark: early exit of the loop recorded once per thread (the reverse sweep starts at the iteration that left), not taped per iteration
// REMARK: Splat.h:{{[0-9]+}}:10: remark: adjoint store to 'colours': summed per warp, one atomicAdd per warp and iteration (the address colours[3 * id + 2] is the same in every thread at an iteration of the reverse loop; the loop runs in step across the warp, from its largest trip count, lanes past their own count or outside the guard adding nothing; the iteration's adds of one type summed in one shuffle tree, skipped by a warp whose lanes all add zero; the addresses as 32-bit offsets from the key 'id', checked once per iteration)
// REMARK: Splat.h:{{[0-9]+}}:3: remark: loop not run again by the gradient (meshad::AfterPrimal): the values its reverse sweep needs are read back from what the primal stored ('T' from 'finalT', the trip count and the early exit from 'walked')
//
// NUM: {{[0-9]+}} pixels terminated early
// NUM-NOT: FAIL
// NUM: numeric checks: 461 passed, 0 failed
