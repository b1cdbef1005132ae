// safetensors reader and writer, and file checksums. The header is read through the one reader
// and its schema (verify/schema/safetensors-header.schema.json); the rest is checked here.
#include "rope2d/verify/codec/safetensors.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "codec/atomic_file.hpp"
#include "codec/input.hpp"
#include "codec/json_schema.hpp"

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

// One tensor's entry, its types and ranges already checked by the header's schema; here what
// a schema cannot say: a name, the bytes its shape needs and where they lie in the data.
Tensor read_entry(const InputFile& in, const std::string& where, const std::string& name, const nlohmann::json& v,
                  std::uint64_t data_start, std::uint64_t data_size, std::vector<std::pair<std::uint64_t, std::uint64_t>>& spans) {
  const std::string field = field_name(name);
  if (name.empty()) bad(in.path(), "a tensor with an empty name");
  Tensor t{v["dtype"].get<std::string>(), v["shape"].get<std::vector<std::int64_t>>(), {}};
  const std::int64_t bytes = checked_mul(checked_product(t.shape, where + ": " + field + ".shape"), dtype_size(t.dtype),
                                         where + ": " + field + ".shape");
  const std::uint64_t b = v["data_offsets"][0].get<std::uint64_t>(), e = v["data_offsets"][1].get<std::uint64_t>();
  if (b > e || e > data_size)
    bad_input(where, field + ".data_offsets", "0 <= begin <= end <= " + std::to_string(data_size) + " (the data bytes)",
              "[" + std::to_string(b) + ", " + std::to_string(e) + "]");
  if (e - b != static_cast<std::uint64_t>(bytes))
    bad_input(where, field, std::to_string(bytes) + " bytes for shape " + shape_str(t.shape) + " of " + t.dtype,
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
  // Through the one reader: bounded depth, no duplicate keys, then the header's schema.
  const std::string where = path + ": header";
  const nlohmann::json header = read_json_text(text, where, JsonFormat::safetensors_header);
  const std::uint64_t data_size = size - 8 - n;
  SafeTensors st;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  for (const auto& [name, v] : header.items()) {
    if (name == "__metadata__") st.metadata = v.get<std::map<std::string, std::string>>();
    else st.tensors[name] = read_entry(in, where, name, v, 8 + n, data_size, spans);
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
