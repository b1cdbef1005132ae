// Reading and writing the safetensors format (8-byte little-endian header length, a JSON
// header {name: {dtype, shape, data_offsets}}, "__metadata__" of strings, then the raw data),
// so golden data loads in PyTorch, NumPy, JAX and C++ with tools users already have.
// Written files are byte-identical for identical contents (sorted keys, fixed padding).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "rope2d/ref/dtype.hpp"

namespace rope2d::verify {

struct Tensor {
  std::string dtype;  // BF16, F16, F32, F64, I32 (any safetensors dtype is read)
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> data;

  std::int64_t elements() const;
};

// A tensor holding the bytes of v (native little-endian layout).
template <class T>
Tensor make_tensor(std::string dtype, std::vector<std::int64_t> shape, const std::vector<T>& v) {
  Tensor t{std::move(dtype), std::move(shape), std::vector<std::uint8_t>(v.size() * sizeof(T))};
  if (!v.empty()) std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

struct SafeTensors {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, std::string> metadata;
};

inline constexpr std::uint64_t max_safetensors_bytes = 64ull << 30;   // one problem file
inline constexpr std::uint64_t max_safetensors_header = 100ull << 20;  // as the safetensors crate

int dtype_size(const std::string& dtype);  // bytes per element; 0 when unknown
const char* safetensors_dtype(ref::Dtype d);  // BF16, F16, F32


// Writes atomically (a uniquely named temporary file, every write checked, renamed into place).
// `stop`: as write_file_atomic's (asked between pieces of the write).
void write_safetensors(const std::string& path, const SafeTensors& st, const std::function<bool()>& stop = {});
// Throws std::invalid_argument naming the file and what is wrong (not a regular file, truncated,
// bad or duplicate header entries, unknown dtype, shape products overflowing, offsets out of
// range, overlapping or leaving gaps or trailing bytes, shape and size disagreeing).
SafeTensors read_safetensors(const std::string& path);

// Typed views; throw std::invalid_argument when the dtype differs.
std::vector<float> as_f32(const Tensor& t, const std::string& what);

// sha256 of a file, lowercase hex.
std::string sha256_file(const std::string& path);
// The same of bytes in memory (a file read once, beneath its folder).
std::string sha256_bytes(std::string_view bytes);

// "[2, 3, 128]": a shape in messages.
std::string shape_str(const std::vector<std::int64_t>& shape);

}  // namespace rope2d::verify
