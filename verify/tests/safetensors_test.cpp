// Unit tests of the safetensors reader and writer against bytes made by hand from the
// format's specification, and of their errors on malformed files (the header's through its
// schema, verify/schema/safetensors-header.schema.json).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "refusal.hpp"
#include "rope2d/verify/codec/safetensors.hpp"

using namespace rope2d::verify;
namespace fs = std::filesystem;

namespace {

std::string temp(const char* name) { return (fs::temp_directory_path() / (std::string("rope2d_st_") + name)).string(); }

void write_bytes(const std::string& path, const std::string& header, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>(n >> (8 * i)));
  out << header << data;
}

std::string message(const std::string& path) {
  return refusal_of([&] { read_safetensors(path); }, "accepted");
}

}  // namespace

TEST(SafeTensors, ReadsHandMadeBytesFromTheSpecification) {
  // Two tensors: a 2-element F32 [1.0, -2.5] and a 1x2 BF16 [1.0, 2.0], with metadata.
  const std::string p = temp("hand");
  std::string data;
  const float f[2] = {1.0f, -2.5f};
  data.append(reinterpret_cast<const char*>(f), 8);
  data += std::string("\x80\x3f\x00\x40", 4);  // bf16 0x3f80 = 1.0, 0x4000 = 2.0 (little endian)
  write_bytes(p,
              R"({"__metadata__":{"k":"v"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
              R"("b":{"dtype":"BF16","shape":[1,2],"data_offsets":[8,12]}})",
              data);
  const SafeTensors st = read_safetensors(p);
  EXPECT_EQ(st.metadata.at("k"), "v");
  EXPECT_EQ(as_f32(st.tensors.at("a"), "a"), (std::vector<float>{1.0f, -2.5f}));
  const Tensor& b = st.tensors.at("b");
  EXPECT_EQ(b.shape, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(b.data, (std::vector<std::uint8_t>{0x80, 0x3f, 0x00, 0x40}));
  fs::remove(p);
}

TEST(SafeTensors, WritesWhatItReadsByteForByte) {
  SafeTensors st;
  st.tensors["x"] = Tensor{"F64", {3}, std::vector<std::uint8_t>(24, 7)};
  st.tensors["y"] = Tensor{"I32", {2, 1}, std::vector<std::uint8_t>(8, 1)};
  st.metadata["schema"] = "t";
  const std::string a = temp("a"), b = temp("b");
  write_safetensors(a, st);
  write_safetensors(b, read_safetensors(a));
  EXPECT_EQ(sha256_file(a), sha256_file(b));
  // The header is padded so the data starts 8-byte aligned, as the specification recommends.
  std::ifstream in(a, std::ios::binary);
  std::uint64_t n = 0;
  in.read(reinterpret_cast<char*>(&n), 8);
  EXPECT_EQ(n % 8, 0u);
  fs::remove(a);
  fs::remove(b);
}

TEST(SafeTensors, MalformedFilesAreRejectedWithTheReason) {
  const std::string p = temp("bad");
  write_bytes(p, "{not json", "");
  EXPECT_NE(message(p).find("not valid JSON"), std::string::npos);
  write_bytes(p, R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,8]}})", std::string(8, '\0'));
  EXPECT_NE(message(p).find("expected 16 bytes for shape [4] of F32, found 8"), std::string::npos);
  write_bytes(p, R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", std::string(4, '\0'));
  EXPECT_NE(message(p).find("data_offsets: expected 0 <= begin <= end <= 4"), std::string::npos);
  write_bytes(p, R"({"a":{"dtype":"Q7","shape":[2],"data_offsets":[0,8]}})", std::string(8, '\0'));
  EXPECT_NE(message(p).find("dtype: expected a safetensors dtype"), std::string::npos);
  write_bytes(p, R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
              std::string(8, '\0'));
  EXPECT_NE(message(p).find("overlap"), std::string::npos);
  // The header through its schema: each field of the expected type, none unknown, named as a
  // path with a name that is not plain text quoted.
  write_bytes(p, R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", std::string(8, '\0'));
  EXPECT_NE(message(p).find(": header: a.shape[0]: expected a size: an integer in [0, 2^62], found the number -2"), std::string::npos)
      << message(p);
  write_bytes(p, R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"crc":1}})", std::string(8, '\0'));
  EXPECT_NE(message(p).find("a.crc: expected only dtype, shape and data_offsets, found this field"), std::string::npos) << message(p);
  write_bytes(p, R"({"__metadata__":{"seed":7},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", std::string(8, '\0'));
  EXPECT_NE(message(p).find("__metadata__.seed: expected a string, found the number 7"), std::string::npos) << message(p);
  write_bytes(p, R"({"a\nb":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", std::string(8, '\0'));
  EXPECT_NE(message(p).find(R"("a\nb".shape[0]: expected a size)"), std::string::npos) << message(p);
  EXPECT_EQ(message(p).find('\n'), std::string::npos) << message(p);
  std::ofstream(p) << "abc";
  EXPECT_NE(message(p).find("shorter"), std::string::npos);
  EXPECT_NE(message(temp("missing")).find("cannot open"), std::string::npos);
  fs::remove(p);
}
