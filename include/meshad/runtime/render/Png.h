//===- meshad/runtime/render/Png.h - Images and a PNG writer ----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// An RGB image and a PNG writer with no dependency: the rows (filter
/// "none") are compressed into one deflate block with the fixed Huffman code
/// and greedy LZ77 matches (RFC 1951), in a zlib stream with its Adler-32,
/// each chunk with its CRC32. Rendered meshes (flat backgrounds, repeated
/// colours) shrink to a fraction of their 3 bytes a pixel.
///
/// \code
///   #include <meshad/runtime/render/Png.h>
///   meshad::render::Image Img(64, 32, {255, 255, 255});
///   Img.set(10, 5, {255, 0, 0});
///   meshad::render::writePng("out.png", Img);   // throws on an I/O error
/// \endcode
///
/// Header-only, host code.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_RENDER_PNG_H
#define MESHAD_RUNTIME_RENDER_PNG_H

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace meshad {
namespace render {

/// An 8-bit RGB colour.
struct Rgb {
  uint8_t R = 0, G = 0, B = 0;
  bool operator==(const Rgb &O) const {
    return R == O.R && G == O.G && B == O.B;
  }
  bool operator!=(const Rgb &O) const { return !(*this == O); }
};

/// Width x Height RGB pixels, row 0 at the top.
class Image {
public:
  Image() = default;
  Image(int Width, int Height, Rgb Background = {255, 255, 255})
      : W(Width), H(Height), Pixels(size_t(Width) * Height, Background) {}

  int width() const { return W; }
  int height() const { return H; }
  bool contains(int X, int Y) const { return X >= 0 && Y >= 0 && X < W && Y < H; }
  Rgb get(int X, int Y) const { return Pixels[size_t(Y) * W + X]; }
  void set(int X, int Y, Rgb C) {
    if (contains(X, Y))
      Pixels[size_t(Y) * W + X] = C;
  }
  /// Copies Src with its top-left corner at (X0, Y0), clipped.
  void paste(const Image &Src, int X0, int Y0) {
    for (int Y = 0; Y < Src.height(); ++Y)
      for (int X = 0; X < Src.width(); ++X)
        set(X0 + X, Y0 + Y, Src.get(X, Y));
  }

private:
  int W = 0, H = 0;
  std::vector<Rgb> Pixels;
};

/// Panels left to right, separated by Gap pixels of Background, top-aligned.
inline Image sideBySide(const std::vector<Image> &Panels, int Gap = 8,
                        Rgb Background = {255, 255, 255}) {
  int W = 0, H = 0;
  for (const Image &P : Panels) {
    W += P.width() + (W ? Gap : 0);
    H = P.height() > H ? P.height() : H;
  }
  Image Out(W, H, Background);
  int X = 0;
  for (const Image &P : Panels) {
    Out.paste(P, X, 0);
    X += P.width() + Gap;
  }
  return Out;
}

namespace detail {

inline uint32_t crc32(const uint8_t *Data, size_t Size, uint32_t Crc = 0) {
  static uint32_t Table[256];
  static bool Ready = false;
  if (!Ready) {
    for (uint32_t N = 0; N < 256; ++N) {
      uint32_t C = N;
      for (int K = 0; K < 8; ++K)
        C = (C & 1) ? 0xEDB88320u ^ (C >> 1) : C >> 1;
      Table[N] = C;
    }
    Ready = true;
  }
  Crc = ~Crc;
  for (size_t I = 0; I < Size; ++I)
    Crc = Table[(Crc ^ Data[I]) & 0xFF] ^ (Crc >> 8);
  return ~Crc;
}

inline uint32_t adler32(const uint8_t *Data, size_t Size) {
  uint32_t A = 1, B = 0;
  for (size_t I = 0; I < Size; ++I) {
    A = (A + Data[I]) % 65521u;
    B = (B + A) % 65521u;
  }
  return (B << 16) | A;
}

inline void putBigEndian(std::vector<uint8_t> &Out, uint32_t V) {
  for (int S = 24; S >= 0; S -= 8)
    Out.push_back(uint8_t(V >> S));
}

/// Appends a chunk: length, type, data, CRC32 of type and data.
inline void putChunk(std::vector<uint8_t> &Out, const char *Type,
                     const std::vector<uint8_t> &Data) {
  putBigEndian(Out, uint32_t(Data.size()));
  size_t Start = Out.size();
  Out.insert(Out.end(), Type, Type + 4);
  Out.insert(Out.end(), Data.begin(), Data.end());
  putBigEndian(Out, crc32(Out.data() + Start, Out.size() - Start));
}

/// Writes bits least significant first, as deflate does.
class BitWriter {
public:
  explicit BitWriter(std::vector<uint8_t> &Out) : Out(Out) {}
  void put(uint32_t Bits, int Count) {
    for (int I = 0; I < Count; ++I) {
      Acc |= ((Bits >> I) & 1u) << Used;
      if (++Used == 8)
        flush();
    }
  }
  /// A Huffman code: its bits go most significant first.
  void putCode(uint32_t Code, int Length) {
    for (int I = Length - 1; I >= 0; --I)
      put((Code >> I) & 1u, 1);
  }
  void flush() {
    if (Used)
      Out.push_back(uint8_t(Acc));
    Acc = 0;
    Used = 0;
  }

private:
  std::vector<uint8_t> &Out;
  uint32_t Acc = 0;
  int Used = 0;
};

/// A literal/length symbol in deflate's fixed Huffman code (RFC 1951 3.2.6).
inline void putFixedSymbol(BitWriter &Bits, int Sym) {
  if (Sym < 144)
    Bits.putCode(0x30 + Sym, 8);
  else if (Sym < 256)
    Bits.putCode(0x190 + Sym - 144, 9);
  else if (Sym < 280)
    Bits.putCode(Sym - 256, 7);
  else
    Bits.putCode(0xC0 + Sym - 280, 8);
}

/// A match of Length (3..258) bytes, Distance (1..32768) back.
inline void putMatch(BitWriter &Bits, int Length, int Distance) {
  static const int LenBase[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                  15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                  67, 83, 99, 115, 131, 163, 195, 227, 258};
  static const int LenExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1,
                                   1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
                                   4, 4, 4, 4, 5, 5, 5, 5, 0};
  static const int DistBase[30] = {
      1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
      33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
      1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
  int L = 28;
  while (LenBase[L] > Length)
    --L;
  putFixedSymbol(Bits, 257 + L);
  Bits.put(Length - LenBase[L], LenExtra[L]);
  int D = 29;
  while (DistBase[D] > Distance)
    --D;
  Bits.putCode(D, 5);
  Bits.put(Distance - DistBase[D], D < 4 ? 0 : D / 2 - 1);
}

/// A zlib stream of one deflate block with the fixed Huffman code, greedy
/// LZ77 matches found through hash chains (at most 32 candidates).
inline std::vector<uint8_t> zlibCompress(const std::vector<uint8_t> &Raw) {
  std::vector<uint8_t> Z = {0x78, 0x01};
  BitWriter Bits(Z);
  Bits.put(1, 1); // the last block
  Bits.put(1, 2); // fixed Huffman codes
  const int Window = 32768, HashSize = 1 << 15;
  std::vector<int> Head(HashSize, -1), Prev(Raw.size(), -1);
  auto hashAt = [&](size_t P) {
    return ((Raw[P] << 10) ^ (Raw[P + 1] << 5) ^ Raw[P + 2]) & (HashSize - 1);
  };
  auto insert = [&](size_t P) {
    if (P + 2 < Raw.size()) {
      int H = hashAt(P);
      Prev[P] = Head[H];
      Head[H] = int(P);
    }
  };
  size_t P = 0;
  while (P < Raw.size()) {
    int Best = 0, BestDist = 0;
    if (P + 2 < Raw.size()) {
      int Max = int(Raw.size() - P < 258 ? Raw.size() - P : 258);
      int Cand = Head[hashAt(P)];
      for (int Tries = 0; Cand >= 0 && Tries < 32 && int(P) - Cand <= Window;
           ++Tries, Cand = Prev[Cand]) {
        int L = 0;
        while (L < Max && Raw[Cand + L] == Raw[P + L])
          ++L;
        if (L > Best) {
          Best = L;
          BestDist = int(P) - Cand;
        }
      }
    }
    if (Best >= 3) {
      putMatch(Bits, Best, BestDist);
      for (int I = 0; I < Best; ++I)
        insert(P + I);
      P += Best;
    } else {
      putFixedSymbol(Bits, Raw[P]);
      insert(P);
      ++P;
    }
  }
  putFixedSymbol(Bits, 256); // end of block
  Bits.flush();
  putBigEndian(Z, adler32(Raw.data(), Raw.size()));
  return Z;
}

} // namespace detail

/// The PNG file of Img (8-bit RGB, no interlace, filter 0 on every row).
inline std::vector<uint8_t> encodePng(const Image &Img) {
  std::vector<uint8_t> Out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<uint8_t> Header;
  detail::putBigEndian(Header, uint32_t(Img.width()));
  detail::putBigEndian(Header, uint32_t(Img.height()));
  Header.insert(Header.end(), {8, 2, 0, 0, 0}); // depth 8, RGB
  detail::putChunk(Out, "IHDR", Header);
  std::vector<uint8_t> Raw;
  Raw.reserve(size_t(Img.height()) * (3 * Img.width() + 1));
  for (int Y = 0; Y < Img.height(); ++Y) {
    Raw.push_back(0);
    for (int X = 0; X < Img.width(); ++X) {
      Rgb C = Img.get(X, Y);
      Raw.insert(Raw.end(), {C.R, C.G, C.B});
    }
  }
  detail::putChunk(Out, "IDAT", detail::zlibCompress(Raw));
  detail::putChunk(Out, "IEND", {});
  return Out;
}

/// Writes Img to Path as a PNG; throws std::runtime_error on failure.
inline void writePng(const std::string &Path, const Image &Img) {
  std::vector<uint8_t> Bytes = encodePng(Img);
  std::FILE *F = std::fopen(Path.c_str(), "wb");
  if (!F)
    throw std::runtime_error("cannot write " + Path);
  size_t N = std::fwrite(Bytes.data(), 1, Bytes.size(), F);
  if (std::fclose(F) != 0 || N != Bytes.size())
    throw std::runtime_error("cannot write " + Path);
}

} // namespace render
} // namespace meshad

#endif // MESHAD_RUNTIME_RENDER_PNG_H
