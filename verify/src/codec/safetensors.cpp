// safetensors reader and writer, and file checksums.
#include "rope2d/verify/codec/safetensors.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "codec/input.hpp"
#include "codec/atomic_file.hpp"

namespace rope2d::verify {

std::string shape_str(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw std::invalid_argument(path + ": not a valid safetensors file: " + what);
}

}  // namespace

int dtype_size(const std::string& d) {
  if (d == "F64" || d == "I64" || d == "U64") return 8;
  if (d == "F32" || d == "I32" || d == "U32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
  if (d == "I8" || d == "U8" || d == "BOOL" || d == "F8_E4M3" || d == "F8_E5M2") return 1;
  return 0;
}

const char* safetensors_dtype(ref::Dtype d) { return ref::safetensors_name(d).data(); }

std::int64_t Tensor::elements() const { return checked_product(shape, "tensor shape " + shape_str(shape)); }

void write_safetensors(const std::string& path, const SafeTensors& st, const std::function<bool()>& stop) {
  nlohmann::json header = nlohmann::json::object();
  std::uint64_t offset = 0;
  for (const auto& [name, t] : st.tensors) {
    const std::int64_t need = checked_mul(t.elements(), dtype_size(t.dtype), path + ": tensor " + name);
    if (static_cast<std::int64_t>(t.data.size()) != need)
      throw std::runtime_error(path + ": tensor " + name + " holds " + std::to_string(t.data.size()) +
                               " bytes, its shape needs " + std::to_string(need));
    header[name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.data.size()}}};
    offset += t.data.size();
  }
  if (!st.metadata.empty()) header["__metadata__"] = st.metadata;
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // data starts 8-byte aligned
  const std::uint64_t n = text.size();
  char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<char>(n >> (8 * i));
  std::vector<std::string_view> parts{std::string_view(len, 8), text};
  for (const auto& [name, t] : st.tensors)
    parts.emplace_back(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  write_file_atomic(path, parts, stop);
}

