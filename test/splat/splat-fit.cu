// The Adam fitting demo (demos/splat-fit, issue 15 item 4) on the CPU
// emulation: meshad's gradient of the rasterizer's per-tile kernel seeded
// with dL/dimage of the mean squared error, checked against central
// differences in double on a tiny scene (--check: every mean, conic,
// colour and opacity of 6 Gaussians over a 20 x 18 target), then 64
// Gaussians fitted to the photo box-filtered to 32 x 32 for 150 steps: the
// loss must fall at least 4x, and the PNGs and the loss curve are written.
//
// RUN: %clangxx %cpu_cuda_flags -O1 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %S/../../demos/splat-fit/splat-fit.cu -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: rm -rf %t.out && mkdir -p %t.out
// RUN: %t --target %S/../../demos/splat-fit/astronaut-256.ppm --size 32 --gaussians 64 --steps 150 --out %t.out --check | FileCheck %s --check-prefix=NUM
// RUN: ls %t.out | FileCheck %s --check-prefix=FILES
//
// CHECK-LABEL: __global__ void renderTiles_grad(int width, int height, const int *ranges, const int *ids, const double *means, const double *conics, const double *colours, const double *opacities, double *image, double *finalT, int *walked, double *_d_means, double *_d_conics, double *_d_colours, double *_d_opacities, double *_d_image, double *_d_finalT) {
// CHECK-NOT: meshad::Tape
// CHECK: T /= 1 - alpha;
//
// NUM-NOT: FAIL
// NUM: PASS dL/dmeans[0]
// NUM: PASS dL/dopacities[5]
// NUM: 32x32 target, 64 Gaussians, 150 steps in {{.*}} s: loss {{.*}} ({{[0-9.]+}}x lower)
// NUM: PASS the loss falls at least 4x
// NUM: numeric checks: 55 passed, 0 failed
//
// FILES: fit.png
// FILES: loss.csv
// FILES: loss.png
// FILES: start.png
// FILES: target.png
