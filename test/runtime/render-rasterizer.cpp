// The render runtime (meshad/runtime/render/): known pixels of small scenes
// (a triangle seen orthographically and in perspective, the z-buffer in
// both drawing orders, flat against smooth shading, the wireframe,
// per-vertex colours), the UV checkerboard on a unit square, a flipped
// triangle in a UV layout, side-by-side panels, and PNG files that python3's
// zlib reads back pixel for pixel (test/Inputs/png_check.py).
//
// RUN: %clangxx -std=c++17 -I%I %s -o %t
// RUN: %t %t | FileCheck %s
// RUN: python3 %test_inputs/png_check.py %t.scene.png %t.scene.txt | FileCheck %s --check-prefix=PNG
// RUN: python3 %test_inputs/png_check.py %t.large.png %t.large.txt | FileCheck %s --check-prefix=PNG
// CHECK-NOT: FAIL
// CHECK: render checks: {{[1-9][0-9]*}} passed, 0 failed
// PNG: PNG OK

#include <meshad/runtime/render/Png.h>
#include <meshad/runtime/render/Rasterizer.h>

#include <cstdio>
#include <string>

using namespace meshad::render;

static int Passed = 0, Failed = 0;

static void check(bool Ok, const std::string &What) {
  if (!Ok)
    std::printf("FAIL %s\n", What.c_str());
  (Ok ? Passed : Failed)++;
}

static std::string str(Rgb C) {
  return "(" + std::to_string(C.R) + ", " + std::to_string(C.G) + ", " +
         std::to_string(C.B) + ")";
}

static void checkPixel(const Image &Img, int X, int Y, Rgb Want,
                       const std::string &What) {
  Rgb Got = Img.get(X, Y);
  check(Got == Want, What + ": pixel (" + std::to_string(X) + ", " +
                         std::to_string(Y) + ") is " + str(Got) + ", want " +
                         str(Want));
}

/// A camera looking along -Z, 1 pixel per unit, the origin at the image's
/// centre.
static Camera unitCamera(int W, int H, Projection P = Projection::Orthographic) {
  Camera Cam;
  Cam.Width = W;
  Cam.Height = H;
  Cam.Proj = P;
  Cam.Eye[2] = 10;
  Cam.Scale = P == Projection::Orthographic ? 1 : 10;
  return Cam;
}

static RenderOptions unlit(Rgb C) {
  RenderOptions Opt;
  Opt.Colour = C;
  Opt.Ambient = 1; // shading factor 1: the colour itself
  return Opt;
}

static void oneTriangle() {
  // Right triangle with legs of 10 pixels from the centre (16, 16): screen
  // corners (16, 16), (26, 16), (16, 6).
  std::vector<double> X = {0, 0, 0, 10, 0, 0, 0, 10, 0};
  std::vector<int> Tris = {0, 1, 2};
  Rgb Red{200, 0, 0}, White{255, 255, 255};
  for (Projection P : {Projection::Orthographic, Projection::Perspective}) {
    std::string Tag = P == Projection::Orthographic ? "ortho" : "perspective";
    Image Img = renderMesh(X, Tris, unitCamera(32, 32, P), unlit(Red));
    checkPixel(Img, 17, 14, Red, Tag + " inside");
    checkPixel(Img, 24, 15, Red, Tag + " inside near a corner");
    checkPixel(Img, 15, 14, White, Tag + " left of the triangle");
    checkPixel(Img, 24, 10, White, Tag + " beyond the hypotenuse");
    checkPixel(Img, 17, 17, White, Tag + " below the triangle");
  }
  // Perspective: the same triangle twice as far away is half as large.
  std::vector<double> Far = {0, 0, -10, 10, 0, -10, 0, 10, -10};
  Image Img = renderMesh(Far, Tris, unitCamera(32, 32, Projection::Perspective),
                         unlit(Red));
  checkPixel(Img, 20, 15, Red, "perspective, far: inside");
  checkPixel(Img, 22, 15, White, "perspective, far: beyond its half size");
}

static void zBuffer() {
  // A red square at z = 0 and a blue one at z = 1 (nearer) overlapping on
  // x in [0, 5]: blue wins there in either drawing order.
  std::vector<double> X = {-5, -5, 0, 5,  -5, 0, 5,  5, 0, -5, 5, 0,
                           0,  -5, 1, 10, -5, 1, 10, 5, 1, 0,  5, 1};
  std::vector<Rgb> Col = {{200, 0, 0}, {200, 0, 0}, {200, 0, 0}, {200, 0, 0},
                          {0, 0, 200}, {0, 0, 200}, {0, 0, 200}, {0, 0, 200}};
  std::vector<int> RedFirst = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7};
  std::vector<int> BlueFirst = {4, 5, 6, 4, 6, 7, 0, 1, 2, 0, 2, 3};
  RenderOptions Opt = unlit({});
  Opt.VertexColours = &Col;
  for (const auto *Order : {&RedFirst, &BlueFirst}) {
    std::string Tag = Order == &RedFirst ? "red first" : "blue first";
    Image Img = renderMesh(X, *Order, unitCamera(40, 40), Opt);
    checkPixel(Img, 17, 20, {200, 0, 0}, Tag + ": red alone");
    checkPixel(Img, 22, 20, {0, 0, 200}, Tag + ": blue in front");
    checkPixel(Img, 28, 20, {0, 0, 200}, Tag + ": blue alone");
  }
}