namespace {

Tensor read_entry(const InputFile& in, const std::string& name, const nlohmann::json& v, std::uint64_t data_start,
                  std::uint64_t data_size, std::vector<std::pair<std::uint64_t, std::uint64_t>>& spans) {
  const std::string& path = in.path();
  const std::string where = "tensor " + brief(nlohmann::json(name)).substr(11);
  if (name.empty()) bad(path, "a tensor with an empty name");
  if (!v.is_object() || v.size() != 3 || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets"))
    bad_input(path, where, "an object of dtype, shape and data_offsets", brief(v));
  Tensor t;
  if (!v["dtype"].is_string()) bad_input(path, where + ".dtype", "a string", brief(v["dtype"]));
  t.dtype = v["dtype"].get<std::string>();
  if (dtype_size(t.dtype) == 0) bad_input(path, where + ".dtype", "a safetensors dtype (BF16, F16, F32, F64, I32, ...)", brief(v["dtype"]));
  const auto& shape = v["shape"];
  if (!shape.is_array() || shape.size() > 8) bad_input(path, where + ".shape", "an array of at most 8 sizes", brief(shape));
  for (const auto& d : shape) {
    if (!d.is_number_unsigned() || d.get<std::uint64_t>() > (std::uint64_t{1} << 62))
      bad_input(path, where + ".shape", "non-negative integers below 2^62", brief(d));
    t.shape.push_back(d.get<std::int64_t>());
  }
  const std::int64_t bytes = checked_mul(checked_product(t.shape, path + ": " + where + ".shape"),
                                         dtype_size(t.dtype), path + ": " + where + ".shape");
  const auto& off = v["data_offsets"];
  if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
    bad_input(path, where + ".data_offsets", "[begin, end] of non-negative integers", brief(off));
  const std::uint64_t b = off[0].get<std::uint64_t>(), e = off[1].get<std::uint64_t>();
  if (b > e || e > data_size)
    bad_input(path, where + ".data_offsets", "0 <= begin <= end <= " + std::to_string(data_size) + " (the data bytes)",
              "[" + std::to_string(b) + ", " + std::to_string(e) + "]");
  if (e - b != static_cast<std::uint64_t>(bytes))
    bad_input(path, where, std::to_string(bytes) + " bytes for shape " + shape_str(t.shape) + " of " + t.dtype,
              std::to_string(e - b) + " between its data_offsets");
  t.data.resize(e - b);
  in.read_at(data_start + b, t.data.data(), e - b);
  spans.push_back({b, e});
  return t;
}

}  // namespace

SafeTensors read_safetensors(const std::string& path) {
  const InputFile in(path, max_safetensors_bytes);
  const std::uint64_t size = in.size();
  if (size < 8) bad(path, "shorter than its 8-byte header length");
  unsigned char len[8];
  in.read_at(0, len, 8);
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(len[i]) << (8 * i);
  if (n < 2 || n > size - 8 || n > max_safetensors_header)
    bad_input(path, "header length", "at least 2 and at most " + std::to_string(std::min<std::uint64_t>(size - 8, max_safetensors_header)) + " bytes",
              std::to_string(n));
  std::string text(n, '\0');
  in.read_at(8, text.data(), n);
  if (text[0] != '{') bad_input(path, "header", "a JSON object", "text starting with byte " + std::to_string(static_cast<unsigned char>(text[0])));
  // {name: {dtype, shape: [...], data_offsets: [...]}}: three levels.
  const nlohmann::json header = parse_json(text, path + ": header", 3);
  if (!header.is_object()) bad(path, "header is not a JSON object");
  const std::uint64_t data_size = size - 8 - n;
  SafeTensors st;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  for (const auto& [name, v] : header.items()) {
    if (name == "__metadata__") {
      if (!v.is_object()) bad_input(path, "__metadata__", "an object of strings", brief(v));
      for (const auto& [k, s] : v.items()) {
        if (!s.is_string()) bad_input(path, "__metadata__." + brief(nlohmann::json(k)).substr(11), "a string", brief(s));
        st.metadata[k] = s.get<std::string>();
      }
      continue;
    }
    st.tensors[name] = read_entry(in, name, v, 8 + n, data_size, spans);
  }
  // The data is exactly the tensors, back to back: no overlap, no gap, nothing after.
  std::sort(spans.begin(), spans.end());
  std::uint64_t at = 0;
  for (const auto& [b, e] : spans) {
    if (b < at) bad(path, "tensors overlap at data byte " + std::to_string(b));
    if (b > at) bad(path, "a gap of " + std::to_string(b - at) + " unused data bytes at " + std::to_string(at));
    at = e;
  }
  if (at != data_size) bad(path, std::to_string(data_size - at) + " trailing bytes after the last tensor");
  return st;
}

std::vector<float> as_f32(const Tensor& t, const std::string& what) {
  if (t.dtype != "F32") throw std::invalid_argument(what + ": expected dtype F32, found " + t.dtype);
  std::vector<float> v(t.elements());
  if (t.data.size() != v.size() * sizeof(float)) throw std::invalid_argument(what + ": tensor bytes disagree with its shape");
  if (!v.empty()) std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

namespace {

std::string hex_digest(const unsigned char* md, unsigned len) {
  static const char* hexd = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < len; ++i) s += {hexd[md[i] >> 4], hexd[md[i] & 15]};
  return s;
}

}  // namespace

std::string sha256_file(const std::string& path) {
  const InputFile in(path, max_safetensors_bytes);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  std::vector<char> buf(1 << 20);
  try {
    for (std::uint64_t at = 0; at < in.size();) {
      const std::uint64_t k = std::min<std::uint64_t>(buf.size(), in.size() - at);
      in.read_at(at, buf.data(), k);
      EVP_DigestUpdate(ctx, buf.data(), k);
      at += k;
    }
  } catch (...) {
    EVP_MD_CTX_free(ctx);
    throw;
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_DigestFinal_ex(ctx, md, &len);
  EVP_MD_CTX_free(ctx);
  return hex_digest(md, len);
}

std::string sha256_bytes(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr);
  return hex_digest(md, len);
}

}  // namespace rope2d::verify
