// safetensors reader and writer, and file checksums.
#include "rope2d/verify/safetensors.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace rope2d::verify {

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

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::int64_t Tensor::elements() const {
  std::int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

void write_safetensors(const std::string& path, const SafeTensors& st) {
  nlohmann::json header = nlohmann::json::object();
  std::uint64_t offset = 0;
  for (const auto& [name, t] : st.tensors) {
    if (static_cast<std::int64_t>(t.data.size()) != t.elements() * dtype_size(t.dtype))
      throw std::runtime_error(path + ": tensor " + name + " holds " + std::to_string(t.data.size()) +
                               " bytes, its shape needs " + std::to_string(t.elements() * dtype_size(t.dtype)));
    header[name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.data.size()}}};
    offset += t.data.size();
  }
  if (!st.metadata.empty()) header["__metadata__"] = st.metadata;
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // data starts 8-byte aligned
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(tmp + ": cannot create");
    const std::uint64_t n = text.size();
    unsigned char len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(n >> (8 * i));
    out.write(reinterpret_cast<const char*>(len), 8);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    for (const auto& [name, t] : st.tensors) out.write(reinterpret_cast<const char*>(t.data.data()), t.data.size());
    if (!out.flush()) throw std::runtime_error(tmp + ": write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error(path + ": cannot rename into place");
}

SafeTensors read_safetensors(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot open");
  in.seekg(0, std::ios::end);
  const std::uint64_t size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  if (size < 8) bad(path, "shorter than its 8-byte header length");
  unsigned char len[8];
  in.read(reinterpret_cast<char*>(len), 8);
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(len[i]) << (8 * i);
  if (n > size - 8 || n > (100u << 20)) bad(path, "header length " + std::to_string(n) + " exceeds the file");
  std::string text(n, '\0');
  in.read(text.data(), static_cast<std::streamsize>(n));
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    bad(path, std::string("header is not JSON: ") + e.what());
  }
  if (!header.is_object()) bad(path, "header is not a JSON object");
  const std::uint64_t data_size = size - 8 - n;
  SafeTensors st;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  for (const auto& [name, v] : header.items()) {
    if (name == "__metadata__") {
      if (!v.is_object()) bad(path, "__metadata__ is not an object");
      for (const auto& [k, s] : v.items()) {
        if (!s.is_string()) bad(path, "__metadata__." + k + " is not a string");
        st.metadata[k] = s.get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor '" + name + "': ";
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets"))
      bad(path, where + "expected dtype, shape and data_offsets");
    Tensor t;
    if (!v["dtype"].is_string() || dtype_size(v["dtype"].get<std::string>()) == 0)
      bad(path, where + "unknown dtype " + v["dtype"].dump());
    t.dtype = v["dtype"].get<std::string>();
    if (!v["shape"].is_array()) bad(path, where + "shape is not an array");
    for (const auto& d : v["shape"]) {
      if (!d.is_number_unsigned()) bad(path, where + "shape entry " + d.dump() + " is not a non-negative integer");
      t.shape.push_back(d.get<std::int64_t>());
    }
    const auto& off = v["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      bad(path, where + "data_offsets is not [begin, end]");
    const std::uint64_t b = off[0].get<std::uint64_t>(), e = off[1].get<std::uint64_t>();
    if (b > e || e > data_size)
      bad(path, where + "data_offsets [" + std::to_string(b) + ", " + std::to_string(e) + "] outside the " +
                    std::to_string(data_size) + " data bytes");
    if (static_cast<std::int64_t>(e - b) != t.elements() * dtype_size(t.dtype))
      bad(path, where + "shape needs " + std::to_string(t.elements() * dtype_size(t.dtype)) + " bytes, offsets give " +
                    std::to_string(e - b));
    t.data.resize(e - b);
    in.seekg(static_cast<std::streamoff>(8 + n + b));
    in.read(reinterpret_cast<char*>(t.data.data()), static_cast<std::streamsize>(e - b));
    if (!in) bad(path, where + "data truncated");
    spans.push_back({b, e});
    st.tensors[name] = std::move(t);
  }
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second) bad(path, "tensors overlap");
  return st;
}

std::vector<float> as_f32(const Tensor& t, const std::string& what) {
  if (t.dtype != "F32") throw std::invalid_argument(what + ": expected dtype F32, found " + t.dtype);
  std::vector<float> v(t.elements());
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot open");
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    EVP_DigestUpdate(ctx, buf.data(), static_cast<std::size_t>(in.gcount()));
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_DigestFinal_ex(ctx, md, &len);
  EVP_MD_CTX_free(ctx);
  static const char* hexd = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < len; ++i) s += {hexd[md[i] >> 4], hexd[md[i] & 15]};
  return s;
}

}  // namespace rope2d::verify