static void shadingAndWires() {
  // Two triangles folded along the y axis: flat shading gives one value per
  // face, smooth shading varies across a face; a wire follows each edge.
  std::vector<double> X = {0, -8, 0, 8, -8, 4, 0, 8, 0, -8, -8, 4, -8, 8, 4,
                           8, 8, 4};
  std::vector<int> Tris = {0, 1, 2, 1, 5, 2, 3, 0, 2, 3, 2, 4};
  RenderOptions Opt;
  Opt.Colour = {200, 200, 200};
  Opt.Light[0] = 0; // light from the camera: mirrored faces alike
  Opt.Light[1] = 0;
  Image Flat = renderMesh(X, Tris, unitCamera(40, 40), Opt);
  check(Flat.get(24, 22) == Flat.get(26, 24), "flat: one colour per face");
  check(Flat.get(24, 22) == Flat.get(15, 22), "flat: mirrored faces alike");
  Opt.Shade = Shading::Smooth;
  Image Smooth = renderMesh(X, Tris, unitCamera(40, 40), Opt);
  check(Smooth.get(21, 22) != Smooth.get(27, 22),
        "smooth: the shade varies across a face");
  Opt.Wireframe = true;
  Image Wires = renderMesh(X, Tris, unitCamera(40, 40), Opt);
  checkPixel(Wires, 20, 25, Opt.WireColour, "wireframe on the fold x = 0");
  check(Wires.get(24, 25) != Opt.WireColour, "no wire inside a face");
}

static void checkerboard() {
  // The unit square, UV = XY, cells of 0.5: 2 x 2 cells, light at (0, 0).
  std::vector<double> UV = {0, 0, 1, 0, 1, 1, 0, 1};
  std::vector<int> Tris = {0, 1, 2, 0, 2, 3};
  RenderOptions Opt;
  Opt.UV = &UV;
  Opt.CheckerSize = 0.5;
  Image Img = renderUv(UV, Tris, 100, 100, Opt);
  // The square's diagonal (half a unit from its centre) spans 0.9 * 50
  // pixels: the square covers [18.2, 81.8] on both axes, v up.
  checkPixel(Img, 30, 70, Opt.CheckerLight, "checker cell (0, 0)");
  checkPixel(Img, 70, 70, Opt.CheckerDark, "checker cell (1, 0)");
  checkPixel(Img, 30, 30, Opt.CheckerDark, "checker cell (0, 1)");
  checkPixel(Img, 70, 30, Opt.CheckerLight, "checker cell (1, 1)");
  checkPixel(Img, 10, 50, Opt.Background, "outside the square");
  // A flipped triangle (clockwise in UV) is drawn in the flipped colour.
  std::vector<int> Flipped = {0, 2, 1, 0, 2, 3};
  Image F = renderUv(UV, Flipped, 100, 100, Opt);
  checkPixel(F, 70, 60, Opt.FlippedColour, "flipped triangle");
  checkPixel(F, 30, 30, Opt.CheckerDark, "unflipped triangle");
}

static void dumpPixels(const Image &Img, const std::string &Path) {
  std::FILE *F = std::fopen(Path.c_str(), "w");
  std::fprintf(F, "%d %d\n", Img.width(), Img.height());
  for (int Y = 0; Y < Img.height(); ++Y)
    for (int X = 0; X < Img.width(); ++X) {
      Rgb C = Img.get(X, Y);
      std::fprintf(F, "%d %d %d\n", C.R, C.G, C.B);
    }
  std::fclose(F);
}

static void panelsAndPng(const std::string &Out) {
  Image A(20, 10, {255, 0, 0}), B(30, 16, {0, 255, 0});
  Image Both = sideBySide({A, B}, 4, {0, 0, 0});
  check(Both.width() == 54 && Both.height() == 16, "side by side: size");
  checkPixel(Both, 19, 9, {255, 0, 0}, "left panel");
  checkPixel(Both, 22, 5, {0, 0, 0}, "gap");
  checkPixel(Both, 24, 15, {0, 255, 0}, "right panel");
  checkPixel(Both, 5, 12, {0, 0, 0}, "below the shorter panel");
  std::vector<double> UV = {0, 0, 1, 0, 1, 1, 0, 1};
  std::vector<int> Tris = {0, 1, 2, 0, 2, 3};
  RenderOptions Opt;
  Opt.UV = &UV;
  Opt.Wireframe = true;
  Image Scene = sideBySide({renderUv(UV, Tris, 48, 40, Opt), Both});
  writePng(Out + ".scene.png", Scene);
  dumpPixels(Scene, Out + ".scene.txt");
  // More than one 64 KiB window and long runs: LZ77 matches at every
  // distance class.
  Image Large(400, 300);
  for (int Y = 0; Y < 300; ++Y)
    for (int X = 0; X < 400; ++X)
      if ((X / 7 + Y / 5) % 3)
        Large.set(X, Y, {uint8_t(X), uint8_t(Y), uint8_t(X ^ Y)});
  writePng(Out + ".large.png", Large);
  dumpPixels(Large, Out + ".large.txt");
}

int main(int Argc, char **Argv) {
  oneTriangle();
  zBuffer();
  shadingAndWires();
  checkerboard();
  panelsAndPng(Argc > 1 ? Argv[1] : "render");
  std::printf("render checks: %d passed, %d failed\n", Passed, Failed);
  return Failed != 0;
}
